"""Numba kernels: Eisner's projective decoder, 1-best and k-best.

Chart items over positions ``0..n`` (0 = the root) in the notation of Eisner (1996) /
McDonald et al. (2005): complete spans ``C[s, t, d]`` and incomplete spans ``I[s, t, d]``,
``d = 1`` headed at ``s`` (right-facing), ``d = 0`` headed at ``t``:

    I[s, t, 1] = max_{s<=q<t} C[s, q, 1] + C[q+1, t, 0] + S[s, t]
    I[s, t, 0] = max_{s<=q<t} C[s, q, 1] + C[q+1, t, 0] + S[t, s]
    C[s, t, 1] = max_{s<q<=t} I[s, q, 1] + C[q, t, 1]
    C[s, t, 0] = max_{s<=q<t} C[s, q, 0] + I[q, t, 0]

and the best tree is ``C[0, n, 1]``. With ``single_root`` the root takes exactly one
dependent: ``I[0, t, 1]`` only splits at ``q = 0``. Every projective tree has exactly one
derivation, so the k best derivations are k distinct trees. The k-best decoder is
Algorithm 2 of Huang & Chiang (2005): for each item, a heap holds the best derivation of
every incoming hyperedge and pops k times, pushing each popped derivation's two successors
(next-best left or right sub-derivation). The chart, merge and read-out are shared with
the second-order k-best decoder (:func:`._sibling_kernels.kbest_eisner2`), whose
hyperedges carry their own sibling weights.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NEG = -np.inf


@njit(cache=True)
def complete_spans(C, I, bc, s, t):
    """Eisner's complete items of span (s, t) from its incomplete ones, with back-pointers in
    ``bc``: headed by t to the left (not for s = 0: the root is nobody's dependent) and by s
    to the right. Shared by the first- and second-order parsers."""
    if s > 0:
        best, arg = NEG, s
        for q in range(s, t):
            v = C[s, q, 0] + I[q, t, 0]
            if v > best:
                best, arg = v, q
        C[s, t, 0] = best
        bc[s, t, 0] = arg
    best, arg = NEG, s + 1
    for q in range(s + 1, t + 1):
        v = I[s, q, 1] + C[q, t, 1]
        if v > best:
            best, arg = v, q
    C[s, t, 1] = best
    bc[s, t, 1] = arg


@njit(cache=True)
def eisner(S, single_root):
    """The highest-scoring projective tree under arc scores ``S[h, m]``: heads of words 1..n."""
    n = S.shape[0] - 1
    C = np.full((n + 1, n + 1, 2), NEG)
    I = np.full((n + 1, n + 1, 2), NEG)
    bc = np.zeros((n + 1, n + 1, 2), dtype=np.int64)
    bi = np.zeros((n + 1, n + 1, 2), dtype=np.int64)
    for s in range(n + 1):
        C[s, s, 0] = 0.0
        C[s, s, 1] = 0.0
    for width in range(1, n + 1):
        for s in range(n + 1 - width):
            t = s + width
            best, arg = NEG, s
            last = s if (single_root and s == 0) else t - 1
            for q in range(s, last + 1):
                v = C[s, q, 1] + C[q + 1, t, 0]
                if v > best:
                    best, arg = v, q
            I[s, t, 1] = best + S[s, t]
            bi[s, t, 1] = arg
            if s > 0:  # the root is nobody's dependent
                I[s, t, 0] = best + S[t, s]
                bi[s, t, 0] = arg
            complete_spans(C, I, bc, s, t)
    heads = np.zeros(n, dtype=np.int32)
    # backtrack: stack of (s, t, direction, complete)
    stack = np.empty((4 * n + 4, 4), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, n, 1, 1
    top = 1
    while top > 0:
        top -= 1
        s, t, d, c = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if s == t:
            continue
        if c == 1:
            q = bc[s, t, d]
            if d == 1:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = s, q, 1, 0
                stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2], stack[top + 1, 3] = q, t, 1, 1
            else:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = s, q, 0, 1
                stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2], stack[top + 1, 3] = q, t, 0, 0
            top += 2
        else:
            if d == 1:
                heads[t - 1] = s
            else:
                heads[s - 1] = t
            q = bi[s, t, d]
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = s, q, 1, 1
            stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2], stack[top + 1, 3] = q + 1, t, 0, 1
            top += 2
    return heads


# -- k-best (Huang & Chiang 2005, Algorithm 2) -------------------------------------------------
#: item types of the k-best chart (SIBLING: the second-order sibling item ``Sb``)
C_LEFT, C_RIGHT, I_LEFT, I_RIGHT, SIBLING = 0, 1, 2, 3, 4
#: hyperedge shapes (see :func:`_children`)
COMPLETE_LEFT, COMPLETE_RIGHT, SPLIT, SIB_RIGHT, SIB_LEFT = 0, 1, 2, 3, 4
#: the hyperedge shape of each item type, first and second order
FIRST_ORDER_SHAPES = np.array([COMPLETE_LEFT, COMPLETE_RIGHT, SPLIT, SPLIT], dtype=np.int64)
SECOND_ORDER_SHAPES = np.array([COMPLETE_LEFT, COMPLETE_RIGHT, SIB_LEFT, SIB_RIGHT, SPLIT], dtype=np.int64)


@njit(cache=True, inline="always")
def _children(shape, s, t, q):
    """The two sub-items ``(s1, t1, type1, s2, t2, type2)`` of hyperedge ``q`` of an item
    over ``(s, t)``: complete left/right, a split ``C[s, q, 1] + C[q+1, t, 0]`` (first-order
    incomplete items and sibling items), or a second-order incomplete item — right:
    ``q = s`` the innermost dependent ``C[s, s, 1] + C[s+1, t, 0]``, else
    ``I[s, q, 1] + Sb[q, t]``; left: ``q = t`` the innermost ``C[s, t-1, 1] + C[t, t, 0]``,
    else ``Sb[s, q] + I[q, t, 0]``."""
    if shape == COMPLETE_LEFT:
        return s, q, C_LEFT, q, t, I_LEFT
    if shape == COMPLETE_RIGHT:
        return s, q, I_RIGHT, q, t, C_RIGHT
    if shape == SPLIT:
        return s, q, C_RIGHT, q + 1, t, C_LEFT
    if shape == SIB_RIGHT:
        if q == s:
            return s, s, C_RIGHT, s + 1, t, C_LEFT
        return s, q, I_RIGHT, q, t, SIBLING
    if q == t:
        return s, t - 1, C_RIGHT, t, t, C_LEFT
    return s, q, SIBLING, q, t, I_LEFT


@njit(cache=True)
def _heap_push(hs, hp, size, score, q, j1, j2):
    i = size
    hs[i] = score
    hp[i, 0], hp[i, 1], hp[i, 2] = q, j1, j2
    while i > 0:
        parent = (i - 1) // 2
        if hs[parent] >= hs[i]:
            break
        hs[parent], hs[i] = hs[i], hs[parent]
        for c in range(3):
            hp[parent, c], hp[i, c] = hp[i, c], hp[parent, c]
        i = parent
    return size + 1


@njit(cache=True)
def _heap_pop(hs, hp, size):
    """Remove the top (read it before calling); returns the new size."""
    size -= 1
    hs[0] = hs[size]
    for c in range(3):
        hp[0, c] = hp[size, c]
    i = 0
    while True:
        a, b, best = 2 * i + 1, 2 * i + 2, i
        if a < size and hs[a] > hs[best]:
            best = a
        if b < size and hs[b] > hs[best]:
            best = b
        if best == i:
            break
        hs[best], hs[i] = hs[i], hs[best]
        for c in range(3):
            hp[best, c], hp[i, c] = hp[i, c], hp[best, c]
        i = best
    return size


@njit(cache=True)
def _merge(score, count, shape, s, t, first, last, edge, k, out_score, out_bp, hs, hp):
    """The k best derivations over hyperedges ``q = first..last`` of an item, hyperedge ``q``
    weighing ``edge[q]``; returns how many (derivations scoring -inf, over pruned arcs or
    parts, are none)."""
    size = 0
    for q in range(first, last + 1):
        s1, t1, y1, s2, t2, y2 = _children(shape, s, t, q)
        if count[s1, t1, y1] > 0 and count[s2, t2, y2] > 0:
            size = _heap_push(hs, hp, size, score[s1, t1, y1, 0] + score[s2, t2, y2, 0] + edge[q], q, 0, 0)
    r = 0
    while size > 0 and r < k:
        v, q, j1, j2 = hs[0], hp[0, 0], hp[0, 1], hp[0, 2]
        if v == NEG:
            break
        size = _heap_pop(hs, hp, size)
        out_score[r] = v
        out_bp[r, 0], out_bp[r, 1], out_bp[r, 2] = q, j1, j2
        r += 1
        s1, t1, y1, s2, t2, y2 = _children(shape, s, t, q)
        if j2 + 1 < count[s2, t2, y2]:
            size = _heap_push(hs, hp, size, score[s1, t1, y1, j1] + score[s2, t2, y2, j2 + 1] + edge[q], q, j1,
                              j2 + 1)
        if j2 == 0 and j1 + 1 < count[s1, t1, y1]:
            size = _heap_push(hs, hp, size, score[s1, t1, y1, j1 + 1] + score[s2, t2, y2, 0] + edge[q], q, j1 + 1, 0)
    return r


@njit(cache=True)
def kbest_chart(n, k, n_types):
    """An empty k-best chart over ``n`` words: ``(score, count, bp, heap scores, heap
    entries)`` with the one-word complete items set."""
    score = np.full((n + 1, n + 1, n_types, k), NEG)
    count = np.zeros((n + 1, n + 1, n_types), dtype=np.int64)
    bp = np.zeros((n + 1, n + 1, n_types, k, 3), dtype=np.int32)
    for s in range(n + 1):
        score[s, s, C_LEFT, 0] = 0.0
        score[s, s, C_RIGHT, 0] = 0.0
        count[s, s, C_LEFT] = 1
        count[s, s, C_RIGHT] = 1
    return score, count, bp, np.empty(n + 2 + 2 * k), np.empty((n + 2 + 2 * k, 3), dtype=np.int64)


@njit(cache=True)
def complete_kbest(score, count, bp, s, t, k, zero, hs, hp):
    """The k best complete items of span (s, t) (as :func:`complete_spans`)."""
    if s > 0:
        count[s, t, C_LEFT] = _merge(score, count, COMPLETE_LEFT, s, t, s, t - 1, zero, k, score[s, t, C_LEFT],
                                     bp[s, t, C_LEFT], hs, hp)
    count[s, t, C_RIGHT] = _merge(score, count, COMPLETE_RIGHT, s, t, s + 1, t, zero, k, score[s, t, C_RIGHT],
                                  bp[s, t, C_RIGHT], hs, hp)


@njit(cache=True)
def kbest_trees(score, count, bp, n, shapes):
    """The trees of the chart's ``C[0, n, 1]`` derivations, best first: ``(heads (r × n), scores (r))``."""
    n_trees = count[0, n, C_RIGHT]
    heads = np.zeros((n_trees, n), dtype=np.int32)
    stack = np.empty((4 * n + 4, 4), dtype=np.int64)
    for r in range(n_trees):
        stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, n, C_RIGHT, r
        top = 1
        while top > 0:
            top -= 1
            s, t, y, j = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
            if s == t:
                continue
            q, j1, j2 = bp[s, t, y, j, 0], bp[s, t, y, j, 1], bp[s, t, y, j, 2]
            if y == I_RIGHT:
                heads[r, t - 1] = s
            elif y == I_LEFT:
                heads[r, s - 1] = t
            s1, t1, y1, s2, t2, y2 = _children(shapes[y], s, t, q)
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = s1, t1, y1, j1
            stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2], stack[top + 1, 3] = s2, t2, y2, j2
            top += 2
    return heads, score[0, n, C_RIGHT, :n_trees].copy()


