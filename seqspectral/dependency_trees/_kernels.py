"""Numba kernels of the dependency-tree models: tree layout, the spectral model's
predictive states, exact belief propagation, EM expected counts and sampling.

Every kernel takes a whole corpus as flat arrays (``symbols`` int32, ``heads`` int32
1-based within the sentence with 0 = root, ``offsets`` int64) plus the layout of
:func:`tree_layout`, and loops over sentences and nodes without Python objects.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from seqspectral.counting._kernels import tree_parents


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def tree_layout(heads, offsets):
    """Children lists and a top-down order of every tree of a treebank.

    Returns ``(parent, is_left, order, child_start, child_list, bad)``: ``parent[i]`` the
    global index of the head of token i (-1 at a root attachment), ``is_left[i]`` 1 when
    i stands left of its head; ``order[a:b]`` the tokens of sentence ``[a, b)`` top-down
    (breadth first from the root attachments, so every head comes before its
    dependents); the dependents of i are ``child_list[child_start[i]:child_start[i+1]]``
    in sentence order (the left ones first). ``bad`` is the first token whose head is out
    of range, itself, or on a cycle (-1 when every sentence is a tree).
    """
    n = len(heads)
    is_left = np.zeros(n, np.int8)
    n_children = np.zeros(n + 1, np.int64)
    parent, bad = tree_parents(heads, offsets)
    if bad >= 0:
        return parent, is_left, np.zeros(0, np.int64), n_children, np.zeros(0, np.int64), bad
    for t in range(n):
        g = parent[t]
        if g >= 0:
            is_left[t] = 1 if t < g else 0
            n_children[g + 1] += 1
    child_start = np.cumsum(n_children)
    fill = child_start[:-1].copy()
    child_list = np.empty(child_start[-1], np.int64)
    for t in range(n):
        g = parent[t]
        if g >= 0:
            child_list[fill[g]] = t
            fill[g] += 1
    order = np.empty(n, np.int64)
    for j in range(len(offsets) - 1):
        a = offsets[j]
        b = offsets[j + 1]
        tail = a
        for t in range(a, b):
            if parent[t] < 0:
                order[tail] = t
                tail += 1
        head = a
        while head < tail:
            g = order[head]
            head += 1
            for q in range(child_start[g], child_start[g + 1]):
                order[tail] = child_list[q]
                tail += 1
        if tail != b:  # some token never reached from a root: it sits on a cycle
            for t in range(a, b):
                seen = False
                for q in range(a, tail):
                    if order[q] == t:
                        seen = True
                        break
                if not seen:
                    return parent, is_left, order, child_start, child_list, t
    return parent, is_left, order, child_start, child_list, -1


@njit(cache=True)
def _operator(out, coef, K):
    """out = sum_a coef[a] K[a] (k x k): the operator of the row ``coef``."""
    k = len(coef)
    out[:, :] = 0.0
    for a in range(k):
        ca = coef[a]
        if ca == 0.0:
            continue
        for e in range(k):
            for c in range(k):
                out[e, c] += ca * K[a, e, c]


@njit(cache=True)
def _unit_mass(v, c1):
    """v scaled so that c1 v = 1; False (v untouched) when c1 v is not positive."""
    z = 0.0
    for c in range(len(v)):
        z += c1[c] * v[c]
    if not z > 0.0 or not np.isfinite(z):
        return False
    for c in range(len(v)):
        v[c] /= z
    return True


@njit(cache=True)
def _longest(offsets):
    """The length of the longest sentence."""
    longest = 0
    for j in range(len(offsets) - 1):
        longest = max(longest, offsets[j + 1] - offsets[j])
    return longest


@njit(cache=True)
def _work(longest, k):
    """The work arrays of the predictive-state passes for sentences of up to ``longest``
    words, rows indexed by a word's position in its sentence: ``(w, b, M, a, reset, same)``,
    the state marginals, the inside rows, the operator of each word's inside row, the
    propagated columns, whether a word's inside row was reset, whether it is the source
    sentence's (``_inside``)."""
    return (np.empty((longest, k)), np.empty((longest, k)), np.empty((longest, k, k)), np.empty((longest, k)),
            np.zeros(longest, np.int8), np.zeros(longest, np.bool_))


