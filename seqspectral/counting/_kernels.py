"""Numba kernels of the counting engine (Hankel blocks and dependency-tree events).

Hankel blocks are counted in two passes over tries (no Python objects; trie edges in
an open-addressing hash table keyed ``node * 2**32 + symbol``, or a dense node x symbol
table for small alphabets):

1. ``count_trie`` counts the distinct strings of length <= |u| + 1 + |v| of the sample
   (whole strings, prefixes or substrings, by the statistic) in one walk per start
   position -- O(tokens x depth) steps;
2. ``hankel_entries`` splits each distinct counted string w into u v and u sigma v with
   u in P and v in S (looked up in the trie of P and the trie of the reversed strings of
   S, ``build_trie``): the entries of H and H_sigma, each produced once, O(depth) per w.

The cost of pass 2 depends on the number of distinct strings, not on the sample size.
Tree events: ``tree_parents`` finds every word's head in one pass; ``project_triples``
contracts sparse triples of symbols with projection matrices.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_MULT = 0x5851F42D4C957F2D  # odd 64-bit multiplier (Knuth's MMIX LCG constant)
_EDGE = 4294967296  # 2**32: node * _EDGE + symbol keys a trie edge
STRING, PREFIX, SUBSTRING, SUFFIX = 0, 1, 2, 3
DENSE_ALPHABET = 64  # symbol ids below this: count-trie children in a dense table


@njit(cache=True)
def _slot(key, mask):
    h = key * _MULT
    return (h ^ (h >> 29)) & mask


@njit(cache=True)
def build_trie(flat, offsets):
    """Trie of the strings ``flat[offsets[i]:offsets[i+1]]``.

    Returns ``(edge_keys, edge_child, terminal)``: the edge table (``-1`` = free; its
    length is a power of two) and, per node, the index of the string ending there or -1.
    Node 0 is the root (the empty string).
    """
    max_nodes = len(flat) + 1
    cap = 16
    while cap < 2 * max_nodes:
        cap *= 2
    keys = np.full(cap, -1, np.int64)
    child = np.zeros(cap, np.int32)
    mask = cap - 1
    terminal = np.full(max_nodes, -1, np.int32)
    n_nodes = 1
    for i in range(len(offsets) - 1):
        node = 0
        for t in range(offsets[i], offsets[i + 1]):
            key = np.int64(node) * _EDGE + flat[t]
            h = _slot(key, mask)
            while keys[h] != -1 and keys[h] != key:
                h = (h + 1) & mask
            if keys[h] == -1:
                keys[h] = key
                child[h] = n_nodes
                n_nodes += 1
            node = child[h]
        if terminal[node] == -1:
            terminal[node] = i
    return keys, child, terminal[:n_nodes]


@njit(cache=True)
def _child(keys, child, node, symbol):
    """The trie node reached from ``node`` by ``symbol``, or -1."""
    if symbol < 0:
        return -1
    mask = len(keys) - 1
    key = np.int64(node) * _EDGE + symbol
    h = _slot(key, mask)
    while True:
        k = keys[h]
        if k == key:
            return child[h]
        if k == -1:
            return -1
        h = (h + 1) & mask


@njit(cache=True)
def _rehash(keys, child, cap):
    new_keys = np.full(cap, -1, np.int64)
    new_child = np.zeros(cap, np.int32)
    mask = cap - 1
    for h in range(len(keys)):
        k = keys[h]
        if k != -1:
            g = _slot(k, mask)
            while new_keys[g] != -1:
                g = (g + 1) & mask
            new_keys[g] = k
            new_child[g] = child[h]
    return new_keys, new_child


@njit(cache=True)
def _walk_strings(symbols, offsets, j, w, mode, max_depth, dense, n_symbols, table, keys, child,
                  parent, sym, depth, count, n_nodes):
    """The walks from walk ``w`` of string ``j`` on, until all are done or the tables
    might not hold one more walk; returns ``(n_nodes, j, w)`` to resume from."""
    mask = len(keys) - 1
    n_strings = len(offsets) - 1
    while j < n_strings:
        a = offsets[j]
        b = offsets[j + 1]
        n_walks = b - a + 1 if mode == SUBSTRING else (min(b - a, max_depth) + 1 if mode == SUFFIX else 1)
        while w < n_walks:
            if n_nodes + max_depth >= len(parent):
                return n_nodes, j, w
            if mode == STRING:
                start, stop = a, (b if b - a <= max_depth else a - 1)
            elif mode == PREFIX:
                start, stop = a, min(b, a + max_depth)
            elif mode == SUBSTRING:
                start, stop = a + w, min(b, a + w + max_depth)
            else:
                start, stop = b - w, b
            w += 1
            if stop < start:
                continue
            node = 0
            for t in range(start, stop):
                x = symbols[t]
                h = 0
                key = np.int64(node) * _EDGE + x
                if dense:
                    nxt = table[node * n_symbols + x]
                else:
                    h = _slot(key, mask)
                    while keys[h] != -1 and keys[h] != key:
                        h = (h + 1) & mask
                    nxt = child[h] if keys[h] == key else -1
                if nxt < 0:
                    nxt = n_nodes
                    n_nodes += 1
                    parent[nxt] = node
                    sym[nxt] = x
                    depth[nxt] = depth[node] + 1
                    if dense:
                        table[node * n_symbols + x] = nxt
                    else:
                        keys[h] = key
                        child[h] = nxt
                node = nxt
            count[node] += 1
        j += 1
        w = 0
    return n_nodes, j, w


@njit(cache=True)
def count_trie(symbols, offsets, mode, max_depth):
    """Occurrence counts of the distinct strings of length <= max_depth, as a trie.

    Per string ``w`` of the sample, ``mode`` says what is counted: ``STRING`` w itself
    (when |w| <= max_depth), ``PREFIX`` every prefix, ``SUBSTRING`` every occurrence of
    every substring (the empty one once per position 0..|w|), ``SUFFIX`` every suffix.
    Each walk adds 1 to its last node only; for prefixes and substrings the counts are
    then summed up the tree (a window counts for each of its prefixes). Children are
    found in a dense node x symbol table when symbol ids are below ``DENSE_ALPHABET``,
    else in a hash table. The walks pause whenever the tables might overflow, which
    then double. Returns ``(parent, symbol, depth, count)`` per node; node 0 is the
    empty string and a node's parent always has a smaller index.
    """
    n_symbols = symbols.max() + 1 if len(symbols) else 1
    dense = n_symbols <= DENSE_ALPHABET
    cap = 1024
    while cap <= max_depth + 1:
        cap *= 2
    parent = np.full(cap, -1, np.int32)
    sym = np.zeros(cap, np.int32)
    depth = np.zeros(cap, np.int32)
    count = np.zeros(cap, np.int64)
    table = np.full(cap * n_symbols if dense else 1, -1, np.int32)
    keys = np.full(1 if dense else 2 * cap, -1, np.int64)
    child = np.zeros(len(keys), np.int32)
    n_nodes, j, w = 1, 0, 0
    while True:
        n_nodes, j, w = _walk_strings(symbols, offsets, j, w, mode, max_depth, dense, n_symbols, table, keys,
                                      child, parent, sym, depth, count, n_nodes)
        if j >= len(offsets) - 1:
            break
        parent = np.concatenate((parent, np.full(cap, -1, np.int32)))
        sym = np.concatenate((sym, np.zeros(cap, np.int32)))
        depth = np.concatenate((depth, np.zeros(cap, np.int32)))
        count = np.concatenate((count, np.zeros(cap, np.int64)))
        if dense:
            table = np.concatenate((table, np.full(cap * n_symbols, -1, np.int32)))
        else:
            keys, child = _rehash(keys, child, 4 * cap)
        cap *= 2
    if mode == PREFIX or mode == SUBSTRING:
        for t in range(n_nodes - 1, 0, -1):
            count[parent[t]] += count[t]
    return parent[:n_nodes], sym[:n_nodes], depth[:n_nodes], count[:n_nodes]


@njit(cache=True)
def node_strings(parent, sym, depth, width):
    """The string of every count-trie node, padded with -1 to ``width`` columns."""
    out = np.full((len(parent), width), -1, np.int32)
    for t in range(1, len(parent)):
        d = depth[t]
        out[t, :d - 1] = out[parent[t], :d - 1]
        out[t, d - 1] = sym[t]
    return out


@njit(cache=True)
def hankel_entries(parent, sym, depth, count, p_keys, p_child, p_term, r_keys, r_child, r_term, sym_slot, n_p, n_s):
    """The nonzero Hankel entries from the counts of distinct strings (``count_trie``).

    Every split of a counted string w = u v with u in P and v in S gives H[u, v] = count(w);
    every split w = u a v with a in the alphabet gives H_a[u, v]. The u's are the
    ancestors of w's node whose string is in P (the P-trie node of every count-trie node
    is computed once, parents first); the v's come from one backward walk of w in the trie
    of the REVERSED suffixes (``r_*``). Each (block, u, v) comes from exactly one w, so
    the entries come out without duplicates: returns ``(keys, counts)`` with key =
    (block * |P| + u) * |S| + v (block 0 = H, block 1 + i = H_sigma for alphabet symbol i).
    """
    n_nodes = len(parent)
    pnode = np.full(n_nodes, -1, np.int32)
    if n_nodes:
        pnode[0] = 0
    for t in range(1, n_nodes):
        q = pnode[parent[t]]
        if q >= 0:
            pnode[t] = _child(p_keys, p_child, q, sym[t])
    max_d = depth.max() if n_nodes else 0
    buf = np.empty(max_d + 1, np.int32)
    pu = np.empty(max_d + 1, np.int64)
    sv = np.empty(max_d + 2, np.int64)
    cap = 1024
    keys = np.empty(cap, np.int64)
    vals = np.empty(cap, np.int64)
    n = 0
    for t in range(n_nodes):
        c = count[t]
        if c == 0:
            continue
        d = depth[t]
        x = t
        for k in range(d, -1, -1):  # x = the ancestor of depth k, the node of w[:k]
            q = pnode[x]
            pu[k] = p_term[q] if q >= 0 else -1
            if k > 0:
                buf[k - 1] = sym[x]
                x = parent[x]
        sv[: d + 2] = -1
        node = 0
        sv[d] = r_term[0]
        for k in range(d - 1, -1, -1):  # sv[k] = index of w[k:] in S
            node = _child(r_keys, r_child, node, buf[k])
            if node < 0:
                break
            sv[k] = r_term[node]
        if n + 2 * (d + 1) > cap:
            while n + 2 * (d + 1) > cap:
                cap *= 2
            keys = np.concatenate((keys, np.empty(cap - len(keys), np.int64)))
            vals = np.concatenate((vals, np.empty(cap - len(vals), np.int64)))
        for k in range(d + 1):
            u = pu[k]
            if u < 0:
                continue
            if sv[k] >= 0:
                keys[n] = u * np.int64(n_s) + sv[k]
                vals[n] = c
                n += 1
            if k < d and sv[k + 1] >= 0:
                a = buf[k]
                if a < len(sym_slot) and sym_slot[a] > 0:
                    keys[n] = (sym_slot[a] * np.int64(n_p) + u) * n_s + sv[k + 1]
                    vals[n] = c
                    n += 1
    return keys[:n], vals[:n]


@njit(cache=True)
def tree_parents(heads, offsets):
    """Per token (global index): the global index of its head, -1 for the root — the one
    check of the heads that the tree kernels share (:func:`tree_event_tables`, the tree
    models' ``tree_layout``).

    ``heads`` are 1-based within each sentence, 0 = root. Returns ``(parent, bad)``;
    ``bad`` is the index of the first token whose head is out of range or itself (-1 when
    all are fine; ``parent`` is then filled only up to it).
    """
    n = len(heads)
    parent = np.full(n, -1, np.int64)
    for j in range(len(offsets) - 1):
        a = offsets[j]
        b = offsets[j + 1]
        for t in range(a, b):
            h = heads[t]
            if h < 0 or h > b - a or a + h - 1 == t:
                return parent, t
            if h != 0:
                parent[t] = a + h - 1
    return parent, -1


@njit(cache=True)
def project_triples(x, y, z, count, X, Y, Z, x_onehot):
    """sum_t count[t] X[x[t]] (x) Y[y[t]] (x) Z[z[t]] for triples sorted by (x, y).

    Factored as sum_x X[x] (x) sum_y Y[y] (x) sum_z count Z[z], so the cost is
    O(n_triples k + n_xy k^2 + n_x k^3), never a dense table over the symbols. With
    ``x_onehot`` the first mode is not projected: out[x[t]] accumulates Y[y] (x) Z[z].
    """
    kb = Y.shape[1]
    kc = Z.shape[1]
    ka = len(X) if x_onehot else X.shape[1]
    out = np.zeros((ka, kb, kc))
    inner = np.zeros((kb, kc))
    v = np.zeros(kc)
    n = len(x)
    i = 0
    while i < n:
        xi = x[i]
        inner[:, :] = 0.0
        while i < n and x[i] == xi:
            yi = y[i]
            v[:] = 0.0
            while i < n and x[i] == xi and y[i] == yi:
                c = count[i]
                zr = z[i]
                for m in range(kc):
                    v[m] += c * Z[zr, m]
                i += 1
            for b in range(kb):
                w = Y[yi, b]
                if w != 0.0:
                    for m in range(kc):
                        inner[b, m] += w * v[m]
        if x_onehot:
            _add_scaled(out, xi, 1.0, inner)
        else:
            for a in range(ka):
                if X[xi, a] != 0.0:
                    _add_scaled(out, a, X[xi, a], inner)
    return out


@njit(cache=True)
def _add_scaled(out, a, w, inner):
    """out[a] += w * inner, as plain loops (no temporary array)."""
    for b in range(inner.shape[0]):
        for m in range(inner.shape[1]):
            out[a, b, m] += w * inner[b, m]


@njit(cache=True, inline="always")
def _ngram_key(symbols, a, n, i, order, n_ids, start, stop):
    """The key ``history · n_ids + event`` of event ``i`` of the sequence of ``n`` tokens from
    ``a`` (its token, or ``stop`` at ``i = n``): the history the ``order - 1`` symbols before
    it (the nearest the most significant digit, ``start`` before the sequence) in base ``n_ids``."""
    key = np.int64(0)
    for j in range(1, order):
        key = key * n_ids + (symbols[a + i - j] if i >= j else start)
    return key * n_ids + (symbols[a + i] if i < n else stop)


@njit(cache=True, nogil=True)
def ngram_table(symbols, offsets, order, n_ids, start, stop):
    """Dense counts of the order-``order`` n-grams of every sequence, one pass over its
    tokens: the ``n_ids ** order`` counts of the keys (:func:`_ngram_key`) of its events
    (each token, then ``stop``)."""
    table = np.zeros(n_ids ** order, np.int64)
    for s in range(len(offsets) - 1):
        a = offsets[s]
        n = offsets[s + 1] - a
        for i in range(n + 1):
            table[_ngram_key(symbols, a, n, i, order, n_ids, start, stop)] += 1
    return table


@njit(cache=True, nogil=True)
def ngram_keys(symbols, offsets, order, n_ids, start, stop):
    """The key (:func:`_ngram_key`) of every event of every sequence, in order (int64)."""
    keys = np.empty(len(symbols) + len(offsets) - 1, np.int64)
    e = 0
    for s in range(len(offsets) - 1):
        a = offsets[s]
        n = offsets[s + 1] - a
        for i in range(n + 1):
            keys[e] = _ngram_key(symbols, a, n, i, order, n_ids, start, stop)
            e += 1
    return keys


@njit(cache=True, nogil=True)
def tree_event_tables(symbols, heads, offsets, n_symbols):
    """The words of dependency trees (``heads`` 1-based within each sentence, 0 = root; their
    heads found by :func:`tree_parents`) counted into dense tables: ``(unigram, root, left,
    right, bad)``, ``left[c, p]`` counting the arcs whose dependent (symbol c) stands left of
    its head (symbol p), ``right`` those to its right; ``bad`` is the first word whose head is
    out of range or itself (-1 when all are fine; the tables are then empty)."""
    unigram = np.zeros(n_symbols, np.int64)
    root = np.zeros(n_symbols, np.int64)
    left = np.zeros((n_symbols, n_symbols), np.int64)
    right = np.zeros((n_symbols, n_symbols), np.int64)
    parent, bad = tree_parents(heads, offsets)
    if bad >= 0:
        return unigram, root, left, right, bad
    for t in range(len(symbols)):
        c = symbols[t]
        g = parent[t]
        unigram[c] += 1
        if g < 0:
            root[c] += 1
        elif g > t:
            left[c, symbols[g]] += 1
        else:
            right[c, symbols[g]] += 1
    return unigram, root, left, right, -1
