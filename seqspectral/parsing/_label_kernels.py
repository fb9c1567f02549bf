"""Numba kernels of the dependency-label classifier: features of an arc in its tree,
averaged-perceptron epochs and prediction, each word alone (multiclass) or a head's children
together (a first-order chain decoded by :func:`chain_viterbi`, a structured perceptron).

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
#: children of the modifier and siblings on the head's side read by :func:`tree_features`
MAX_CHILDREN, MAX_SIBLINGS = 6, 8
#: the most features of one arc (every template on)
N_MAX = N_FEATURES + 12 + 2 * MAX_CHILDREN + MAX_SIBLINGS


@njit(cache=True)
def children(heads, start, n):
    """The children of every word of one sentence, left to right: those of ``h`` are
    ``kids[first[h]:first[h + 1]]``."""
    first = np.zeros(n + 2, dtype=np.int64)
    for m in range(1, n + 1):
        first[heads[start + m] + 1] += 1
    for h in range(n + 1):
        first[h + 1] += first[h]
    fill = first[:-1].copy()
    kids = np.empty(max(n, 1), dtype=np.int64)
    for m in range(1, n + 1):
        h = heads[start + m]
        kids[fill[h]] = m
        fill[h] += 1
    return first, kids


@njit(cache=True)
def tree_features(atoms, heads, start, n, m, first, kids, mask, out, k):
    """Beyond the arc: the modifier's children (tag and word, the side), the head's other
    children (the nearest sibling each side, tag and word; every sibling's tag with its side),
    the modifier's rank among the siblings on its side, the head's valency and the head's own
    attachment (its head's tag and direction, its word and lemma); writes from ``out[k]`` on and
    returns the new count."""
    h = heads[start + m]
    mp, mw, ml = atoms[start + m, P], atoms[start + m, W], atoms[start + m, LEMMA]
    hp, hl = atoms[start + h, P], atoms[start + h, LEMMA]
    side = 1 if h < m else 0
    for i in range(first[m], min(first[m + 1], first[m] + MAX_CHILDREN)):
        c = kids[i]
        out[k] = slot(feature(140, mp, atoms[start + c, P], 1 if c > m else 0, 0), mask)
        out[k + 1] = slot(feature(141, mp, atoms[start + c, W], 0, 0), mask)
        k += 2
    left_sib, right_sib, rank, seen = -1, -1, 0, 0
    for i in range(first[h], first[h + 1]):
        c = kids[i]
        if c == m:
            continue
        if c < m:
            left_sib = c
        elif right_sib < 0:
            right_sib = c
        c_side = 1 if h < c else 0
        if c_side == side and abs(c - h) < abs(m - h):
            rank += 1
        if seen < MAX_SIBLINGS:
            out[k] = slot(feature(142, mp, atoms[start + c, P], 1 if c > m else 0, c_side), mask)
            k += 1
            seen += 1
    lsp = atoms[start + left_sib, P] if left_sib >= 0 else -6
    rsp = atoms[start + right_sib, P] if right_sib >= 0 else -6
    lsw = atoms[start + left_sib, W] if left_sib >= 0 else -6
    rsw = atoms[start + right_sib, W] if right_sib >= 0 else -6
    g = heads[start + h] if h > 0 else -1
    gp = atoms[start + g, P] if g >= 0 else -4
    gdir = -7 if h == 0 else (1 if g < h else 0)
    valency = min(first[h + 1] - first[h], 6)
    out[k] = slot(feature(143, mp, lsp, side, 0), mask)
    out[k + 1] = slot(feature(144, mp, rsp, side, 0), mask)
    out[k + 2] = slot(feature(145, mp, lsw, side, 0), mask)
    out[k + 3] = slot(feature(146, mp, rsw, side, 0), mask)
    out[k + 4] = slot(feature(147, mp, hp, min(rank, 3), side), mask)
    out[k + 5] = slot(feature(148, hp, mp, valency, 0), mask)
    out[k + 6] = slot(feature(149, mp, hp, gp, gdir), mask)
    out[k + 7] = slot(feature(150, ml, hp, gp, 0), mask)
    out[k + 8] = slot(feature(151, mw, hl, side, 0), mask)
    out[k + 9] = slot(feature(152, mp, lsp, rsp, hp), mask)
    out[k + 10] = slot(feature(153, ml, lsp, side, 0), mask)
    out[k + 11] = slot(feature(154, ml, rsp, side, 0), mask)
    return k + 12


@njit(cache=True)
def label_features(atoms, heads, start, n, m, first, kids, mask, out, feats, tree):
    """The slots of word ``m``'s arc from its head in its tree (head, modifier, grandparent,
    neighbours, outermost children; with ``feats`` the FEATS bundles of modifier and head,
    alone and with the tags, the direction and distance, the modifier's suffix; with ``tree``
    :func:`tree_features`); ``first``, ``kids``: :func:`children`. Returns how many were written."""
    k = _arc_features(atoms, heads, start, n, m, first, kids, mask, out, feats)
    return tree_features(atoms, heads, start, n, m, first, kids, mask, out, k) if tree else k


@njit(cache=True)
def _arc_features(atoms, heads, start, n, m, first, kids, mask, out, feats):
    h = heads[start + m]
    has_kids = first[m + 1] > first[m]
    left = kids[first[m]] if has_kids else -1
    right = kids[first[m + 1] - 1] if has_kids else -1
    g = heads[start + h] if h > 0 else -1
    dd = direction_distance(h, m)
    mw, ml, mp, mx, ms = (atoms[start + m, W], atoms[start + m, LEMMA], atoms[start + m, P], atoms[start + m, X],
                          atoms[start + m, SUF])
    hw, hl, hp, hx = atoms[start + h, W], atoms[start + h, LEMMA], atoms[start + h, P], atoms[start + h, X]
    gp = atoms[start + g, P] if g >= 0 else -4
    mp1, mm1 = atom(atoms, start, n, m + 1, P), atom(atoms, start, n, m - 1, P)
    lcp = atoms[start + left, P] if left >= 0 else -5
    rcp = atoms[start + right, P] if right >= 0 else -5
    lcw = atoms[start + left, W] if left >= 0 else -5
    rcw = atoms[start + right, W] if right >= 0 else -5
    nc = min(first[m + 1] - first[m], 4)
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
def chain_viterbi(unary, trans, k):
    """The labels ``y_0..y_{k-1}`` maximising ``sum_i unary[i, y_i] + trans[i, y_{i-1}, y_i]``
    with ``y_{-1}`` the start row ``L`` of ``trans`` (a first-order chain over a head's
    children, McDonald, Lerman & Pereira 2006, section 3.2)."""
    n_labels = unary.shape[1]
    delta = np.empty((k, n_labels))
    back = np.zeros((k, n_labels), dtype=np.int64)
    for y in range(n_labels):
        delta[0, y] = unary[0, y] + trans[0, n_labels, y]
    for i in range(1, k):
        for y in range(n_labels):
            best, arg = -np.inf, 0
            for yp in range(n_labels):
                s = delta[i - 1, yp] + trans[i, yp, y]
                if s > best:
                    best, arg = s, yp
            delta[i, y] = best + unary[i, y]
            back[i, y] = arg
    out = np.empty(k, dtype=np.int64)
    best, arg = -np.inf, 0
    for y in range(n_labels):
        if delta[k - 1, y] > best:
            best, arg = delta[k - 1, y], y
    out[k - 1] = arg
    for i in range(k - 1, 0, -1):
        out[i - 1] = back[i, out[i]]
    return out


@njit(cache=True, inline="always")
def _transition_slot(t, prev_label, prev, h, m, hp, mask):
    """Slot of transition template ``t`` (0: the label pair and which side of head ``h`` each
    child is on, 1: also the head's tag) into child ``m`` from ``prev`` (-1: the chain's start)."""
    sides = (2 if prev < 0 else int(prev > h)) * 2 + int(m > h)
    return slot(feature(160 + t, prev_label, sides, hp if t else 0, 0), mask)


@njit(cache=True)
def _units(heads, start, n, chain):
    """What is labelled at once: each head's children (``chain``) or each word alone, as
    ``members[first[u]:first[u + 1]]``; the head of a unit's members is that of its first."""
    if chain:
        return children(heads, start, n)
    return np.arange(n + 1, dtype=np.int64), np.arange(1, n + 1, dtype=np.int64)


@njit(cache=True)
def _decode_unit(atoms, heads, start, n, members, first, kids, weights, mask, n_labels, feats, tree, chain,
                 slots, counts, unary, trans):
    """Features (into ``slots``/``counts``) and the best labels of the words ``members``
    (one head's children when ``chain``)."""
    k = len(members)
    h = heads[start + members[0]]
    hp = atoms[start + h, P]
    for i in range(k):
        counts[i] = label_features(atoms, heads, start, n, members[i], first, kids, mask, slots[i], feats, tree)
        for y in range(n_labels):
            s = 0.0
            for j in range(counts[i]):
                s += weights[(slots[i, j] + y) & mask]
            unary[i, y] = s
    out = np.empty(k, dtype=np.int64)
    if not chain:
        for i in range(k):
            out[i] = np.argmax(unary[i, :n_labels])
        return out
    for i in range(k):
        prev = members[i - 1] if i > 0 else -1
        lo, hi = (n_labels, n_labels + 1) if i == 0 else (0, n_labels)  # the start row, else every label
        for yp in range(lo, hi):
            a = _transition_slot(0, yp, prev, h, members[i], hp, mask)
            b = _transition_slot(1, yp, prev, h, members[i], hp, mask)
            for y in range(n_labels):
                trans[i, yp, y] = weights[(a + y) & mask] + weights[(b + y) & mask]
    return chain_viterbi(unary[:k, :n_labels], trans[:k, :n_labels + 1, :n_labels], k)


@njit(cache=True)
def _buffers(offsets, n_labels):
    """Room for the features and the scores of the largest unit of the sentences ``offsets``."""
    longest = np.max(offsets[1:] - offsets[:-1]) if len(offsets) > 1 else 1
    return (np.empty((longest, N_MAX), dtype=np.int64), np.empty(longest, dtype=np.int64),
            np.empty((longest, n_labels)), np.empty((longest, n_labels + 1, n_labels)))


@njit(cache=True, inline="always")
def _add(weights, totals, index, delta, step):
    weights[index] += delta
    totals[index] += delta * step


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def labeler_epoch(atoms, offsets, heads, labels, order, n_labels, weights, totals, step, feats, tree, chain):
    """One perceptron pass over the sentences in ``order``: each word's label alone, or
    (``chain``) the labels of each head's children at once, a structured perceptron over
    :func:`chain_viterbi`; returns ``(step, correct, words)``."""
    mask = len(weights) - 1
    slots, counts, unary, trans = _buffers(offsets, n_labels)
    correct = 0
    total = 0
    for i in order:
        start = offsets[i]
        n = offsets[i + 1] - start - 1
        first, kids = children(heads, start, n)
        unit_first, members = _units(heads, start, n, chain)
        for u in range(len(unit_first) - 1):
            if unit_first[u + 1] == unit_first[u]:
                continue
            words = members[unit_first[u]:unit_first[u + 1]]
            pred = _decode_unit(atoms, heads, start, n, words, first, kids, weights, mask, n_labels, feats, tree,
                                chain, slots, counts, unary, trans)
            h = heads[start + words[0]]
            hp = atoms[start + h, P]
            for t in range(len(words)):
                gold = labels[start + words[t]]
                if gold < 0:  # a word of a predicted tree with a wrong head: its label is not learned
                    continue
                total += 1
                if pred[t] == gold:
                    correct += 1
                else:
                    for j in range(counts[t]):
                        _add(weights, totals, (slots[t, j] + gold) & mask, 1.0, step)
                        _add(weights, totals, (slots[t, j] + pred[t]) & mask, -1.0, step)
                if chain:
                    prev = words[t - 1] if t > 0 else -1
                    gp = labels[start + prev] if t > 0 else n_labels
                    pp = pred[t - 1] if t > 0 else n_labels
                    if gp >= 0 and (gp != pp or gold != pred[t]):
                        for tt in range(2):
                            _add(weights, totals, (_transition_slot(tt, gp, prev, h, words[t], hp, mask) + gold) & mask,
                                 1.0, step)
                            _add(weights, totals,
                                 (_transition_slot(tt, pp, prev, h, words[t], hp, mask) + pred[t]) & mask, -1.0, step)
            step += len(words)
    return step, correct, total


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def predict_labels(atoms, offsets, heads, n_labels, weights, feats, tree, chain):
    """The best label of every word's arc, or (``chain``) the best labels of each head's
    children together (laid out like the atom table; 0 in root rows)."""
    mask = len(weights) - 1
    slots, counts, unary, trans = _buffers(offsets, n_labels)
    out = np.zeros(len(atoms), dtype=np.int32)
    for i in range(len(offsets) - 1):
        start = offsets[i]
        n = offsets[i + 1] - start - 1
        first, kids = children(heads, start, n)
        unit_first, members = _units(heads, start, n, chain)
        for u in range(len(unit_first) - 1):
            if unit_first[u + 1] > unit_first[u]:
                words = members[unit_first[u]:unit_first[u + 1]]
                labels = _decode_unit(atoms, heads, start, n, words, first, kids, weights, mask, n_labels, feats,
                                      tree, chain, slots, counts, unary, trans)
                for t in range(len(words)):
                    out[start + words[t]] = labels[t]
    return out
