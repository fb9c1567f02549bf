"""`seqspectral show FILE`: dependency trees to look at, in the terminal or as an HTML page
(phrase-structure trees of a bracketed file: cli/_show_phrase.py)."""

from __future__ import annotations

import sys

from ._common import STDIN, add_treebank_options, leaf_parser, positive_int, read_treebank

HELP = ("draw dependency trees (and how n-best candidates differ), or phrase-structure trees, in the terminal or as "
        "an HTML page")


def register(sub) -> None:
    p = leaf_parser(sub, "show", help=HELP,
                    description="Draw the trees of a treebank or an n-best file (candidates carrying # nbest_rank) "
                                "as text, or write them as one self-contained HTML page (no network needed). For "
                                "n-best lists, the words whose head differs from the first candidate are marked "
                                "(* in text, orange in HTML), whose tag differs ^; with --gold, the words whose head or tag is "
                                "wrong (✗, red).")
    p.add_argument("input", metavar="FILE", help="a treebank or an n-best file (- for standard input), or bracketed "
                                                 "phrase-structure trees (.mrg, detected by their first lines, "
                                                 "or --format bracketed)")
    p.add_argument("--sent-id", action="append", default=None, metavar="ID",
                   help="show only the sentence with this # sent_id (repeatable)")
    p.add_argument("--gold", metavar="GOLD", default=None, help="the gold trees of the same sentences (matched by "
                                                                 "sent_id, else by position)")
    p.add_argument("--html", metavar="OUT.html", default=None, help="write an HTML page instead of drawing text")
    p.add_argument("--max-candidates", type=positive_int, default=None, metavar="K",
                   help="show at most the first K candidates of each n-best list")
    p.add_argument("--limit", type=positive_int, default=None, metavar="N", help="show at most N sentences")
    add_treebank_options(p, phrase=True)
    p.set_defaults(handler=run_show)


def run_show(args) -> int:
    from seqspectral.bounds import check_sentences
    from seqspectral.display import difference, draw_tree, html_page, shown_items
    from seqspectral.display.text import gutter
    from seqspectral.io import atomic_write_text, check_output_path

    from ._show_phrase import bracketed_input, run_show_phrase
    from .main import UsageError

    if bracketed_input(args):  # phrase-structure trees (issue 37)
        return run_show_phrase(args)
    if args.html is not None:
        check_output_path(args.html)
    gold = read_treebank(args.gold, args) if args.gold is not None else None
    shown = read_treebank(args.input, args, nbest=True)  # n-best lists: their candidates are shown
    check_sentences(shown, "<stdin>" if args.input == STDIN else args.input, "drawn_words")
    try:
        items = shown_items(shown, gold)
    except ValueError as e:
        raise UsageError(f"{args.gold}: {e}") from None
    if args.sent_id is not None:
        wanted = set(args.sent_id)
        missing = wanted - {item.sent_id for item in items}
        if missing:
            raise UsageError(f"{args.input}: no sentence with sent_id {', '.join(sorted(missing))}")
        items = [item for item in items if item.sent_id in wanted]
    items = items[:args.limit]
    for item in items:
        if item.scores is not None and args.max_candidates:
            del item.candidates[args.max_candidates:], item.scores[args.max_candidates:]
    if args.html is not None:
        try:
            page = html_page(items, f"{args.input}" + (f" against {args.gold}" if args.gold else ""))
        except ValueError as e:
            raise UsageError(f"{args.gold}: {e}") from None
        atomic_write_text(args.html, page)
        if not args.quiet:
            print(f"seqspectral: {len(items)} sentences; wrote {args.html}", file=sys.stderr)
        return 0
    for item in items:
        print(f"# sent_id = {item.sent_id}")
        if item.gold is not None and len(item.gold) != len(item.candidates[0]):
            raise UsageError(f"{args.gold}: sentence {item.sent_id}: gold has {len(item.gold)} words, "
                             f"{args.input} {len(item.candidates[0])}")
        width = max(len(gutter(c.heads)[0]) if len(c) else 0 for c in item.candidates)
        for rank, candidate in enumerate(item.candidates, 1):
            against = difference(candidate, item.candidates[0]) if item.scores is not None else None
            wrong = difference(candidate, item.gold) if item.gold is not None else None
            if item.scores is not None:
                notes = [f"rank {rank}", f"score {item.scores[rank - 1]:.4g}"]
                if rank > 1:
                    notes.append(f"differs from 1 (*^): {against.summary()}")
                if wrong is not None:
                    notes.append(f"wrong (✗): {wrong.summary()}")
                print(f"# {', '.join(notes)}")
            elif wrong is not None:
                print(f"# wrong (✗): {wrong.summary()}")
            print(draw_tree(candidate, against, wrong, width))
        print()
    return 0
