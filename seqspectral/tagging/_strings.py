"""Strings as flat arrays of code points, and the CRC-32 of pieces of them in Numba.

Strings are flat arrays of code points with offsets (:func:`code_points`): string ``i`` is
``flat[offsets[i]:offsets[i+1]]``, so a Python slice ``s[:k]`` or ``s[-k:]`` is the same
code points. :func:`crc32_spans` gives, for spans of such an array, the CRC-32 of their UTF-8
encoding (``surrogatepass``): the value ``zlib.crc32(s.encode("utf-8", "surrogatepass"))``
of the span's string, with no Python call per string (the word table hashes every form, its
lower case and their affixes this way).
"""

from __future__ import annotations

import numpy as np
from numba import njit


def code_points(strings) -> tuple[np.ndarray, np.ndarray]:
    """The code points of ``strings`` (a list of str) one after the other (uint32) and their
    offsets (len + 1, int64)."""
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, strings), dtype=np.int64, count=len(strings)), out=offsets[1:])
    flat = np.frombuffer("".join(strings).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return flat, offsets


def _crc_table() -> np.ndarray:
    """The byte table of CRC-32 (reflected polynomial 0xEDB88320, as zlib's)."""
    table = np.zeros(256, dtype=np.uint32)
    for n in range(256):
        c = n
        for _ in range(8):
            c = 0xEDB88320 ^ (c >> 1) if c & 1 else c >> 1
        table[n] = c
    return table


_TABLE = _crc_table()


@njit(cache=True, inline="always")
def _byte(crc, b, table):
    return table[(crc ^ b) & 0xFF] ^ (crc >> 8)


@njit(cache=True)
def _crc32(flat, start, end, table):
    crc = np.uint32(0xFFFFFFFF)
    for i in range(start, end):
        c = np.uint32(flat[i])
        if c < 0x80:
            crc = _byte(crc, c, table)
        elif c < 0x800:
            crc = _byte(crc, 0xC0 | (c >> 6), table)
            crc = _byte(crc, 0x80 | (c & 0x3F), table)
        elif c < 0x10000:
            crc = _byte(crc, 0xE0 | (c >> 12), table)
            crc = _byte(crc, 0x80 | ((c >> 6) & 0x3F), table)
            crc = _byte(crc, 0x80 | (c & 0x3F), table)
        else:
            crc = _byte(crc, 0xF0 | (c >> 18), table)
            crc = _byte(crc, 0x80 | ((c >> 12) & 0x3F), table)
            crc = _byte(crc, 0x80 | ((c >> 6) & 0x3F), table)
            crc = _byte(crc, 0x80 | (c & 0x3F), table)
    return crc ^ np.uint32(0xFFFFFFFF)


@njit(cache=True)
def _spans(flat, starts, ends, table):
    out = np.empty(len(starts), dtype=np.int64)
    for i in range(len(starts)):
        out[i] = _crc32(flat, starts[i], ends[i], table)
    return out


def crc32_spans(flat, starts, ends) -> np.ndarray:
    """The CRC-32 (int64, as ``zlib.crc32``) of the UTF-8 encoding of every span
    ``flat[starts[i]:ends[i]]`` of code points."""
    return _spans(flat, np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64), _TABLE)
