"""Planted mixtures of linear regressions: the data of Chaganty & Liang (2013), §6.

Inputs t are uniform on [−1, 1]^b; the "misspecified" data of their Table 2 leave out
[−0.5, −0.25] ∪ [0.25, 0.5] in every coordinate. The features are monomials of t chosen by
the authors' sieve (:func:`independent_monomials`); an instance draws β_h ~ N(0, I_d) with
uniform π, and y = β_hᵀ x + ε with h ~ π and ε ~ N(0, σ²).
"""

from __future__ import annotations

import itertools

import numpy as np


def independent_monomials(b: int, degree: int) -> tuple[tuple[int, ...], ...]:
    """The exponent tuples of the authors' "independent polynomial" features of t ∈ R^b.

    Every tuple of {0, …, degree−1}^b in lexicographic order is kept unless it is the sum of
    two or of three kept ones, or a kept one is its sum with one or two kept ones (so no
    feature is a product of two or three others). The paper's tables name the maps by
    (b, d): b=1, degree 5 gives (1, t, t⁴) (their row "1 4 2"), degree 8 gives (1, t, t⁴, t⁷)
    (the histogram's); b=2, degree 3 gives (1, x2, x1, x1²x2²) (rows "2 5 ·") and degree 4
    (1, x2, x1, x1x2³, x1²x2², x1³x2) (row "2 6 2") — the feature lists in the paper's source.
    """
    kept: list[np.ndarray] = []
    for candidate in itertools.product(range(degree), repeat=b):
        c = np.array(candidate)
        pairs = [x1 + x2 for x1, x2 in itertools.product(kept, repeat=2)]
        triples = [x1 + x2 + x3 for x1, x2, x3 in itertools.product(kept, repeat=3)]
        clash = (any(np.array_equal(s, c) for s in pairs + triples)
                 or any(np.array_equal(x1, x2 + c) for x1, x2 in itertools.product(kept, repeat=2))
                 or any(np.array_equal(x1, x2 + x3 + c) for x1, x2, x3 in itertools.product(kept, repeat=3)))
        if not clash:
            kept.append(c)
    return tuple(tuple(int(e) for e in x) for x in kept)


#: the feature maps of the paper's experiments: (b, sieve degree) by its table label (b, d)
FEATURE_MAPS: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {
    (1, 4): independent_monomials(1, 5),   # (1, t, t⁴): Tables 1 and 2, "1 4 2"
    (2, 5): independent_monomials(2, 3),   # (1, x2, x1, x1²x2²): "2 5 2", "2 5 3"
    (2, 6): independent_monomials(2, 4),   # (1, x2, x1, x1x2³, x1²x2², x1³x2): "2 6 2"
}
#: the histogram's and learning curve's map (b = 1, sieve degree 8): (1, t, t⁴, t⁷)
HISTOGRAM_MAP = independent_monomials(1, 8)
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
