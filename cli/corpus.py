"""`seqspectral corpus ...`: inspect corpora."""

from __future__ import annotations

import json
import sys


def register(sub) -> None:
    p = sub.add_parser("corpus", help="inspect corpora")
    csub = p.add_subparsers(dest="corpus_command", metavar="SUBCOMMAND")
    csub.required = True
    stats = csub.add_parser("stats", help="sequences, tokens, vocabulary size, lengths")
    stats.add_argument("file", help="a corpus file (or the Brown corpus: brown.zip / an NLTK data directory)")
    stats.add_argument("--format", default="auto", choices=["auto", "conllu", "conllx", "malttab", "pautomac", "text", "brown"])
    stats.add_argument("--field", default="upos", choices=["upos", "xpos", "form", "lemma", "deprel"])
    stats.add_argument("--tagset", default=None, choices=["universal12"])
    stats.add_argument("--errors", default="raise", choices=["raise", "skip"],
                       help="skip: drop malformed records (their count is reported) instead of failing")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.set_defaults(handler=run_stats)


def run_stats(args) -> int:
    import warnings

    import numpy as np

    from seqspectral.corpus.errors import SkippedRecordsWarning
    from seqspectral.corpus.readers import detect_format, read_corpus

    fmt = detect_format(args.file) if args.format == "auto" else args.format
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SkippedRecordsWarning)
        corpus = read_corpus(args.file, format=fmt, field=args.field, tagset=args.tagset, errors=args.errors)
    skipped = sum(w.message.n_skipped for w in caught if isinstance(w.message, SkippedRecordsWarning))
    for w in caught:
        print(f"seqspectral: warning: {w.message}", file=sys.stderr)
    lengths = corpus.lengths
    result = {
        "file": args.file,
        "format": fmt,
        "n_sequences": len(corpus),
        "n_tokens": corpus.n_tokens,
        "vocabulary_size": len(np.unique(corpus.symbols)),
        "length_min": int(lengths.min()) if len(lengths) else 0,
        "length_median": float(np.median(lengths)) if len(lengths) else 0.0,
        "length_max": int(lengths.max()) if len(lengths) else 0,
        "n_skipped": skipped,
    }
    if corpus.heads is not None:
        from seqspectral.corpus.trees import is_projective

        result["n_nonprojective"] = sum(
            not is_projective(corpus.heads[a:b]) for a, b in zip(corpus.offsets[:-1], corpus.offsets[1:])
        )
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:16s} {value}")
    return 0
