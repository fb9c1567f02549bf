"""Low-order histograms of continuous data: equal-width bins and 3-way joint histograms.

Kargas & Sidiropoulos (AISTATS 2019), Section 4: each variable X_n is discretised into I
equal-width bins over its observed range, and the joint probability mass functions of
triples (X_j, X_k, X_l) are estimated by normalised counts. A triple is counted on the rows
where its three variables are all present, so missing values (NaN) cost only the triples
they touch — the paper's reason for working with low-order marginals.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np


class MissingDataError(ValueError):
    """A variable or a triple with no observed rows to estimate it from."""

    user_facing = True


@dataclass(frozen=True)
class EqualWidthBins:
    """I equal-width bins per variable: bin i of variable n is [low_n + i w_n, low_n + (i+1) w_n)."""

    low: np.ndarray    # (N,) left edge of the first bin
    width: np.ndarray  # (N,) bin width
    n_bins: int

    @classmethod
    def from_data(cls, X: np.ndarray, n_bins: int) -> "EqualWidthBins":
        """Bins spanning each column's observed range (NaN ignored); a constant column gets width 1/I around its value."""
        observed = ~np.isnan(X)
        empty = np.flatnonzero(~observed.any(axis=0))
        if empty.size:
            raise MissingDataError(f"variable(s) {empty.tolist()} have no observed value")
        low, high = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
        span = high - low
        constant = span == 0
        low = np.where(constant, low - 0.5, low)
        span = np.where(constant, 1.0, span)
        return cls(low=low, width=span / n_bins, n_bins=int(n_bins))

    @property
    def edges(self) -> np.ndarray:
        """(N, I + 1) bin edges."""
        return self.low[:, None] + self.width[:, None] * np.arange(self.n_bins + 1)

    def transform(self, X: np.ndarray) -> np.ndarray:
        """(n, N) int64 bin indices, values beyond the range in the end bins, -1 where X is NaN."""
        index = np.floor((X - self.low) / self.width)
        index = np.clip(np.nan_to_num(index, nan=-1.0), 0, self.n_bins - 1).astype(np.int64)
        index[np.isnan(X)] = -1
        return index


def all_triples(n_variables: int) -> np.ndarray:
    """(C(N,3), 3) every triple j < k < l, in lexicographic order."""
    return np.array(list(itertools.combinations(range(n_variables), 3)), dtype=np.int64).reshape(-1, 3)


def balanced_triples(n_variables: int, n_triples: int, rng: np.random.Generator) -> np.ndarray:
    """``n_triples`` distinct random triples, each picked to cover the least-used variables so far.

    Greedy: from the remaining triples in a random order, take the one whose variables have
    been used least (sum of their counts), so every variable is covered once
    ``n_triples`` ≥ N / 3 and the usage stays near even.
    """
    pool = all_triples(n_variables)
    if n_triples >= len(pool):
        return pool
    pool = pool[rng.permutation(len(pool))]
    used = np.zeros(n_variables, dtype=np.int64)
    taken = np.zeros(len(pool), dtype=bool)
    chosen = []
    for _ in range(n_triples):
        load = np.where(taken, np.iinfo(np.int64).max, used[pool].sum(axis=1))
        best = int(np.argmin(load))
        taken[best] = True
        used[pool[best]] += 1
        chosen.append(pool[best])
    return np.array(sorted(map(tuple, chosen)), dtype=np.int64)


def triple_histograms(bins: np.ndarray, triples: np.ndarray, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """The normalised 3-way histograms of ``triples`` from bin indices, counted in one pass.

    ``bins`` is (n, N) from :meth:`EqualWidthBins.transform` (-1 = missing). Returns the
    (T, I, I, I) histograms, each summing to one over the rows where its three variables
    are present, and the (T,) number of such rows.
    """
    I = n_bins
    j, k, l = bins[:, triples[:, 0]], bins[:, triples[:, 1]], bins[:, triples[:, 2]]  # (n, T)
    present = (j >= 0) & (k >= 0) & (l >= 0)
    cell = ((np.arange(len(triples)) * I + j) * I + k) * I + l
    counts = np.bincount(cell[present], minlength=len(triples) * I ** 3).astype(np.float64)
    n_rows = present.sum(axis=0)
    if np.any(n_rows == 0):
        bad = triples[n_rows == 0]
        raise MissingDataError(f"no row has all three variables of triple(s) {bad.tolist()} present")
    return counts.reshape(len(triples), I, I, I) / n_rows[:, None, None, None], n_rows
