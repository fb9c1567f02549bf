"""`seqspectral evaluate parse GOLD PRED`: attachment scores."""

from __future__ import annotations

import json

from ._common import leaf_parser

HELP = "score predictions against gold annotation (evaluate parse: UAS, LAS, complete match)"


def register(sub) -> None:
    p = sub.add_parser("evaluate", help=HELP)
    esub = p.add_subparsers(dest="evaluate_command", metavar="SUBCOMMAND")
    esub.required = True
    e = leaf_parser(esub, "parse", help="UAS, LAS and complete match of predicted trees")
    e.add_argument("gold", metavar="GOLD.conllu", help="gold treebank")
    e.add_argument("pred", metavar="PRED.conllu", help="the same sentences with predicted HEAD and DEPREL")
    e.add_argument("--no-punct", action="store_true", help="leave out words whose gold UPOS is PUNCT")
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.set_defaults(handler=run_parse)


def run_parse(args) -> int:
    from seqspectral.corpus import read_conllu
    from seqspectral.parsing import attachment_scores

    scores = attachment_scores(read_conllu(args.gold), read_conllu(args.pred), punct=not args.no_punct,
                               names=(args.gold, args.pred))
    if args.json:
        print(json.dumps({"uas": scores["uas"], "las": scores["las"], "complete": scores["complete"],
                          "n_sentences": scores["n_sentences"], "n_words": scores["n_words"]}))
    else:
        for key in ("uas", "las", "complete", "complete_labeled"):
            print(f"{key:18s}{scores[key]:.2f}")
        print(f"{'n_sentences':18s}{scores['n_sentences']}")
        print(f"{'n_words':18s}{scores['n_words']}")
    return 0
