"""Empirical Hankel blocks of a sample of strings (H, H_sigma, h_P, h_S), mergeable.

For a statistic f of strings and a basis (P, S, Sigma):
H[u, v] = f(uv), H_sigma[u, v] = f(u sigma v), h_P[u] = f(u), h_S[v] = f(v)
(Hsu, Kakade & Zhang 2012; Balle, Carreras, Luque & Quattoni 2014, who define the
prefix and substring variants), with the empirical statistics, averaged over the N
strings of the sample:

- ``"string"``: f(x) = (number of strings equal to x) / N;
- ``"prefix"``: f^p(x) = (number of strings starting with x) / N;
- ``"substring"``: f^s(x) = (number of occurrences of x as a substring) / N, so
  f^s(empty) = mean length + 1.

The P x Sigma x S block of the tensor method is the stack of the H_sigma (``tensor``).
Raw integer counts are stored; ``a + b`` counts the union of two samples exactly.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from . import _kernels
from .basis import STATISTICS, HankelBasis

_MODES = {"string": _kernels.STRING, "prefix": _kernels.PREFIX, "substring": _kernels.SUBSTRING}


class HankelStatistics:
    """Raw Hankel counts of ``n_strings`` strings; normalised blocks on access.

    The counts are kept as sparse entries: ``keys`` (sorted int64, key = block * |P||S| +
    u * |S| + v, block 0 = H, block 1 + i = H_sigma for ``basis.alphabet[i]``) and
    ``counts`` (int64), so memory follows the nonzeros, never |Sigma| x |P|.
    """

    def __init__(self, basis: HankelBasis, statistic: str, keys, counts, n_strings: int):
        if statistic not in STATISTICS:
            raise ValueError(f"statistic must be one of {STATISTICS}, not {statistic!r}")
        self.basis = basis
        self.statistic = statistic
        self.keys = np.asarray(keys, dtype=np.int64)
        self.counts = np.asarray(counts, dtype=np.int64)
        self.n_strings = int(n_strings)
        if self.keys.shape != self.counts.shape or np.any(self.keys[1:] <= self.keys[:-1]):
            raise ValueError("keys must be strictly increasing and match counts")

    def __add__(self, other: "HankelStatistics") -> "HankelStatistics":
        if not isinstance(other, HankelStatistics):
            return NotImplemented
        if other.statistic != self.statistic or other.basis != self.basis:
            raise ValueError("only statistics of the same kind on the same basis can be added")
        keys, inverse = np.unique(np.concatenate([self.keys, other.keys]), return_inverse=True)
        counts = np.zeros(len(keys), np.int64)
        np.add.at(counts, inverse, np.concatenate([self.counts, other.counts]))
        return HankelStatistics(self.basis, self.statistic, keys, counts, self.n_strings + other.n_strings)

    def __repr__(self) -> str:
        return (f"HankelStatistics({self.statistic}, {self.n_strings} strings, "
                f"{self.basis.n_prefixes}x{self.basis.n_suffixes}, {len(self.keys)} nonzeros)")

    def raw_block(self, block: int) -> sp.csr_matrix:
        """|P| x |S| raw counts of block ``block`` (0 = H, 1 + i = H_sigma for alphabet[i])."""
        n_p, n_s = self.basis.n_prefixes, self.basis.n_suffixes
        size = n_p * n_s
        lo, hi = np.searchsorted(self.keys, [block * size, (block + 1) * size])
        rows, cols = np.divmod(self.keys[lo:hi] - block * size, n_s)
        indptr = np.zeros(n_p + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=n_p), out=indptr[1:])
        return sp.csr_matrix((self.counts[lo:hi].astype(np.float64), cols, indptr), shape=(n_p, n_s))

    def _block(self, block: int) -> sp.csr_matrix:
        matrix = self.raw_block(block)
        matrix.data /= max(self.n_strings, 1)
        return matrix

    @cached_property
    def H(self) -> sp.csr_matrix:
        """|P| x |S|: ``H[u, v] = f(uv)``."""
        return self._block(0)

    @cached_property
    def H_sigma(self) -> list[sp.csr_matrix]:
        """One |P| x |S| block per ``basis.alphabet`` entry: ``H_sigma[i][u, v] = f(u a_i v)``."""
        return [self._block(1 + i) for i in range(len(self.basis.alphabet))]

    @property
    def h_P(self) -> np.ndarray:
        """|P|: f(u) for every prefix u (the column of the empty suffix)."""
        return self.H[:, 0].toarray().ravel()

    @property
    def h_S(self) -> np.ndarray:
        """|S|: f(v) for every suffix v (the row of the empty prefix)."""
        return self.H[0, :].toarray().ravel()

    def tensor(self) -> np.ndarray:
        """Dense |P| x |Sigma| x |S| array T[u, i, v] = f(u a_i v) (the stacked H_sigma)."""
        n_p, n_s, k = self.basis.n_prefixes, self.basis.n_suffixes, len(self.basis.alphabet)
        out = np.zeros((n_p, k, n_s))
        block, rest = np.divmod(self.keys, n_p * n_s)
        u, v = np.divmod(rest, n_s)
        sigma = block > 0
        out[u[sigma], block[sigma] - 1, v[sigma]] = self.counts[sigma] / max(self.n_strings, 1)
        return out


def _reversed(flat: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each string of a flat layout reversed in place of itself."""
    lengths = np.diff(offsets)
    seg = np.repeat(np.arange(len(lengths)), lengths)
    return flat[offsets[seg] + offsets[seg + 1] - 1 - np.arange(len(flat))]


