"""Numba kernels of the dependency-tree models: tree layout, the spectral model's
predictive states, exact belief propagation, EM expected counts and sampling.

Every kernel takes a whole corpus as flat arrays (``symbols`` int32, ``heads`` int32
1-based within the sentence with 0 = root, ``offsets`` int64) plus the layout of
:func:`tree_layout`, and loops over sentences and nodes without Python objects.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
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
    parent = np.full(n, -1, np.int64)
    is_left = np.zeros(n, np.int8)
    n_children = np.zeros(n + 1, np.int64)
    for j in range(len(offsets) - 1):
        a = offsets[j]
        b = offsets[j + 1]
        for t in range(a, b):
            h = heads[t]
            if h < 0 or h > b - a or a + h - 1 == t:
                return parent, is_left, np.zeros(0, np.int64), n_children, np.zeros(0, np.int64), t
            if h > 0:
                g = a + h - 1
                parent[t] = g
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
    longest = _longest(offsets)
    b = np.empty((longest, k))
    w = np.empty((longest, k))
    a = np.empty((longest, k))
    M = np.empty((longest, k, k))  # the operator of each word's inside row
    v = np.empty(k)
    s = np.empty(k)
    tmp = np.empty(k)
    n_reset = 0
    for j in range(len(offsets) - 1):
        lo = offsets[j]
        hi = offsets[j + 1]
        for q in range(lo, hi):  # state marginals, top-down
            i = order[q]
            g = parent[i]
            if g < 0:
                for c in range(k):
                    w[i - lo, c] = cinf[c]
            else:
                E = EL if is_left[i] else ER
                for r in range(k):
                    acc = 0.0
                    for c in range(k):
                        acc += E[r, c] * w[g - lo, c]
                    w[i - lo, r] = acc
        for q in range(hi - 1, lo - 1, -1):  # inside rows, bottom-up
            i = order[q]
            x = symbols[i]
            for c in range(k):
                v[c] = emit[x, c]
            for p in range(child_start[i], child_start[i + 1]):
                ch = child_list[p]
                Mc = M[ch - lo]
                _operator(Mc, b[ch - lo], KL if is_left[ch] else KR)
                for c in range(k):
                    acc = 0.0
                    for e in range(k):
                        acc += v[e] * Mc[e, c]
                    tmp[c] = acc
                v[:] = tmp
            rho = 0.0
            for c in range(k):
                rho += v[c] * w[i - lo, c]
            if rho > 0.0 and np.isfinite(rho):
                for c in range(k):
                    b[i - lo, c] = v[c] / rho
            else:
                n_reset += 1
                for c in range(k):
                    b[i - lo, c] = c1[c]
        for q in range(lo, hi):  # predictive states, top-down
            i = order[q]
            if parent[i] < 0:
                for c in range(k):
                    a[i - lo, c] = cinf[c]
                if not _unit_mass(a[i - lo], c1):
                    n_reset += 1
            for c in range(k):
                s[c] = a[i - lo, c]
            for p in range(child_start[i], child_start[i + 1]):
                ch = child_list[p]
                E = EL if is_left[ch] else ER
                for r in range(k):
                    acc = 0.0
                    for c in range(k):
                        acc += E[r, c] * s[c]
                    a[ch - lo, r] = acc
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
