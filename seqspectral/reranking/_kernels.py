"""Numba kernels of the reranker: the baseline tree features and the perceptron over lists."""

from __future__ import annotations

import numpy as np
from numba import njit

from seqspectral.perceptron.hashing import feature, slot

_NONE = -7  # no modifier on that side / no grandparent


@njit(cache=True)
def _tree_feature_count(heads, at, n):
    left = np.zeros(n + 1, dtype=np.int64)
    right = np.zeros(n + 1, dtype=np.int64)
    for m in range(1, n + 1):
        h = heads[at + m - 1]
        if m < h:
            left[h] += 1
        else:
            right[h] += 1
    total = n
    for h in range(n + 1):
        total += max(left[h], 1) * max(right[h], 1)
    return total


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def tree_features(pos, sentence_offsets, owner, heads, tree_offsets, mask):
    """Baseline reranking features of every candidate tree (Dhillon et al. 2012, Sec. 5):
    POS(left modifier) × POS(head) × POS(right modifier) for every head and every pair of
    its left and right modifiers (a missing side as NONE), and POS(modifier) × POS(head) ×
    POS(grandparent) × side for every modifier.

    ``pos``: the UPOS atom of every row of the sentences' atom table (root rows included,
    sentence ``s`` from row ``sentence_offsets[s]``); candidate ``c`` is a tree over
    sentence ``owner[c]`` with heads ``heads[tree_offsets[c]:tree_offsets[c + 1]]``.
    Returns CSR ``(indptr, indices)``."""
    n_trees = len(owner)
    indptr = np.zeros(n_trees + 1, dtype=np.int64)
    for c in range(n_trees):
        indptr[c + 1] = indptr[c] + _tree_feature_count(heads, tree_offsets[c], tree_offsets[c + 1] - tree_offsets[c])
    indices = np.empty(indptr[-1], dtype=np.int32)
    for c in range(n_trees):
        start = sentence_offsets[owner[c]]
        at = tree_offsets[c]
        n = tree_offsets[c + 1] - at
        k = indptr[c]
        for h in range(n + 1):
            ph = pos[start + h]
            n_left, n_right = 0, 0
            for m in range(1, n + 1):
                if heads[at + m - 1] == h:
                    if m < h:
                        n_left += 1
                    else:
                        n_right += 1
            for l in range(0, n + 1):
                if l > 0 and not (heads[at + l - 1] == h and l < h):
                    continue
                if l == 0 and n_left > 0:
                    continue
                pl = pos[start + l] if l > 0 else _NONE
                for r in range(0, n + 1):
                    if r > 0 and not (heads[at + r - 1] == h and r > h):
                        continue
                    if r == 0 and n_right > 0:
                        continue
                    pr = pos[start + r] if r > 0 else _NONE
                    indices[k] = slot(feature(200, pl, ph, pr, 0), mask)
                    k += 1
        for m in range(1, n + 1):
            h = heads[at + m - 1]
            g = heads[at + h - 1] if h > 0 else -1
            pg = pos[start + g] if g >= 0 else _NONE
            indices[k] = slot(feature(201, pos[start + m], pos[start + h], pg, 1 if m < h else 2), mask)
            k += 1
    return indptr, indices


_STOP = -8  # past the outermost dependent on a side
#: features per modifier and per head (the root row included) of :func:`context_features`
_PER_MODIFIER = 12
_PER_HEAD = 6
#: more features per modifier with ``lexical``
_PER_LEXICAL = 10


@njit(cache=True, inline="always")
def _cap(x, top):
    return x if x < top else top


@njit(cache=True, inline="always")
def _size_bucket(x):
    if x <= 1:
        return x
    if x <= 3:
        return 2
    if x <= 7:
        return 3
    return 4