@njit(cache=True)
def _times(out, x, A):
    """out = x A (a row times a matrix): each entry summed over the rows of A in order, as
    a dot product would, but the entries side by side (one vectorised loop per row of A)."""
    out[:] = 0.0
    for e in range(len(x)):
        xe = x[e]
        row = A[e]
        for c in range(len(out)):
            out[c] += xe * row[c]


@njit(cache=True)
def _marginals(parent, is_left, order, lo, hi, cinf, ELT, ERT, w):
    """Pass 1 of ``spectral_states``: the state marginals, top-down (``ELT``, ``ERT``: E_L
    and E_R transposed, so that E w = w E^T is ``_times``)."""
    k = len(cinf)
    for q in range(lo, hi):
        i = order[q]
        g = parent[i]
        if g < 0:
            for c in range(k):
                w[i - lo, c] = cinf[c]
        else:
            _times(w[i - lo], w[g - lo], ELT if is_left[i] else ERT)


@njit(cache=True)
def _same_inside(i, lo, child_start, child_list, w, same, src_lo, src_child_start, src_child_list, src_w):
    """Whether word i's inside row (and its dependents' operators) are those the source
    sentence computed at the same position: the same dependents, each with an unchanged
    inside row, and the same marginal (then every number of pass 2 is the same)."""
    p = i - lo
    n_children = child_start[i + 1] - child_start[i]
    g = src_lo + p
    if n_children != src_child_start[g + 1] - src_child_start[g]:
        return False
    for t in range(n_children):
        ch = child_list[child_start[i] + t]
        if ch - lo != src_child_list[src_child_start[g] + t] - src_lo or not same[ch - lo]:
            return False
    for c in range(w.shape[1]):
        if w[p, c] != src_w[p, c]:
            return False
    return True


@njit(cache=True)
def _inside(symbols, is_left, order, child_start, child_list, lo, hi, c1, KL, KR, emit, work, v, tmp,
            src_lo, src_is_left, src_child_start, src_child_list, src_work):
    """Pass 2 of ``spectral_states``: the inside rows, bottom-up, and each dependent's
    operator. With a source sentence (``src_lo`` >= 0: the same words and the same root
    attachments, heads that differ in places), a word whose inputs are the source's
    (``_same_inside``) takes its row and its dependents' operators from ``src_work``, and
    any dependent whose row is the source's, on the same side, takes its operator from
    there (k^3 each) instead of recomputing them. Returns the number of rows reset."""
    w, b, M, _, reset, same = work
    k = len(c1)
    n_reset = 0
    for q in range(hi - 1, lo - 1, -1):
        i = order[q]
        p = i - lo
        if src_lo >= 0:
            same[p] = _same_inside(i, lo, child_start, child_list, w, same, src_lo, src_child_start,
                                   src_child_list, src_work[0])
            if same[p]:
                for c in range(k):
                    b[p, c] = src_work[1][p, c]
                for t in range(child_start[i], child_start[i + 1]):
                    M[child_list[t] - lo, :, :] = src_work[2][child_list[t] - lo]
                reset[p] = src_work[4][p]
                n_reset += reset[p]
                continue
        x = symbols[i]
        for c in range(k):
            v[c] = emit[x, c]
        for t in range(child_start[i], child_start[i + 1]):
            ch = child_list[t]
            Mc = M[ch - lo]
            if src_lo >= 0 and same[ch - lo] and is_left[ch] == src_is_left[src_lo + ch - lo]:
                Mc[:, :] = src_work[2][ch - lo]
            else:
                _operator(Mc, b[ch - lo], KL if is_left[ch] else KR)
            _times(tmp, v, Mc)
            v[:] = tmp
        rho = 0.0
        for c in range(k):
            rho += v[c] * w[p, c]
        reset[p] = 0
        if rho > 0.0 and np.isfinite(rho):
            for c in range(k):
                b[p, c] = v[c] / rho
        else:
            reset[p] = 1
            n_reset += 1
            for c in range(k):
                b[p, c] = c1[c]
    return n_reset


