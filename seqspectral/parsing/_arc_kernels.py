"""Numba kernels of the first-order parser: arc features and arc scores.

Arc features follow McDonald, Crammer & Pereira (2005), Table 1: unigram features of the
head and of the modifier (word, POS, word+POS, lemma, 5-character prefix), bigram features
of the pair (and, beyond the paper, over 3-character suffixes and lemma+POS), in-between
POS (head POS, the POS of each word between, modifier POS) and the surrounding-POS 4-grams
and their 3-gram backoffs; every one of them also conjoined with the arc's direction and
binned distance. Tag bit ``XPOS`` adds the same shapes over XPOS, ``FEATS`` pairs of the
FEATS column (the whole morphological bundle as one atom) with UPOS and the words; tag bit
``CLUSTERS`` the word-cluster features of Koo, Carreras & Collins (2008): the coarse and fine
clusters of head and modifier alone, paired with each other, with the other side's POS and
word, with both POS, and the surrounding coarse-cluster 4-grams.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from seqspectral.perceptron.hashing import feature, mix, slot
from .atoms import AFTER, BEFORE

W, L, P, X, PRE, SUF, F, CC, CF = 0, 1, 2, 3, 4, 5, 6, 7, 8
#: bits of ``tags``: features over XPOS, over FEATS, over word clusters (UPOS always has features)
XPOS, FEATS, CLUSTERS = 1, 2, 4
#: fixed features per arc before the in-between ones (an upper bound, both halves)
N_FIXED = 2 * 80 + 1


@njit(cache=True, inline="always")
def atom(atoms, start, n, t, col):
    """Column ``col`` at position ``t`` of the sentence whose root row is ``start``."""
    if t < 0:
        return BEFORE
    if t > n:
        return AFTER
    return atoms[start + t, col]


@njit(cache=True)
def direction_distance(h, m):
    """One code for the arc's direction (left, right, from the root) and binned length."""
    d = abs(h - m)
    if d <= 5:
        b = d
    elif d <= 7:
        b = 6
    elif d <= 10:
        b = 7
    elif d <= 15:
        b = 8
    elif d <= 20:
        b = 9
    elif d <= 30:
        b = 10
    else:
        b = 11
    if h == 0:
        return 32 + b
    return b + (16 if h < m else 0)


@njit(cache=True, inline="always")
def _put(out, k, f, dd, mask):
    out[k] = slot(f, mask)
    out[k + 1] = slot(mix(f, dd), mask)
    return k + 2