@njit(cache=True)
def _structure(heads, at, n):
    """Of the tree ``heads[at:at + n]``: every row's head (-1 for the root row), number of
    left and right dependents, outermost left and right dependent (-1: none), every
    modifier's inner adjacent sibling (the next dependent of its head between the two; -1:
    none) and every row's subtree size."""
    head = np.empty(n + 1, dtype=np.int64)
    head[0] = -1
    for m in range(1, n + 1):
        head[m] = heads[at + m - 1]
    n_left = np.zeros(n + 1, dtype=np.int64)
    n_right = np.zeros(n + 1, dtype=np.int64)
    outer_left = np.full(n + 1, -1, dtype=np.int64)
    outer_right = np.full(n + 1, -1, dtype=np.int64)
    inner = np.full(n + 1, -1, dtype=np.int64)
    last = np.full(n + 1, -1, dtype=np.int64)  # right side: the latest dependent seen, left to right
    for m in range(1, n + 1):
        h = head[m]
        if m > h:
            n_right[h] += 1
            inner[m] = last[h]
            last[h] = m
            outer_right[h] = m
    for h in range(n + 1):
        last[h] = -1
    for m in range(n, 0, -1):
        h = head[m]
        if m < h:
            n_left[h] += 1
            inner[m] = last[h]
            last[h] = m
            outer_left[h] = m
    size = np.ones(n + 1, dtype=np.int64)  # subtree sizes, by walking up from every word
    for m in range(1, n + 1):
        a = head[m]
        steps = 0
        while a > 0 and steps <= n:
            size[a] += 1
            a = head[a]
            steps += 1
    return head, n_left, n_right, outer_left, outer_right, inner, size


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def context_features(word, pos, xpos, sentence_offsets, owner, heads, tree_offsets, mask, lexical):
    """Features of every candidate tree beyond what an arc-factored parser scores (Collins &
    Koo 2005's grandparent, sibling and valency templates as used by second-order parsers,
    McDonald & Pereira 2006; Carreras 2007): for every modifier m of head h with
    grandparent g and inner adjacent sibling s (the next dependent of h between m and h,
    NONE if m is the innermost), with directions d(h, m), d(g, h):
    POS(g, h, m) × d(h, m) × d(g, h); word(g) POS(h, m); POS(g) word(h) POS(m); POS(g, h)
    word(m); POS(g, m) skipping h; POS(h, s, m) × d; POS(s, m) × d; word(h) POS(s, m);
    POS(h) word(s) POS(m); POS(h, s) word(m); POS(h, m) × bucketed size of m's subtree × d;
    word(m) POS(h) POS(g). For every head (the root row too): POS(h) × left / right
    dependents (capped at 3); word(h) × the same; POS(h) × outermost left × outermost
    right dependent; POS(h) × outermost dependent × STOP per side; the number of root
    dependents (capped at 3), once per tree. Atoms as in :func:`tree_features`.

    ``lexical`` adds, for every modifier, word and XPOS templates, with c the modifier's
    outermost dependent on its head's side (in UD the preposition or case marker of a nominal:
    the PP-attachment evidence an arc-factored parser cannot see; Collins & Brooks 1995, and
    Koo & Collins 2010's grandparent parts): word(g) POS(h) word(m) × d × d(g, h); word(g)
    word(h) POS(m) × d; XPOS(g, h, m) × d × d(g, h); XPOS(h, s, m) × d; word(s) word(m) POS(h)
    × d; word(h) POS(m) word(c) × d; POS(h, m) word(c) × d; word(h) word(m) word(c) × d;
    XPOS(h) word(m) word(c) × d; POS(g, h, m, c) × d (a missing c: NONE).

    Returns CSR ``(indptr, indices)``: every tree of n words has 12 n + 6 (n + 1) features,
    10 n more with ``lexical``."""
    n_trees = len(owner)
    per_modifier = _PER_MODIFIER + (_PER_LEXICAL if lexical else 0)
    indptr = np.zeros(n_trees + 1, dtype=np.int64)
    for c in range(n_trees):
        n = tree_offsets[c + 1] - tree_offsets[c]
        indptr[c + 1] = indptr[c] + per_modifier * n + _PER_HEAD * (n + 1)
    indices = np.empty(indptr[-1], dtype=np.int32)
    for c in range(n_trees):
        start = sentence_offsets[owner[c]]
        at = tree_offsets[c]
        n = tree_offsets[c + 1] - at
        k = indptr[c]
        head, n_left, n_right, outer_left, outer_right, inner, size = _structure(heads, at, n)
        for m in range(1, n + 1):
            h = head[m]
            g = head[h] if h > 0 else -1
            d = 1 if m < h else 2
            dg = 0 if g < 0 else (1 if h < g else 2)
            pm, wm, ph, wh = pos[start + m], word[start + m], pos[start + h], word[start + h]
            pg = pos[start + g] if g >= 0 else _NONE
            wg = word[start + g] if g >= 0 else _NONE
            s = inner[m]
            ps = pos[start + s] if s >= 0 else _NONE
            ws = word[start + s] if s >= 0 else _NONE
            indices[k] = slot(feature(300, pg, ph, pm, d * 3 + dg), mask)
            indices[k + 1] = slot(feature(301, wg, ph, pm, d), mask)
            indices[k + 2] = slot(feature(302, pg, wh, pm, d), mask)
            indices[k + 3] = slot(feature(303, pg, ph, wm, d), mask)
            indices[k + 4] = slot(feature(304, pg, pm, d * 3 + dg, 0), mask)
            indices[k + 5] = slot(feature(310, ph, ps, pm, d), mask)
            indices[k + 6] = slot(feature(311, ps, pm, d, 0), mask)
            indices[k + 7] = slot(feature(312, wh, ps, pm, d), mask)
            indices[k + 8] = slot(feature(313, ph, ws, pm, d), mask)
            indices[k + 9] = slot(feature(314, ph, ps, wm, d), mask)
            indices[k + 10] = slot(feature(320, ph, pm, _size_bucket(size[m]), d), mask)
            indices[k + 11] = slot(feature(321, wm, ph, pg, d), mask)
            k += _PER_MODIFIER
            if lexical:
                xm, xh = xpos[start + m], xpos[start + h]
                xg = xpos[start + g] if g >= 0 else _NONE
                xs = xpos[start + s] if s >= 0 else _NONE
                o = outer_left[m] if h < m else outer_right[m]
                wc = word[start + o] if o > 0 else _NONE
                pc = pos[start + o] if o > 0 else _NONE
                indices[k] = slot(feature(400, wg, ph, wm, d * 3 + dg), mask)
                indices[k + 1] = slot(feature(401, wg, wh, pm, d), mask)
                indices[k + 2] = slot(feature(402, xg, xh, xm, d * 3 + dg), mask)
                indices[k + 3] = slot(feature(403, xh, xs, xm, d), mask)
                indices[k + 4] = slot(feature(404, ws, wm, ph, d), mask)
                indices[k + 5] = slot(feature(405, wh, pm, wc, d), mask)
                indices[k + 6] = slot(feature(406, ph, pm, wc, d), mask)
                indices[k + 7] = slot(feature(407, wh, wm, wc, d), mask)
                indices[k + 8] = slot(feature(408, xh, wm, wc, d), mask)
                indices[k + 9] = slot(feature(409, pg, ph, pm, pc * 4 + d), mask)
                k += _PER_LEXICAL
        for h in range(n + 1):
            ph = pos[start + h]
            pl = pos[start + outer_left[h]] if outer_left[h] > 0 else _NONE
            pr = pos[start + outer_right[h]] if outer_right[h] > 0 else _NONE
            indices[k] = slot(feature(330, ph, _cap(n_left[h], 3), _cap(n_right[h], 3), 0), mask)
            indices[k + 1] = slot(feature(331, word[start + h], _cap(n_left[h], 3), _cap(n_right[h], 3), 0), mask)
            indices[k + 2] = slot(feature(332, ph, pl, pr, 0), mask)
            indices[k + 3] = slot(feature(333, ph, pl, _STOP, 1), mask)
            indices[k + 4] = slot(feature(333, ph, pr, _STOP, 2), mask)
            indices[k + 5] = slot(feature(340, _cap(n_right[0], 3), 0, 0, 0), mask) if h == 0 else \
                slot(feature(341, ph, _size_bucket(size[h]), 0, 0), mask)
            k += _PER_HEAD
    return indptr, indices


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def candidate_scores(indptr, indices, mask, dense, sparse_weights, dense_weights):
    """``w · f`` of every candidate (hashed slots taken ``& mask``)."""
    out = np.empty(len(indptr) - 1)
    for c in range(len(out)):
        out[c] = _score(indptr, indices, mask, dense, c, sparse_weights, dense_weights)
    return out


