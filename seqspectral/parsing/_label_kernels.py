"""Numba kernels of the dependency-label classifier: features of an arc in its tree,
multiclass averaged-perceptron epochs and prediction.

The arc features read the atom table's word and tag columns (not the word clusters). A
feature's weights for the labels ``0..L-1`` sit side by side at ``slot(f) + label`` so one
feature reads one short run of memory.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._arc_kernels import F, L as LEMMA, P, SUF, W, X, atom, direction_distance
from seqspectral.perceptron.hashing import feature, slot

#: features per arc :func:`label_features` writes, and the most it writes (with FEATS)
N_BASE, N_FEATURES = 29, 35


@njit(cache=True)
def tree_context(heads, start, n):
    """Per word of one sentence: leftmost child, rightmost child (-1: none), child count."""
    left = np.full(n + 1, -1, dtype=np.int64)
    right = np.full(n + 1, -1, dtype=np.int64)
    count = np.zeros(n + 1, dtype=np.int64)
    for m in range(1, n + 1):
        h = heads[start + m]
        count[h] += 1
        if left[h] < 0 or m < left[h]:
            left[h] = m
        if m > right[h]:
            right[h] = m
    return left, right, count


@njit(cache=True)
def label_features(atoms, heads, start, n, m, left, right, count, mask, out, feats):
    """The slots of word ``m``'s arc from its head in its tree (head, modifier, grandparent,
    neighbours, outermost children; with ``feats`` the FEATS bundles of modifier and head,
    alone and with the tags, the direction and distance, the modifier's suffix); returns how
    many were written."""
    h = heads[start + m]
    g = heads[start + h] if h > 0 else -1
    dd = direction_distance(h, m)
    mw, ml, mp, mx, ms = (atoms[start + m, W], atoms[start + m, LEMMA], atoms[start + m, P], atoms[start + m, X],
                          atoms[start + m, SUF])
    hw, hl, hp, hx = atoms[start + h, W], atoms[start + h, LEMMA], atoms[start + h, P], atoms[start + h, X]
    gp = atoms[start + g, P] if g >= 0 else -4
    mp1, mm1 = atom(atoms, start, n, m + 1, P), atom(atoms, start, n, m - 1, P)
    lcp = atoms[start + left[m], P] if left[m] >= 0 else -5
    rcp = atoms[start + right[m], P] if right[m] >= 0 else -5
    lcw = atoms[start + left[m], W] if left[m] >= 0 else -5
    rcw = atoms[start + right[m], W] if right[m] >= 0 else -5
    nc = min(count[m], 4)
    out[0] = slot(feature(100, 0, 0, 0, 0), mask)
    out[1] = slot(feature(101, mw, 0, 0, 0), mask)
    out[2] = slot(feature(102, ml, 0, 0, 0), mask)
    out[3] = slot(feature(103, mp, 0, 0, 0), mask)
    out[4] = slot(feature(104, mx, 0, 0, 0), mask)
    out[5] = slot(feature(105, ms, mp, 0, 0), mask)
    out[6] = slot(feature(106, hw, 0, 0, 0), mask)
    out[7] = slot(feature(107, hl, 0, 0, 0), mask)
    out[8] = slot(feature(108, hp, 0, 0, 0), mask)
    out[9] = slot(feature(109, hx, 0, 0, 0), mask)
    out[10] = slot(feature(110, dd, 0, 0, 0), mask)
    out[11] = slot(feature(111, hp, mp, dd, 0), mask)
    out[12] = slot(feature(112, hl, ml, 0, 0), mask)
    out[13] = slot(feature(113, hw, mp, 0, 0), mask)
    out[14] = slot(feature(114, hp, mw, 0, 0), mask)
    out[15] = slot(feature(115, ml, hp, dd, 0), mask)
    out[16] = slot(feature(116, mm1, mp, 0, 0), mask)
    out[17] = slot(feature(117, mp, mp1, 0, 0), mask)
    out[18] = slot(feature(118, mm1, mp, mp1, 0), mask)
    out[19] = slot(feature(119, gp, hp, mp, 0), mask)
    out[20] = slot(feature(120, mp, lcp, 0, 0), mask)
    out[21] = slot(feature(121, mp, rcp, 0, 0), mask)
    out[22] = slot(feature(122, mp, nc, 0, 0), mask)
    out[23] = slot(feature(123, mp, lcw, 0, 0), mask)
    out[24] = slot(feature(124, mp, rcw, 0, 0), mask)
    out[25] = slot(feature(125, mx, hx, dd, 0), mask)
    out[26] = slot(feature(126, mw, hw, 0, 0), mask)
    out[27] = slot(feature(127, ml, lcp, rcp, dd), mask)
    out[28] = slot(feature(128, hl, mp, dd, 0), mask)
    if not feats:
        return N_BASE
    mf, hf = atoms[start + m, F], atoms[start + h, F]
    out[29] = slot(feature(129, mf, 0, 0, 0), mask)
    out[30] = slot(feature(130, mf, hp, dd, 0), mask)
    out[31] = slot(feature(131, hf, mp, 0, 0), mask)
    out[32] = slot(feature(132, mf, hf, 0, 0), mask)
    out[33] = slot(feature(133, mf, mp, ms, 0), mask)
    out[34] = slot(feature(134, mf, hl, 0, 0), mask)
    return N_FEATURES


@njit(cache=True)
def _best_label(weights, buf, k, n_labels, mask):
    best, arg = -np.inf, 0
    for label in range(n_labels):
        s = 0.0
        for i in range(k):
            s += weights[(buf[i] + label) & mask]
        if s > best:
            best, arg = s, label
    return arg


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def labeler_epoch(atoms, offsets, heads, labels, order, n_labels, weights, totals, step, feats):
    """One multiclass-perceptron pass over every word of the sentences in ``order``;
    returns ``(step, correct, words)``."""
    mask = len(weights) - 1
    buf = np.empty(N_FEATURES, dtype=np.int64)
    correct = 0
    total = 0
    for i in order:
        start = offsets[i]
        n = offsets[i + 1] - start - 1
        left, right, count = tree_context(heads, start, n)
        for m in range(1, n + 1):
            k = label_features(atoms, heads, start, n, m, left, right, count, mask, buf, feats)
            pred = _best_label(weights, buf, k, n_labels, mask)
            gold = labels[start + m]
            total += 1
            if pred == gold:
                correct += 1
            else:
                for j in range(k):
                    weights[(buf[j] + gold) & mask] += 1.0
                    totals[(buf[j] + gold) & mask] += step
                    weights[(buf[j] + pred) & mask] -= 1.0
                    totals[(buf[j] + pred) & mask] -= step
            step += 1
    return step, correct, total


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def predict_labels(atoms, offsets, heads, n_labels, weights, feats):
    """The best label of every word's arc (laid out like the atom table; 0 in root rows)."""
    mask = len(weights) - 1
    buf = np.empty(N_FEATURES, dtype=np.int64)
    out = np.zeros(len(atoms), dtype=np.int32)
    for i in range(len(offsets) - 1):
        start = offsets[i]
        n = offsets[i + 1] - start - 1
        left, right, count = tree_context(heads, start, n)
        for m in range(1, n + 1):
            k = label_features(atoms, heads, start, n, m, left, right, count, mask, buf, feats)
            out[start + m] = _best_label(weights, buf, k, n_labels, mask)
    return out