@njit(cache=True)
def arc_features(atoms, start, n, h, m, tags, mask, out):
    """Write the weight slots of arc ``h -> m`` into ``out``; returns how many. ``tags``
    (bits :data:`XPOS`, :data:`FEATS`) says which tag columns besides UPOS have features."""
    dd = direction_distance(h, m)
    hw, hl, hp, hx, hpre = (atoms[start + h, W], atoms[start + h, L], atoms[start + h, P], atoms[start + h, X],
                            atoms[start + h, PRE])
    mw, ml, mp, mx, mpre = (atoms[start + m, W], atoms[start + m, L], atoms[start + m, P], atoms[start + m, X],
                            atoms[start + m, PRE])
    hp1, hm1 = atom(atoms, start, n, h + 1, P), atom(atoms, start, n, h - 1, P)
    mp1, mm1 = atom(atoms, start, n, m + 1, P), atom(atoms, start, n, m - 1, P)
    out[0] = slot(feature(0, dd, 0, 0, 0), mask)
    k = 1
    # unigram
    k = _put(out, k, feature(1, hw, hp, 0, 0), dd, mask)
    k = _put(out, k, feature(2, hw, 0, 0, 0), dd, mask)
    k = _put(out, k, feature(3, hp, 0, 0, 0), dd, mask)
    k = _put(out, k, feature(4, mw, mp, 0, 0), dd, mask)
    k = _put(out, k, feature(5, mw, 0, 0, 0), dd, mask)
    k = _put(out, k, feature(6, mp, 0, 0, 0), dd, mask)
    k = _put(out, k, feature(7, hpre, hp, 0, 0), dd, mask)
    k = _put(out, k, feature(8, mpre, mp, 0, 0), dd, mask)
    k = _put(out, k, feature(9, hl, 0, 0, 0), dd, mask)
    k = _put(out, k, feature(10, ml, 0, 0, 0), dd, mask)
    # bigram
    k = _put(out, k, feature(11, hw, hp, mw, mp), dd, mask)
    k = _put(out, k, feature(12, hp, mw, mp, 0), dd, mask)
    k = _put(out, k, feature(13, hw, mw, mp, 0), dd, mask)
    k = _put(out, k, feature(14, hw, hp, mp, 0), dd, mask)
    k = _put(out, k, feature(15, hw, hp, mw, 0), dd, mask)
    k = _put(out, k, feature(16, hw, mw, 0, 0), dd, mask)
    k = _put(out, k, feature(17, hp, mp, 0, 0), dd, mask)
    k = _put(out, k, feature(18, hl, ml, 0, 0), dd, mask)
    k = _put(out, k, feature(19, hl, mp, 0, 0), dd, mask)
    k = _put(out, k, feature(20, hp, ml, 0, 0), dd, mask)
    k = _put(out, k, feature(21, hpre, mpre, 0, 0), dd, mask)
    k = _put(out, k, feature(22, hpre, mp, 0, 0), dd, mask)
    k = _put(out, k, feature(23, hp, mpre, 0, 0), dd, mask)
    hsuf, msuf = atoms[start + h, SUF], atoms[start + m, SUF]
    k = _put(out, k, feature(24, hsuf, hp, mp, 0), dd, mask)
    k = _put(out, k, feature(44, hp, msuf, mp, 0), dd, mask)
    k = _put(out, k, feature(45, hsuf, msuf, 0, 0), dd, mask)
    k = _put(out, k, feature(46, hl, hp, ml, mp), dd, mask)
    # surrounding POS
    k = _put(out, k, feature(25, hp, hp1, mm1, mp), dd, mask)
    k = _put(out, k, feature(26, hm1, hp, mm1, mp), dd, mask)
    k = _put(out, k, feature(27, hp, hp1, mp, mp1), dd, mask)
    k = _put(out, k, feature(28, hm1, hp, mp, mp1), dd, mask)
    k = _put(out, k, feature(29, hp, mm1, mp, 0), dd, mask)
    k = _put(out, k, feature(30, hp, mp, mp1, 0), dd, mask)
    k = _put(out, k, feature(31, hm1, hp, mp, 0), dd, mask)
    k = _put(out, k, feature(32, hp, hp1, mp, 0), dd, mask)
    if tags & XPOS:
        hx1, hxm1 = atom(atoms, start, n, h + 1, X), atom(atoms, start, n, h - 1, X)
        mx1, mxm1 = atom(atoms, start, n, m + 1, X), atom(atoms, start, n, m - 1, X)
        k = _put(out, k, feature(33, hx, mx, 0, 0), dd, mask)
        k = _put(out, k, feature(34, hw, mx, 0, 0), dd, mask)
        k = _put(out, k, feature(35, hx, mw, 0, 0), dd, mask)
        k = _put(out, k, feature(36, hx, 0, 0, 0), dd, mask)
        k = _put(out, k, feature(37, mx, 0, 0, 0), dd, mask)
        k = _put(out, k, feature(38, hx, hx1, mxm1, mx), dd, mask)
        k = _put(out, k, feature(39, hxm1, hx, mx, mx1), dd, mask)
        k = _put(out, k, feature(40, hx, hx1, mx, mx1), dd, mask)
        k = _put(out, k, feature(41, hxm1, hx, mxm1, mx), dd, mask)
        k = _put(out, k, feature(42, hx, mw, mx, 0), dd, mask)
        k = _put(out, k, feature(43, hw, hx, mx, 0), dd, mask)
    if tags & FEATS:
        hf, mf = atoms[start + h, F], atoms[start + m, F]
        k = _put(out, k, feature(70, hf, mf, 0, 0), dd, mask)
        k = _put(out, k, feature(71, hp, hf, mp, 0), dd, mask)
        k = _put(out, k, feature(72, hp, mp, mf, 0), dd, mask)
        k = _put(out, k, feature(73, hp, hf, mp, mf), dd, mask)
        k = _put(out, k, feature(74, hf, 0, 0, 0), dd, mask)
        k = _put(out, k, feature(75, mf, 0, 0, 0), dd, mask)
        k = _put(out, k, feature(76, hw, mp, mf, 0), dd, mask)
        k = _put(out, k, feature(77, hp, hf, mw, 0), dd, mask)
    if tags & CLUSTERS:
        hc, hcf, mc, mcf = atoms[start + h, CC], atoms[start + h, CF], atoms[start + m, CC], atoms[start + m, CF]
        k = _put(out, k, feature(80, hc, 0, 0, 0), dd, mask)
        k = _put(out, k, feature(81, hcf, 0, 0, 0), dd, mask)
        k = _put(out, k, feature(82, mc, 0, 0, 0), dd, mask)
        k = _put(out, k, feature(83, mcf, 0, 0, 0), dd, mask)
        k = _put(out, k, feature(84, hc, mc, 0, 0), dd, mask)
        k = _put(out, k, feature(85, hcf, mcf, 0, 0), dd, mask)
        k = _put(out, k, feature(86, hc, mp, 0, 0), dd, mask)
        k = _put(out, k, feature(87, hp, mc, 0, 0), dd, mask)
        k = _put(out, k, feature(88, hcf, mp, 0, 0), dd, mask)
        k = _put(out, k, feature(89, hp, mcf, 0, 0), dd, mask)
        k = _put(out, k, feature(90, hcf, mw, 0, 0), dd, mask)
        k = _put(out, k, feature(91, hw, mcf, 0, 0), dd, mask)
        k = _put(out, k, feature(92, hc, hp, mc, mp), dd, mask)
        k = _put(out, k, feature(93, hcf, hp, mp, 0), dd, mask)
        k = _put(out, k, feature(94, hp, mcf, mp, 0), dd, mask)
        k = _put(out, k, feature(95, hc, atom(atoms, start, n, h + 1, CC), atom(atoms, start, n, m - 1, CC), mc),
                 dd, mask)
        k = _put(out, k, feature(96, atom(atoms, start, n, h - 1, CC), hc, mc, atom(atoms, start, n, m + 1, CC)),
                 dd, mask)
    # in-between POS
    lo, hi = min(h, m), max(h, m)
    for b in range(lo + 1, hi):
        k = _put(out, k, feature(50, hp, atoms[start + b, P], mp, 0), dd, mask)
        if tags & XPOS:
            k = _put(out, k, feature(51, hx, atoms[start + b, X], mx, 0), dd, mask)
    return k


@njit(cache=True)
def arc_scores(atoms, start, n, tags, weights, out, allowed):
    """The ``(n + 1) × (n + 1)`` matrix of arc scores ``S[h, m]`` (-inf where no arc can be,
    and where the mask ``allowed[h, m]`` is False; an empty mask allows every arc)."""
    mask = len(weights) - 1
    S = np.full((n + 1, n + 1), -np.inf)
    every = allowed.shape[0] == 0
    for h in range(n + 1):
        for m in range(1, n + 1):
            if h == m or not (every or allowed[h, m]):
                continue
            k = arc_features(atoms, start, n, h, m, tags, mask, out)
            s = 0.0
            for i in range(k):
                s += weights[out[i]]
            S[h, m] = s
    return S


@njit(cache=True)
def feature_buffer(max_length):
    """A slot buffer large enough for any arc (or sibling part) of a sentence of
    ``max_length`` words."""
    return np.empty(N_FIXED + 4 * (max_length + 1), dtype=np.int64)


@njit(cache=True)
def max_length(offsets):
    """The longest sentence's word count."""
    longest = 0
    for i in range(len(offsets) - 1):
        longest = max(longest, offsets[i + 1] - offsets[i] - 1)
    return longest
