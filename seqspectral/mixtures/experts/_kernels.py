"""Numba kernel of one EM pass over a mixture of linear regressions (behind :mod:`.em`).

The rows are taken in blocks of :data:`BLOCK`; every loop of a block runs over the block's
rows, so the compiler vectorises it (the features are feature-major, ``Xᵀ``, and the
exponential is :func:`_exp_nonpositive`, a polynomial the compiler can vectorise, where a libm
call per row cannot be). Float64 throughout; a block's sums are added to the totals once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: rows per block: the block's buffers (k + 4 rows of it) stay in the L1 cache
BLOCK = 256
#: 1.5 · 2⁵²: adding it to |v| < 2⁵¹ rounds v to an integer kept in the low bits of the sum
_ROUNDING_SHIFT = 6755399441055744.0
_ROUNDING_SHIFT_BITS = 0x4338000000000000
_LOG2_E = 1.4426950408889634
#: ln 2 in two parts: n · _LN2_HIGH is exact for |n| < 2²⁰ (Cody & Waite range reduction)
_LN2_HIGH = 0.6931471803691238
_LN2_LOW = 1.9082149292705877e-10
#: below it the exponential is taken at it: e^-700 ≈ 1e-304 next to a total ≥ 1
_EXP_FLOOR = -700.0


@njit(cache=True)
def _exp_nonpositive(x, out, out_bits):
    """``out[i] = exp(x[i])`` for ``x[i] ≤ 0`` (overwrites ``x``), to 1 ulp; ``out_bits`` is ``out`` viewed as int64.

    exp(v) = 2ⁿ e^r with n = round(v / ln 2), r = v − n ln 2 ∈ [−ln2/2, ln2/2]: e^r by its
    Taylor polynomial of degree 13 (remainder < 1e-17 relative), 2ⁿ built in the exponent bits.
    No fast-math here: the rounding by _ROUNDING_SHIFT must not be simplified away.
    """
    m = x.shape[0]
    for i in range(m):
        v = max(x[i], _EXP_FLOOR)
        shifted = v * _LOG2_E + _ROUNDING_SHIFT
        out[i] = shifted
        n = shifted - _ROUNDING_SHIFT
        x[i] = (v - n * _LN2_HIGH) - n * _LN2_LOW
    for i in range(m):
        out_bits[i] = (out_bits[i] - _ROUNDING_SHIFT_BITS + 1023) << 52  # the bits of 2ⁿ
    for i in range(m):
        r = x[i]
        p = 1.0 / 6227020800.0
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        p = p * r + 1.0
        out[i] = p * out[i]


@njit(cache=True, fastmath={"reassoc", "contract"})
def em_pass(XT, y, coef, log_weights, inv_variance, log_normaliser):
    """E-step and the M-step's sufficient statistics in one pass over the rows.

    ``XT`` is d x n C-contiguous float64 (the features, feature-major: ``Xᵀ``), ``y`` the n
    responses, ``coef`` d x k. For every row i: log p_ih = log π_h − ½ (y_i − β_hᵀx_i)² / σ² +
    log_normaliser and the responsibilities γ_ih; returns Σ_i log Σ_h p_ih, Σ_i γ_ih and, per
    component, Σ_i γ_ih x_i x_iᵀ (k x d x d), Σ_i γ_ih y_i x_i (k x d), Σ_i γ_ih y_i² (k).

    log Σ_h p_ih = max_h log p_ih + log Σ_h exp(log p_ih − max): the second terms (each in
    [log 1, log k]) are multiplied over the block and the product's log taken once.
    """
    d, n = XT.shape
    k = coef.shape[1]
    gram = np.zeros((k, d, d))
    rhs = np.zeros((k, d))
    square = np.zeros(k)
    mass = np.zeros(k)
    gamma = np.empty((k, BLOCK))
    scratch = np.empty(BLOCK)
    top = np.empty(BLOCK)
    total = np.empty(BLOCK)
    term = np.empty(BLOCK)
    term_bits = term.view(np.int64)
    log_likelihood = n * log_normaliser
    half_precision = 0.5 * inv_variance
    for start in range(0, n, BLOCK):
        m = min(BLOCK, n - start)
        yb = y[start:start + m]
        for h in range(k):  # gamma[h] = log p_h
            g = gamma[h]
            for i in range(m):
                g[i] = 0.0
            for a in range(d):
                c = coef[a, h]
                xa = XT[a, start:start + m]
                for i in range(m):
                    g[i] += c * xa[i]
            lw = log_weights[h]
            for i in range(m):
                r = yb[i] - g[i]
                g[i] = lw - half_precision * r * r
        for i in range(m):
            top[i] = gamma[0, i]
            total[i] = 0.0
        for h in range(1, k):
            g = gamma[h]
            for i in range(m):
                top[i] = max(top[i], g[i])
        for h in range(k):  # gamma[h] = exp(log p_h − max)
            g = gamma[h]
            for i in range(m):
                scratch[i] = g[i] - top[i]
            _exp_nonpositive(scratch[:m], term[:m], term_bits[:m])
            for i in range(m):
                g[i] = term[i]
                total[i] += term[i]
        product = 1.0
        for i in range(m):
            log_likelihood += top[i]
            product *= total[i]
        if product < np.inf:
            log_likelihood += np.log(product)
        else:  # k^m overflowed
            for i in range(m):
                log_likelihood += np.log(total[i])
        for i in range(m):
            total[i] = 1.0 / total[i]
        for h in range(k):  # gamma[h] = γ_h, and its weighted sums
            g = gamma[h]
            acc = 0.0
            for i in range(m):
                g[i] *= total[i]
                acc += g[i]
            mass[h] += acc
            for a in range(d):
                xa = XT[a, start:start + m]
                for i in range(m):
                    scratch[i] = g[i] * xa[i]
                for b in range(a, d):
                    xb = XT[b, start:start + m]
                    acc = 0.0
                    for i in range(m):
                        acc += scratch[i] * xb[i]
                    gram[h, a, b] += acc
                acc = 0.0
                for i in range(m):
                    acc += scratch[i] * yb[i]
                rhs[h, a] += acc
            acc = 0.0
            for i in range(m):
                acc += g[i] * yb[i] * yb[i]
            square[h] += acc
    for h in range(k):
        for a in range(d):
            for b in range(a):
                gram[h, a, b] = gram[h, b, a]
    return log_likelihood, mass, gram, rhs, square
