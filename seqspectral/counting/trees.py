"""Event counts of dependency trees for the spectral dependency model, mergeable.

The moments of the latent-variable dependency model of Dhillon, Rodu, Collins, Foster &
Ungar (2012, "Spectral dependency parsing with latent variables", Sec. 3.2), as we read
it: a word's hidden state generates the states of its left and right dependents, so the
parent's state separates its left side from its right side, as the middle state of an
HMM trigram separates its neighbours (the trigram and skip-bigram below play the roles
of Hsu, Kakade & Zhang's P_{3,x,1} and P_{3,1}). Over a corpus of trees
(``Corpus.heads``: 1-based head within the sentence, 0 = root), with ``x_i`` the
symbol of word ``i``:

- ``unigram[a]``: words with symbol a;
- ``root[a]``: words attached to the root (head 0) with symbol a;
- ``left[c, p]``: arcs whose dependent, with symbol c, stands LEFT of its head, with
  symbol p (one per word with a head to its right);
- ``right[c, p]``: the same for dependents to the RIGHT of their head;
- trigram ``(l, p, r)``: one event per word i (so the counts sum to the number of
  words): p = x_i, l = the symbol of its NEAREST left dependent (the left dependent
  closest to i), r = that of its nearest right dependent; a side without a dependent
  gives the stop symbol ``Vocabulary.EOS_ID`` (1);
- ``skip[l, r]``: the left/right skip-bigram, the trigram summed over the parent
  (nearest left dependent, nearest right dependent of the same word, stop included).

Projections by a symbol-by-k matrix U (e.g. ``U^T left U``, k x k; the trigram as
k x k x k) are computed from the sparse events, never from a dense n^3 table.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp

from . import _kernels

STOP = 1  # Vocabulary.EOS_ID: "no dependent on this side"


class TreeStatistics:
    """Raw event counts of ``n_sentences`` dependency trees over ``n_symbols`` ids."""

    def __init__(self, n_symbols: int, unigram, root, left, right, trigram_codes, trigram_counts,
                 n_sentences: int):
        self.n_symbols = int(n_symbols)
        self.unigram = np.asarray(unigram, dtype=np.int64)
        self.root = np.asarray(root, dtype=np.int64)
        self.left = sp.csr_matrix(left)
        self.right = sp.csr_matrix(right)
        self._codes = np.asarray(trigram_codes, dtype=np.int64)  # sorted (l * n + p) * n + r
        self._counts = np.asarray(trigram_counts, dtype=np.int64)
        self.n_sentences = int(n_sentences)

    @property
    def n_tokens(self) -> int:
        return int(self.unigram.sum())

    @property
    def trigram(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Distinct events as arrays ``(left, parent, right, count)``, sorted by (l, p, r)."""
        n = self.n_symbols
        lp, r = np.divmod(self._codes, n)
        l, p = np.divmod(lp, n)
        return l, p, r, self._counts

    @property
    def skip(self) -> sp.csr_matrix:
        """n x n: skip[l, r] = sum over parents of the trigram (see the module docstring)."""
        l, _, r, c = self.trigram
        return sp.csr_matrix((c.astype(np.float64), (l, r)), shape=(self.n_symbols, self.n_symbols))

    def trigram_dense(self) -> np.ndarray:
        """The trigram as a dense n x n x n array T[l, p, r] (small vocabularies only)."""
        out = np.zeros(self.n_symbols ** 3)
        out[self._codes] = self._counts
        return out.reshape((self.n_symbols,) * 3)

    def __add__(self, other: "TreeStatistics") -> "TreeStatistics":
        if not isinstance(other, TreeStatistics):
            return NotImplemented
        if other.n_symbols != self.n_symbols:
            raise ValueError("only tree statistics over the same number of symbols can be added")
        codes, inverse = np.unique(np.concatenate([self._codes, other._codes]), return_inverse=True)
        counts = np.bincount(inverse, weights=np.concatenate([self._counts, other._counts]), minlength=len(codes))
        return TreeStatistics(self.n_symbols, self.unigram + other.unigram, self.root + other.root,
                              self.left + other.left, self.right + other.right, codes,
                              np.rint(counts).astype(np.int64), self.n_sentences + other.n_sentences)

    def __repr__(self) -> str:
        return f"TreeStatistics({self.n_sentences} trees, {self.n_tokens} words, {self.n_symbols} symbols)"

    # -- projections -------------------------------------------------------------------
    def project(self, U) -> dict[str, np.ndarray]:
        """Every table projected on the columns of ``U`` (n_symbols x k):
        ``unigram``/``root`` (k), ``left``/``right``/``skip`` (k x k: U^T M U) and
        ``trigram`` (k x k x k: sum of count * U[l] (x) U[p] (x) U[r])."""
        U = self._check(U)
        return {
            "unigram": U.T @ self.unigram.astype(np.float64),
            "root": U.T @ self.root.astype(np.float64),
            "left": np.asarray(U.T @ (self.left @ U)),
            "right": np.asarray(U.T @ (self.right @ U)),
            "skip": np.asarray(U.T @ (self.skip @ U)),
            "trigram": self.trigram_projected(U),
        }

    def trigram_projected(self, U, keep_parent: bool = False) -> np.ndarray:
        """k x k x k: T[a, b, c] = sum of count * U[l, a] U[p, b] U[r, c].

        ``keep_parent=True`` leaves the parent mode unprojected: n_symbols x k x k with
        [x] = U^T T[:, x, :] U, the per-symbol operators of an observable representation.
        """
        U = self._check(U)
        l, p, r, c = self.trigram
        c = c.astype(np.float64)
        if keep_parent:
            order = np.lexsort((r, l, p))  # by parent, then left
            return _kernels.project_triples(p[order], l[order], r[order], c[order],
                                            np.empty((self.n_symbols, 0)), U, U, True)
        return _kernels.project_triples(l, p, r, c, U, U, U, False)

    def _check(self, U) -> np.ndarray:
        U = np.ascontiguousarray(U, dtype=np.float64)
        if U.ndim != 2 or U.shape[0] != self.n_symbols:
            raise ValueError(f"U must have shape (n_symbols={self.n_symbols}, k), not {U.shape}")
        return U


