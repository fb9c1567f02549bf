"""Numba kernels of the second-order (sibling) parser (McDonald & Pereira 2006).

A tree scores its arcs (:mod:`._arc_kernels`, word clusters included) plus one sibling part per word: ``(h, s, m)``
with ``s`` the previous dependent of ``h`` on ``m``'s side (the next one closer to ``h``),
or ``s = h`` when ``m`` is ``h``'s innermost dependent on that side. Sibling features: the
POS of head, sibling and modifier and their word/POS pairs, conjoined with direction and
the sibling–modifier distance. Decoding is their O(n³) extension of Eisner's algorithm
with sibling items ``Sb[s, t]`` (two adjacent dependents of one head, outside the span):

    Sb[s, t]   = max_{s<=q<t} C[s, q, 1] + C[q+1, t, 0]
    I[s, t, 1] = S[s, t] + max(C[s+1, t, 0] + sib(s, s, t),
                               max_{s<r<t} I[s, r, 1] + Sb[r, t] + sib(s, r, t))
    I[s, t, 0] = S[t, s] + max(C[s, t-1, 1] + sib(t, t, s),
                               max_{s<r<t} Sb[s, r] + I[r, t, 0] + sib(t, r, s))

with the complete items as in first order. Each tree has one derivation here too, so
:func:`kbest_eisner2` (Huang & Chiang 2005 over this hypergraph) returns distinct trees.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._eisner_kernels import (I_LEFT, I_RIGHT, SECOND_ORDER_SHAPES, SIB_LEFT, SIB_RIGHT, SIBLING, SPLIT, _merge,
                              complete_kbest, complete_spans, kbest_chart, kbest_trees)
from ._arc_kernels import P, W, X, XPOS, atom, direction_distance
from seqspectral.perceptron.hashing import feature, mix, slot

NEG = -np.inf


@njit(cache=True)
def sibling_features(atoms, start, n, h, s, m, tags, mask, out):
    """The 16 slots of sibling part ``(h, s, m)`` (``s == h``: ``m`` is the innermost
    dependent); any arc-feature buffer is large enough."""
    dd = direction_distance(s, m) + (64 if s == h else 0)
    hp, mp, mw = atoms[start + h, P], atoms[start + m, P], atoms[start + m, W]
    if s == h:
        sp, sw, sx = -8, -8, -8
    else:
        sp, sw, sx = atoms[start + s, P], atoms[start + s, W], atoms[start + s, X]
    fs = (feature(60, hp, sp, mp, 0), feature(61, sp, mp, 0, 0), feature(62, sw, mw, 0, 0),
          feature(63, sw, mp, 0, 0), feature(64, sp, mw, 0, 0), feature(65, atoms[start + h, W], sp, mp, 0),
          feature(66, atoms[start + h, X], sx, atoms[start + m, X], 0) if tags & XPOS else feature(67, hp, sp, mw, 0),
          feature(68, sp, mp, atom(atoms, start, n, m + (1 if m > h else -1), P), 0))
    k = 0
    for f in fs:
        out[k] = slot(f, mask)
        out[k + 1] = slot(mix(f, dd), mask)
        k += 2
    return k


@njit(cache=True, inline="always")
def _part_score(atoms, start, n, h, s, m, tags, weights, mask, buf):
    k = sibling_features(atoms, start, n, h, s, m, tags, mask, buf)
    v = 0.0
    for i in range(k):
        v += weights[buf[i]]
    return v


@njit(cache=True)
def sibling_scores(atoms, start, n, tags, weights, buf, allowed):
    """``SIB[h, s, m]`` for every sibling part whose arcs ``h -> m`` and ``h -> s`` the mask
    ``allowed`` keeps (an empty mask keeps every arc; :mod:`._pruning_kernels`); -inf
    elsewhere."""
    mask = len(weights) - 1
    SIB = np.full((n + 1, n + 1, n + 1), NEG)
    every = allowed.shape[0] == 0
    for h in range(n + 1):
        for m in range(1, n + 1):
            if m == h or not (every or allowed[h, m]):
                continue
            lo, hi = (h + 1, m) if m > h else (m + 1, h)
            SIB[h, h, m] = _part_score(atoms, start, n, h, h, m, tags, weights, mask, buf)
            for s in range(lo, hi):
                if every or allowed[h, s]:
                    SIB[h, s, m] = _part_score(atoms, start, n, h, s, m, tags, weights, mask, buf)
    return SIB


@njit(cache=True)
def eisner2(S, SIB, single_root):
    """The best projective tree under arc scores ``S`` and sibling scores ``SIB``."""
    n = S.shape[0] - 1
    C = np.full((n + 1, n + 1, 2), NEG)
    I = np.full((n + 1, n + 1, 2), NEG)
    Sb = np.full((n + 1, n + 1), NEG)
    bc = np.zeros((n + 1, n + 1, 2), dtype=np.int64)
    bi = np.zeros((n + 1, n + 1, 2), dtype=np.int64)
    bs = np.zeros((n + 1, n + 1), dtype=np.int64)
    for s in range(n + 1):
        C[s, s, 0] = 0.0
        C[s, s, 1] = 0.0
    for width in range(1, n + 1):
        for s in range(n + 1 - width):
            t = s + width
            if s > 0:
                best, arg = NEG, s
                for q in range(s, t):
                    v = C[s, q, 1] + C[q + 1, t, 0]
                    if v > best:
                        best, arg = v, q
                Sb[s, t] = best
                bs[s, t] = arg
            # right arc s -> t
            best, arg = C[s + 1, t, 0] + SIB[s, s, t], -1
            if not (single_root and s == 0):
                for r in range(s + 1, t):
                    v = I[s, r, 1] + Sb[r, t] + SIB[s, r, t]
                    if v > best:
                        best, arg = v, r
            I[s, t, 1] = best + S[s, t]
            bi[s, t, 1] = arg
            if s > 0:
                # left arc t -> s
                best, arg = C[s, t - 1, 1] + SIB[t, t, s], -1
                for r in range(s + 1, t):
                    v = Sb[s, r] + I[r, t, 0] + SIB[t, r, s]
                    if v > best:
                        best, arg = v, r
                I[s, t, 0] = best + S[t, s]
                bi[s, t, 0] = arg
            complete_spans(C, I, bc, s, t)
    heads = np.zeros(n, dtype=np.int32)
    # stack of (s, t, direction, item: 0 complete, 1 incomplete, 2 sibling)
    stack = np.empty((4 * n + 8, 4), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, n, 1, 0
    top = 1
    while top > 0:
        top -= 1
        s, t, d, item = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if s == t:
            continue
        if item == 0:
            q = bc[s, t, d]
            if d == 1:
                a = (s, q, 1, 1)
                b = (q, t, 1, 0)
            else:
                a = (s, q, 0, 0)
                b = (q, t, 0, 1)
        elif item == 2:
            q = bs[s, t]
            a = (s, q, 1, 0)
            b = (q + 1, t, 0, 0)
        else:
            r = bi[s, t, d]
            if d == 1:
                heads[t - 1] = s
                if r < 0:
                    a = (s + 1, t, 0, 0)
                    b = (s, s, 1, 0)
                else:
                    a = (s, r, 1, 1)
                    b = (r, t, 0, 2)
            else:
                heads[s - 1] = t
                if r < 0:
                    a = (s, t - 1, 1, 0)
                    b = (t, t, 0, 0)
                else:
                    a = (s, r, 0, 2)
                    b = (r, t, 0, 1)
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = a
        stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2], stack[top + 1, 3] = b
        top += 2
    return heads


@njit(cache=True)
def previous_siblings(heads, start, n):
    """For every word ``m`` of a tree, its sibling part's ``s`` (see the module docstring)."""
    prev = np.empty(n + 1, dtype=np.int64)
    last_right = np.arange(n + 1)  # per head: the latest right dependent seen, scanning rightwards
    for m in range(1, n + 1):
        h = heads[start + m]
        if m > h:
            prev[m] = last_right[h]
            last_right[h] = m
    last_left = np.arange(n + 1)
    for m in range(n, 0, -1):
        h = heads[start + m]
        if m < h:
            prev[m] = last_left[h]
            last_left[h] = m
    return prev


