"""Densities from bin probabilities by Shannon–Nyquist interpolation of the CDF.

Kargas & Sidiropoulos (AISTATS 2019), Section 3: if the CDF F of a variable is
(approximately) band-limited, its samples at the bin edges e_k = low + kΔ determine it,
F(x) = Σ_k F(e_k) sinc((x − e_k)/Δ), and the density is the derivative

    f(x) = (1/Δ) Σ_k F(e_k) sinc'((x − e_k)/Δ),   sinc'(u) = (cos(πu) − sinc(u)) / u.

The samples are F(e_k) = Σ_{i<k} p_i for k = 0..I, zero to the left and padded with ones
to the right (the CDF of a density on the range stays at one). The derivative is
evaluated on a fine grid over the range, floored at a small positive value (the
interpolant rings slightly negative where the density is flat), normalised to integrate
to one over the range, and read between grid points by linear interpolation. Outside
the range the density is the floor.
"""

from __future__ import annotations

import numpy as np

#: ones appended after the last bin edge (the tail of the padded CDF)
N_PAD = 4096
#: grid points per bin for the tabulated density
GRID_PER_BIN = 32
#: floor of the density, as a fraction of the uniform density over the range
DENSITY_FLOOR = 1e-4


def sinc_derivative(u: np.ndarray) -> np.ndarray:
    """d/du sin(πu)/(πu), with its value 0 at u = 0."""
    u = np.asarray(u, dtype=np.float64)
    safe = np.where(u == 0.0, 1.0, u)
    return np.where(u == 0.0, 0.0, (np.cos(np.pi * u) - np.sinc(u)) / safe)


def cdf_sinc_derivative(probabilities: np.ndarray, t: np.ndarray, n_pad: int = N_PAD) -> np.ndarray:
    """(len(t), K) the raw density, in bin units, of the sinc interpolant of the padded CDF.

    ``probabilities`` is (I, K): K bin-probability vectors; ``t`` are positions in bins
    from the left edge (t = 0 .. I spans the range). Not floored, not normalised.
    """
    probabilities = np.asarray(probabilities, dtype=np.float64).reshape(len(probabilities), -1)
    I = len(probabilities)
    cdf = np.vstack([np.zeros((1, probabilities.shape[1])), np.cumsum(probabilities, axis=0)])  # (I + 1, K)
    t = np.asarray(t, dtype=np.float64)[:, None]
    edges = sinc_derivative(t - np.arange(I + 1)) @ cdf
    pad = sinc_derivative(t - np.arange(I + 1, I + 1 + n_pad)).sum(axis=1, keepdims=True)
    return edges + pad


class SincDensities:
    """The recovered densities f_n(x | h) of N variables and K components, tabulated.

    ``factors`` is (N, I, K) (bin probabilities, columns on the simplex); bin i of variable
    n is [low_n + iΔ_n, low_n + (i+1)Δ_n).
    """

    def __init__(self, factors: np.ndarray, low: np.ndarray, width: np.ndarray, *,
                 floor: float = DENSITY_FLOOR, grid_per_bin: int = GRID_PER_BIN, n_pad: int = N_PAD):
        factors = np.asarray(factors, dtype=np.float64)
        N, I, K = factors.shape
        self.low, self.width, self.n_bins = np.asarray(low, float), np.asarray(width, float), I
        self.grid = np.linspace(0.0, I, I * grid_per_bin + 1)  # in bins from the left edge
        raw = cdf_sinc_derivative(factors.transpose(1, 0, 2).reshape(I, N * K), self.grid, n_pad)
        floored = np.maximum(raw, floor / I)
        #: (N, K) mass of the floored interpolant over the range, before normalisation
        self.mass = np.trapezoid(floored, self.grid, axis=0).reshape(N, K)
        #: (N, K, G) normalised densities on the grid, in bin units (divide by Δ for x units)
        self.table = (floored.reshape(-1, N, K) / self.mass).transpose(1, 2, 0)
        self.outside = floor / I / self.mass  # (N, K), bin units

    def log_pdf(self, X: np.ndarray) -> np.ndarray:
        """(n, K) Σ_n log f_n(x_n | h) over the observed (non-NaN) entries of each row."""
        X = np.asarray(X, dtype=np.float64)
        out = np.zeros((len(X), self.table.shape[1]))
        for n in range(X.shape[1]):
            observed = ~np.isnan(X[:, n])
            out[observed] += np.log(self.pdf(n, X[observed, n]))
        return out

    def pdf(self, n: int, x: np.ndarray) -> np.ndarray:
        """(len(x), K) the recovered densities of variable ``n`` at ``x``."""
        t = (np.asarray(x, dtype=np.float64) - self.low[n]) / self.width[n]
        return np.stack([np.interp(t, self.grid, self.table[n, h], left=self.outside[n, h], right=self.outside[n, h])
                         for h in range(self.table.shape[1])], axis=1) / self.width[n]
