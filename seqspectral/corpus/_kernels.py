"""Numba kernels of the readers: one pass over the raw bytes of a file of integers."""

from __future__ import annotations

import numpy as np
from numba import njit

#: a token of this many digits or more is refused (PAutomaC numbers are far shorter; int64-safe)
MAX_DIGITS = 15


@njit(cache=True)
def integer_tokens(buf):
    """The whitespace-separated non-negative integers of ``buf`` (uint8 bytes), in one pass.

    Returns ``(values, lines, n_lines, bad)``: each token's value (int64) and 0-based line (int32),
    the number of lines (LF, CR LF and a lone CR end a line; a last line without its line
    break counts), and ``bad`` = -1, or the
    byte offset of the first byte that is neither whitespace (space, tab, CR, LF) nor a
    digit, or of the first digit of a token of ``MAX_DIGITS`` digits or more (then the
    tokens are cut at that point).
    """
    n = len(buf)
    values = np.empty(n // 2 + 1, np.int64)
    lines = np.empty(n // 2 + 1, np.int32)
    n_tokens = 0
    line = 0
    value = 0
    digits = 0
    start = 0
    for i in range(n):
        c = buf[i]
        if 48 <= c <= 57:
            if digits == 0:
                start = i
            value = value * 10 + (c - 48)
            digits += 1
            if digits >= MAX_DIGITS:
                return values[:n_tokens], lines[:n_tokens], line + 1, start
            continue
        if c != 32 and c != 9 and c != 13 and c != 10:
            return values[:n_tokens], lines[:n_tokens], line + 1, i
        if digits:
            values[n_tokens] = value
            lines[n_tokens] = line
            n_tokens += 1
            value = 0
            digits = 0
        if c == 10 or (c == 13 and (i + 1 == n or buf[i + 1] != 10)):
            line += 1
    if digits:
        values[n_tokens] = value
        lines[n_tokens] = line
        n_tokens += 1
    n_lines = line + (0 if n > 0 and (buf[n - 1] == 10 or buf[n - 1] == 13) else 1)
    return values[:n_tokens], lines[:n_tokens], n_lines, -1


@njit(cache=True)
def nonprojective_sentences(heads, offsets):
    """For each sentence (int32 1-based ``heads``, 0 = root; int64 ``offsets``) of valid trees:
    True when some word's subtree is not a contiguous span, i.e. two arcs cross.

    One bottom-up pass (leaves first) per sentence, O(n) time and memory.
    """
    n_sent = len(offsets) - 1
    out = np.zeros(n_sent, np.bool_)
    longest = 0
    for s in range(n_sent):
        longest = max(longest, offsets[s + 1] - offsets[s])
    lo = np.empty(longest + 1, np.int64)
    hi = np.empty(longest + 1, np.int64)
    size = np.empty(longest + 1, np.int64)
    pending = np.empty(longest + 1, np.int64)
    queue = np.empty(longest + 1, np.int64)
    for s in range(n_sent):
        start = offsets[s]
        n = offsets[s + 1] - start
        for w in range(1, n + 1):
            lo[w] = w
            hi[w] = w
            size[w] = 1
            pending[w] = 0
        for w in range(1, n + 1):
            pending[heads[start + w - 1]] += 1
        tail = 0
        for w in range(1, n + 1):
            if pending[w] == 0:
                queue[tail] = w
                tail += 1
        head = 0
        while head < tail:
            w = queue[head]
            head += 1
            if hi[w] - lo[w] + 1 != size[w]:
                out[s] = True
                break
            p = heads[start + w - 1]
            if p == 0:
                continue
            lo[p] = min(lo[p], lo[w])
            hi[p] = max(hi[p], hi[w])
            size[p] += size[w]
            pending[p] -= 1
            if pending[p] == 0:
                queue[tail] = p
                tail += 1
    return out
