"""Numba kernels of the readers: one pass over the raw bytes of a file of integers."""

from __future__ import annotations

import numpy as np
from numba import njit

#: a token of this many digits or more is refused (PAutomaC numbers are far shorter; int64-safe)
MAX_DIGITS = 15


@njit(cache=True)
def integer_tokens(buf):
    """The whitespace-separated non-negative integers of ``buf`` (uint8 bytes), in one pass.

    Returns ``(values, lines, n_lines, bad)``: each token's value (int64) and 0-based line,
    the number of lines (a last line without its newline counts), and ``bad`` = -1, or the
    byte offset of the first byte that is neither whitespace (space, tab, CR, LF) nor a
    digit, or of the first digit of a token of ``MAX_DIGITS`` digits or more (then the
    tokens are cut at that point).
    """
    n = len(buf)
    values = np.empty(n // 2 + 1, np.int64)
    lines = np.empty(n // 2 + 1, np.int64)
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
        if c == 10:
            line += 1
    if digits:
        values[n_tokens] = value
        lines[n_tokens] = line
        n_tokens += 1
    n_lines = line + (0 if n > 0 and buf[n - 1] == 10 else 1)
    return values[:n_tokens], lines[:n_tokens], n_lines, -1