@njit(cache=True)
def best_in_groups(scores, groups):
    """The index within its group of the best-scoring row of every group (ties: the
    earlier; -1 for an empty group)."""
    out = np.full(len(groups) - 1, -1, dtype=np.int64)
    for g in range(len(out)):
        best = -np.inf
        for c in range(groups[g], groups[g + 1]):
            if out[g] < 0 or scores[c] > best:
                out[g], best = c - groups[g], scores[c]
    return out


@njit(cache=True, inline="always")
def _score(indptr, indices, mask, dense, c, ws, wd):
    s = 0.0
    for j in range(indptr[c], indptr[c + 1]):
        s += ws[indices[j] & mask]
    for j in range(dense.shape[1]):
        s += dense[c, j] * wd[j]
    return s


@njit(cache=True)
def _add(indptr, indices, mask, dense, c, delta, step, ws, ts, wd, td):
    for j in range(indptr[c], indptr[c + 1]):
        ws[indices[j] & mask] += delta
        ts[indices[j] & mask] += step * delta
    for j in range(dense.shape[1]):
        wd[j] += delta * dense[c, j]
        td[j] += step * delta * dense[c, j]


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def rerank_epoch(indptr, indices, mask, dense, groups, loss, order, ws, ts, wd, td, step):
    """One structured-perceptron pass over the lists in ``order``: where the model's pick has
    a higher loss than the best candidate, move towards the best-scoring lowest-loss
    candidate (the oracle). Returns ``(step, lists where the pick was an oracle)``."""
    good = 0
    for g in order:
        a, b = groups[g], groups[g + 1]
        if b <= a:
            continue
        best_loss = loss[a]
        for c in range(a, b):
            best_loss = min(best_loss, loss[c])
        pick, pick_score, oracle, oracle_score = a, -np.inf, a, -np.inf
        for c in range(a, b):
            s = _score(indptr, indices, mask, dense, c, ws, wd)
            if s > pick_score:
                pick, pick_score = c, s
            if loss[c] == best_loss and s > oracle_score:
                oracle, oracle_score = c, s
        if loss[pick] > best_loss:
            _add(indptr, indices, mask, dense, oracle, 1.0, step, ws, ts, wd, td)
            _add(indptr, indices, mask, dense, pick, -1.0, step, ws, ts, wd, td)
        else:
            good += 1
        step += 1
    return step, good


