"""Numba kernels of the tagger: token features, Viterbi and k-best Viterbi over tag
bigrams, perceptron epochs.

A sequence ``y_1..y_n`` of a sentence scores ``Σ_t E[t, y_t] + Σ_{t=0..n} A[y_t, y_{t+1}]``
with ``y_0 = y_{n+1} = B`` (the boundary, row/column ``B = T`` of the ``(T+1) × (T+1)``
transition matrix ``A``) and the emission score ``E[t, y] = Σ_f W[f, y]`` over the hashed
features ``f`` of token ``t`` (one row of ``W`` per feature slot, one column per tag, stored
flat). Decoding is the Viterbi algorithm; k-best decoding keeps the ``k`` best partial
sequences ending in each tag at each position (list Viterbi), merging the ``T`` sorted
lists of the previous position, so its candidates are distinct by construction.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from seqspectral.perceptron.hashing import feature, slot

# the columns of seqspectral.tagging.words.COLUMNS
FORM, LOWER, PREFIX1, SUFFIX1, SUFFIX3, SHAPE, FLAGS, COARSE, FINE = 0, 1, 2, 6, 8, 10, 11, 12, 13
BEFORE, AFTER = -2, -3
#: features per token (see :func:`token_slots`), and those added with word clusters
N_FEATURES, N_CLUSTER_FEATURES = 27, 5
#: the first features of :func:`token_slots`, those of the word alone (bias to flags)
N_WORD_FEATURES = 13


@njit(cache=True, inline="always")
def _atom(atoms, types, start, n, t, col):
    if t < 0:
        return BEFORE
    if t >= n:
        return AFTER
    return atoms[types[start + t], col]


@njit(cache=True, parallel=True)
def token_slots(atoms, types, offsets, mask, clusters=False):
    """The ``N_FEATURES`` weight rows of every token (n_tokens × N_FEATURES, int32): bias;
    form; lower case; prefixes and suffixes of length 1-4; shape; flags; the lower case of
    the words at -2, -1, +1, +2; suffix-3 of the words at -1 and +1; the word pairs (-1, 0),
    (0, +1), (-1, +1) and (-2, -1); the shapes (-1, 0, +1); flags × first-word; the word at
    -1 × suffix-3; suffix-3 × the word at +1. With ``clusters``, ``N_CLUSTER_FEATURES`` more:
    the token's coarse and fine cluster, the fine clusters of the words at -1 and +1, the pair of
    coarse clusters at -1 and +1."""
    out = np.empty((len(types), N_FEATURES + (N_CLUSTER_FEATURES if clusters else 0)), dtype=np.int32)
    for i in prange(len(offsets) - 1):
        start = offsets[i]
        n = offsets[i + 1] - start
        for t in range(n):
            row = out[start + t]
            a = atoms[types[start + t]]
            row[0] = slot(feature(0, 0, 0, 0, 0), mask)
            row[1] = slot(feature(1, a[FORM], 0, 0, 0), mask)
            row[2] = slot(feature(2, a[LOWER], 0, 0, 0), mask)
            for j in range(4):
                row[3 + j] = slot(feature(3 + j, a[PREFIX1 + j], 0, 0, 0), mask)
                row[7 + j] = slot(feature(7 + j, a[SUFFIX1 + j], 0, 0, 0), mask)
            row[11] = slot(feature(11, a[SHAPE], 0, 0, 0), mask)
            row[12] = slot(feature(12, a[FLAGS], 0, 0, 0), mask)
            l2 = _atom(atoms, types, start, n, t - 2, LOWER)
            l1 = _atom(atoms, types, start, n, t - 1, LOWER)
            r1 = _atom(atoms, types, start, n, t + 1, LOWER)
            r2 = _atom(atoms, types, start, n, t + 2, LOWER)
            row[13] = slot(feature(13, l2, 0, 0, 0), mask)
            row[14] = slot(feature(14, l1, 0, 0, 0), mask)
            row[15] = slot(feature(15, r1, 0, 0, 0), mask)
            row[16] = slot(feature(16, r2, 0, 0, 0), mask)
            row[17] = slot(feature(17, _atom(atoms, types, start, n, t - 1, SUFFIX3), 0, 0, 0), mask)
            row[18] = slot(feature(18, _atom(atoms, types, start, n, t + 1, SUFFIX3), 0, 0, 0), mask)
            row[19] = slot(feature(19, l1, a[LOWER], 0, 0), mask)
            row[20] = slot(feature(20, a[LOWER], r1, 0, 0), mask)
            row[21] = slot(feature(21, _atom(atoms, types, start, n, t - 1, SHAPE), a[SHAPE],
                                   _atom(atoms, types, start, n, t + 1, SHAPE), 0), mask)
            row[22] = slot(feature(22, a[FLAGS], 1 if t == 0 else 0, 0, 0), mask)
            row[23] = slot(feature(23, l1, a[SUFFIX3], 0, 0), mask)
            row[24] = slot(feature(24, l1, r1, 0, 0), mask)
            row[25] = slot(feature(25, a[SUFFIX3], r1, 0, 0), mask)
            row[26] = slot(feature(26, l2, l1, 0, 0), mask)
            if clusters:
                row[27] = slot(feature(27, a[COARSE], 0, 0, 0), mask)
                row[28] = slot(feature(28, a[FINE], 0, 0, 0), mask)
                row[29] = slot(feature(29, _atom(atoms, types, start, n, t - 1, FINE), 0, 0, 0), mask)
                row[30] = slot(feature(30, _atom(atoms, types, start, n, t + 1, FINE), 0, 0, 0), mask)
                row[31] = slot(feature(31, _atom(atoms, types, start, n, t - 1, COARSE),
                                       _atom(atoms, types, start, n, t + 1, COARSE), 0, 0), mask)
    return out


@njit(cache=True, inline="always")
def _add_rows(E, i, slots, token, first, last, weights, n_tags):
    """``E[i, y] += W[f, y]`` over the feature rows ``first..last-1`` of ``token``, in order."""
    for f in range(first, last):
        base = np.int64(slots[token, f]) * n_tags
        for y in range(n_tags):
            E[i, y] += weights[base + y]


@njit(cache=True)
def emissions(slots, start, n, weights, n_tags):
    """``E[t, y]`` of the ``n`` tokens from ``start`` (``weights`` flat, rows of ``n_tags``)."""
    E = np.zeros((n, n_tags))
    for t in range(n):
        _add_rows(E, t, slots, start + t, 0, slots.shape[1], weights, n_tags)
    return E


@njit(cache=True, parallel=True)
def word_emissions(slots, types, n_types, weights, n_tags):
    """The sums over the first ``N_WORD_FEATURES`` rows (those of the word alone, the same for
    every token of a type) of each word type (``types``: every token's), from one token each:
    :func:`emissions` of a token is its type's row plus its other rows, added in the same order."""
    token = np.full(n_types, -1, dtype=np.int64)
    for t in range(len(types) - 1, -1, -1):
        token[types[t]] = t
    out = np.zeros((n_types, n_tags))
    for k in prange(n_types):
        if token[k] >= 0:
            _add_rows(out, k, slots, token[k], 0, N_WORD_FEATURES, weights, n_tags)
    return out


@njit(cache=True)
def _sentence_emissions(slots, types, start, n, words, weights, n_tags):
    """:func:`emissions` of the ``n`` tokens from ``start`` from their types' rows ``words``
    (:func:`word_emissions`): the same sums."""
    E = np.empty((n, n_tags))
    for t in range(n):
        E[t] = words[types[start + t]]
        _add_rows(E, t, slots, start + t, N_WORD_FEATURES, slots.shape[1], weights, n_tags)
    return E


@njit(cache=True)
def viterbi(E, A):
    """The best tag sequence under emissions ``E`` (n × T) and transitions ``A`` ((T+1)²,
    boundary last), and its score. Each tag's best predecessor is the first ``p`` of the
    highest ``δ[t-1, p] + A[p, y]``; the predecessors are visited in the outer loop so that the
    inner one runs over the tags ``y`` along a row of ``A`` (vectorised, same result)."""
    n, T = E.shape
    if n == 0:
        return np.zeros(0, dtype=np.int32), A[T, T]
    delta = np.empty((n, T))
    back = np.zeros((n, T), dtype=np.int32)
    best = np.empty(T)
    for y in range(T):
        delta[0, y] = A[T, y] + E[0, y]
    for t in range(1, n):
        arg = back[t]
        best[:] = -np.inf
        for p in range(T):
            d, row = delta[t - 1, p], A[p]
            for y in range(T):
                s = d + row[y]
                better = s > best[y]
                best[y] = s if better else best[y]
                arg[y] = p if better else arg[y]
        for y in range(T):
            delta[t, y] = best[y] + E[t, y]
    best_end, y = -np.inf, 0
    for p in range(T):
        s = delta[n - 1, p] + A[p, T]
        if s > best_end:
            best_end, y = s, p
    tags = np.empty(n, dtype=np.int32)
    for t in range(n - 1, -1, -1):
        tags[t] = y
        y = back[t, y]
    return tags, best_end


@njit(cache=True)
def _merge(prev, counts, column, k, out_score, out_tag, out_rank):
    """The ``k`` best of ``prev[p, r] + column[p]`` over every ``p`` and ``r < counts[p]``
    (each ``prev[p]`` sorted best first); returns how many were written."""
    T = len(column)
    ptr = np.zeros(T, dtype=np.int64)
    m = 0
    while m < k:
        best, arg = -np.inf, -1
        for p in range(T):
            if ptr[p] < counts[p]:
                s = prev[p, ptr[p]] + column[p]
                if arg < 0 or s > best:
                    best, arg = s, p
        if arg < 0:
            break
        out_score[m] = best
        out_tag[m] = arg
        out_rank[m] = ptr[arg]
        ptr[arg] += 1
        m += 1
    return m


@njit(cache=True)
def kbest_viterbi(E, A, k):
    """The ``k`` best tag sequences (fewer when there are fewer), best first:
    ``(tags (m × n, int32), scores (m,))``."""
    n, T = E.shape
    if n == 0:
        return np.zeros((1, 0), dtype=np.int32), np.full(1, A[T, T])
    score = np.full((n, T, k), -np.inf)
    back_tag = np.zeros((n, T, k), dtype=np.int32)
    back_rank = np.zeros((n, T, k), dtype=np.int32)
    count = np.zeros((n, T), dtype=np.int64)
    for y in range(T):
        score[0, y, 0] = A[T, y] + E[0, y]
        count[0, y] = 1
    out_score = np.empty(k)
    out_tag = np.empty(k, dtype=np.int32)
    out_rank = np.empty(k, dtype=np.int32)
    for t in range(1, n):
        for y in range(T):
            m = _merge(score[t - 1], count[t - 1], A[:T, y], k, out_score, out_tag, out_rank)
            for r in range(m):
                score[t, y, r] = out_score[r] + E[t, y]
                back_tag[t, y, r] = out_tag[r]
                back_rank[t, y, r] = out_rank[r]
            count[t, y] = m
    m = _merge(score[n - 1], count[n - 1], A[:T, T], k, out_score, out_tag, out_rank)
    tags = np.empty((m, n), dtype=np.int32)
    for c in range(m):
        y, r = out_tag[c], out_rank[c]
        for t in range(n - 1, -1, -1):
            tags[c, t] = y
            y, r = back_tag[t, y, r], back_rank[t, y, r]
    return tags, out_score[:m].copy()


@njit(cache=True, nogil=True, parallel=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def tag_corpus(slots, offsets, types, n_types, weights, A):
    """The Viterbi tags of every sentence, flat (int32), and each sentence's score (``types``:
    each token's word type, of ``n_types``; the sentences shared among Numba's threads)."""
    T = A.shape[0] - 1
    out = np.empty(slots.shape[0], dtype=np.int32)
    scores = np.empty(len(offsets) - 1)
    words = word_emissions(slots, types, n_types, weights, T)
    for i in prange(len(offsets) - 1):
        start, n = offsets[i], offsets[i + 1] - offsets[i]
        tags, s = viterbi(_sentence_emissions(slots, types, start, n, words, weights, T), A)
        out[start:start + n] = tags
        scores[i] = s
    return out, scores


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def kbest_corpus(slots, offsets, types, n_types, weights, A, k):
    """The k-best lists of every sentence: flat tags (candidate after candidate, sentence
    after sentence), each candidate's score and each sentence's number of candidates
    (``types`` as :func:`tag_corpus`'s)."""
    T = A.shape[0] - 1
    words = word_emissions(slots, types, n_types, weights, T)
    n_sent = len(offsets) - 1
    tags_out = np.empty(k * slots.shape[0], dtype=np.int32)
    scores_out = np.empty(k * n_sent)
    counts = np.zeros(n_sent, dtype=np.int64)
    at, c_at = 0, 0
    for i in range(n_sent):
        start, n = offsets[i], offsets[i + 1] - offsets[i]
        tags, s = kbest_viterbi(_sentence_emissions(slots, types, start, n, words, weights, T), A, k)
        counts[i] = len(s)
        for c in range(len(s)):
            tags_out[at:at + n] = tags[c]
            at += n
            scores_out[c_at] = s[c]
            c_at += 1
    return tags_out[:at].copy(), scores_out[:c_at].copy(), counts


@njit(cache=True)
def _add(slots, start, t, y, n_tags, delta, step, weights, totals):
    for f in range(slots.shape[1]):
        j = np.int64(slots[start + t, f]) * n_tags + y
        weights[j] += delta
        totals[j] += step * delta


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def perceptron_epoch(slots, offsets, gold, order, weights, totals, A, A_totals, step):
    """One pass of the structured perceptron (Collins 2002) over the sentences in ``order``:
    Viterbi with the current weights; where the prediction differs from ``gold``, the gold
    sequence's features are added and the prediction's subtracted. ``totals`` and
    ``A_totals`` accumulate ``step × update`` for averaging. Returns ``(step, correct tags)``."""
    T = A.shape[0] - 1
    correct = 0
    for i in order:
        start, n = offsets[i], offsets[i + 1] - offsets[i]
        if n == 0:
            continue
        pred, _ = viterbi(emissions(slots, start, n, weights, T), A)
        for t in range(n):
            g, p = gold[start + t], pred[t]
            if g == p:
                correct += 1
                continue
            _add(slots, start, t, g, T, 1.0, step, weights, totals)
            _add(slots, start, t, p, T, -1.0, step, weights, totals)
        for t in range(n + 1):
            gp = T if t == 0 else gold[start + t - 1]
            gc = T if t == n else gold[start + t]
            pp = T if t == 0 else pred[t - 1]
            pc = T if t == n else pred[t]
            if gp == pp and gc == pc:
                continue
            A[gp, gc] += 1.0
            A_totals[gp, gc] += step
            A[pp, pc] -= 1.0
            A_totals[pp, pc] -= step
        step += 1
    return step, correct