def _tries(basis: HankelBasis):
    """Tries of P and of the reversed strings of S, each with its maximum depth."""
    out = []
    for flat, offsets, backwards in (*basis.flat_prefixes, False), (*basis.flat_suffixes, True):
        keys, child, terminal = _kernels.build_trie(_reversed(flat, offsets) if backwards else flat, offsets)
        depth = int(np.diff(offsets).max()) if len(offsets) > 1 else 0
        out.append((keys, child, terminal, depth))
    return out


def _count(corpus, basis: HankelBasis, statistic: str, tries) -> HankelStatistics:
    (p_keys, p_child, p_term, p_depth), (s_keys, s_child, s_term, s_depth) = tries
    n_p, n_s, alphabet = basis.n_prefixes, basis.n_suffixes, basis.alphabet
    sym_slot = np.zeros(int(alphabet.max()) + 1 if len(alphabet) else 1, dtype=np.int64)
    sym_slot[alphabet] = np.arange(1, len(alphabet) + 1)
    parent, sym, depth, count = _kernels.count_trie(corpus.symbols, corpus.offsets, _MODES[statistic],
                                                    p_depth + 1 + s_depth)
    keys, vals = _kernels.hankel_entries(parent, sym, depth, count, p_keys, p_child, p_term,
                                         s_keys, s_child, s_term, sym_slot, n_p, n_s)
    order = np.argsort(keys)
    return HankelStatistics(basis, statistic, keys[order], vals[order], len(corpus))


def hankel_statistics(corpus, basis: HankelBasis, statistic: str = "substring",
                      chunk_size: int | None = None) -> HankelStatistics:
    """Count the Hankel blocks of ``corpus`` on ``basis`` (see the module docstring).

    ``corpus`` is a Corpus or an iterable of Corpus shards (counted one by one and
    added). ``chunk_size`` counts a Corpus ``chunk_size`` strings at a time, which bounds
    the working memory to one chunk's distinct strings plus the running sum. The kernels
    (``_kernels.count_trie`` then ``_kernels.hankel_entries``) cost O(tokens x depth) for
    the substring statistic, depth = longest prefix + 1 + longest suffix of the basis,
    then O(distinct strings x depth) for the split.
    """
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, not {statistic!r}")
    if chunk_size is not None and chunk_size < 1:
        raise ValueError("chunk_size must be a positive number of strings")
    if (1 + len(basis.alphabet)) * basis.n_prefixes * basis.n_suffixes >= 2 ** 63:
        raise ValueError("the basis is too large to key its Hankel entries with 64-bit integers")
    tries = _tries(basis)
    shards: Iterable = [corpus] if hasattr(corpus, "offsets") else corpus
    total = None
    for shard in shards:
        if len(shard.symbols) and shard.symbols.min() < 0:
            raise ValueError("symbol ids must be >= 0")
        n = len(shard)
        step = n if chunk_size is None else chunk_size
        for lo in range(0, max(n, 1), max(step, 1)):
            part = shard if step >= n else _Slice(shard, lo, min(lo + step, n))
            stats = _count(part, basis, statistic, tries)
            total = stats if total is None else total + stats
    if total is None:  # no shard at all
        total = HankelStatistics(basis, statistic, [], [], 0)
    return total


class _Slice:
    """Strings ``lo:hi`` of a corpus as the kernels read them (a view of the symbols)."""

    __slots__ = ("symbols", "offsets")

    def __init__(self, corpus, lo: int, hi: int):
        start, stop = corpus.offsets[lo], corpus.offsets[hi]
        self.symbols = corpus.symbols[start:stop]
        self.offsets = corpus.offsets[lo:hi + 1] - start

    def __len__(self) -> int:
        return len(self.offsets) - 1
