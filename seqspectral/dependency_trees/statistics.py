"""The counts the spectral tree model is estimated from, mergeable with ``+``.

Every moment of :mod:`seqspectral.dependency_trees.spectral` is a sum over arcs of a treebank, so the
counts of disjoint sets of trees add up to the counts of their union (integer counts, in
any order): the model can be fitted from shards counted apart
(:func:`seqspectral.counting.sharded.count_sharded`). Per arc (head word i with symbol h,
dependent c with symbol c standing on side d of i) the context words of i are

* ``"head"``: the head of i (none when i is attached to the root);
* ``"sibling"``: every dependent of i on the other side, one triple each (none when i has
  none): the context block of :mod:`~seqspectral.dependency_trees.spectral` is their sum;

and the counts kept are

* ``trees``: a :class:`~seqspectral.counting.dependency_trees.TreeStatistics` (unigram, root
  attachments, left and right arcs ``[dependent, head]``);
* ``contexts[(side, block)]``: the triples (h, c, context word) of the arcs on ``side``
  (``"left"`` or ``"right"``) whose context ``block`` exists, as sorted codes ``(h * n + c) * n + z``
  and their counts;
* ``valence``: the counts of the optional topology term
  (:func:`~seqspectral.dependency_trees.topology.valence_counts`).
"""

from __future__ import annotations

import numpy as np

from seqspectral.counting._kernels import tree_parents
from seqspectral.counting.dependency_trees import TreeStatistics, tree_statistics

from .topology import valence_counts

#: the context blocks counted as triples (the head's own word is read off the arcs)
BLOCKS = ("head", "sibling")
SIDES = ("left", "right")


class SpectralTreeStatistics:
    """The counts of ``trees.n_sentences`` trees over ``trees.n_symbols`` symbol ids."""

    def __init__(self, trees: TreeStatistics, contexts: dict, valence):
        self.trees = trees
        self.contexts = {key: (np.asarray(codes, np.int64), np.asarray(counts, np.int64))
                         for key, (codes, counts) in contexts.items()}
        self.valence = np.asarray(valence, dtype=np.int64)

    @property
    def n_symbols(self) -> int:
        return self.trees.n_symbols

    def triples(self, side: str, block: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(head symbols, dependent symbols, context symbols, counts) sorted by the codes."""
        codes, counts = self.contexts[(side, block)]
        n = self.n_symbols
        hc, z = np.divmod(codes, n)
        h, c = np.divmod(hc, n)
        return h, c, z, counts

    def __add__(self, other: "SpectralTreeStatistics") -> "SpectralTreeStatistics":
        if not isinstance(other, SpectralTreeStatistics):
            return NotImplemented
        if other.n_symbols != self.n_symbols:
            raise ValueError("only statistics over the same number of symbols can be added")
        contexts = {}
        for key in self.contexts:
            codes, inverse = np.unique(np.concatenate([self.contexts[key][0], other.contexts[key][0]]),
                                       return_inverse=True)
            counts = np.bincount(inverse, weights=np.concatenate([self.contexts[key][1], other.contexts[key][1]]),
                                 minlength=len(codes))
            contexts[key] = (codes, np.rint(counts).astype(np.int64))
        return SpectralTreeStatistics(self.trees + other.trees, contexts, self.valence + other.valence)

    def __repr__(self) -> str:
        return f"SpectralTreeStatistics({self.trees.n_sentences} trees, {self.trees.n_tokens} words)"


def spectral_tree_statistics(corpus, n_symbols: int | None = None) -> SpectralTreeStatistics:
    """Count the statistics of the trees of ``corpus`` (a Corpus with heads); ``n_symbols``
    defaults to the size of its vocabulary. A top-level function, so that worker
    processes can run it on their shards."""
    if n_symbols is None:
        n_symbols = len(corpus.vocabulary)
    trees = tree_statistics(corpus, n_symbols=n_symbols)  # also checks the heads
    n = trees.n_symbols
    x = corpus.symbols.astype(np.int64)
    parent = tree_parents(corpus.heads, corpus.offsets)[0]
    dep = np.flatnonzero(parent >= 0)
    head = parent[dep]
    is_left = dep < head
    contexts = {}
    for side, on_side in (("left", is_left), ("right", ~is_left)):
        d, h = dep[on_side], head[on_side]
        has = parent[h] >= 0
        contexts[(side, "head")] = np.unique((x[h[has]] * n + x[d[has]]) * n + x[parent[h[has]]],
                                             return_counts=True)
        arc, sibling = _other_side_pairs(h, dep[~on_side], head[~on_side])
        contexts[(side, "sibling")] = np.unique((x[h[arc]] * n + x[d[arc]]) * n + x[sibling], return_counts=True)
    return SpectralTreeStatistics(trees, contexts, valence_counts(corpus, n))


def _other_side_pairs(heads, other_deps, other_heads) -> tuple[np.ndarray, np.ndarray]:
    """Every (arc index, dependent) pair joining the arcs whose heads are ``heads`` with the
    dependents ``other_deps`` of the same head on the other side (heads ``other_heads``)."""
    order = np.argsort(other_heads, kind="stable")
    other_deps, other_heads = other_deps[order], other_heads[order]
    start = np.searchsorted(other_heads, heads, "left")
    count = np.searchsorted(other_heads, heads, "right") - start
    arc = np.repeat(np.arange(len(heads)), count)
    within = np.arange(len(arc)) - np.repeat(np.cumsum(count) - count, count)
    return arc, other_deps[start[arc] + within]
