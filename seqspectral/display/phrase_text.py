"""A phrase-structure tree drawn for a terminal, by NLTK's ``TreePrettyPrinter`` (box-drawing
lines); with gold, the constituents gold lacks are marked ``✗`` after their label."""

from __future__ import annotations

from .phrase_compare import bracket_difference

WRONG = "✗"


def draw_phrase_tree(tree, gold=None) -> str:
    """``tree`` as lines of text (an ``nltk.Tree``; with ``gold``, its wrong constituents marked)."""
    from seqspectral.corpus.nltk_modules import nltk_module

    TreePrettyPrinter = nltk_module("tree").TreePrettyPrinter

    if gold is not None:
        tree = tree.copy(deep=True)
        for position in bracket_difference(tree, gold).extra:
            tree[position].set_label(f"{tree[position].label()}{WRONG}")
    return TreePrettyPrinter(tree).text(unicodelines=True).rstrip()
