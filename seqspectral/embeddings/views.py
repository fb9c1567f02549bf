"""The sufficient statistics of CCA word embeddings: sparse view co-occurrence counts.

With W the one-hot word view (one row per token), L and R the left and right context
views (h one-hot blocks each, see :mod:`._kernels`), the counts are

* ``word_context`` = Wᵀ[L R]  (n_words × 2h·n_words), all that the one-step CCA needs;
* ``left_right`` = LᵀR, ``left_left`` and ``right_right`` (the off-diagonal blocks of LᵀL
  and RᵀR, slot a < b; their diagonals are column sums of ``word_context``), which the
  two-step CCA needs.

Counts of disjoint parts of a corpus add (``a + b``), so a corpus is counted chunk by chunk
(memory: the chunk's pairs plus the sparse totals, bounded by the vocabulary) and shard by
shard.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from seqspectral.corpus import Corpus, Vocabulary

from ._kernels import context_features, view_pairs

BOUNDARY = Vocabulary.EOS_ID
#: tokens per chunk of the counter (about 80 bytes of pairs per token and slot pair)
CHUNK_TOKENS = 250_000


@dataclass
class ViewCounts:
    """Co-occurrence counts of the word and context views (float64 CSR matrices)."""

    window: int
    n_words: int
    n_tokens: int
    word_context: sp.csr_matrix
    left_right: sp.csr_matrix | None = None
    left_left: sp.csr_matrix | None = None
    right_right: sp.csr_matrix | None = None

    def __add__(self, other: "ViewCounts") -> "ViewCounts":
        if not isinstance(other, ViewCounts):
            return NotImplemented
        if (self.window, self.n_words) != (other.window, other.n_words):
            raise ValueError("view counts of different windows or vocabularies do not add")
        pairs = [_add(getattr(self, n), getattr(other, n)) for n in ("left_right", "left_left", "right_right")]
        return ViewCounts(self.window, self.n_words, self.n_tokens + other.n_tokens,
                          self.word_context + other.word_context, *pairs)

    @property
    def has_context_pairs(self) -> bool:
        return self.left_right is not None

    @property
    def word_totals(self) -> np.ndarray:
        """Token count of every word (diagonal of WᵀW)."""
        return np.asarray(self.word_context.sum(axis=1)).ravel() / (2 * self.window)

    @property
    def context_totals(self) -> np.ndarray:
        """Count of every context feature (diagonal of [L R]ᵀ[L R])."""
        return np.asarray(self.word_context.sum(axis=0)).ravel()

    def context_covariance(self, side: str) -> sp.csr_matrix:
        """LᵀL or RᵀR in full (symmetric): the diagonal plus both off-diagonal triangles."""
        half = self.window * self.n_words
        totals = self.context_totals[:half] if side == "left" else self.context_totals[half:]
        off = self.left_left if side == "left" else self.right_right
        return (sp.diags(totals) + off + off.T).tocsr()


def _add(a, b):
    if (a is None) != (b is None):
        raise ValueError("cannot add view counts with context pairs to counts without")
    return None if a is None else a + b


def count_views(corpus: Corpus, word_of: np.ndarray, n_words: int, window: int,
                context_pairs: bool = False, chunk_tokens: int = CHUNK_TOKENS, progress=None) -> ViewCounts:
    """The :class:`ViewCounts` of ``corpus`` (ids mapped by ``word_of``), counted by chunks
    of about ``chunk_tokens`` tokens; ``progress(n_tokens)`` is called after each chunk."""
    word_of = np.ascontiguousarray(word_of, dtype=np.int32)
    total = None
    for lo, hi in _chunks(corpus.offsets, chunk_tokens):
        symbols = corpus.symbols[corpus.offsets[lo]:corpus.offsets[hi]]
        offsets = corpus.offsets[lo:hi + 1] - corpus.offsets[lo]
        part = _count_chunk(symbols, offsets, word_of, n_words, window, context_pairs)
        total = part if total is None else total + part
        if progress is not None:
            progress(part.n_tokens)
    if total is None:  # an empty corpus
        total = _count_chunk(np.zeros(0, np.int32), np.zeros(1, np.int64), word_of, n_words, window, context_pairs)
    return total


def token_context_features(corpus: Corpus, word_of: np.ndarray, n_words: int, window: int) -> np.ndarray:
    """The 2h context features of every token of ``corpus`` ((n_tokens, 2h) int64)."""
    return context_features(corpus.symbols, corpus.offsets, np.ascontiguousarray(word_of, dtype=np.int32),
                            window, n_words, BOUNDARY)


def _chunks(offsets: np.ndarray, chunk_tokens: int):
    """(first, end) sentence ranges of about ``chunk_tokens`` tokens (whole sentences)."""
    n = len(offsets) - 1
    lo = 0
    while lo < n:
        hi = int(np.searchsorted(offsets, offsets[lo] + chunk_tokens, side="right")) - 1
        hi = min(max(hi, lo + 1), n)
        yield lo, hi
        lo = hi


def _count_chunk(symbols, offsets, word_of, n_words, window, context_pairs) -> ViewCounts:
    wr, wc, lr_r, lr_c, ll_r, ll_c, rr_r, rr_c = view_pairs(symbols, offsets, word_of, window, n_words, BOUNDARY,
                                                            context_pairs)
    half = window * n_words
    counts = ViewCounts(window, n_words, int(len(symbols)), _matrix(wr, wc, (n_words, 2 * half)))
    if context_pairs:
        counts.left_right = _matrix(lr_r, lr_c, (half, half))
        counts.left_left = _matrix(ll_r, ll_c, (half, half))
        counts.right_right = _matrix(rr_r, rr_c, (half, half))
    return counts


def _matrix(rows, cols, shape) -> sp.csr_matrix:
    """CSR counts of the (row, col) pairs (duplicates summed)."""
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)
