"""`seqspectral corpus ...`: inspect corpora."""

from __future__ import annotations

import json


def register(sub) -> None:
    p = sub.add_parser("corpus", help="inspect corpora")
    csub = p.add_subparsers(dest="corpus_command", metavar="SUBCOMMAND")
    csub.required = True
    stats = csub.add_parser("stats", help="sequences, tokens, vocabulary size, lengths")
    stats.add_argument("file")
    stats.add_argument("--format", default="auto")
    stats.add_argument("--field", default="upos", choices=["upos", "xpos", "form"])
    stats.add_argument("--tagset", default=None)
    stats.add_argument("--json", action="store_true")
    stats.set_defaults(handler=run_stats)


def run_stats(args) -> int:
    import numpy as np

    from seqspectral.corpus.readers import read_corpus

    corpus = read_corpus(args.file, format=args.format, field=args.field, tagset=args.tagset)
    lengths = corpus.lengths
    observed = len(np.unique(corpus.symbols))
    result = {
        "file": args.file,
        "n_sequences": len(corpus),
        "n_tokens": corpus.n_tokens,
        "vocabulary_size": observed,
        "length_min": int(lengths.min()) if len(lengths) else 0,
        "length_median": float(np.median(lengths)) if len(lengths) else 0.0,
        "length_max": int(lengths.max()) if len(lengths) else 0,
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:16s} {value}")
    return 0
