"""Numba kernels of the benchmarks: the floors a reader's time is judged against."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def byte_loop(buf):
    """The least a one-byte-at-a-time parser does: every byte of ``buf`` (uint8) loaded and
    compared once, as the common case of ``corpus._kernels.tabular_words`` does (a byte below
    14 or beyond ASCII looked at again); returns the line feeds, tabs and other such bytes."""
    line_feeds, tabs, others = 0, 0, 0
    for i in range(len(buf)):
        c = buf[i]
        if np.uint8(c - 14) >= 114:
            if c == 10:
                line_feeds += 1
            elif c == 9:
                tabs += 1
            else:
                others += 1
    return line_feeds, tabs, others
