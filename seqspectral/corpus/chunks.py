"""Reading one file on several threads, with the result one pass would give.

A reader's compiled passes release the GIL (``nogil``), so the bytes of a file can be cut
into chunks at record boundaries (a line feed; for a treebank, a blank line) and each chunk
read by the same pass on a thread of its own. The chunks' results are then joined in file
order: arrays concatenated, byte offsets and line numbers shifted, and the symbols numbered
by first appearance over the whole file (:func:`joined_numbering`). The result is the same
whatever the number of threads (the tests compare 1, 2, 3 and 8 threads byte for byte).

Threads are used when the file is large enough for each to get :data:`MIN_CHUNK_BYTES`;
their number is the CPUs this process may run on (:func:`reading_threads`).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

#: the least bytes a thread is given (below it, starting a thread costs more than it saves)
MIN_CHUNK_BYTES = 1 << 20
#: the most bytes a chunk holds: a larger file gets more chunks than threads, so that an
#: interrupt (Ctrl-C) waits for the chunks being read, not for the whole file
MAX_CHUNK_BYTES = 1 << 26
#: the least tokens a thread is given in a pass over a corpus's sequences
MIN_CHUNK_TOKENS = 1 << 16
#: bytes looked at a time for a record boundary after a cut
_WINDOW = 1 << 16
#: the bits of the parts' hashes ``number_parts`` uses (all; the tests use none: every part
#: then collides), for every reader that numbers its chunks' parts
HASH_MASK = np.uint64(2**64 - 1)


def reading_threads() -> int:
    """The threads a reader uses: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def chunk_bounds(buf: np.ndarray, boundaries: tuple[bytes, ...], threads: int | None = None) -> np.ndarray:
    """Byte offsets ``0 = b[0] < b[1] < ... < b[k] = len(buf)`` cutting ``buf`` into ``threads``
    chunks of at least :data:`MIN_CHUNK_BYTES` (fewer for a small buffer; for a large one, a
    multiple of ``threads`` chunks of at most about :data:`MAX_CHUNK_BYTES`), each cut just after the first of
    ``boundaries`` (e.g. ``b"\\n"``; ``b"\\n\\n"``, ``b"\\n\\r\\n"``: a blank line) at or after an
    even share of the bytes. Fewer chunks where no boundary follows."""
    n = len(buf)
    threads = threads or reading_threads()
    k = max(1, min(threads, n // MIN_CHUNK_BYTES))
    k *= -(-n // (k * MAX_CHUNK_BYTES))  # a multiple of the threads: each gets as many bytes
    bounds = [0]
    for j in range(1, k):
        at = max(bounds[-1], n * j // k)
        cut = _next_boundary(buf, at, boundaries)
        if cut < 0:
            break
        if cut > bounds[-1] and cut < n:
            bounds.append(cut)
    bounds.append(n)
    return np.array(bounds, dtype=np.int64)


def _next_boundary(buf: np.ndarray, at: int, boundaries: tuple[bytes, ...]) -> int:
    """The offset just after the first of ``boundaries`` that ends at or after ``at`` (-1: none)."""
    longest = max(map(len, boundaries))
    start = max(0, at - longest + 1)
    while start < len(buf):
        window = buf[start:start + _WINDOW + longest].tobytes()
        ends = [i + len(b) for b in boundaries if (i := window.find(b)) >= 0]
        if ends:
            return start + min(ends)
        start += _WINDOW
    return -1


def thread_map(fn, items: list, threads: int | None = None) -> list:
    """``[fn(x) for x in items]``, on up to ``threads`` threads (in this thread for one item)."""
    threads = min(len(items), threads or reading_threads())
    if threads <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=threads) as pool:  # on an interrupt, the items not yet started are dropped
        return list(pool.map(fn, items))


def joined_numbering(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]]):
    """``(codes, arena, bounds)`` of a whole file from those of its chunks, in order (each as
    ``number_parts`` returns them: the chunk's parts numbered by first appearance in the
    chunk, its distinct parts' bytes): the distinct parts of all the chunks numbered again,
    chunk after chunk, so that a part's number is its first appearance in the file."""
    if len(parts) == 1:
        return parts[0]
    from ._kernels import number_parts

    arena = np.concatenate([a for _, a, _ in parts])
    shifts = np.cumsum([0] + [len(a) for _, a, _ in parts[:-1]])
    starts = np.concatenate([b[:-1] + s for (_, _, b), s in zip(parts, shifts)])
    ends = np.concatenate([b[1:] + s for (_, _, b), s in zip(parts, shifts)])
    numbers, arena, bounds = number_parts(arena, starts, ends, False, HASH_MASK)
    firsts = np.cumsum([0] + [len(b) - 1 for _, _, b in parts]).tolist()
    at = np.cumsum([0] + [len(c) for c, _, _ in parts]).tolist()
    codes = np.empty(at[-1], dtype=numbers.dtype)
    thread_map(lambda j: np.take(numbers[firsts[j]:firsts[j + 1]], parts[j][0], out=codes[at[j]:at[j + 1]]),
               list(range(len(parts))))
    return codes, arena, bounds


def sequence_ranges(offsets: np.ndarray, threads: int | None = None) -> list[tuple[int, int]]:
    """Ranges ``[a, b)`` of the sequences of a flat corpus (``offsets``), in order, holding
    about equal shares of its tokens: one a thread, each at least :data:`MIN_CHUNK_TOKENS`."""
    n_tokens = int(offsets[-1])
    k = min(threads or reading_threads(), max(1, n_tokens // MIN_CHUNK_TOKENS))
    cuts = np.searchsorted(offsets, np.arange(1, k) * n_tokens // k).tolist()
    bounds = sorted(set([0, *cuts, len(offsets) - 1]))
    return list(zip(bounds[:-1], bounds[1:]))
