"""Numba kernel of one EM pass over a mixture of linear regressions (behind :mod:`.experts_em`)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def em_pass(X, y, coef, log_weights, inv_variance, log_normaliser):
    """E-step and the M-step's sufficient statistics in one pass over the rows.

    For every row i: log p_ih = log π_h − ½ (y_i − β_hᵀx_i)² / σ² + log_normaliser, the
    responsibilities γ_ih, and the sums Σ_i log Σ_h p_ih, Σ_i γ_ih, Σ_i γ_ih x_i x_iᵀ,
    Σ_i γ_ih y_i x_i, Σ_i γ_ih y_i². ``X`` is n x d C-contiguous float64, ``coef`` d x k.
    """
    n, d = X.shape
    k = coef.shape[1]
    gram = np.zeros((k, d, d))
    rhs = np.zeros((k, d))
    mass = np.zeros(k)
    square = np.zeros(k)
    log_likelihood = 0.0
    p = np.empty(k)
    for i in range(n):
        yi = y[i]
        top = -np.inf
        for h in range(k):
            pred = 0.0
            for a in range(d):
                pred += X[i, a] * coef[a, h]
            r = yi - pred
            p[h] = log_weights[h] - 0.5 * r * r * inv_variance
            if p[h] > top:
                top = p[h]
        total = 0.0
        for h in range(k):
            p[h] = np.exp(p[h] - top)
            total += p[h]
        log_likelihood += top + np.log(total) + log_normaliser
        for h in range(k):
            g = p[h] / total
            mass[h] += g
            gy = g * yi
            square[h] += gy * yi
            for a in range(d):
                gx = g * X[i, a]
                rhs[h, a] += gx * yi
                for b in range(a, d):
                    gram[h, a, b] += gx * X[i, b]
    for h in range(k):
        for a in range(d):
            for b in range(a):
                gram[h, a, b] = gram[h, b, a]
    return log_likelihood, mass, gram, rhs, square
