"""`seqspectral evaluate brackets GOLD TEST`: labelled bracket scores of phrase-structure trees
as EVALB computes them (:mod:`seqspectral.constituency.evalb`)."""

from __future__ import annotations

import json

from ._common import leaf_parser, text_encoding

HELP = ("labelled precision, recall, F1, complete match, crossing brackets and tagging accuracy of bracketed trees, "
        "as EVALB computes them with COLLINS.prm (all sentences and those of at most 40 words)")


def register(esub) -> None:
    b = leaf_parser(esub, "brackets", help=HELP)
    b.add_argument("gold", metavar="GOLD", help="gold trees, Penn Treebank brackets (a file, a folder or zip of .mrg "
                                                "files; - for standard input)")
    b.add_argument("test", metavar="TEST", help="the same sentences parsed, in the same order")
    b.add_argument("--param", metavar="FILE", default=None,
                   help="an EVALB parameter file (.prm) to use instead of COLLINS.prm (QUOTE_LABEL is not supported)")
    b.add_argument("--keep-root", action="store_true",
                   help="score a root bracket with no label or labelled ROOT as EVALB itself does (as a bracket); by "
                        "default it is read as TOP, which COLLINS.prm deletes: the root is ignored")
    b.add_argument("--report", action="store_true",
                   help="print EVALB's own report: one line a sentence and both summaries, byte for byte as EVALB")
    b.add_argument("--json", action="store_true", help="print one JSON object (all sentences and len<=cut-off)")
    b.add_argument("--encoding", default="utf-8", metavar="NAME", type=text_encoding,
                   help="text encoding of both files (default utf-8)")
    b.add_argument("--quiet", action="store_true", help="no notes on standard error")
    b.set_defaults(handler=run_brackets)


def run_brackets(args) -> int:
    from seqspectral.constituency.evalb import COLLINS, evalb, read_parameter_file, report
    from seqspectral.corpus.bracketed import read_bracketed

    from ._common import note
    from .main import UsageError

    params = read_parameter_file(args.param) if args.param else COLLINS
    as_written = dict(remove_empty=False, strip_functions=False, collapse_unary=False, root_label=None)
    gold = read_bracketed(args.gold, encoding=args.encoding, **as_written)
    test = read_bracketed(args.test, encoding=args.encoding, **as_written)
    if len(gold) != len(test):
        raise UsageError(f"{args.gold} has {len(gold)} trees but {args.test} has {len(test)}; the test file must "
                         f"have one tree for each gold tree, in the same order")
    result = evalb(gold, test, params, top_root=not args.keep_root)
    if not args.quiet:
        for i, s in enumerate(result.sentences):
            if s.status == 1:
                note(f"{test.origins[i][0]}:{test.origins[i][1]}: sentence {i + 1} not scored: {s.error}")
    if args.report:
        print(report(result), end="")
    elif args.json:
        print(json.dumps(result.to_json()))
    else:
        _print_summary(result)
    return 0


def _print_summary(result) -> None:
    parts = (("all", result.all), (f"len<={result.cutoff}", result.cut))
    print(f"{'':18s}" + "".join(f"{name:>12s}" for name, _ in parts))
    figures = [s.figures() for _, s in parts]
    for key in ("recall", "precision", "f1", "complete_match", "tagging_accuracy", "average_crossing"):
        print(f"{key:18s}" + "".join(f"{f[key]:12.2f}" for f in figures))
    for key in ("n_sentences", "n_valid", "n_error", "n_skipped", "gold_brackets", "test_brackets", "matched",
                "words"):
        print(f"{key:18s}" + "".join(f"{s.to_json()[key]:12d}" for _, s in parts))