@njit(cache=True)
def _predictive(parent, is_left, order, child_start, child_list, lo, hi, c1, cinf, ELT, ERT, work, s, tmp, states):
    """Pass 3 of ``spectral_states``: the predictive states, top-down. Returns the number
    of columns replaced and steps skipped."""
    w, _, M, a, _, _ = work
    k = len(c1)
    n_reset = 0
    for q in range(lo, hi):
        i = order[q]
        if parent[i] < 0:
            for c in range(k):
                a[i - lo, c] = cinf[c]
            if not _unit_mass(a[i - lo], c1):
                n_reset += 1
        for c in range(k):
            s[c] = a[i - lo, c]
        for t in range(child_start[i], child_start[i + 1]):
            ch = child_list[t]
            _times(a[ch - lo], s, ELT if is_left[ch] else ERT)
            if not _unit_mass(a[ch - lo], c1):
                n_reset += 1
                for c in range(k):
                    a[ch - lo, c] = w[ch - lo, c]
                _unit_mass(a[ch - lo], c1)
            Mc = M[ch - lo]
            for e in range(k):
                acc = 0.0
                for c in range(k):
                    acc += Mc[e, c] * s[c]
                tmp[e] = acc
            if _unit_mass(tmp, c1):
                s[:] = tmp
            else:
                n_reset += 1
        for c in range(k):
            states[i, c] = s[c]
    return n_reset


@njit(cache=True)
def _sentence_states(symbols, parent, is_left, order, child_start, child_list, lo, hi, c1, cinf, ELT, ERT, KL, KR,
                     emit, work, v, s, tmp, states, src_lo, src_is_left, src_child_start, src_child_list, src_work):
    """The three passes of ``spectral_states`` over the sentence ``[lo, hi)`` (with a source
    sentence: ``_inside``; ``ELT``, ``ERT``: E_L, E_R transposed); returns the number of
    vectors reset."""
    _marginals(parent, is_left, order, lo, hi, cinf, ELT, ERT, work[0])
    n_reset = _inside(symbols, is_left, order, child_start, child_list, lo, hi, c1, KL, KR, emit, work, v, tmp,
                      src_lo, src_is_left, src_child_start, src_child_list, src_work)
    return n_reset + _predictive(parent, is_left, order, child_start, child_list, lo, hi, c1, cinf, ELT, ERT, work,
                                 s, tmp, states)


@njit(cache=True, nogil=True)
def spectral_states(symbols, offsets, parent, is_left, order, child_start, child_list,
                    c1, cinf, EL, ER, KL, KR, emit, states):
    """The predictive state of every word of a corpus under the observable tree model.

    Three passes per sentence (module ``spectral``, step 5): the state marginals ``w``
    top-down (``cinf`` at a root, ``E_d w_head`` below); the inside rows ``b`` bottom-up
    (``emit[x_i]`` times the operator sum_a b_c[a] K_d[a] of each dependent c's row, kept
    for the third pass: k^3 per arc once; ``b`` scaled so that ``b w = 1``;
    the uninformative ``c1`` where that is not positive); then, top-down, the state of
    each word given every word before it in the order "dependents' subtrees in sentence
    order, then the word itself": ``a`` at a root is ``cinf``, a dependent gets
    ``E_d s``, where s starts at its head's ``a`` and takes the operator of each earlier
    dependent's row; a word's final s (all its dependents taken) goes to ``states[i]``.
    Every a and s is scaled to ``c1 s = 1``; one whose mass is not positive is replaced
    (a: by the marginal w; s: the step is skipped) and counted. Returns that count.
    Work arrays hold one sentence (rows indexed by the word's position in it).
    """
    k = len(c1)
    ELT, ERT = EL.T.copy(), ER.T.copy()
    work = _work(_longest(offsets), k)
    v, s, tmp = np.empty(k), np.empty(k), np.empty(k)
    none = np.zeros(1, np.int64)
    n_reset = 0
    for j in range(len(offsets) - 1):
        n_reset += _sentence_states(symbols, parent, is_left, order, child_start, child_list, offsets[j],
                                    offsets[j + 1], c1, cinf, ELT, ERT, KL, KR, emit, work, v, s, tmp, states,
                                    -1, is_left, none, none, work)
    return n_reset


