"""Numba kernels for HMMs over finite strings: scaled forward-backward (Rabiner 1989, §V.A).

Sequence ``i`` is ``symbols[offsets[i]:offsets[i+1]]`` followed by one stop event; the
stop event is emitted like a symbol from column ``eos`` of the extended emission matrix
``emit`` (n_states x n_symbols, rows summing to 1 with the stop probability in column
``eos``). ``trans[i, j] = P(next state j | state i)``, ``start`` the initial distribution.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._kernels import event_of, floored_conditional, record_event

#: reassociation only (vectorised sums); no "no-NaN/no-inf" assumptions: -inf log-likelihoods are checked
FAST = {"reassoc", "contract"}


@njit(cache=True, fastmath=FAST)
def _forward(symbols, lo, hi, eos, start, trans, emit, alpha, scale):
    """Scaled forward pass of one sequence into ``alpha``/``scale`` rows 0..hi-lo; log-likelihood."""
    k = len(start)
    m = hi - lo + 1
    ll = 0.0
    for t in range(m):
        x = symbols[lo + t] if t < m - 1 else eos
        if t == 0:
            for j in range(k):
                alpha[0, j] = start[j]
        else:
            for j in range(k):
                alpha[t, j] = 0.0
            for i in range(k):  # row-wise, so the inner loop runs over contiguous memory
                a = alpha[t - 1, i]
                for j in range(k):
                    alpha[t, j] += a * trans[i, j]
        c = 0.0
        for j in range(k):
            alpha[t, j] *= emit[j, x]
            c += alpha[t, j]
        if c <= 0.0:
            return -np.inf
        for j in range(k):
            alpha[t, j] /= c
        scale[t] = c
        ll += np.log(c)
    return ll


@njit(cache=True, fastmath=FAST)
def _chunk_counts(symbols, offsets, first, last, eos, start, trans, emit, c_start, c_trans, c_emit, alpha, scale, beta, nxt):
    """Expected counts of sequences first..last-1 added to the c_* arrays; their log-likelihood."""
    k = len(start)
    total = 0.0
    for s in range(first, last):
        lo, hi = offsets[s], offsets[s + 1]
        m = hi - lo + 1
        ll = _forward(symbols, lo, hi, eos, start, trans, emit, alpha, scale)
        if not np.isfinite(ll):
            return -np.inf
        total += ll
        for j in range(k):
            beta[j] = 1.0
        for t in range(m - 1, -1, -1):
            x = symbols[lo + t] if t < m - 1 else eos
            for j in range(k):
                g = alpha[t, j] * beta[j]  # posterior of state j at t
                c_emit[j, x] += g
                if t == 0:
                    c_start[j] += g
            if t == 0:
                break
            # nxt[j] = emit[j, x] beta_t(j) / c_t: shared by the transition counts and beta_{t-1}
            for j in range(k):
                nxt[j] = emit[j, x] * beta[j] / scale[t]
            for i in range(k):
                a = alpha[t - 1, i]
                b = 0.0
                for j in range(k):
                    c_trans[i, j] += a * nxt[j]
                    b += trans[i, j] * nxt[j]
                beta[i] = b
    return total


@njit(cache=True)
def expected_counts(symbols, offsets, eos, start, trans, emit):
    """E-step over the whole corpus, serially.

    Returns ``(log_likelihood, start_counts, trans_counts, emit_counts)``.
    """
    k, v = emit.shape
    max_m = np.max(offsets[1:] - offsets[:-1]) + 1 if len(offsets) > 1 else 1
    c_start, c_trans, c_emit = np.zeros(k), np.zeros((k, k)), np.zeros((k, v))
    ll = _chunk_counts(symbols, offsets, 0, len(offsets) - 1, eos, start, trans, emit, c_start, c_trans, c_emit,
                       np.empty((max_m, k)), np.empty(max_m), np.empty(k), np.empty(k))
    return ll, c_start, c_trans * trans, c_emit


@njit(cache=True)
def event_log_probs(symbols, offsets, start, trans, event_matrix, event_ids, event_column, floor, distributions):
    """Floored conditionals of every event (tokens then stop) of every sequence, in O(k·E + k²)
    memory: ``event_matrix`` (k, n_events) holds the extended emissions of the events (the
    alphabet, then stop last), the running state is the predictive state distribution.

    The same rule and outputs as ``_kernels.event_log_probs`` for the HMM's automaton
    (A_σ = diag(O[:, σ]) T, whose prefix weights are all 1): (log_prob, predicted,
    n_floored, n_missing); conditionals are stored in ``distributions`` when it has a row
    per event.
    """
    n = len(offsets) - 1
    k, n_ev = event_matrix.shape
    stop_col = n_ev - 1
    log_prob = np.empty(len(symbols) + n)
    predicted = np.empty(len(symbols) + n, dtype=np.int32)
    weights = np.empty(n_ev)
    probs = np.empty(n_ev)
    s = np.empty(k)
    n_floored = 0
    n_missing = 0
    for i in range(n):
        s[:] = start / np.sum(start)
        e = offsets[i] + i
        for t in range(offsets[i], offsets[i + 1] + 1):
            weights[:] = s @ event_matrix
            n_floored += floored_conditional(weights, floor, probs)
            col = stop_col if t == offsets[i + 1] else event_of(symbols[t], event_column)
            record_event(probs, e, col, event_ids, log_prob, predicted, distributions)
            if t == offsets[i + 1]:
                break
            if col < 0:
                n_missing += 1
            else:
                nxt = (s * event_matrix[:, col]) @ trans
                mass = np.sum(nxt)
                if mass > 0.0 and np.isfinite(mass):
                    s[:] = nxt / mass
            e += 1
    return log_prob, predicted, n_floored, n_missing


@njit(cache=True)
def log_likelihoods(symbols, offsets, eos, start, trans, emit):
    """Natural-log probability of every sequence (scaled forward pass)."""
    n = len(offsets) - 1
    k = len(start)
    out = np.empty(n)
    max_m = np.max(offsets[1:] - offsets[:-1]) + 1 if n else 1
    alpha = np.empty((max_m, k))
    scale = np.empty(max_m)
    for s in range(n):
        out[s] = _forward(symbols, offsets[s], offsets[s + 1], eos, start, trans, emit, alpha, scale)
    return out
