"""Event counts of dependency trees, mergeable: what every tree model counts.

Over a corpus of trees (``Corpus.heads``: 1-based head within the sentence, 0 = root),
with ``x_i`` the symbol of word ``i``:

- ``unigram[a]``: words with symbol a;
- ``root[a]``: words attached to the root (head 0) with symbol a;
- ``left[c, p]``: arcs whose dependent, with symbol c, stands LEFT of its head, with
  symbol p (one per word with a head to its right);
- ``right[c, p]``: the same for dependents to the RIGHT of their head.

The spectral tree model's context triples are counted beside these by
:mod:`seqspectral.dependency_trees.statistics`. Projections by a symbol-by-k matrix U (``U^T left U``,
k x k) are computed from the sparse counts, never from a dense table.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp

from . import _kernels

class TreeStatistics:
    """Raw event counts of ``n_sentences`` dependency trees over ``n_symbols`` ids."""

    def __init__(self, n_symbols: int, unigram, root, left, right, n_sentences: int):
        self.n_symbols = int(n_symbols)
        self.unigram = np.asarray(unigram, dtype=np.int64)
        self.root = np.asarray(root, dtype=np.int64)
        self.left = sp.csr_matrix(left)
        self.right = sp.csr_matrix(right)
        self.n_sentences = int(n_sentences)

    @property
    def n_tokens(self) -> int:
        return int(self.unigram.sum())

    def __add__(self, other: "TreeStatistics") -> "TreeStatistics":
        if not isinstance(other, TreeStatistics):
            return NotImplemented
        if other.n_symbols != self.n_symbols:
            raise ValueError("only tree statistics over the same number of symbols can be added")
        return TreeStatistics(self.n_symbols, self.unigram + other.unigram, self.root + other.root,
                              self.left + other.left, self.right + other.right, self.n_sentences + other.n_sentences)

    def __repr__(self) -> str:
        return f"TreeStatistics({self.n_sentences} trees, {self.n_tokens} words, {self.n_symbols} symbols)"

    def project(self, U) -> dict[str, np.ndarray]:
        """Every table projected on the columns of ``U`` (n_symbols x k):
        ``unigram``/``root`` (k), ``left``/``right`` (k x k: U^T M U)."""
        U = np.ascontiguousarray(U, dtype=np.float64)
        if U.ndim != 2 or U.shape[0] != self.n_symbols:
            raise ValueError(f"U must have shape (n_symbols={self.n_symbols}, k), not {U.shape}")
        return {
            "unigram": U.T @ self.unigram.astype(np.float64),
            "root": U.T @ self.root.astype(np.float64),
            "left": np.asarray(U.T @ (self.left @ U)),
            "right": np.asarray(U.T @ (self.right @ U)),
        }


#: symbol sets up to this size are counted in one pass into dense tables (two of n² counts)
DENSE_SYMBOLS = 256


def _count(corpus, n_symbols: int) -> TreeStatistics:
    symbols = corpus.symbols.astype(np.int64)
    if len(symbols) and (symbols.min() < 0 or symbols.max() >= n_symbols):
        raise ValueError(f"symbol ids must lie in 0..{n_symbols - 1} (n_symbols={n_symbols})")
    if n_symbols <= DENSE_SYMBOLS:
        unigram, root, left, right, bad = _kernels.tree_event_tables(corpus.symbols, corpus.heads, corpus.offsets,
                                                                     n_symbols)
        _check_heads(corpus, bad)
        return TreeStatistics(n_symbols, unigram, root, sp.csr_matrix(left.astype(np.float64)),
                              sp.csr_matrix(right.astype(np.float64)), len(corpus))
    parent, bad = _kernels.tree_parents(corpus.heads, corpus.offsets)
    _check_heads(corpus, bad)
    n = n_symbols
    has_head = parent >= 0
    child = np.flatnonzero(has_head)
    is_left = child < parent[child]
    arcs = {}
    for name, side in (("left", is_left), ("right", ~is_left)):
        c = symbols[child[side]]
        p = symbols[parent[child[side]]]
        arcs[name] = sp.csr_matrix((np.ones(len(c)), (c, p)), shape=(n, n))
    return TreeStatistics(n, np.bincount(symbols, minlength=n), np.bincount(symbols[~has_head], minlength=n),
                          arcs["left"], arcs["right"], len(corpus))


def _check_heads(corpus, bad: int) -> None:
    """Refuse the word ``bad`` (a global index; -1: none) whose head is out of range or itself."""
    if bad >= 0:
        sentence = int(np.searchsorted(corpus.offsets, bad, side="right")) - 1
        word = bad - int(corpus.offsets[sentence]) + 1
        raise ValueError(f"sentence {sentence}: word {word} has head {int(corpus.heads[bad])}, "
                         "out of range or itself")


def tree_statistics(corpus, n_symbols: int | None = None, chunk_size: int | None = None) -> TreeStatistics:
    """Count the tree events of ``corpus`` (a Corpus with ``heads``, or an iterable of them).

    ``n_symbols`` (default: the vocabulary size, else the largest id + 1) sizes the
    tables; ``chunk_size`` counts that many trees at a time and adds the results.
    """
    shards: Iterable = [corpus] if hasattr(corpus, "offsets") else list(corpus)
    if any(s.heads is None for s in shards):
        raise ValueError("tree statistics need a corpus with heads (a treebank)")
    if n_symbols is None:
        vocab = shards[0].vocabulary if shards else None
        n_symbols = len(vocab) if vocab is not None else max((int(s.symbols.max(initial=0)) for s in shards), default=0) + 1
    n_symbols = max(int(n_symbols), 2)  # the reserved ids (UNK, EOS) at least
    total = None
    for shard in shards:
        step = len(shard) if chunk_size is None else int(chunk_size)
        if step < 1 and chunk_size is not None:
            raise ValueError("chunk_size must be a positive number of trees")
        for lo in range(0, max(len(shard), 1), max(step, 1)):
            part = shard if step >= len(shard) else shard[lo:lo + step]
            stats = _count(part, n_symbols)
            total = stats if total is None else total + stats
    if total is None:
        empty = sp.csr_matrix((n_symbols, n_symbols))
        total = TreeStatistics(n_symbols, np.zeros(n_symbols), np.zeros(n_symbols), empty, empty, 0)
    return total