@njit(cache=True, nogil=True)
def spectral_states_with_copies(symbols, offsets, parent, is_left, order, child_start, child_list,
                                copy_symbols, copy_offsets, copy_parent, copy_is_left, copy_order,
                                copy_child_start, copy_child_list, source,
                                c1, cinf, EL, ER, KL, KR, emit, states, copy_states):
    """``spectral_states`` of a corpus and of copies of its sentences with other heads
    (copy r has the words of sentence ``source[r]``, ``source`` ascending), each copy
    right after its sentence: the copy's inside rows that do not change
    (``_inside``'s source) are taken from the sentence's, so a copy with one word
    re-attached costs the k^3 work of the words whose subtree or marginal moved, not of
    all. The same numbers as two ``spectral_states`` calls; returns the two reset counts."""
    k = len(c1)
    ELT, ERT = EL.T.copy(), ER.T.copy()
    work, copy_work = _work(_longest(offsets), k), _work(_longest(copy_offsets), k)
    v, s, tmp = np.empty(k), np.empty(k), np.empty(k)
    none = np.zeros(1, np.int64)
    n_reset = n_copy_reset = 0
    r = 0
    for j in range(len(offsets) - 1):
        lo = offsets[j]
        n_reset += _sentence_states(symbols, parent, is_left, order, child_start, child_list, lo, offsets[j + 1],
                                    c1, cinf, ELT, ERT, KL, KR, emit, work, v, s, tmp, states, -1, is_left, none,
                                    none, work)
        while r < len(source) and source[r] == j:
            n_copy_reset += _sentence_states(copy_symbols, copy_parent, copy_is_left, copy_order, copy_child_start,
                                             copy_child_list, copy_offsets[r], copy_offsets[r + 1], c1, cinf, ELT, ERT,
                                             KL, KR, emit, copy_work, v, s, tmp, copy_states, lo, is_left,
                                             child_start, child_list, work)
            r += 1
    return n_reset, n_copy_reset


@njit(cache=True)
def _block_sum(a, lo, n):
    """a[lo:lo+n].sum() for n <= 128 in numpy's order: eight running sums, then the rest."""
    if n < 8:
        total = 0.0
        for i in range(lo, lo + n):
            total += a[i]
        return total
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = lo + 8
    end = lo + n - n % 8
    while i < end:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < lo + n:
        total += a[i]
        i += 1
    return total


@njit(cache=True)
def _row_sum(a, n, frames, partial):
    """a[:n].sum() added in numpy's order (its pairwise sum: blocks of up to 128 by
    ``_block_sum``, halves, rounded to eights, above), so that it equals numpy's bit for
    bit. The halving is walked with an explicit stack (``frames``: 64 x 3 ints,
    ``partial``: 64 floats) — Numba's cache does not keep recursive functions."""
    if n <= 128:
        return _block_sum(a, 0, n)
    top, done = 0, 0
    frames[0, 0], frames[0, 1], frames[0, 2] = 0, n, 0
    while top >= 0:
        lo, size, step = frames[top, 0], frames[top, 1], frames[top, 2]
        if size <= 128:
            partial[done] = _block_sum(a, lo, size)
            done += 1
            top -= 1
            continue
        half = size // 2
        half -= half % 8
        if step == 2:  # both halves summed: left + right
            done -= 1
            partial[done - 1] = partial[done - 1] + partial[done]
            top -= 1
            continue
        frames[top, 2] = step + 1
        top += 1
        frames[top, 0] = lo if step == 0 else lo + half
        frames[top, 1] = half if step == 0 else size - half
        frames[top, 2] = 0
    return partial[0]


@njit(cache=True)
def _maximum(a, b):
    """numpy's maximum of two floats (a NaN wins)."""
    return a if a >= b or a != a else b


