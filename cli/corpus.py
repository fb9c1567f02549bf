"""`seqspectral corpus ...`: inspect corpora."""

from __future__ import annotations

import json

from ._common import add_reading_options, leaf_parser, read_input, reading_of

HELP = "inspect corpora"


def register(sub) -> None:
    p = sub.add_parser("corpus", help=HELP)
    csub = p.add_subparsers(dest="corpus_command", metavar="SUBCOMMAND")
    csub.required = True
    stats = leaf_parser(csub, "stats", help="sequences, tokens, vocabulary size, lengths (treebanks: non-projective "
                                            "sentences, several root attachments)")
    stats.add_argument("files", nargs="+", metavar="FILE",
                       help="corpus files, - for standard input, or the Brown corpus (brown.zip or an NLTK data "
                            "directory); several files: one line (JSON object) each")
    add_reading_options(stats)
    stats.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    stats.set_defaults(handler=run_stats)


def run_stats(args) -> int:
    from seqspectral.corpus import describe

    for i, path in enumerate(args.files):
        corpus, n_skipped, fmt = read_input(path, reading_of(args), empty_ok=True)
        result = {"file": path, "format": fmt, **describe(corpus), "n_skipped": n_skipped}
        if args.json:
            print(json.dumps(result))
            continue
        if i:
            print()
        for key, value in result.items():
            print(f"{key:16s} {value}")
    return 0
