"""Numba kernels of the benchmarks: the floors a reader's time is judged against."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def byte_loop(buf):
    """The least a one-byte-at-a-time parser does: every byte of ``buf`` (uint8) loaded and
    compared once, and the bytes a reader must look at again — white space, control bytes and
    bytes beyond ASCII, where tokens, columns and lines end — looked at again (a branch taken
    each); returns the line feeds, tabs and other such bytes."""
    line_feeds, tabs, others = 0, 0, 0
    for i in range(len(buf)):
        c = buf[i]
        if np.uint8(c - 33) >= 95:  # below 33 or beyond ASCII
            if c == 10:
                line_feeds += 1
            elif c == 9:
                tabs += 1
            else:
                others += 1
    return line_feeds, tabs, others