@njit(cache=True)
def _floored_block_sum(q, unit, n):
    """``_block_sum`` of maximum(q, unit) over n <= 128 entries, the maxima taken on the way."""
    if n < 8:
        total = 0.0
        for i in range(n):
            total += _maximum(q[i], unit[i])
        return total
    r0, r1, r2, r3 = _maximum(q[0], unit[0]), _maximum(q[1], unit[1]), _maximum(q[2], unit[2]), _maximum(q[3], unit[3])
    r4, r5, r6, r7 = _maximum(q[4], unit[4]), _maximum(q[5], unit[5]), _maximum(q[6], unit[6]), _maximum(q[7], unit[7])
    i = 8
    end = n - n % 8
    while i < end:
        r0 += _maximum(q[i], unit[i])
        r1 += _maximum(q[i + 1], unit[i + 1])
        r2 += _maximum(q[i + 2], unit[i + 2])
        r3 += _maximum(q[i + 3], unit[i + 3])
        r4 += _maximum(q[i + 4], unit[i + 4])
        r5 += _maximum(q[i + 5], unit[i + 5])
        r6 += _maximum(q[i + 6], unit[i + 6])
        r7 += _maximum(q[i + 7], unit[i + 7])
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        total += _maximum(q[i], unit[i])
        i += 1
    return total


@njit(cache=True, nogil=True)
def floored_conditionals(q, symbols, units, own, total, floored):
    """Per word i (a row of ``q``: the positive weights of every symbol) and floor f (a
    row of ``units``: the floor times each symbol's frequency): ``own[f, i]``, the
    normalised weight of its own symbol raised to the floor, and ``total[f, i]``, the sum
    of every normalised weight raised to the floor (module ``spectral``, step 5);
    ``floored[f]`` counts the words whose own weight was below its floor. ``q`` is
    normalised in place. The arithmetic and its order are numpy's (``_row_sum``)."""
    n, V = q.shape
    row = np.empty(V)
    frames, partial = np.empty((64, 3), np.int64), np.empty(64)
    for i in range(n):
        qi = q[i]
        mass = _row_sum(qi, V, frames, partial)
        if mass > 0:
            for v in range(V):
                qi[v] /= mass
        x = symbols[i]
        mine = qi[x]
        for f in range(units.shape[0]):
            unit = units[f]
            own[f, i] = _maximum(mine, unit[x])
            if mine < unit[x]:
                floored[f] += 1
            if V <= 128:  # numpy's eight running sums, taken as the maxima are formed
                total[f, i] = _floored_block_sum(qi, unit, V)
            else:
                for v in range(V):
                    row[v] = _maximum(qi[v], unit[v])
                total[f, i] = _row_sum(row, V, frames, partial)


@njit(cache=True)
def _upward(symbols, parent, is_left, order, child_start, child_list, lo, hi, TL, TR, O, beta, up):
    """Sum-normalised inside vectors ``beta`` and upward messages ``up`` (T_d^T beta) of
    one sentence ``[lo, hi)``, rows indexed by position in it; returns the log of the scales
    (-inf, the vectors left unfinished, when the sentence has probability 0)."""
    m = O.shape[1]
    log_scale = 0.0
    for q in range(hi - 1, lo - 1, -1):
        i = order[q]
        x = symbols[i]
        for h in range(m):
            beta[i - lo, h] = O[x, h]
        for p in range(child_start[i], child_start[i + 1]):
            ch = child_list[p]
            for h in range(m):
                beta[i - lo, h] *= up[ch - lo, h]
        s = 0.0
        for h in range(m):
            s += beta[i - lo, h]
        if s == 0.0:  # a word no state emits (unknown to the model): the sentence has probability 0
            return -np.inf
        log_scale += np.log(s)
        for h in range(m):
            beta[i - lo, h] /= s
        if parent[i] >= 0:
            T = TL if is_left[i] else TR
            for h in range(m):
                u = 0.0
                for hc in range(m):
                    u += T[hc, h] * beta[i - lo, hc]
                up[i - lo, h] = u
    return log_scale


@njit(cache=True)
def latent_log_probs(symbols, offsets, parent, is_left, order, child_start, child_list, pi, TL, TR, O, out):
    """Exact log p(words | tree) of a latent tree model (pi, T_L, T_R, O) by belief
    propagation (inside pass with rescaling): out[s] per sentence."""
    m = len(pi)
    longest = _longest(offsets)
    beta = np.empty((longest, m))  # work arrays hold one sentence
    up = np.empty((longest, m))
    for j in range(len(offsets) - 1):
        lo = offsets[j]
        hi = offsets[j + 1]
        total = _upward(symbols, parent, is_left, order, child_start, child_list, lo, hi, TL, TR, O, beta, up)
        for q in range(lo, hi):
            i = order[q]
            if parent[i] < 0:
                s = 0.0
                for h in range(m):
                    s += pi[h] * beta[i - lo, h]
                total += np.log(s)
        out[j] = total


