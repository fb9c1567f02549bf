"""Numba kernels for weighted automata: rescaled values and floored next-symbol conditionals.

Inputs are the flat corpus (int32 ``symbols``, int64 ``offsets``) and float64 arrays;
``operators[x]`` is the (k, k) matrix of symbol id ``x``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_TINY = 1e-300


@njit(cache=True)
def log_values(symbols, offsets, initial, final, operators):
    """sign and log|f(x)| of every sequence, rescaling the state by its max-norm each step."""
    n = len(offsets) - 1
    k = len(initial)
    sign = np.empty(n)
    logabs = np.empty(n)
    s = np.empty(k)
    for i in range(n):
        s[:] = initial
        scale = 0.0
        dead = False
        for t in range(offsets[i], offsets[i + 1]):
            s = s @ operators[symbols[t]]
            m = np.max(np.abs(s))
            if m == 0.0 or not np.isfinite(m):
                dead = True
                break
            s /= m
            scale += np.log(m)
        v = 0.0 if dead else s @ final
        if v == 0.0 or not np.isfinite(v):
            sign[i] = 0.0
            logabs[i] = -np.inf
        else:
            sign[i] = 1.0 if v > 0 else -1.0
            logabs[i] = np.log(abs(v)) + scale
    return sign, logabs


@njit(cache=True)
def positive_mass(weights):
    """The sum of the positive weights, the mass a floor is a fraction of; 0.0 when there is
    none or a weight (or the sum) is not finite: the conditional is then uniform."""
    pos = 0.0
    for j in range(len(weights)):
        w = weights[j]
        if not np.isfinite(w):
            return 0.0
        if w > 0.0:
            pos += w
    return pos if np.isfinite(pos) else 0.0


@njit(cache=True)
def floored_conditional(weights, floor, out):
    """Floor ``weights`` at ``floor`` × their positive mass, renormalise into ``out``.

    Returns the number of floored weights. With no positive mass (or non-finite
    weights) every weight is floored and the conditional is uniform.
    """
    n = len(weights)
    pos = positive_mass(weights)
    if pos == 0.0:
        for j in range(n):
            out[j] = 1.0 / n
        return n
    threshold = floor * pos
    total = 0.0
    n_floored = 0
    for j in range(n):
        w = weights[j]
        if w < threshold or w <= 0.0:
            w = threshold
            n_floored += 1
        out[j] = w
        total += w
    for j in range(n):
        out[j] /= total
    return n_floored


@njit(cache=True)
def event_of(symbol, event_column):
    """The column of ``symbol`` among the events, -1 if it is not one."""
    return event_column[symbol] if 0 <= symbol < len(event_column) else -1


@njit(cache=True)
def record_event(probs, e, column, event_ids, log_prob, predicted, distributions):
    """Store event ``e``'s conditional ``probs``: the predicted event, the log-probability of
    the actual event's ``column`` (-inf for -1, outside the alphabet) and, when
    ``distributions`` has a row per event, the whole conditional."""
    if distributions.shape[0] > 0:
        distributions[e] = probs
    predicted[e] = event_ids[np.argmax(probs)]
    log_prob[e] = np.log(probs[column]) if column >= 0 else -np.inf


@njit(cache=True)
def normalise_state(s, prefix_final, fallback):
    """Divide ``s`` by its predicted prefix mass s·β∞; if that mass vanishes (relative
    to |s|), by the L1 norm; if ``s`` is zero or not finite, return ``fallback``."""
    norm = np.sum(np.abs(s))
    if norm == 0.0 or not np.isfinite(norm):
        return fallback.copy()
    mass = s @ prefix_final
    if abs(mass) > 1e-12 * norm * np.max(np.abs(prefix_final)) and abs(mass) > _TINY:
        return s / mass
    return s / norm


@njit(cache=True)
def advance(s, operator, prefix_final, beta_max, work):
    """``s`` ← normalise_state(s A_x) in place (``work``: a scratch vector of the state's size);
    loops, no allocation: this runs once per token."""
    k = len(s)
    work[:] = 0.0
    for i in range(k):
        si = s[i]
        if si != 0.0:
            for j in range(k):
                work[j] += si * operator[i, j]
    rescale(work, prefix_final, beta_max, s)


@njit(cache=True)
def rescale(work, prefix_final, beta_max, s):
    """``s`` ← ``work`` divided by its predicted prefix mass, or by its L1 norm if that mass
    vanishes (``normalise_state``'s rule; ``beta_max`` = max |prefix_final|); ``s`` is left as it
    was if ``work`` is zero or not finite."""
    k = len(s)
    norm = 0.0
    mass = 0.0
    for j in range(k):
        norm += abs(work[j])
        mass += work[j] * prefix_final[j]
    if norm == 0.0 or not np.isfinite(norm):
        return
    by = mass if abs(mass) > 1e-12 * norm * beta_max and abs(mass) > _TINY else norm
    for j in range(k):
        s[j] = work[j] / by


@njit(cache=True)
def event_weights(s, event_matrix, weights):
    """``weights`` ← s · event_matrix, in loops."""
    weights[:] = 0.0
    for i in range(len(s)):
        si = s[i]
        if si != 0.0:
            for j in range(event_matrix.shape[1]):
                weights[j] += si * event_matrix[i, j]


@njit(cache=True)
def event_log_probs(symbols, offsets, initial, operators, prefix_final, event_matrix, event_ids, event_column, floor,
                    distributions):
    """Floored conditionals of every event (tokens then stop) of every sequence.

    ``event_matrix`` (k, n_events) has columns A_σ β∞ for the alphabet and α∞ for stop,
    ``event_ids`` the event id of each column and ``event_column`` maps a symbol id to its
    column (-1: not an event). The running state is kept normalised by its predicted
    prefix mass, so the weights are the ratios f(wσΣ*)/f(wΣ*) (DESIGN.md, Definitions).
    Returns (log_prob, predicted, n_floored, n_missing) where n_missing counts tokens
    outside the alphabet (their log-probability is -inf). When ``distributions`` has one
    row per event (else zero rows), every conditional is also stored there.
    """
    n = len(offsets) - 1
    n_ev = event_matrix.shape[1]
    stop_col = n_ev - 1
    log_prob = np.empty(len(symbols) + n)
    predicted = np.empty(len(symbols) + n, dtype=np.int32)
    weights = np.empty(n_ev)
    probs = np.empty(n_ev)
    start = normalise_state(initial.copy(), prefix_final, initial)
    beta_max = np.max(np.abs(prefix_final))
    s = np.empty(len(initial))
    work = np.empty(len(initial))
    n_floored = 0
    n_missing = 0
    for i in range(n):
        s[:] = start
        e = offsets[i] + i
        for t in range(offsets[i], offsets[i + 1] + 1):
            event_weights(s, event_matrix, weights)
            n_floored += floored_conditional(weights, floor, probs)
            col = stop_col if t == offsets[i + 1] else event_of(symbols[t], event_column)
            record_event(probs, e, col, event_ids, log_prob, predicted, distributions)
            if t == offsets[i + 1]:
                break
            if col < 0:
                n_missing += 1
            else:
                advance(s, operators[symbols[t]], prefix_final, beta_max, work)
            e += 1
    return log_prob, predicted, n_floored, n_missing


# -- held-out selection: every (floor, mixture weight) candidate in one pass ---------------------
#: products of probabilities are rescaled by 2^±600 (exact) before they underflow
_RESCALE = 2.0 ** 600


@njit(cache=True)
def floored_probabilities(weights, col, floors, out):
    """``out[f]`` ← the probability of column ``col`` (-1: none, 0) in ``weights`` floored at
    ``floors[f]`` × the positive mass and renormalised (``floored_conditional``'s rule: a
    weight below the threshold t ≥ 0, or not positive, becomes t, i.e. max(w, t))."""
    n = len(weights)
    pos = positive_mass(weights)
    for f in range(len(floors)):
        if col < 0:
            out[f] = 0.0
        elif pos == 0.0:
            out[f] = 1.0 / n
        else:
            threshold = floors[f] * pos
            total = 0.0
            for j in range(n):
                total += max(weights[j], threshold)
            out[f] = max(weights[col], threshold) / total


#: events seen fewer times than this are multiplied into the product of their count's class
COUNT_CLASSES = 64


@njit(cache=True)
def add_event(p_floors, partner, count, mix_weights, products, exponents, logs):
    """Add an event seen ``count`` times to every candidate's log-likelihood, with
    v[f, w] = λ_w p_f + (1 − λ_w) partner (exactly p_f at λ = 1 and partner at λ = 0 for the
    finite partner probability). An event seen fewer than ``COUNT_CLASSES`` times is
    multiplied into the running product of its count's class, products[count, f, w] *= v,
    kept in range by exact powers of two counted in ``exponents`` (no logarithm per event;
    ``seqspectral.automata.floor_sweep.log_likelihoods`` weighs each class's logarithm by its count); one
    seen more often adds count · log v to ``logs``."""
    n_w = products.shape[2]
    if count >= products.shape[0]:
        for f in range(products.shape[1]):
            p = p_floors[f]
            for w in range(n_w):
                logs[f, w] += count * np.log(mix_weights[w] * p + (1.0 - mix_weights[w]) * partner)
        return
    smallest = np.inf
    for f in range(products.shape[1]):
        p = p_floors[f]
        for w in range(n_w):
            v = products[count, f, w] * (mix_weights[w] * p + (1.0 - mix_weights[w]) * partner)
            products[count, f, w] = v
            smallest = min(smallest, v)
    if smallest < 1.0 / _RESCALE:
        for f in range(products.shape[1]):
            for w in range(n_w):
                if products[count, f, w] < 1.0 / _RESCALE:
                    products[count, f, w] *= _RESCALE
                    exponents[count, f, w] -= 600


@njit(cache=True)
def common_prefix(symbols, offsets, a, b):
    """The length of the longest common prefix of sequences ``a`` and ``b``."""
    n = min(offsets[a + 1] - offsets[a], offsets[b + 1] - offsets[b])
    for d in range(n):
        if symbols[offsets[a] + d] != symbols[offsets[b] + d]:
            return d
    return n


@njit(cache=True)
def held_out_sweep(symbols, offsets, representatives, counts, initial, operators, prefix_final, event_matrix,
                   event_column, floors, partner_log_prob, mix_weights, products, exponents, logs):
    """Every (floor, mixture weight) candidate's held-out log-likelihood accumulated into
    ``products``, ``exponents`` and ``logs`` (``add_event``), one pass over the distinct events.

    ``representatives`` and ``counts``: the corpus's distinct sequences in lexicographic order
    and how often each occurs (``seqspectral.automata.floor_sweep.distinct_sequences``), walked in that
    order, each once. An event — a prefix and what follows it — is scored once, when the walk
    first reaches it: its state is on a stack by prefix length and is advanced only past the
    common prefix of a sequence and the one before it; its count is the number of sequences
    that share it, known when the walk leaves it. Each event's raw weights give its probability under every floor
    (``floored_probabilities``: the state does not depend on the floor), mixed with the partner
    model's probability ``exp(partner_log_prob[e])`` (a conditional, so the same at every
    occurrence of the event) at every weight (empty partner: ``mix_weights`` must be [1.0]).
    Returns the number of tokens outside the alphabet, with multiplicity. Scratch space is
    allocated here and nothing else: each array operation a kernel holds costs its cache load.
    """
    n_ev = event_matrix.shape[1]
    k = len(initial)
    stop_col = n_ev - 1
    n_f = len(floors)
    max_length = 0
    for r in representatives:
        max_length = max(max_length, offsets[r + 1] - offsets[r])
    states = np.empty((max_length + 1, k))
    pending_p = np.empty((max_length + 1, n_f))  # the scored events of the current path, by depth
    pending_partner = np.empty(max_length + 1)
    pending_from = np.empty(max_length + 1, np.int64)  # the sequences counted before the first having it
    pending_missing = np.zeros(max_length + 1, np.bool_)
    weights = np.empty(n_ev)
    work = np.empty(k)
    beta_max = 0.0
    for i in range(k):
        beta_max = max(beta_max, abs(prefix_final[i]))
        states[0, i] = initial[i]
    rescale(initial, prefix_final, beta_max, states[0])  # normalise_state(initial)
    has_partner = len(partner_log_prob) > 0
    n_missing = 0
    seen = 0  # sequences counted (with multiplicity) before the current one
    previous, previous_length = -1, 0
    for j in range(len(representatives) + 1):
        shared = 0
        if j < len(representatives) and previous >= 0:
            shared = common_prefix(symbols, offsets, previous, representatives[j])
        for d in range(shared, previous_length + 1 if previous >= 0 else 0):  # the events left behind
            count = seen - pending_from[d]
            add_event(pending_p[d], pending_partner[d], count, mix_weights, products, exponents, logs)
            if pending_missing[d]:
                n_missing += count
        if j == len(representatives):
            break
        r = representatives[j]
        length = offsets[r + 1] - offsets[r]
        for d in range(shared, length + 1):  # the events first reached
            event_weights(states[d], event_matrix, weights)
            col = stop_col if d == length else event_of(symbols[offsets[r] + d], event_column)
            floored_probabilities(weights, col, floors, pending_p[d])
            pending_partner[d] = np.exp(partner_log_prob[offsets[r] + r + d]) if has_partner else 0.0
            pending_from[d] = seen
            pending_missing[d] = col < 0
            if d < length:
                for i in range(k):
                    states[d + 1, i] = states[d, i]
                if col >= 0:
                    advance(states[d + 1], operators[symbols[offsets[r] + d]], prefix_final, beta_max, work)
        seen += counts[j]
        previous, previous_length = r, length
    return n_missing


@njit(cache=True)
def distribution_sweep(distributions, columns, counts, floors, partner_log_prob, mix_weights, products, exponents,
                       logs):
    """``held_out_sweep``'s accumulation for a block of given conditionals (one row per event,
    ``columns`` the actual event's column, -1: none; ``counts`` its number of occurrences), into
    ``products``, ``exponents`` and ``logs``."""
    p_floors = np.empty(len(floors))
    has_partner = len(partner_log_prob) > 0
    for e in range(distributions.shape[0]):
        floored_probabilities(distributions[e], columns[e], floors, p_floors)
        add_event(p_floors, np.exp(partner_log_prob[e]) if has_partner else 0.0, counts[e], mix_weights, products,
                  exponents, logs)


@njit(cache=True)
def prefix_conditional(prefix, initial, operators, prefix_final, event_matrix, floor):
    """The floored next-event conditional after one prefix, and its number of floored weights."""
    s = normalise_state(initial.copy(), prefix_final, initial)
    for x in prefix:
        s = normalise_state(s @ operators[x], prefix_final, s)
    probs = np.empty(event_matrix.shape[1])
    n_floored = floored_conditional(s @ event_matrix, floor, probs)
    return probs, n_floored
