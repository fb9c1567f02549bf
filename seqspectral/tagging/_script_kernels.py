"""Numba kernels of the lemmatiser: which edit scripts apply to which forms, and a word's
candidate scripts.

Strings are flat arrays of code points with offsets (:func:`._strings.code_points`): string
``i`` is ``flat[offsets[i]:offsets[i+1]]``, so a Python slice ``s[:k]`` or ``s[-k:]`` is the
same code points. A script applies to a form when the form (lower-cased first for a ``lower``
script) starts with the prefix it removes, ends with the suffix it removes, and is at least
as long as the two together (:func:`.lemmatiser.apply_script`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _same(a, a0, b, b0, n):
    for j in range(n):
        if a[a0 + j] != b[b0 + j]:
            return False
    return True


@njit(cache=True, parallel=True)
def script_matches(sources, source_at, lowers, pre, pre_at, suf, suf_at):
    """``out[f, i]``: script ``i`` applies to form ``f`` (forms × scripts, bool). The sources
    are two per form: string ``2f`` is the form lower-cased, ``2f + 1`` the form as it is;
    script ``i`` reads the first when ``lowers[i]``, removes the prefix
    ``pre[pre_at[i]:pre_at[i+1]]`` and the suffix ``suf[suf_at[i]:suf_at[i+1]]``."""
    n_forms, n_scripts = (len(source_at) - 1) // 2, len(lowers)
    out = np.zeros((n_forms, n_scripts), dtype=np.bool_)
    for f in prange(n_forms):
        for i in range(n_scripts):
            row = 2 * f + (0 if lowers[i] else 1)
            a, b = source_at[row], source_at[row + 1]
            n_pre, n_suf = pre_at[i + 1] - pre_at[i], suf_at[i + 1] - suf_at[i]
            out[f, i] = (n_pre + n_suf <= b - a and _same(sources, a, pre, pre_at[i], n_pre)
                         and _same(sources, b - n_suf, suf, suf_at[i], n_suf))
    return out


@njit(cache=True)
def word_candidates(matches, form_of, upos_of, seen):
    """The candidate scripts of each word ``w`` (form ``form_of[w]``, a row of ``matches``;
    UPOS ``upos_of[w]``, a row of ``seen``, -1 for a UPOS not seen in training): those that
    apply to its form and were seen with its UPOS, or, when there are none (or its UPOS is
    unknown), every script that applies; in increasing order. Returns ``(offsets, classes)``."""
    n_words, n_scripts = len(form_of), matches.shape[1]
    offsets = np.zeros(n_words + 1, dtype=np.int64)
    both = np.zeros(n_words, dtype=np.bool_)  # whether the word keeps only the scripts seen with its UPOS
    for w in range(n_words):
        f, u = form_of[w], upos_of[w]
        mine = 0
        if u >= 0:
            for i in range(n_scripts):
                if matches[f, i] and seen[u, i]:
                    mine += 1
        if mine:
            both[w] = True
        else:
            for i in range(n_scripts):
                if matches[f, i]:
                    mine += 1
        offsets[w + 1] = offsets[w] + mine
    classes = np.empty(offsets[-1], dtype=np.int32)
    for w in range(n_words):
        f, u, at = form_of[w], upos_of[w], offsets[w]
        for i in range(n_scripts):
            if matches[f, i] and (not both[w] or seen[u, i]):
                classes[at] = i
                at += 1
    return offsets, classes