@njit(cache=True)
def latent_expected_counts(symbols, offsets, parent, is_left, order, child_start, child_list, pi, TL, TR, O):
    """E-step of EM (upward-downward message passing): expected root-state, left/right
    transition and emission counts, and the total log-likelihood."""
    m = len(pi)
    longest = _longest(offsets)
    beta = np.empty((longest, m))  # work arrays hold one sentence
    up = np.empty((longest, m))
    alpha = np.empty((longest, m))  # outside, up to a constant per node
    root_acc = np.zeros(m)
    tl_acc = np.zeros((m, m))
    tr_acc = np.zeros((m, m))
    o_acc = np.zeros(O.shape)
    post = np.empty(m)
    rest = np.empty(m)
    loglik = 0.0
    for j in range(len(offsets) - 1):
        lo = offsets[j]
        hi = offsets[j + 1]
        loglik += _upward(symbols, parent, is_left, order, child_start, child_list, lo, hi, TL, TR, O, beta, up)
        for q in range(lo, hi):  # downward, top-down
            i = order[q]
            g = parent[i]
            if g < 0:
                s = 0.0
                for h in range(m):
                    alpha[i - lo, h] = pi[h]
                    s += pi[h] * beta[i - lo, h]
                loglik += np.log(s)
            else:
                T = TL if is_left[i] else TR
                acc = tl_acc if is_left[i] else tr_acc
                # the head's outside times its inside without this dependent's message
                for h in range(m):
                    rest[h] = alpha[g - lo, h] * beta[g - lo, h] / up[i - lo, h] if up[i - lo, h] > 0.0 else 0.0
                z = 0.0
                for hp in range(m):
                    for hc in range(m):
                        z += rest[hp] * T[hc, hp] * beta[i - lo, hc]
                s = 0.0
                for hc in range(m):
                    a = 0.0
                    for hp in range(m):
                        a += T[hc, hp] * rest[hp]
                    alpha[i - lo, hc] = a
                    s += a
                for hc in range(m):
                    alpha[i - lo, hc] /= s
                for hp in range(m):
                    for hc in range(m):
                        acc[hc, hp] += rest[hp] * T[hc, hp] * beta[i - lo, hc] / z
            z = 0.0
            for h in range(m):
                post[h] = alpha[i - lo, h] * beta[i - lo, h]
                z += post[h]
            x = symbols[i]
            for h in range(m):
                post[h] /= z
                o_acc[x, h] += post[h]
                if g < 0:
                    root_acc[h] += post[h]
    return root_acc, tl_acc, tr_acc, o_acc, loglik


@njit(cache=True)
def _draw(cdf_row, u):
    """The index i with cdf[i-1] <= u < cdf[i] (the last one if rounding leaves u above)."""
    m = len(cdf_row)
    for i in range(m):
        if u < cdf_row[i]:
            return i
    return m - 1


@njit(cache=True)
def sample_latent(parent, is_left, order, pi_cdf, TL_cdf, TR_cdf, O_cdf, u_state, u_word):
    """Hidden states top-down (root attachments from pi, dependents from T_L / T_R given
    their head's state) and words from O, from pre-drawn uniforms (one pair per token).
    The cdfs are cumulative over the drawn index: TL_cdf[h_head, h], O_cdf[h, x]."""
    n = len(parent)
    states = np.empty(n, np.int32)
    words = np.empty(n, np.int32)
    for q in range(n):
        i = order[q]
        g = parent[i]
        if g < 0:
            h = _draw(pi_cdf, u_state[i])
        elif is_left[i]:
            h = _draw(TL_cdf[states[g]], u_state[i])
        else:
            h = _draw(TR_cdf[states[g]], u_state[i])
        states[i] = h
        words[i] = _draw(O_cdf[h], u_word[i])
    return states, words
