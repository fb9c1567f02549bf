"""Numba kernels of the latent-variable PCFGs: inside–outside on gold trees (EM) and on
the chart (parsing), both through the same two tensor products.

A rule tensor ``T`` of shape ``(m_a, m_b, m_c)`` lies flat from ``off`` in ``weights``.
:func:`inside_product` adds ``scale · T(·, α_b, α_c)`` to ``α_a``; :func:`outside_product`
adds ``scale · T(β_a, ·, α_c)`` to ``β_b`` and ``scale · T(β_a, α_b, ·)`` to ``β_c``.

Chart cells are spans ``[i, j)`` numbered by :func:`cell` (``n(n+1)/2`` of them).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def inside_product(weights, off, ma, mb, mc, alpha, pb, pc, pa, scale):
    for h in range(ma):
        acc = 0.0
        base = off + h * mb * mc
        for h2 in range(mb):
            x = alpha[pb + h2]
            if x == 0.0:
                continue
            row = base + h2 * mc
            s = 0.0
            for h3 in range(mc):
                s += weights[row + h3] * alpha[pc + h3]
            acc += x * s
        alpha[pa + h] += scale * acc


@njit(cache=True, nogil=True, inline="always")
def outside_product(weights, off, ma, mb, mc, alpha, beta, pb, pc, pa, scale):
    for h in range(ma):
        y = beta[pa + h] * scale
        if y == 0.0:
            continue
        base = off + h * mb * mc
        for h2 in range(mb):
            row = base + h2 * mc
            xb = alpha[pb + h2]
            s = 0.0
            for h3 in range(mc):
                w = weights[row + h3] * y
                s += w * alpha[pc + h3]
                beta[pc + h3] += w * xb
            beta[pb + h2] += s


# -- gold trees: EM's expected counts ------------------------------------------------------------
@njit(cache=True)
def tree_expected_counts(label, rule, left, right, offsets, states, state_offset, rule_offset, rule_weights,
                         lex_offset, lex_weights, root_weights, rule_counts, lex_counts, root_counts):
    """Add every tree's posterior expected rule counts (latent states included) to the
    ``*_counts`` arrays (laid out like the weights); returns the total log-likelihood.
    Inside vectors are rescaled at every node (their log scales kept), so no tree underflows."""
    n_nodes = len(label)
    node_offset = np.zeros(n_nodes + 1, np.int64)
    for t in range(n_nodes):
        node_offset[t + 1] = node_offset[t] + states[label[t]]
    alpha = np.zeros(node_offset[n_nodes])
    beta = np.zeros(node_offset[n_nodes])
    node_scale = np.ones(n_nodes)
    total = 0.0
    for tree in range(len(offsets) - 1):
        first, last = offsets[tree], offsets[tree + 1]
        log_scale = 0.0
        for t in range(last - 1, first - 1, -1):  # children come after their parent in preorder
            a = label[t]
            ma = states[a]
            p = node_offset[t]
            if left[t] < 0:
                for h in range(ma):
                    alpha[p + h] = lex_weights[lex_offset[rule[t]] + h]
            else:
                b, c = left[t], right[t]
                inside_product(rule_weights, rule_offset[rule[t]], ma, states[label[b]], states[label[c]], alpha,
                               node_offset[b], node_offset[c], p, 1.0)
            s = 0.0
            for h in range(ma):
                s = max(s, abs(alpha[p + h]))
            if s == 0.0:
                s = 1.0
            for h in range(ma):
                alpha[p + h] /= s
            node_scale[t] = s
            log_scale += np.log(s)
        root = label[first]
        z = 0.0
        for h in range(states[root]):
            z += root_weights[state_offset[root] + h] * alpha[node_offset[first] + h]
        if z <= 0.0:
            return -np.inf
        total += np.log(z) + log_scale
        for h in range(states[root]):
            beta[node_offset[first] + h] = root_weights[state_offset[root] + h] / z
        for t in range(first, last):
            a = label[t]
            ma = states[a]
            p = node_offset[t]
            if left[t] < 0:
                for h in range(ma):
                    lex_counts[lex_offset[rule[t]] + h] += alpha[p + h] * beta[p + h]
                continue
            b, c = left[t], right[t]
            mb, mc = states[label[b]], states[label[c]]
            pb, pc = node_offset[b], node_offset[c]
            for h in range(mb):
                beta[pb + h] = 0.0
            for h in range(mc):
                beta[pc + h] = 0.0
            outside_product(rule_weights, rule_offset[rule[t]], ma, mb, mc, alpha, beta, pb, pc, p, 1.0 / node_scale[t])
            off = rule_offset[rule[t]]
            for h in range(ma):
                y = beta[p + h] / node_scale[t]
                for h2 in range(mb):
                    for h3 in range(mc):
                        k = off + (h * mb + h2) * mc + h3
                        rule_counts[k] += y * rule_weights[k] * alpha[pb + h2] * alpha[pc + h3]
        for h in range(states[root]):
            root_counts[state_offset[root] + h] += alpha[node_offset[first] + h] * beta[node_offset[first] + h]
    return total


# -- the chart ---------------------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def cell(i, j, n):
    """The number of span ``[i, j)`` (0 <= i < j <= n)."""
    return i * n - i * (i - 1) // 2 + (j - i - 1)


@njit(cache=True, nogil=True)
def parse_sentence(words, tags, rule_parent, rule_right, rules_by_left_start, rules_by_left, lex_label,
                   lex_by_word_start, lex_by_word, label_tag, rule_prob, lex_prob, root_prob, states, state_offset,
                   rule_offset, rule_weights, lex_offset, lex_weights, root_weights, binary_scale, threshold, latent, n_best):
    """Parse one sentence: the plain PCFG's inside–outside, its posteriors pruning the
    chart (``threshold``), the latent grammars' inside–outside on what is left (``latent``),
    then the ``n_best`` trees of largest expected number of correct labelled spans (Goodman 1996;
    the minimum-Bayes-risk decoding of Cohen et al. 2013 over the latent marginals).

    The latent arrays hold one grammar per row of ``states`` (the offsets' rows point into
    the flat weights); with several, the span marginals decoded are the mean of each
    grammar's own (Narayan & Cohen 2015's MaxMrg), over the grammars that give the sentence a
    nonzero finite weight.

    Returns ``(status, scores, starts, stops, labels)`` (:func:`_kbest_trees`); status 0:
    parsed with the latent grammar(s), 1: with the plain PCFG's posteriors (the latent weight
    of the sentence was zero or not finite in every grammar), 2: no parse (nothing returned)."""
    n = len(words)
    n_labels = len(root_prob)
    n_cells = n * (n + 1) // 2
    inside = np.zeros((n_cells, n_labels))
    # cells' nonzero labels, as lists in a growing pool
    pool = np.empty(max(64, n_cells * 8), np.int32)
    used = 0
    nz_start = np.zeros(n_cells, np.int64)
    nz_len = np.zeros(n_cells, np.int64)
    for i in range(n):
        q = cell(i, i + 1, n)
        w = words[i]
        found = False
        for k in range(lex_by_word_start[w], lex_by_word_start[w + 1]):
            r = lex_by_word[k]
            if tags[i] < 0 or label_tag[lex_label[r]] == tags[i]:
                inside[q, lex_label[r]] += lex_prob[r]
                found = True
        if not found:  # a given tag the grammar never saw on this word: the grammar's own tags
            for k in range(lex_by_word_start[w], lex_by_word_start[w + 1]):
                r = lex_by_word[k]
                inside[q, lex_label[r]] += lex_prob[r]
        s = 0.0
        for a in range(n_labels):
            s = max(s, inside[q, a])
        if s == 0.0:
            return 2, np.zeros(0), np.zeros((0, 0), np.int32), np.zeros((0, 0), np.int32), np.zeros((0, 0), np.int32)
        for a in range(n_labels):
            inside[q, a] /= s
        used = _list_nonzero(inside, q, pool, used, nz_start, nz_len)
        pool = _room(pool, used, n_labels)
    outside = np.zeros((n_cells, n_labels))
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            _coarse_cell(i, i + length, n, False, inside, outside, pool, nz_start, nz_len, rule_parent, rule_right,
                         rules_by_left_start, rules_by_left, rule_prob, binary_scale)
            used = _list_nonzero(inside, cell(i, i + length, n), pool, used, nz_start, nz_len)
            pool = _room(pool, used, n_labels)
    top = cell(0, n, n)
    z = 0.0
    for a in range(n_labels):
        z += root_prob[a] * inside[top, a]
    if not z > 0.0 or not np.isfinite(z):
        return 2, np.zeros(0), np.zeros((0, 0), np.int32), np.zeros((0, 0), np.int32), np.zeros((0, 0), np.int32)
    for a in range(n_labels):
        outside[top, a] = root_prob[a]
    for length in range(n, 1, -1):
        for i in range(n - length + 1):
            _coarse_cell(i, i + length, n, True, inside, outside, pool, nz_start, nz_len, rule_parent, rule_right,
                         rules_by_left_start, rules_by_left, rule_prob, binary_scale)
    marginal = inside * outside / z  # the plain PCFG's posteriors
    status = 1
    if latent:
        total = np.zeros((n_cells, n_labels))
        found = 0
        for g in range(states.shape[0]):
            fine = _latent_marginals(n, marginal, threshold, words, tags, rule_parent, rule_right,
                                     rules_by_left_start, rules_by_left, lex_label, lex_by_word_start, lex_by_word,
                                     label_tag, states[g], state_offset[g], rule_offset[g], rule_weights,
                                     lex_offset[g], lex_weights, root_weights, binary_scale)
            if fine.shape[0] == n_cells:
                total += fine
                found += 1
        if found > 0:
            marginal = total / found
            status = 0
    scores, starts, stops, labels = _kbest_trees(n, marginal, root_prob, n_best)
    if len(scores) == 0:
        return 2, scores, starts, stops, labels
    return status, scores, starts, stops, labels


@njit(cache=True, nogil=True, inline="always")
def _coarse_cell(i, j, n, outward, inside, outside, pool, nz_start, nz_len, rule_parent, rule_right,
                 rules_by_left_start, rules_by_left, rule_prob, binary_scale):
    """The plain PCFG's binary rules over the splits of span ``[i, j)``: its inside scores
    from its children's (``outward`` False), or its children's outside scores from its own."""
    q = cell(i, j, n)
    for k in range(i + 1, j):
        lq, rq = cell(i, k, n), cell(k, j, n)
        for e in range(nz_start[lq], nz_start[lq] + nz_len[lq]):
            b = pool[e]
            ib = inside[lq, b] * binary_scale
            for g in range(rules_by_left_start[b], rules_by_left_start[b + 1]):
                r = rules_by_left[g]
                c = rule_right[r]
                ic = inside[rq, c]
                if ic == 0.0:
                    continue
                if outward:
                    w = rule_prob[r] * outside[q, rule_parent[r]]
                    if w == 0.0:
                        continue
                    outside[lq, b] += w * ic * binary_scale
                    outside[rq, c] += w * ib
                else:
                    inside[q, rule_parent[r]] += rule_prob[r] * ib * ic


@njit(cache=True, nogil=True)
def _list_nonzero(inside, q, pool, used, nz_start, nz_len):
    nz_start[q] = used
    for a in range(inside.shape[1]):
        if inside[q, a] != 0.0:
            pool[used] = a
            used += 1
    nz_len[q] = used - nz_start[q]
    return used


@njit(cache=True, nogil=True)
def _room(pool, used, need):
    if used + need <= len(pool):
        return pool
    grown = np.empty(2 * len(pool) + need, np.int32)
    grown[:used] = pool[:used]
    return grown


@njit(cache=True, nogil=True)
def _latent_marginals(n, coarse, threshold, words, tags, rule_parent, rule_right, rules_by_left_start, rules_by_left,
                      lex_label, lex_by_word_start, lex_by_word, label_tag, states, state_offset, rule_offset,
                      rule_weights, lex_offset, lex_weights, root_weights, binary_scale):
    """The latent grammar's span marginals μ(a, i, j) = α·β / Z on the cells and labels whose
    plain-PCFG posterior exceeds ``threshold``; |μ| (the spectral estimates may be negative).
    An empty array when the latent grammar gives the sentence weight 0 or not finite."""
    n_cells, n_labels = coarse.shape
    slot = np.full((n_cells, n_labels), -1, np.int64)
    allowed_start = np.zeros(n_cells + 1, np.int64)
    count = 0
    size = 0
    for q in range(n_cells):
        for a in range(n_labels):
            if coarse[q, a] > threshold:
                slot[q, a] = size
                size += states[a]
                count += 1
        allowed_start[q + 1] = count
    allowed = np.empty(count, np.int32)
    e = 0
    for q in range(n_cells):
        for a in range(n_labels):
            if slot[q, a] >= 0:
                allowed[e] = a
                e += 1
    alpha = np.zeros(size)
    beta = np.zeros(size)
    scales = np.ones(n)
    for i in range(n):
        q = cell(i, i + 1, n)
        w = words[i]
        s = 0.0
        for k in range(lex_by_word_start[w], lex_by_word_start[w + 1]):
            r = lex_by_word[k]
            a = lex_label[r]
            p = slot[q, a]
            if p >= 0:
                for h in range(states[a]):
                    alpha[p + h] = lex_weights[lex_offset[r] + h]
                    s = max(s, abs(alpha[p + h]))
        if s > 0.0:
            scales[i] = s
            for e in range(allowed_start[q], allowed_start[q + 1]):
                a = allowed[e]
                for h in range(states[a]):
                    alpha[slot[q, a] + h] /= s
    _latent_sweep(n, False, allowed_start, allowed, slot, rule_parent, rule_right, rules_by_left_start, rules_by_left,
                  states, rule_offset, rule_weights, alpha, beta, binary_scale)
    top = cell(0, n, n)
    z = 0.0
    for e in range(allowed_start[top], allowed_start[top + 1]):
        a = allowed[e]
        for h in range(states[a]):
            beta[slot[top, a] + h] = root_weights[state_offset[a] + h]
            z += root_weights[state_offset[a] + h] * alpha[slot[top, a] + h]
    if z == 0.0 or not np.isfinite(z):  # a negative total is the spectral estimates' noise: |μ| below
        return np.zeros((0, 0))
    _latent_sweep(n, True, allowed_start, allowed, slot, rule_parent, rule_right, rules_by_left_start, rules_by_left,
                  states, rule_offset, rule_weights, alpha, beta, binary_scale)
    marginal = np.zeros((n_cells, n_labels))
    for q in range(n_cells):
        for e in range(allowed_start[q], allowed_start[q + 1]):
            a = allowed[e]
            p = slot[q, a]
            s = 0.0
            for h in range(states[a]):
                s += alpha[p + h] * beta[p + h]
            marginal[q, a] = abs(s / z)
    return marginal


@njit(cache=True, nogil=True)
def _latent_sweep(n, outward, allowed_start, allowed, slot, rule_parent, rule_right, rules_by_left_start, rules_by_left,
                  states, rule_offset, rule_weights, alpha, beta, binary_scale):
    """Every binary rule over the pruned chart's labelled spans: inside vectors from the
    shortest spans up (``outward`` False), or outside vectors from the longest down."""
    for step in range(2, n + 1):
        length = n + 2 - step if outward else step
        for i in range(n - length + 1):
            j = i + length
            q = cell(i, j, n)
            if allowed_start[q] == allowed_start[q + 1]:
                continue
            for k in range(i + 1, j):
                lq, rq = cell(i, k, n), cell(k, j, n)
                for e in range(allowed_start[lq], allowed_start[lq + 1]):
                    b = allowed[e]
                    for g in range(rules_by_left_start[b], rules_by_left_start[b + 1]):
                        r = rules_by_left[g]
                        c = rule_right[r]
                        pc = slot[rq, c]
                        if pc < 0:
                            continue
                        a = rule_parent[r]
                        pa = slot[q, a]
                        if pa < 0:
                            continue
                        if outward:
                            outside_product(rule_weights, rule_offset[r], states[a], states[b], states[c], alpha,
                                            beta, slot[lq, b], pc, pa, binary_scale)
                        else:
                            inside_product(rule_weights, rule_offset[r], states[a], states[b], states[c], alpha,
                                           slot[lq, b], pc, pa, binary_scale)


@njit(cache=True, nogil=True)
def _kbest_trees(n, marginal, root_prob, k):
    """The ``k`` best trees by Goodman's (1996) labelled-recall score: a tree scores the sum
    of its spans' marginals (the whole sentence with a label that may stand at the root).
    Each cell keeps its ``k`` best (label, split, left rank, right rank) — its labels' ``k``
    best marginals combined with the children's lists, ties to the earlier candidate.

    Returns ``(scores, starts, stops, labels)``: row ``t`` the nodes of the t-th tree in
    preorder (as many rows as trees exist, at most ``k``)."""
    n_cells, n_labels = marginal.shape
    score = np.full((n_cells, k), -np.inf)
    label = np.full((n_cells, k), -1, np.int64)
    split = np.zeros((n_cells, k), np.int64)
    rank_l = np.zeros((n_cells, k), np.int64)
    rank_r = np.zeros((n_cells, k), np.int64)
    top = cell(0, n, n)
    best_labels = np.full(k, -1, np.int64)
    best_mu = np.zeros(k)
    for length in range(1, n + 1):
        for i in range(n - length + 1):
            j = i + length
            q = cell(i, j, n)
            found = 0  # this cell's k best labels by marginal
            for a in range(n_labels):
                mu = marginal[q, a]
                if mu > 0.0 and (q != top or root_prob[a] > 0.0):
                    found = _insert(best_mu, best_labels, found, k, mu, a)
            for x in range(found):
                if length == 1:
                    _insert_tree(score[q], label[q], split[q], rank_l[q], rank_r[q], k, best_mu[x], best_labels[x], 0,
                                 0, 0)
                    continue
                for m in range(i + 1, j):
                    lq, rq = cell(i, m, n), cell(m, j, n)
                    for r1 in range(k):
                        if score[lq, r1] == -np.inf:
                            break
                        for r2 in range(k):
                            if score[rq, r2] == -np.inf:
                                break
                            s = best_mu[x] + score[lq, r1] + score[rq, r2]
                            if s <= score[q, k - 1]:
                                break
                            _insert_tree(score[q], label[q], split[q], rank_l[q], rank_r[q], k, s, best_labels[x], m,
                                         r1, r2)
    n_trees = 0
    while n_trees < k and score[top, n_trees] > -np.inf:
        n_trees += 1
    starts = np.zeros((n_trees, 2 * n - 1), np.int32)
    stops = np.zeros((n_trees, 2 * n - 1), np.int32)
    labels = np.zeros((n_trees, 2 * n - 1), np.int32)
    stack = np.zeros(3 * (2 * n + 2), np.int64)
    for t in range(n_trees):
        stack[0], stack[1], stack[2] = 0, n, t
        depth = 3
        e = 0
        while depth > 0:
            depth -= 3
            i, j, r = stack[depth], stack[depth + 1], stack[depth + 2]
            q = cell(i, j, n)
            starts[t, e], stops[t, e], labels[t, e] = i, j, label[q, r]
            e += 1
            if j - i > 1:
                m = split[q, r]
                stack[depth], stack[depth + 1], stack[depth + 2] = m, j, rank_r[q, r]
                stack[depth + 3], stack[depth + 4], stack[depth + 5] = i, m, rank_l[q, r]
                depth += 6
    return score[top, :n_trees].copy(), starts, stops, labels


@njit(cache=True, nogil=True)
def _insert(values, items, used, k, value, item):
    """Insert ``(value, item)`` into the descending top-``k`` list of ``used`` entries."""
    if used == k and value <= values[k - 1]:
        return used
    p = min(used, k - 1)
    while p > 0 and values[p - 1] < value:
        values[p] = values[p - 1]
        items[p] = items[p - 1]
        p -= 1
    values[p] = value
    items[p] = item
    return min(used + 1, k)


@njit(cache=True, nogil=True)
def _insert_tree(score, label, split, rank_l, rank_r, k, value, a, m, r1, r2):
    """Insert a cell's candidate into its descending top-``k`` list (-inf: empty)."""
    if value <= score[k - 1]:
        return
    p = k - 1
    while p > 0 and score[p - 1] < value:
        score[p], label[p], split[p], rank_l[p], rank_r[p] = score[p - 1], label[p - 1], split[p - 1], \
            rank_l[p - 1], rank_r[p - 1]
        p -= 1
    score[p], label[p], split[p], rank_l[p], rank_r[p] = value, a, m, r1, r2


