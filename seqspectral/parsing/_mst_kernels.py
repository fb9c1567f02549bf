"""Numba kernels: non-projective decoding by maximum spanning arborescences, 1-best and k-best.

Trees over positions ``0..n`` (0 = the root) scored by arcs ``S[h, m]`` (-inf: no such arc)
are the spanning arborescences rooted at 0 (McDonald, Pereira, Ribarov & Hajič 2005).

1-best: Chu–Liu–Edmonds in Tarjan's (1977) dense form, with Camerini, Fratta & Maffioli's
(1979) correction of its expansion. Every super-node keeps one row ``w[v, u]`` of the best
(reduced) arc from each live super-node ``u`` into it; a node takes its best incoming arc,
and when that closes a cycle the cycle becomes one super-node whose row is the entry-wise
maximum of its members' rows less each member's chosen arc (Edmonds' reduced weights) and
whose column the maximum of theirs: O(c · n) per contraction of a c-node cycle, O(n²) in
all. Expansion walks the contraction forest from the last super-node down: a super-node's
arc is kept unless an ancestor's kept arc enters below it.

The root constraint (exactly one word on the root, as UD requires) is Gabow & Tarjan's
(1984) shift, used for this purpose by Zmigrod, Vieira & Cotterell (2020, 2021): every root
arc loses a constant ``M`` larger than any two trees' score difference, so every tree with
one root arc outscores every tree with several and their order among themselves is kept.

k-best: the partition scheme of Lawler (1972) and Camerini, Fratta & Maffioli (1980), as in
Hall (2007): a subproblem is the set of trees containing some arcs (``required``) and none of
some others (``banned``); the best tree ``T`` of the best subproblem is the next answer, and
its subproblem splits, over ``T``'s free arcs ``e_1..e_j`` (words in order), into the
subproblems "``e_1..e_{i-1}`` required, ``e_i`` banned" — disjoint, and together all its
trees but ``T``. Each subproblem's best tree is one constrained MST (arcs removed from
``S``), computed lazily: a subproblem enters the queue under its parent's score, an upper
bound, and is solved only when it reaches the top. (Camerini et al.'s ``next`` finds each
subproblem's runner-up in O(n²) from one contraction; here every subproblem costs a full
O(n²) MST, O(k n³) in all.) With the root constraint the k best of the shifted scores are
the single-root trees first, and a tree with several root arcs is never returned.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NEG = -np.inf


@njit(cache=True)
def _top(parent, x):
    """The live super-node that contains node ``x``."""
    while parent[x] >= 0:
        x = parent[x]
    return x


@njit(cache=True)
def arborescence(S, heads):
    """The maximum spanning arborescence rooted at 0 under ``S`` (Tarjan's dense
    Chu–Liu–Edmonds); writes the heads of words 1..n into ``heads`` and returns False when
    no arborescence has a finite score (some word's every arc is -inf)."""
    N = S.shape[0]
    V = 2 * N
    w = np.full((V, V), NEG)          # w[v, u]: best reduced arc from live u into v
    arc_h = np.zeros((V, V), dtype=np.int64)  # ... its original head
    arc_m = np.zeros((V, V), dtype=np.int64)  # ... and original modifier
    for m in range(1, N):
        for h in range(N):
            if h != m:
                w[m, h] = S[h, m]
                arc_h[m, h] = h
                arc_m[m, h] = m
    parent = np.full(V, -1, dtype=np.int64)
    live = np.zeros(V, dtype=np.bool_)
    live[:N] = True
    chosen = np.zeros(V, dtype=np.bool_)  # has taken its entering arc
    in_w = np.zeros(V)
    in_h = np.zeros(V, dtype=np.int64)
    in_m = np.zeros(V, dtype=np.int64)
    queue = np.empty(V, dtype=np.int64)
    top = 0
    for v in range(N - 1, 0, -1):
        queue[top] = v
        top += 1
    cycle = np.empty(V, dtype=np.int64)
    next_id = N
    while top > 0:
        top -= 1
        v = queue[top]
        best, u = NEG, -1
        for x in range(next_id):
            if live[x] and x != v and w[v, x] > best:
                best, u = w[v, x], x
        if u < 0:
            return False
        chosen[v] = True
        in_w[v], in_h[v], in_m[v] = best, arc_h[v, u], arc_m[v, u]
        # does the new arc close a cycle? follow the chosen arcs up from u
        x = u
        while x != v and x != 0 and chosen[x]:
            x = _top(parent, in_h[x])
        if x != v:
            continue
        c = 0
        x = v
        while True:
            cycle[c] = x
            c += 1
            x = _top(parent, in_h[x])
            if x == v:
                break
        new = next_id
        next_id += 1
        for i in range(c):
            parent[cycle[i]] = new
            live[cycle[i]] = False
        live[new] = True
        for y in range(new):
            if not live[y]:
                continue
            best_in, best_out = NEG, NEG
            for i in range(c):
                x = cycle[i]
                r = w[x, y] - in_w[x]
                if r > best_in:
                    best_in = r
                    arc_h[new, y], arc_m[new, y] = arc_h[x, y], arc_m[x, y]
                if w[y, x] > best_out:
                    best_out = w[y, x]
                    arc_h[y, new], arc_m[y, new] = arc_h[y, x], arc_m[y, x]
            w[new, y] = best_in
            w[y, new] = best_out
        queue[top] = new
        top += 1
    # expansion: from the last super-node down, keep an arc unless an ancestor's kept arc
    # enters below it
    overridden = np.zeros(V, dtype=np.bool_)
    for x in range(next_id - 1, 0, -1):
        if not chosen[x] or overridden[x]:
            continue
        m = in_m[x]
        heads[m - 1] = in_h[x]
        y = m
        while y != x:
            overridden[y] = True
            y = parent[y]
    return True


@njit(cache=True)
def root_shift(S):
    """Gabow & Tarjan's constant: larger than any two trees' score difference under ``S``."""
    lo, hi = np.inf, -np.inf
    for v in S.ravel():
        if v > NEG:
            lo = min(lo, v)
            hi = max(hi, v)
    return 1.0 + S.shape[0] * (hi - lo) if hi >= lo else 1.0


@njit(cache=True)
def _shifted(S, single_root):
    T = S.copy()
    if single_root:
        T[0, :] -= root_shift(S)
    return T


@njit(cache=True)
def tree_score(S, heads):
    total = 0.0
    for m in range(1, len(heads) + 1):
        total += S[heads[m - 1], m]
    return total


@njit(cache=True)
def chu_liu_edmonds(S, single_root):
    """The highest-scoring tree (projective or not) under ``S``: heads of words 1..n; with
    ``single_root`` exactly one word on the root."""
    heads = np.zeros(S.shape[0] - 1, dtype=np.int32)
    arborescence(_shifted(S, single_root), heads)
    return heads


@njit(cache=True)
def _constrained(T, required, parent_of, ban_h, ban_m, node):
    """``T`` with the arcs of subproblem ``node`` removed: every arc into a word other than its
    required head, and the banned arc of ``node`` and of each of its ancestors."""
    C = T.copy()
    for m in range(1, T.shape[0]):
        h = required[node, m]
        if h >= 0:
            for g in range(T.shape[0]):
                if g != h:
                    C[g, m] = NEG
    x = node
    while x > 0:
        C[ban_h[x], ban_m[x]] = NEG
        x = parent_of[x]
    return C


@njit(cache=True)
def kbest_mst(S, k, single_root):
    """Up to ``k`` best trees (projective or not) under ``S``: ``(heads (r × n), scores (r))``,
    best first, distinct; with ``single_root`` only trees with one root word."""
    n = S.shape[0] - 1
    T = _shifted(S, single_root)
    cap = 1 + k * (n + 1)
    required = np.full((cap, n + 1), -1, dtype=np.int64)
    parent_of = np.full(cap, -1, dtype=np.int64)
    ban_h = np.zeros(cap, dtype=np.int64)
    ban_m = np.zeros(cap, dtype=np.int64)
    trees = np.zeros((cap, n), dtype=np.int32)
    solved = np.zeros(cap, dtype=np.bool_)
    key = np.zeros(cap)
    # the queue: a binary max-heap of subproblem ids under ``key``
    heap = np.empty(cap, dtype=np.int64)
    size = 0
    n_nodes = 1
    out_heads = np.zeros((k, n), dtype=np.int32)
    out_scores = np.zeros(k)
    r = 0
    if arborescence(T, trees[0]):
        solved[0] = True
        key[0] = tree_score(T, trees[0])
        heap[0] = 0
        size = 1
    while size > 0 and r < k:
        node = heap[0]
        size -= 1
        heap[0] = heap[size]
        _sift_down(heap, key, size, 0)
        if not solved[node]:
            C = _constrained(T, required, parent_of, ban_h, ban_m, node)
            if arborescence(C, trees[node]):
                solved[node] = True
                key[node] = tree_score(T, trees[node])
                size = _push(heap, key, size, node)
            continue
        tree = trees[node]
        if single_root:
            roots = 0
            for m in range(n):
                roots += tree[m] == 0
            if roots > 1:  # every tree with one root word has been returned
                break
        out_heads[r] = tree
        out_scores[r] = tree_score(S, tree)
        r += 1
        for m in range(1, n + 1):
            if required[node, m] >= 0:
                continue
            child = n_nodes
            n_nodes += 1
            required[child] = required[node]
            parent_of[child] = node
            ban_h[child], ban_m[child] = tree[m - 1], m
            key[child] = key[node]
            size = _push(heap, key, size, child)
            required[node, m] = tree[m - 1]  # the later children keep this arc
    return out_heads[:r].copy(), out_scores[:r].copy()


@njit(cache=True)
def _push(heap, key, size, node):
    i = size
    heap[i] = node
    while i > 0:
        p = (i - 1) // 2
        if key[heap[p]] >= key[heap[i]]:
            break
        heap[p], heap[i] = heap[i], heap[p]
        i = p
    return size + 1


@njit(cache=True)
def _sift_down(heap, key, size, i):
    while True:
        a, b, best = 2 * i + 1, 2 * i + 2, i
        if a < size and key[heap[a]] > key[heap[best]]:
            best = a
        if b < size and key[heap[b]] > key[heap[best]]:
            best = b
        if best == i:
            return
        heap[best], heap[i] = heap[i], heap[best]
        i = best
