"""Numba kernels of the per-token classifier under the features tagger and the lemmatiser.

A token ``t`` with feature slots ``f`` (the tagger's, :func:`._kernels.token_slots`, and the
tag-context ones of :func:`tag_slots`) scores class ``c`` as ``Σ_f W[h(f, c)]``, the pair
``(f, c)`` hashed (:func:`pair`: two multiplications, the slot being a hash already) into one
weight vector of ``mask + 1`` entries (classes are many — edit
scripts, feature bundles — so a row of weights per feature would not fit). Each token is
decided alone among its own candidate classes (``candidates[offsets[t]:offsets[t+1]]``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from seqspectral.perceptron.hashing import feature, slot

from ._kernels import LOWER, SUFFIX1, SUFFIX3, _atom

#: template ids of :func:`tag_slots` start here (:func:`._kernels.token_slots` uses 0..31)
FIRST_TEMPLATE = 40
#: features per token of :func:`tag_slots`
N_TAG_FEATURES = 14
_GOLDEN, _PRIME = -7046029254386353131, 1099511628211  # 0x9E3779B97F4A7C15 as int64; FNV's prime


@njit(cache=True, parallel=True)
def tag_slots(atoms, types, offsets, tags, mask, out):
    """Writes the ``N_TAG_FEATURES`` tag-context weight rows of every token into ``out``
    (n_tokens × 14, int32) from ``tags`` (n_tokens × 3 int64 hashes of the UPOS, XPOS and FEATS
    the token has, 0 where a column is not given): the token's UPOS, XPOS, FEATS; UPOS at -1 and
    +1; XPOS at -1 and +1; the UPOS trigram; UPOS × lower case; XPOS × lower case; UPOS × suffix
    1, 2 and 3; FEATS × suffix 3."""
    position = np.arange(len(types), dtype=np.int32)  # a token's row of ``tags``, for _atom's boundaries
    b = FIRST_TEMPLATE
    for i in prange(len(offsets) - 1):
        start = offsets[i]
        n = offsets[i + 1] - start
        for t in range(n):
            row = out[start + t]
            a = atoms[types[start + t]]
            u, x, f = tags[start + t, 0], tags[start + t, 1], tags[start + t, 2]
            u1, u2 = _atom(tags, position, start, n, t - 1, 0), _atom(tags, position, start, n, t + 1, 0)
            row[0] = slot(feature(b, u, 0, 0, 0), mask)
            row[1] = slot(feature(b + 1, x, 0, 0, 0), mask)
            row[2] = slot(feature(b + 2, f, 0, 0, 0), mask)
            row[3] = slot(feature(b + 3, u1, 0, 0, 0), mask)
            row[4] = slot(feature(b + 4, u2, 0, 0, 0), mask)
            row[5] = slot(feature(b + 5, _atom(tags, position, start, n, t - 1, 1), 0, 0, 0), mask)
            row[6] = slot(feature(b + 6, _atom(tags, position, start, n, t + 1, 1), 0, 0, 0), mask)
            row[7] = slot(feature(b + 7, u1, u, u2, 0), mask)
            row[8] = slot(feature(b + 8, u, a[LOWER], 0, 0), mask)
            row[9] = slot(feature(b + 9, x, a[LOWER], 0, 0), mask)
            row[10] = slot(feature(b + 10, u, a[SUFFIX1], 0, 0), mask)
            row[11] = slot(feature(b + 11, u, a[SUFFIX1 + 1], 0, 0), mask)
            row[12] = slot(feature(b + 12, u, a[SUFFIX3], 0, 0), mask)
            row[13] = slot(feature(b + 13, f, a[SUFFIX3], 0, 0), mask)


@njit(cache=True, inline="always")
def pair(f, c, mask):
    """The weight index of feature slot ``f`` (a hash already) with class ``c``."""
    h = (np.int64(f) * _GOLDEN + c) * _PRIME
    return (h ^ (h >> 29)) & mask


@njit(cache=True, inline="always")
def _score(slots, t, c, weights, mask):
    s = 0.0
    for f in range(slots.shape[1]):
        s += weights[pair(slots[t, f], c, mask)]
    return s


@njit(cache=True)
def _best(slots, t, offsets, candidates, weights, mask):
    best, arg = -np.inf, -1
    for j in range(offsets[t], offsets[t + 1]):
        s = _score(slots, t, candidates[j], weights, mask)
        if s > best:
            best, arg = s, candidates[j]
    return arg


@njit(cache=True, parallel=True)
def classify(slots, offsets, candidates, weights, mask, rows, keys, n_keys, shared):
    """The best candidate class of every token ``t`` among ``candidates[offsets[r]:offsets[r+1]]``,
    ``r = rows[t]`` (-1 for a token without candidates; the tokens shared among Numba's
    threads). Tokens with the same key (``keys[t]`` < ``n_keys``) have the same first ``shared``
    features and the same row (e.g. one word type, one UPOS): each candidate's sum over those
    features is worked out once per key, on the key's first token, and every token goes on
    from it in the same order (the same sums as one at a time)."""
    n = slots.shape[0]
    first = np.full(n_keys, -1, dtype=np.int64)
    for t in range(n - 1, -1, -1):
        first[keys[t]] = t
    at = np.empty(n + 1, dtype=np.int64)  # where a key's first token keeps its candidates' sums
    at[0] = 0
    for t in range(n):
        at[t + 1] = at[t] + (offsets[rows[t] + 1] - offsets[rows[t]] if first[keys[t]] == t else 0)
    partial = np.zeros(at[n])
    for t in prange(n):
        if first[keys[t]] == t:
            a = offsets[rows[t]]
            for j in range(a, offsets[rows[t] + 1]):
                s = 0.0
                for f in range(shared):
                    s += weights[pair(slots[t, f], candidates[j], mask)]
                partial[at[t] + j - a] = s
    out = np.empty(n, dtype=np.int32)
    for t in prange(n):
        a = offsets[rows[t]]
        base = at[first[keys[t]]] - a
        best, arg = -np.inf, -1
        for j in range(a, offsets[rows[t] + 1]):
            s = partial[base + j]
            for f in range(shared, slots.shape[1]):
                s += weights[pair(slots[t, f], candidates[j], mask)]
            if s > best:
                best, arg = s, candidates[j]
        out[t] = arg
    return out


@njit(cache=True, parallel=True)
def candidate_scores(slots, offsets, candidates, weights, mask):
    """The score of every candidate class of every token (aligned with ``candidates``)."""
    out = np.empty(len(candidates))
    for t in prange(slots.shape[0]):
        for j in range(offsets[t], offsets[t + 1]):
            out[j] = _score(slots, t, candidates[j], weights, mask)
    return out


@njit(cache=True)
def _add(slots, t, c, delta, step, weights, totals, mask):
    for f in range(slots.shape[1]):
        j = pair(slots[t, f], c, mask)
        weights[j] += delta
        totals[j] += step * delta


@njit(cache=True)
def classifier_epoch(slots, offsets, candidates, gold, order, weights, totals, mask, step):
    """One perceptron pass over the tokens in ``order``: where the best candidate is not
    ``gold``, the gold class's weights go up and the prediction's down; ``totals``
    accumulates ``step × update`` for averaging. Returns ``(step, correct tokens)``."""
    correct = 0
    for t in order:
        g = gold[t]
        p = _best(slots, t, offsets, candidates, weights, mask)
        if p == g:
            correct += 1
        else:
            _add(slots, t, g, 1.0, step, weights, totals, mask)
            if p >= 0:
                _add(slots, t, p, -1.0, step, weights, totals, mask)
        step += 1
    return step, correct