@njit(cache=True)
def normalise_by_parent(rule_parent, rule_left, rule_right, lex_label, states, state_offset, rule_offset, lex_offset,
                        rule_counts, lex_counts, floor):
    """EM's M-step: every (label, state)'s expected rule and word counts (+ ``floor`` each)
    divided by their total, in place."""
    totals = np.zeros(state_offset[-1])
    for r in range(len(rule_parent)):
        a = rule_parent[r]
        ma, mb, mc = states[a], states[rule_left[r]], states[rule_right[r]]
        for h in range(ma):
            for k in range(mb * mc):
                e = rule_offset[r] + h * mb * mc + k
                rule_counts[e] += floor
                totals[state_offset[a] + h] += rule_counts[e]
    for r in range(len(lex_label)):
        a = lex_label[r]
        for h in range(states[a]):
            lex_counts[lex_offset[r] + h] += floor
            totals[state_offset[a] + h] += lex_counts[lex_offset[r] + h]
    for e in range(len(totals)):
        if totals[e] == 0.0:  # a label no tree has (nothing to divide)
            totals[e] = 1.0
    for r in range(len(rule_parent)):
        a = rule_parent[r]
        ma, mb, mc = states[a], states[rule_left[r]], states[rule_right[r]]
        for h in range(ma):
            t = totals[state_offset[a] + h]
            for k in range(mb * mc):
                rule_counts[rule_offset[r] + h * mb * mc + k] /= t
    for r in range(len(lex_label)):
        a = lex_label[r]
        for h in range(states[a]):
            lex_counts[lex_offset[r] + h] /= totals[state_offset[a] + h]