@njit(cache=True)
def _intersect(a, na, b, nb):
    """Sorted multiset a[:na] ∩ sorted b[:nb], written into a; its length."""
    i = j = k = 0
    while i < na and j < nb:
        if a[i] < b[j]:
            i += 1
        elif a[i] > b[j]:
            j += 1
        else:
            a[k] = a[i]
            k += 1
            i += 1
            j += 1
    return k


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def without_common(groups, indptr, indices):
    """CSR features (rows sorted) with, in every group, the multiset of slots every row of
    the group has removed from each row."""
    out_indptr = np.zeros(len(indptr), dtype=np.int64)
    out = np.empty(len(indices), dtype=np.int32)
    k = 0
    for g in range(len(groups) - 1):
        a, b = groups[g], groups[g + 1]
        if b <= a:
            continue
        rows = indices[indptr[a]:indptr[b]].copy()
        for c in range(a, b):
            rows[indptr[c] - indptr[a]:indptr[c + 1] - indptr[a]].sort()
        common = rows[:indptr[a + 1] - indptr[a]].copy()
        n_common = len(common)
        for c in range(a + 1, b):
            n_common = _intersect(common, n_common, rows[indptr[c] - indptr[a]:], indptr[c + 1] - indptr[c])
        for c in range(a, b):
            row = rows[indptr[c] - indptr[a]:indptr[c + 1] - indptr[a]]
            i = j = 0
            while i < len(row):
                if j < n_common and common[j] < row[i]:
                    j += 1
                elif j < n_common and common[j] == row[i]:
                    i += 1
                    j += 1
                else:
                    out[k] = row[i]
                    k += 1
                    i += 1
            out_indptr[c + 1] = k
    return out_indptr, out[:k].copy()
