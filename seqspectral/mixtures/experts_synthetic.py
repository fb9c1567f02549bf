"""Planted mixtures of linear regressions: the data of Chaganty & Liang (2013), §6.

Inputs t are uniform on [−1, 1]^b; the "misspecified" data of their Table 2 leave out
[−0.5, −0.25] ∪ [0.25, 0.5] in every coordinate. The features are monomials of t
(:data:`FEATURE_MAPS`); an instance draws β_h ~ N(0, I_d) with uniform π, and
y = β_hᵀ x + ε with h ~ π and ε ~ N(0, σ²).
"""

from __future__ import annotations

import numpy as np

#: the paper's feature maps, (b, d) -> exponents of (t1, ..., tb) of each feature
FEATURE_MAPS: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {
    (1, 4): ((0,), (1,), (4,), (7,)),                                   # (1, t, t⁴, t⁷)
    (2, 5): ((0, 0), (1, 0), (0, 1), (2, 2), (1, 3)),                   # (1, x1, x2, x1²x2², x1x2³)
    (2, 6): ((0, 0), (1, 0), (0, 1), (1, 3), (2, 2), (3, 1)),           # (1, x1, x2, x1x2³, x1²x2², x1³x2)
}
#: the left-out part of [0, 1] of the misspecified inputs (mirrored to [−0.5, −0.25])
GAP = (0.25, 0.5)


def sample_inputs(n: int, b: int, rng: np.random.Generator, *, misspecified: bool = False) -> np.ndarray:
    """``n`` points of [−1, 1]^b, uniform (on the set without the gaps when ``misspecified``)."""
    if not misspecified:
        return rng.uniform(-1.0, 1.0, size=(n, b))
    lo, hi = GAP
    # |t| uniform on [0, lo) ∪ (hi, 1]: a uniform u on [0, 1 − (hi − lo)) shifted past the gap
    u = rng.uniform(0.0, 1.0 - (hi - lo), size=(n, b))
    magnitude = np.where(u < lo, u, u + (hi - lo))
    return magnitude * rng.choice([-1.0, 1.0], size=(n, b))


def polynomial_features(T: np.ndarray, exponents) -> np.ndarray:
    """The monomials ``Π_j t_j^{e_j}`` of every row of ``T``, one column per exponent tuple."""
    T = np.asarray(T, dtype=np.float64)
    return np.stack([np.prod(T ** np.asarray(e), axis=1) for e in exponents], axis=1)


def random_instance(d: int, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(coef, weights)``: β_h ~ N(0, I_d) as the columns of a d x k matrix, π uniform."""
    return rng.standard_normal((d, k)), np.full(k, 1.0 / k)


def sample_responses(X: np.ndarray, coef: np.ndarray, weights: np.ndarray, noise_variance: float,
                     rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(y, h)``: the component h_i ~ π of every row and y_i = β_{h_i}ᵀ x_i + ε_i."""
    h = rng.choice(len(weights), size=len(X), p=weights)
    y = np.einsum("ij,ji->i", X, coef[:, h]) + np.sqrt(noise_variance) * rng.standard_normal(len(X))
    return y, h
