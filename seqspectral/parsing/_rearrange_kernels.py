"""Numba kernels: second-order non-projective decoding by arc rearrangement.

McDonald & Pereira (2006), section 3.2 (their Figure 4): exact non-projective second-order
decoding is NP-hard, so start from the best projective tree under arcs and sibling parts
(:func:`._sibling_kernels.eisner2`), then repeatedly make the single change of one word's
head that raises the second-order score most while the result is still a tree (the new head
is not inside the word's subtree; with the root constraint, the root keeps exactly one
word), until no change raises it. Each round tries all O(n²) changes and rescores a tree in
O(n): O(n³) a round, few rounds in practice. The k-best variant rearranges each of the
second-order projective k best and keeps the distinct results, best first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._sibling_kernels import eisner2, kbest_eisner2


@njit(cache=True)
def second_order_score(S, SIB, heads, last):
    """Arcs plus sibling parts of the tree ``heads`` (``heads[m]`` for m = 1..n, entry 0
    unused); ``last`` is work space of n + 1 entries."""
    n = len(heads) - 1
    total = 0.0
    for h in range(n + 1):
        last[h] = h
    for m in range(1, n + 1):  # right dependents, inside out
        h = heads[m]
        if m > h:
            total += S[h, m] + SIB[h, last[h], m]
            last[h] = m
    for h in range(n + 1):
        last[h] = h
    for m in range(n, 0, -1):  # left dependents, inside out
        h = heads[m]
        if m < h:
            total += S[h, m] + SIB[h, last[h], m]
            last[h] = m
    return total


@njit(cache=True)
def _inside(heads, m, g):
    """Whether ``g`` lies in the subtree of ``m`` (is ``m`` or one of its descendants)."""
    while g != 0:
        if g == m:
            return True
        g = heads[g]
    return False


@njit(cache=True)
def rearrange(S, SIB, start_heads, single_root):
    """Hill-climb from the tree ``start_heads`` (heads of words 1..n) by single head changes;
    returns the heads of the local optimum."""
    n = len(start_heads)
    heads = np.zeros(n + 1, dtype=np.int32)
    heads[1:] = start_heads
    last = np.empty(n + 1, dtype=np.int64)
    current = second_order_score(S, SIB, heads, last)
    while True:
        best, best_m, best_h = current, -1, -1
        for m in range(1, n + 1):
            old = heads[m]
            if single_root and old == 0:
                continue
            for g in range(n + 1):
                if g == old or g == m or (single_root and g == 0) or _inside(heads, m, g):
                    continue
                heads[m] = g
                v = second_order_score(S, SIB, heads, last)
                heads[m] = old
                if v > best:
                    best, best_m, best_h = v, m, g
        if best_m < 0 or best <= current + 1e-12 * abs(current):
            break
        heads[best_m] = best_h
        current = best
    return heads[1:].copy()


@njit(cache=True)
def eisner2_rearranged(S, SIB, single_root):
    """The best projective second-order tree, then rearranged."""
    return rearrange(S, SIB, eisner2(S, SIB, single_root), single_root)


@njit(cache=True)
def kbest_rearranged(S, SIB, k, single_root):
    """Up to ``k`` distinct trees: the rearranged second-order projective k best, best
    first by second-order score: ``(heads (r × n), scores (r))``."""
    trees, _ = kbest_eisner2(S, SIB, k, single_root)
    n = S.shape[0] - 1
    out = np.zeros((len(trees), n), dtype=np.int32)
    values = np.zeros(len(trees))
    full = np.zeros(n + 1, dtype=np.int32)
    last = np.empty(n + 1, dtype=np.int64)
    r = 0
    for i in range(len(trees)):
        tree = rearrange(S, SIB, trees[i], single_root)
        seen = False
        for j in range(r):
            same = True
            for m in range(n):
                if out[j, m] != tree[m]:
                    same = False
                    break
            if same:
                seen = True
                break
        if seen:
            continue
        out[r] = tree
        full[1:] = tree
        values[r] = second_order_score(S, SIB, full, last)
        r += 1
    order = np.argsort(-values[:r], kind="mergesort")
    return out[order].copy(), values[order].copy()
