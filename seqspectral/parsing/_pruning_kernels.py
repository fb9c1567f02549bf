"""Numba kernels: arc pruning for the second-order parser by a first-order model.

Koo & Collins (2010), section 4.1, and Martins, Smith & Xing (2009) (TurboParser's pruner):
the second-order parser only scores parts over arcs a cheap first-order model finds likely.
Here, per modifier ``m``, the ``max_heads`` heads with the highest first-order arc scores
are kept, plus the arcs of the first-order model's best projective tree (so the kept arcs
always hold a projective tree) and, while training, the gold arcs (so the gold tree stays
reachable). Sibling parts ``(h, s, m)`` are then scored only where ``h -> m`` and ``h -> s``
are kept (:func:`._sibling_kernels.sibling_scores`).

The kept arcs of a corpus are one flat boolean array: sentence ``i``'s block
``kept[kept_offsets[i]:kept_offsets[i + 1]]`` is its ``(n + 1) × (n + 1)`` mask ``[h, m]``;
an empty block keeps every arc.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._arc_kernels import arc_scores, feature_buffer, max_length
from ._eisner_kernels import eisner


@njit(cache=True)
def allowed_arcs(kept, kept_offsets, i, n):
    """Sentence ``i``'s mask of kept arcs (``n`` words), or an empty one: every arc kept."""
    a, b = kept_offsets[i], kept_offsets[i + 1]
    side = n + 1 if b > a else 0
    return kept[a:b].reshape((side, side))


@njit(cache=True)
def keep_best_heads(S, max_heads, tree, out):
    """Into the mask ``out``: per modifier its ``max_heads`` best-scoring heads under arc
    scores ``S`` and its head in ``tree`` (heads of words 1..n)."""
    n = S.shape[0] - 1
    kept = min(max_heads, n)
    for m in range(1, n + 1):
        order = np.argsort(-S[:, m])  # S[m, m] = -inf comes last
        for j in range(kept):
            out[order[j], m] = True
        out[tree[m - 1], m] = True


@njit(cache=True, nogil=True, parallel=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def prune_corpus(atoms, offsets, tags, weights, max_heads, single_root, gold, keep_gold):
    """The kept arcs of every sentence under the first-order ``weights``: ``(kept,
    kept_offsets)`` as in the module docstring; ``keep_gold``: the arcs of ``gold`` (laid out
    like the atom table) are kept too."""
    n_sent = len(offsets) - 1
    kept_offsets = np.zeros(n_sent + 1, dtype=np.int64)
    for i in range(n_sent):
        side = offsets[i + 1] - offsets[i]
        kept_offsets[i + 1] = kept_offsets[i] + side * side
    kept = np.zeros(kept_offsets[-1], dtype=np.bool_)
    longest = max_length(offsets)
    for i in prange(n_sent):
        start = offsets[i]
        n = offsets[i + 1] - start - 1
        if n == 0:
            continue
        S = arc_scores(atoms, start, n, tags, weights, feature_buffer(longest), np.zeros((0, 0), dtype=np.bool_))
        mask = kept[kept_offsets[i]:kept_offsets[i + 1]].reshape((n + 1, n + 1))
        keep_best_heads(S, max_heads, eisner(S, single_root), mask)
        if keep_gold:
            for m in range(1, n + 1):
                mask[gold[start + m], m] = True
    return kept, kept_offsets