@njit(cache=True)
def kbest_eisner2(S, SIB, k, single_root):
    """Up to ``k`` best projective trees under arc scores ``S`` and sibling scores ``SIB``:
    ``(heads (r × n), scores (r))``, best first."""
    n = S.shape[0] - 1
    score, count, bp, hs, hp = kbest_chart(n, k, 5)
    zero = np.zeros(n + 1)
    edge = np.zeros(n + 1)
    for width in range(1, n + 1):
        for s in range(n + 1 - width):
            t = s + width
            if s > 0:
                count[s, t, SIBLING] = _merge(score, count, SPLIT, s, t, s, t - 1, zero, k, score[s, t, SIBLING],
                                              bp[s, t, SIBLING], hs, hp)
            # right arc s -> t: hyperedge q = s (t innermost) or q = r (previous dependent r)
            edge[s] = SIB[s, s, t]
            for r in range(s + 1, t):
                edge[r] = SIB[s, r, t]
            last = s if (single_root and s == 0) else t - 1
            c = _merge(score, count, SIB_RIGHT, s, t, s, last, edge, k, score[s, t, I_RIGHT], bp[s, t, I_RIGHT],
                       hs, hp)
            score[s, t, I_RIGHT, :c] += S[s, t]
            count[s, t, I_RIGHT] = c
            if s > 0:  # left arc t -> s: hyperedge q = t (s innermost) or q = r
                edge[t] = SIB[t, t, s]
                for r in range(s + 1, t):
                    edge[r] = SIB[t, r, s]
                c = _merge(score, count, SIB_LEFT, s, t, s + 1, t, edge, k, score[s, t, I_LEFT], bp[s, t, I_LEFT],
                           hs, hp)
                score[s, t, I_LEFT, :c] += S[t, s]
                count[s, t, I_LEFT] = c
            complete_kbest(score, count, bp, s, t, k, zero, hs, hp)
    return kbest_trees(score, count, bp, n, SECOND_ORDER_SHAPES)
