"""Numba kernel of one EM pass over a mixture of linear regressions (behind :mod:`.em`)."""

from __future__ import annotations

import numpy as np
from numba import njit

#: the running product of the rows' likelihood ratios is folded into the log-likelihood past this
_PRODUCT_LIMIT = 1e280


@njit(cache=True)
def em_pass(X, y, coef, log_weights, inv_variance, log_normaliser):
    """E-step and the M-step's sufficient statistics in one pass over the rows.

    For every row i: log p_ih = log π_h − ½ (y_i − β_hᵀx_i)² / σ² + log_normaliser, the
    responsibilities γ_ih, and the sums Σ_i log Σ_h p_ih, Σ_i γ_ih, Σ_i γ_ih x_i x_iᵀ,
    Σ_i γ_ih y_i x_i, Σ_i γ_ih y_i². ``X`` is n x d C-contiguous float64, ``coef`` d x k.

    Per row: k − 1 exponentials (the largest term is exp(0) = 1) and no logarithm — the
    ratio Σ_h exp(log p_ih − max_h log p_ih) lies in [1, k], the ratios are multiplied up and
    the product's log taken once it passes 1e280 (and at the end); the row's products
    q = (x_a x_b for a ≤ b, x_a y, y²) are formed once and added to every component's sums
    with weight γ_ih in one contiguous loop.
    """
    n, d = X.shape
    k = coef.shape[1]
    n_pairs = d * (d + 1) // 2
    width = n_pairs + d + 1
    sums = np.zeros((k, width))
    mass = np.zeros(k)
    log_likelihood = 0.0
    product = 1.0
    p = np.empty(k)
    q = np.empty(width)
    for i in range(n):
        yi = y[i]
        top = -np.inf
        best = 0
        for h in range(k):
            pred = 0.0
            for a in range(d):
                pred += X[i, a] * coef[a, h]
            r = yi - pred
            p[h] = log_weights[h] - 0.5 * r * r * inv_variance
            if p[h] > top:
                top = p[h]
                best = h
        total = 0.0
        for h in range(k):
            p[h] = 1.0 if h == best else np.exp(p[h] - top)
            total += p[h]
        log_likelihood += top + log_normaliser
        product *= total
        if product > _PRODUCT_LIMIT:
            log_likelihood += np.log(product)
            product = 1.0
        j = 0
        for a in range(d):
            xa = X[i, a]
            for b in range(a, d):
                q[j] = xa * X[i, b]
                j += 1
        for a in range(d):
            q[n_pairs + a] = X[i, a] * yi
        q[width - 1] = yi * yi
        inv_total = 1.0 / total
        for h in range(k):
            g = p[h] * inv_total
            mass[h] += g
            for j in range(width):
                sums[h, j] += g * q[j]
    log_likelihood += np.log(product)
    gram = np.empty((k, d, d))
    for h in range(k):
        j = 0
        for a in range(d):
            for b in range(a, d):
                gram[h, a, b] = sums[h, j]
                gram[h, b, a] = sums[h, j]
                j += 1
    return log_likelihood, mass, gram, sums[:, n_pairs:n_pairs + d].copy(), sums[:, width - 1].copy()
