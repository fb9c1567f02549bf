"""`seqspectral evaluate parse|tag|brackets GOLD PRED`: attachment scores (of a file of trees, or the
1-best and oracle figures of an n-best file), tagging accuracy, and EVALB's bracket scores
(`brackets`, in cli/_evaluate_brackets.py)."""

from __future__ import annotations

import json

from ._common import _local_file, add_treebank_options, leaf_parser, note, read_treebank, treebank_reading

HELP = ("score predictions against gold annotation (parse: UAS, LAS, complete match, n-best oracle; tag: accuracy; "
        "brackets: EVALB's labelled F1 of phrase-structure trees)")


def register(sub) -> None:
    p = sub.add_parser("evaluate", help=HELP)
    esub = p.add_subparsers(dest="evaluate_command", metavar="SUBCOMMAND")
    esub.required = True
    e = leaf_parser(esub, "parse", help="UAS, LAS (overall and per gold relation), complete match of predicted "
                                        "trees; of an n-best file, the 1-best and the oracle (best-in-list) figures")
    e.add_argument("gold", metavar="GOLD", help="gold treebank (CoNLL-U, CoNLL-X or Malt-TAB; - for standard input)")
    e.add_argument("pred", metavar="PRED", help="the same sentences with predicted HEAD and DEPREL, or their n-best "
                                                "lists (parse run -k K), read one candidate at a time")
    e.add_argument("--no-punct", action="store_true",
                   help="leave out punctuation: gold UPOS PUNCT in CoNLL-U with UD tags; otherwise (CoNLL-X, Malt-TAB, "
                        "CoNLL-U with other tags) words made of punctuation characters only (the CoNLL-X eval.pl "
                        "rule)")
    e.add_argument("--json", action="store_true", help="print one JSON object (with per_relation)")
    add_treebank_options(e)
    e.set_defaults(handler=run_parse)

    t = leaf_parser(esub, "tag", help="tagging accuracy (per word, whole sentences, per gold tag)")
    t.add_argument("gold", metavar="GOLD", help="gold sentences")
    t.add_argument("pred", metavar="PRED", help="the same sentences with predicted tags (tag run)")
    t.add_argument("--field", default="upos", choices=("upos", "xpos"), help="the tag column (default upos)")
    t.add_argument("--json", action="store_true", help="print one JSON object (with per_tag)")
    add_treebank_options(t)
    t.set_defaults(handler=run_tag)

    from . import _evaluate_brackets  # phrase-structure trees (issue 37)

    _evaluate_brackets.register(esub)


def _is_nbest(path: str, encoding: str) -> bool:
    """Whether ``path`` begins with an n-best candidate (a ``# nbest_rank`` comment before its first word)."""
    with open(path, encoding=encoding, errors="replace") as f:
        for line in f:
            if line.startswith("# nbest_rank"):
                return True
            if line.strip() and not line.startswith("#"):
                return False
    return False


def run_parse(args) -> int:
    from seqspectral.treebank_scores import attachment_scores, nbest_scores

    reading = treebank_reading(args)
    gold = read_treebank(args.gold, args, reading=reading)
    if not args.quiet and all(d == "_" for s in gold for d in s.deprels):
        note(f"{args.gold} has no DEPREL: LAS is UAS")
    by = _punctuation_rule(gold)
    if args.no_punct and by == "form" and _is_conllu(gold) and not args.quiet:
        note(f"{args.gold} has no UPOS PUNCT (not UD tags): punctuation is words made of punctuation characters only")
    names = (args.gold, args.pred)
    with _local_file(args.pred) as pred:
        if _is_nbest(pred, reading.encoding):
            result = nbest_scores(gold, pred, punct=not args.no_punct, by=by, encoding=reading.encoding, names=names)
        else:
            result = attachment_scores(gold, read_treebank(pred, args, reading=reading, name=args.pred),
                                       punct=not args.no_punct, by=by, names=names)
    if args.json:
        print(json.dumps(result))
    elif "oracle" in result:
        print(f"{result['n_lists']} n-best lists, {result['mean_candidates']:.2f} candidates on average")
        print(f"{'':18s}{'1-best':>8s}{'oracle':>8s}")
        for key in ("uas", "las", "complete", "complete_labeled"):
            print(f"{key:18s}{result['one_best'][key]:8.2f}{result['oracle'][key]:8.2f}")
        print(f"{'n_words':18s}{result['one_best']['n_words']:8d}")
    else:
        _print_table(result)
    return 0


def _is_conllu(gold) -> bool:
    source = gold[0].source
    return source is None or source.format == "conllu"


def _punctuation_rule(gold) -> str:
    """UD's (gold UPOS PUNCT) for CoNLL-U with UD tags; else the CoNLL-X eval.pl rule (the form)."""
    return "upos" if _is_conllu(gold) and any(u == "PUNCT" for s in gold for u in s.upos) else "form"


def _print_table(result: dict) -> None:
    for key in ("uas", "las", "complete", "complete_labeled"):
        print(f"{key:18s}{result[key]:.2f}")
    print(f"{'n_sentences':18s}{result['n_sentences']}")
    print(f"{'n_words':18s}{result['n_words']}")
    if set(result["per_relation"]) <= {"_"}:  # no gold relations: nothing to break down
        return
    print("LAS per gold relation (n, UAS, LAS):")
    for rel, r in sorted(result["per_relation"].items(), key=lambda item: -item[1]["n"]):
        print(f"  {rel:16s}{r['n']:7d}{r['uas']:8.2f}{r['las']:8.2f}")


def run_tag(args) -> int:
    from seqspectral.treebank_scores import tag_scores

    reading = treebank_reading(args)
    result = tag_scores(read_treebank(args.gold, args, heads_required=False, reading=reading),
                        read_treebank(args.pred, args, heads_required=False, reading=reading), args.field,
                        names=(args.gold, args.pred))
    if args.json:
        print(json.dumps(result))
        return 0
    for key in ("accuracy", "complete"):
        print(f"{key:18s}{result[key]:.2f}")
    print(f"{'n_sentences':18s}{result['n_sentences']}")
    print(f"{'n_words':18s}{result['n_words']}")
    print(f"accuracy per gold {args.field.upper()} tag (n, accuracy):")
    for tag, r in sorted(result["per_tag"].items(), key=lambda item: -item[1]["n"]):
        print(f"  {tag:16s}{r['n']:7d}{r['accuracy']:8.2f}")
    return 0
