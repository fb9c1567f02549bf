"""Numba kernels of the CCA view counter: the (word, context) pairs of every token.

A token at position i of a sentence has 2h context slots: slot ``d - 1`` holds the word
at distance d to the left (d = 1..h) and slot ``h + d - 1`` the word at distance d to the
right; positions outside the sentence hold the boundary word. A context *feature* is
``slot * n_words + word`` (so the context view has 2h·n_words columns, the first h·n_words
of them left ones). ``word_of`` maps corpus ids to embedding-vocabulary ids.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def context_features(symbols, offsets, word_of, window, n_words, boundary):
    """The 2h context features of every token, an (n_tokens, 2h) int64 array."""
    n_tokens = offsets[-1] - offsets[0]
    out = np.empty((n_tokens, 2 * window), np.int64)
    base = offsets[0]
    for s in range(len(offsets) - 1):
        start, end = offsets[s], offsets[s + 1]
        for t in range(start, end):
            row = t - base
            for d in range(1, window + 1):
                left = word_of[symbols[t - d]] if t - d >= start else boundary
                right = word_of[symbols[t + d]] if t + d < end else boundary
                out[row, d - 1] = np.int64(d - 1) * n_words + left
                out[row, window + d - 1] = np.int64(window + d - 1) * n_words + right
    return out


@njit(cache=True)
def view_pairs(symbols, offsets, word_of, window, n_words, boundary, with_context_pairs):
    """Co-occurrence pairs of one chunk, as (row, column) index arrays.

    Returns ``(word_rows, context_cols, lr_rows, lr_cols, ll_rows, ll_cols, rr_rows, rr_cols)``:
    every (word, context feature) pair, and with ``with_context_pairs`` the pairs (left
    feature, right feature), (left a, left b) with slot a < b and (right a, right b) with
    slot a < b of the same token (right features numbered from 0 within the right view),
    which the two-step CCA needs; otherwise those are empty.
    """
    n_tokens = offsets[-1] - offsets[0]
    h = window
    features = context_features(symbols, offsets, word_of, window, n_words, boundary)
    word_rows = np.empty(n_tokens * 2 * h, np.int64)
    context_cols = np.empty(n_tokens * 2 * h, np.int64)
    n_lr = n_tokens * h * h if with_context_pairs else 0
    n_same = n_tokens * (h * (h - 1) // 2) if with_context_pairs else 0
    lr_rows = np.empty(n_lr, np.int64)
    lr_cols = np.empty(n_lr, np.int64)
    ll_rows = np.empty(n_same, np.int64)
    ll_cols = np.empty(n_same, np.int64)
    rr_rows = np.empty(n_same, np.int64)
    rr_cols = np.empty(n_same, np.int64)
    right0 = np.int64(h) * n_words
    base = offsets[0]
    k = 0
    kp = 0
    ks = 0
    for t in range(n_tokens):
        w = word_of[symbols[base + t]]
        for j in range(2 * h):
            word_rows[k] = w
            context_cols[k] = features[t, j]
            k += 1
        if with_context_pairs:
            for a in range(h):
                for b in range(h):
                    lr_rows[kp] = features[t, a]
                    lr_cols[kp] = features[t, h + b] - right0
                    kp += 1
            for a in range(h):
                for b in range(a + 1, h):
                    ll_rows[ks] = features[t, a]
                    ll_cols[ks] = features[t, b]
                    rr_rows[ks] = features[t, h + a] - right0
                    rr_cols[ks] = features[t, h + b] - right0
                    ks += 1
    return word_rows, context_cols, lr_rows, lr_cols, ll_rows, ll_cols, rr_rows, rr_cols
