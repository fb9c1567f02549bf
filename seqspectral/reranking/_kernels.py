"""Numba kernels of the reranker: the baseline tree features and the perceptron over lists."""

from __future__ import annotations

import numpy as np
from numba import njit

from seqspectral.parsing._hashing import feature, slot

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


@njit(cache=True)
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
    indices = np.empty(indptr[-1], dtype=np.int64)
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


@njit(cache=True)
def candidate_scores(indptr, indices, dense, sparse_weights, dense_weights):
    """``w · f`` of every candidate."""
    out = np.empty(len(indptr) - 1)
    for c in range(len(out)):
        s = 0.0
        for j in range(indptr[c], indptr[c + 1]):
            s += sparse_weights[indices[j]]
        for j in range(dense.shape[1]):
            s += dense[c, j] * dense_weights[j]
        out[c] = s
    return out


@njit(cache=True)
def _add(indptr, indices, dense, c, delta, step, ws, ts, wd, td):
    for j in range(indptr[c], indptr[c + 1]):
        ws[indices[j]] += delta
        ts[indices[j]] += step * delta
    for j in range(dense.shape[1]):
        wd[j] += delta * dense[c, j]
        td[j] += step * delta * dense[c, j]


@njit(cache=True)
def rerank_epoch(indptr, indices, dense, groups, loss, order, ws, ts, wd, td, step):
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
            s = 0.0
            for j in range(indptr[c], indptr[c + 1]):
                s += ws[indices[j]]
            for j in range(dense.shape[1]):
                s += dense[c, j] * wd[j]
            if s > pick_score:
                pick, pick_score = c, s
            if loss[c] == best_loss and s > oracle_score:
                oracle, oracle_score = c, s
        if loss[pick] > best_loss:
            _add(indptr, indices, dense, oracle, 1.0, step, ws, ts, wd, td)
            _add(indptr, indices, dense, pick, -1.0, step, ws, ts, wd, td)
        else:
            good += 1
        step += 1
    return step, good
