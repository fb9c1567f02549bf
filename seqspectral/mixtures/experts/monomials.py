"""Symmetric tensors as vectors of symmetric monomials, and the regression statistics over them.

A symmetric order-``p`` tensor ``M`` on R^d has one free entry per multiset ``α`` of ``p``
indices (``m_α``; there are C(d+p-1, p)); ``⟨M, x^{⊗p}⟩ = Σ_α c_α m_α x^α = φ(x)ᵀ m`` with
``c_α`` the number of orderings of ``α`` and ``φ_α(x) = c_α x^α``. The least-squares loss
``(1/2n) Σ_i (z_i − ⟨M, x_i^{⊗p}⟩)²`` is then ``½ mᵀ G m − bᵀ m + ½ E[z²]`` with the
sufficient statistics ``G = E[φ φᵀ]``, ``b = E[z φ]`` and ``E[z²]`` (Chaganty & Liang 2013, §3:
the regressions of y² on x⊗x and y³ on x⊗x⊗x), computed once in chunks so no solver ever
sees the n rows.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

#: rows per block when accumulating the statistics (bounds the memory of φ to a few MB)
CHUNK_ROWS = 32768


@dataclass(frozen=True)
class SymmetricIndex:
    """The multisets of an order-``order`` symmetric tensor on R^``dim``.

    ``multisets`` (D x order, sorted index tuples), ``counts`` (c_α, the orderings of each),
    ``position`` (the dim^order full tensor -> the multiset of each entry).
    """

    dim: int
    order: int
    multisets: np.ndarray
    counts: np.ndarray
    position: np.ndarray

    @classmethod
    def build(cls, dim: int, order: int) -> "SymmetricIndex":
        multisets = np.array(list(itertools.combinations_with_replacement(range(dim), order)), dtype=np.int64)
        counts = np.array([math.factorial(order) / np.prod([math.factorial(c) for c in np.bincount(a)])
                           for a in multisets])
        lookup = {tuple(a): i for i, a in enumerate(multisets)}
        position = np.array([lookup[tuple(sorted(idx))] for idx in itertools.product(range(dim), repeat=order)],
                            dtype=np.int64).reshape((dim,) * order)
        return cls(dim, order, multisets, counts, position)

    @property
    def size(self) -> int:
        return len(self.multisets)

    def to_tensor(self, m: np.ndarray) -> np.ndarray:
        """The full symmetric tensor of the free entries ``m``."""
        return np.asarray(m)[self.position]

    def from_tensor(self, M: np.ndarray) -> np.ndarray:
        """The free entries of a tensor, each the mean of its orderings (exact for symmetric M)."""
        sums = np.bincount(self.position.ravel(), weights=np.asarray(M, dtype=np.float64).ravel(), minlength=self.size)
        return sums / self.counts

    def features(self, X: np.ndarray) -> np.ndarray:
        """φ(x) for every row of ``X`` (n x D): ``c_α x^α``, a column at a time (no n x D temporaries).

        C-ordered, so the Gram matrix φᵀφ is summed in the same order as always: on the paper's
        collided monomials the regularised regressions are sensitive to rounding-level changes of G."""
        columns = np.asfortranarray(X, dtype=np.float64)
        out = np.empty((len(X), self.size))
        for a, (alpha, count) in enumerate(zip(self.multisets, self.counts)):
            np.multiply(columns[:, alpha[0]], count, out=out[:, a])
            for j in alpha[1:]:
                out[:, a] *= columns[:, j]
        return out


@dataclass(frozen=True)
class RegressionStatistics:
    """``G = E[φ φᵀ]`` (D x D), ``b = E[z φ]`` (D) and ``E[z²]`` of one symmetric-tensor regression."""

    index: SymmetricIndex
    gram: np.ndarray
    target: np.ndarray
    n_samples: int
    mean_square: float

    def residual_rms(self, m: np.ndarray) -> float:
        """``sqrt(E[(z − φᵀm)²]) = sqrt(mᵀGm − 2bᵀm + E[z²])``, the root mean squared residual at ``m``."""
        return float(np.sqrt(max(m @ self.gram @ m - 2 * self.target @ m + self.mean_square, 0.0)))


def regression_statistics(X: np.ndarray, z: np.ndarray, order: int) -> RegressionStatistics:
    """The statistics of regressing ``z`` on ``x^{⊗order}`` over the rows of ``X``, in chunks."""
    X = np.asarray(X, dtype=np.float64)
    z = np.asarray(z, dtype=np.float64)
    index = SymmetricIndex.build(X.shape[1], order)
    gram = np.zeros((index.size, index.size))
    target = np.zeros(index.size)
    for start in range(0, len(X), CHUNK_ROWS):
        phi = index.features(X[start:start + CHUNK_ROWS])
        gram += phi.T @ phi
        target += phi.T @ z[start:start + CHUNK_ROWS]
    n = len(X)
    return RegressionStatistics(index, gram / n, target / n, n, float(z @ z) / n)
