"""Which constituents of a phrase-structure tree are not in another (gold) tree: labelled spans
matched as multisets, part-of-speech brackets and the root aside (as EVALB counts them)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass
class BracketDifference:
    """``extra``: the positions (``nltk.Tree.treepositions``) of the tree's constituents that
    gold lacks; ``missing``: how many of gold's the tree lacks; ``n``: the tree's constituents."""

    extra: set
    missing: int
    n: int

    def summary(self) -> str:
        return f"{len(self.extra)} of {self.n} brackets not in gold, {self.missing} of gold's missing"


def constituents(tree) -> list[tuple[tuple, tuple[str, int, int]]]:
    """``(position, (label, start, end))`` of every bracket that is neither the root nor a
    part-of-speech bracket; ``start``/``end`` count words."""
    out = []

    def walk(node, position, start) -> int:
        if isinstance(node, str):
            return start + 1
        end = start
        for i, child in enumerate(node):
            end = walk(child, position + (i,), end)
        if position and not (len(node) == 1 and isinstance(node[0], str)):
            out.append((position, (node.label(), start, end)))
        return end

    walk(tree, (), 0)
    return out


def bracket_difference(tree, gold) -> BracketDifference:
    """How ``tree``'s constituents differ from ``gold``'s (module docstring)."""
    if len(tree.leaves()) != len(gold.leaves()):
        raise ValueError(f"the tree has {len(tree.leaves())} words, gold {len(gold.leaves())}")
    left = Counter(span for _, span in constituents(gold))
    extra = set()
    mine = constituents(tree)
    for position, span in mine:
        if left[span] > 0:
            left[span] -= 1
        else:
            extra.add(position)
    return BracketDifference(extra, sum(left.values()), len(mine))