@njit(cache=True)
def kbest_eisner(S, k, single_root):
    """Up to ``k`` best projective trees under ``S``: ``(heads (r × n), scores (r))``, best first."""
    n = S.shape[0] - 1
    score, count, bp, hs, hp = kbest_chart(n, k, 4)
    zero = np.zeros(n + 1)
    pair_score = np.empty(k)
    pair_bp = np.empty((k, 3), dtype=np.int32)
    for width in range(1, n + 1):
        for s in range(n + 1 - width):
            t = s + width
            last = s if (single_root and s == 0) else t - 1
            r = _merge(score, count, SPLIT, s, t, s, last, zero, k, pair_score, pair_bp, hs, hp)
            for j in range(r):
                score[s, t, I_RIGHT, j] = pair_score[j] + S[s, t]
                bp[s, t, I_RIGHT, j] = pair_bp[j]
            count[s, t, I_RIGHT] = r
            if s > 0:  # the root is nobody's dependent
                for j in range(r):
                    score[s, t, I_LEFT, j] = pair_score[j] + S[t, s]
                    bp[s, t, I_LEFT, j] = pair_bp[j]
                count[s, t, I_LEFT] = r
            complete_kbest(score, count, bp, s, t, k, zero, hs, hp)
    return kbest_trees(score, count, bp, n, FIRST_ORDER_SHAPES)