def _count(corpus, n_symbols: int) -> TreeStatistics:
    symbols = corpus.symbols.astype(np.int64)
    if len(symbols) and (symbols.min() < 0 or symbols.max() >= n_symbols):
        raise ValueError(f"symbol ids must lie in 0..{n_symbols - 1} (n_symbols={n_symbols})")
    parent, near_left, near_right, bad = _kernels.tree_links(corpus.heads, corpus.offsets)
    if bad >= 0:
        sentence = int(np.searchsorted(corpus.offsets, bad, side="right")) - 1
        word = bad - int(corpus.offsets[sentence]) + 1
        raise ValueError(f"sentence {sentence}: word {word} has head {int(corpus.heads[bad])}, "
                         "out of range or itself")
    n = n_symbols
    has_head = parent >= 0
    child = np.flatnonzero(has_head)
    is_left = child < parent[child]
    arcs = {}
    for name, side in (("left", is_left), ("right", ~is_left)):
        c = symbols[child[side]]
        p = symbols[parent[child[side]]]
        arcs[name] = sp.csr_matrix((np.ones(len(c)), (c, p)), shape=(n, n))
    left_sym = np.where(near_left >= 0, symbols[near_left], STOP)
    right_sym = np.where(near_right >= 0, symbols[near_right], STOP)
    codes, counts = np.unique((left_sym * n + symbols) * n + right_sym, return_counts=True)
    return TreeStatistics(n, np.bincount(symbols, minlength=n), np.bincount(symbols[~has_head], minlength=n),
                          arcs["left"], arcs["right"], codes, counts, len(corpus))


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
    n_symbols = max(int(n_symbols), STOP + 1)
    if n_symbols ** 3 >= 2 ** 63:
        raise ValueError("too many symbols to index trigram events with 64-bit keys")
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
        total = TreeStatistics(n_symbols, np.zeros(n_symbols), np.zeros(n_symbols), empty, empty, [], [], 0)
    return total
