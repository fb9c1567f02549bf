"""Numba kernels shared by the first- and second-order parsers: decoding a corpus (1-best
and k-best, sentences in parallel), online training epochs, lifting non-projective training
trees for the projective decoders.

``nonprojective`` picks the decoder: Eisner's projective algorithms
(:mod:`._eisner_kernels`, :mod:`._sibling_kernels`), or maximum spanning trees
(:mod:`._mst_kernels`) for first order and the projective parse rearranged
(:mod:`._rearrange_kernels`) for second order. Training decodes with the same decoder.

A tree's parts are its arcs (:func:`._arc_kernels.arc_features`) and, for second order,
its sibling parts (:func:`._sibling_kernels.sibling_features`). One training step decodes a
sentence under the current weights ``w`` with a cost of ``margin`` on every wrong head
(cost-augmented decoding), takes the feature difference ``Δ = φ(gold) − φ(pred)`` of the
parts where the two trees differ, and updates ``w += τ Δ`` with

- ``τ = 1``: the structured perceptron (Collins 2002);
- ``τ = (L − w·Δ) / ‖Δ‖²``, ``L = margin × wrong heads``: the 1-best passive-aggressive /
  MIRA step (Crammer et al. 2006, PA; McDonald, Crammer & Pereira 2005, eq. 2 with k = 1),
  the smallest change that makes the gold tree beat the prediction by its loss.

``totals`` accumulates ``step × τ Δ`` for averaging (averaged weights
``w − totals / step``).

Numba caches a kernel against its own file only: a change to the arc or sibling features
(word clusters were added in 2026-11) must come with an edit here and in the other modules
that call them, or a cached build keeps compiling the old features in.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._arc_kernels import arc_features, arc_scores, feature_buffer, max_length
from ._eisner_kernels import eisner, kbest_eisner
from ._mst_kernels import chu_liu_edmonds, kbest_mst
from ._pruning_kernels import allowed_arcs
from ._rearrange_kernels import eisner2_rearranged, kbest_rearranged
from ._sibling_kernels import eisner2, kbest_eisner2, previous_siblings, sibling_features, sibling_scores


@njit(cache=True)
def decode(atoms, start, n, second_order, nonprojective, tags, single_root, weights, buf, gold, margin, allowed):
    """The best tree of one sentence (heads of words 1..n) over the arcs the mask
    ``allowed`` keeps (:mod:`._pruning_kernels`); with ``margin > 0`` every arc other than
    the ``gold`` one gets ``margin`` added (cost-augmented decoding)."""
    S = arc_scores(atoms, start, n, tags, weights, buf, allowed)
    if margin > 0:
        for m in range(1, n + 1):
            for h in range(n + 1):
                if h != gold[start + m]:
                    S[h, m] += margin
    if second_order:
        SIB = sibling_scores(atoms, start, n, tags, weights, buf, allowed)
        return eisner2_rearranged(S, SIB, single_root) if nonprojective else eisner2(S, SIB, single_root)
    return chu_liu_edmonds(S, single_root) if nonprojective else eisner(S, single_root)


@njit(cache=True, nogil=True, parallel=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def parse_corpus(atoms, offsets, second_order, nonprojective, tags, single_root, weights, kept, kept_offsets):
    """1-best heads of every sentence (laid out like the atom table, 0 in root rows) over
    the kept arcs (:mod:`._pruning_kernels`)."""
    heads = np.zeros(len(atoms), dtype=np.int32)
    longest = max_length(offsets)
    for i in prange(len(offsets) - 1):
        start = offsets[i]
        n = offsets[i + 1] - start - 1
        if n > 0:
            heads[start + 1:start + n + 1] = decode(atoms, start, n, second_order, nonprojective, tags, single_root,
                                                    weights, feature_buffer(longest), heads, 0.0,
                                                    allowed_arcs(kept, kept_offsets, i, n))
    return heads


@njit(cache=True)
def _kbest_sentence(atoms, start, n, second_order, nonprojective, tags, single_root, weights, k, buf, allowed):
    S = arc_scores(atoms, start, n, tags, weights, buf, allowed)
    if second_order:
        SIB = sibling_scores(atoms, start, n, tags, weights, buf, allowed)
        return kbest_rearranged(S, SIB, k, single_root) if nonprojective else kbest_eisner2(S, SIB, k, single_root)
    return kbest_mst(S, k, single_root) if nonprojective else kbest_eisner(S, k, single_root)


@njit(cache=True, nogil=True, parallel=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def kbest_corpus(atoms, offsets, second_order, nonprojective, tags, single_root, weights, k, kept, kept_offsets):
    """Up to ``k`` best trees of every sentence over the kept arcs: ``(heads, scores,
    n_trees)`` with the trees' heads concatenated (sentence by sentence, best first), one
    score per tree and the number of trees of each sentence."""
    n_sent = len(offsets) - 1
    n_trees = np.zeros(n_sent, dtype=np.int64)
    blocks = np.zeros((offsets[-1] - n_sent) * k, dtype=np.int32)  # sentence i's trees from k × its first word
    block_scores = np.zeros(n_sent * k)
    longest = max_length(offsets)
    for i in prange(n_sent):
        start = offsets[i]
        n = offsets[i + 1] - start - 1
        if n == 0:
            n_trees[i] = 1
            continue
        trees, values = _kbest_sentence(atoms, start, n, second_order, nonprojective, tags, single_root, weights, k,
                                        feature_buffer(longest), allowed_arcs(kept, kept_offsets, i, n))
        r = len(values)
        n_trees[i] = r
        at = k * (start - i)
        blocks[at:at + r * n] = trees.ravel()
        block_scores[k * i:k * i + r] = values
    heads = np.zeros(len(blocks), dtype=np.int32)
    scores = np.zeros(len(block_scores))
    at, tree = 0, 0
    for i in range(n_sent):
        n = offsets[i + 1] - offsets[i] - 1
        r = n_trees[i]
        heads[at:at + r * n] = blocks[k * (offsets[i] - i):k * (offsets[i] - i) + r * n]
        scores[tree:tree + r] = block_scores[k * i:k * i + r]
        at += r * n
        tree += r
    return heads[:at], scores[:tree], n_trees


@njit(cache=True)
def _add_part(atoms, start, n, h, s, m, arc, tags, mask, sign, slots, signs, k, buf):
    """Append the slots of one part (arc ``h -> m`` or sibling part ``(h, s, m)``) with ``sign``."""
    c = arc_features(atoms, start, n, h, m, tags, mask, buf) if arc else sibling_features(
        atoms, start, n, h, s, m, tags, mask, buf)
    for i in range(c):
        slots[k + i] = buf[i]
        signs[k + i] = sign
    return k + c


@njit(cache=True)
def _squared_norm(slots, signs, k):
    """‖Δ‖² of the difference vector given as ``k`` signed slots (repeats summed first)."""
    order = np.argsort(slots[:k])
    total, run = 0.0, 0.0
    for i in range(k):
        run += signs[order[i]]
        if i == k - 1 or slots[order[i + 1]] != slots[order[i]]:
            total += run * run
            run = 0.0
    return total


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def training_epoch(atoms, offsets, gold, order, second_order, nonprojective, tags, single_root, margin,
                   passive_aggressive, weights, totals, step, kept, kept_offsets):
    """One online pass over the sentences in ``order`` (see the module docstring), decoding
    over the kept arcs (which must hold the gold ones); returns ``(step, correct heads,
    heads)`` of the cost-augmented predictions."""
    max_n = max_length(offsets)
    buf = feature_buffer(max_n)
    size = 2 * max_n * (len(buf) + 16)
    slots = np.empty(size, dtype=np.int64)
    signs = np.empty(size)
    pred_flat = np.zeros(max_n + 1, dtype=np.int32)
    mask = len(weights) - 1
    correct = 0
    total = 0
    for i in order:
        start = offsets[i]
        n = offsets[i + 1] - start - 1
        if n == 0:
            continue
        pred = decode(atoms, start, n, second_order, nonprojective, tags, single_root, weights, buf, gold, margin,
                      allowed_arcs(kept, kept_offsets, i, n))
        pred_flat[1:n + 1] = pred
        if second_order:
            gold_prev = previous_siblings(gold, start, n)
            pred_prev = previous_siblings(pred_flat, 0, n)
        k = 0
        wrong = 0
        for m in range(1, n + 1):
            g, p = gold[start + m], pred[m - 1]
            if g != p:
                wrong += 1
                k = _add_part(atoms, start, n, g, 0, m, True, tags, mask, 1.0, slots, signs, k, buf)
                k = _add_part(atoms, start, n, p, 0, m, True, tags, mask, -1.0, slots, signs, k, buf)
            if second_order and (g != p or gold_prev[m] != pred_prev[m]):
                k = _add_part(atoms, start, n, g, gold_prev[m], m, False, tags, mask, 1.0, slots, signs, k, buf)
                k = _add_part(atoms, start, n, p, pred_prev[m], m, False, tags, mask, -1.0, slots, signs, k, buf)
        total += n
        correct += n - wrong
        tau = 1.0
        if passive_aggressive and k > 0:
            gain = 0.0
            for j in range(k):
                gain += signs[j] * weights[slots[j]]
            norm = _squared_norm(slots, signs, k)
            tau = max(0.0, margin * wrong - gain) / norm if norm > 0 else 0.0
        for j in range(k):
            weights[slots[j]] += tau * signs[j]
            totals[slots[j]] += step * tau * signs[j]
        step += 1
    return step, correct, total


@njit(cache=True)
def _crosses(heads, start, h, m):
    """Whether arc ``h -> m`` is non-projective: a word between them that ``h`` does not dominate."""
    for b in range(min(h, m) + 1, max(h, m)):
        a = b
        while a != h and a != 0:
            a = heads[start + a]
        if a != h:
            return True
    return False


@njit(cache=True)
def lift_nonprojective(heads, offsets):
    """Projective training trees: while a sentence has a non-projective arc, the shortest one
    ``h -> m`` becomes ``heads[h] -> m`` (a lift; Nivre & Nilsson 2005). Returns a copy."""
    out = heads.copy()
    for i in range(len(offsets) - 1):
        start = offsets[i]
        n = offsets[i + 1] - start - 1
        while True:
            best, best_len = -1, n + 1
            for m in range(1, n + 1):
                h = out[start + m]
                if abs(h - m) < best_len and _crosses(out, start, h, m):
                    best, best_len = m, abs(h - m)
            if best < 0:
                break
            out[start + best] = out[start + out[start + best]]
    return out


@njit(cache=True)
def crossing_arcs(heads, offsets):
    """How many arcs of the trees are non-projective (see :func:`_crosses`)."""
    count = 0
    for i in range(len(offsets) - 1):
        start = offsets[i]
        for m in range(1, offsets[i + 1] - start):
            count += _crosses(heads, start, heads[start + m], m)
    return count
