"""`seqspectral show` of phrase-structure trees (bracketed files): drawn in the terminal or
written as an HTML page; with ``--gold``, the constituents gold lacks marked."""

from __future__ import annotations

import os
import sys


def bracketed_input(args) -> bool:
    """Whether ``show``'s input is bracketed trees: ``--format bracketed``, or ``auto`` and a
    file detected so, or standard input whose first character (after blanks and a byte-order
    mark) is ``(`` (looked at without consuming it)."""
    from seqspectral.corpus import detect

    if args.format != "auto":
        return args.format == "bracketed"
    if args.input == "-":
        peek = getattr(sys.stdin.buffer, "peek", None)
        return peek is not None and peek(1 << 12).removeprefix(b"\xef\xbb\xbf").lstrip()[:1] == b"("
    return os.path.exists(args.input) and detect(args.input, args.encoding or "utf-8").format == "bracketed"


def run_show_phrase(args) -> int:
    from seqspectral.bounds import check_sentences
    from seqspectral.corpus.bracketed import read_bracketed
    from seqspectral.display.phrase_compare import bracket_difference
    from seqspectral.display.phrase_html import phrase_html_page
    from seqspectral.display.phrase_text import WRONG, draw_phrase_tree
    from seqspectral.io import atomic_write_text, check_output_path

    from .main import UsageError

    if args.html is not None:
        check_output_path(args.html)
    encoding = args.encoding or "utf-8"
    trees = read_bracketed(args.input, encoding=encoding, errors=args.errors)
    check_sentences([tree.leaves() for tree in trees], args.input, "drawn_words")
    gold = read_bracketed(args.gold, encoding=encoding, errors="raise") if args.gold is not None else None
    if gold is not None and len(gold) != len(trees):
        raise UsageError(f"{args.gold}: {len(gold)} trees, {args.input} {len(trees)}")
    numbers = list(range(1, len(trees) + 1))
    if args.sent_id is not None:  # bracketed trees have no ids: their numbers in the file
        try:
            numbers = sorted({int(i) for i in args.sent_id})
        except ValueError:
            raise UsageError("--sent-id of bracketed trees is the tree's number in the file (1, 2, ...)") from None
        if numbers[0] < 1 or numbers[-1] > len(trees):
            raise UsageError(f"{args.input}: {len(trees)} trees; no tree {numbers[-1] if numbers[0] >= 1 else numbers[0]}")
    numbers = numbers[:args.limit]
    for i, tree in enumerate(trees):
        if gold is not None and len(tree.leaves()) != len(gold[i].leaves()):
            raise UsageError(f"{args.gold}: tree {i + 1} has {len(gold[i].leaves())} words, {args.input} "
                             f"{len(tree.leaves())}")
    shown = [trees[n - 1] for n in numbers]
    shown_gold = None if gold is None else [gold[n - 1] for n in numbers]
    if args.html is not None:
        title = f"{args.input}" + (f" against {args.gold}" if args.gold else "")
        atomic_write_text(args.html, phrase_html_page(shown, title, shown_gold, [f"tree {n}" for n in numbers]))
        if not args.quiet:
            print(f"seqspectral: {len(shown)} trees; wrote {args.html}", file=sys.stderr)
        return 0
    for k, n in enumerate(numbers):
        note = ""
        if shown_gold is not None:
            note = f" — {bracket_difference(shown[k], shown_gold[k]).summary()} (marked {WRONG})"
        print(f"# tree {n}: {' '.join(shown[k].leaves())}{note}")
        print(draw_phrase_tree(shown[k], None if shown_gold is None else shown_gold[k]))
        print()
    return 0
