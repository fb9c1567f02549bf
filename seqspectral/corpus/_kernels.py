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


@njit(cache=True)
def _is_space(c):
    """Python's ``str.split()`` white space among ASCII bytes: space, \\t \\n \\v \\f \\r, \\x1c-\\x1f."""
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31


@njit(cache=True)
def split_tokens(buf, part, text_lines):
    """The white-space separated tokens of ``buf`` (bytes; those of 128 and above belong to tokens).

    ``part``: 0 the whole token; 1 the word of ``word/tag`` (split at the last slash; the
    whole token without one); 2 its tag, upper-cased (empty without a slash).
    ``text_lines``: every line is a sequence, blank ones too (LF, CR LF and a lone CR end a
    line; the line break ending the buffer starts none); else (NLTK's tagged corpora) only
    LF ends a sentence, lines without a token are skipped, and a byte of 128 or above is bad.
    Returns ``(starts, ends, hashes, lengths, bad)``: each kept part's byte range and 64-bit
    FNV-1a hash (of the upper-cased bytes for tags), the tokens of each sequence, and the
    offset of the first bad byte (-1: none).
    """
    n = len(buf)
    starts = np.empty(n // 2 + 1, np.int64)
    ends = np.empty(n // 2 + 1, np.int64)
    lengths = np.empty(n + 1, np.int64)
    n_tokens = 0
    n_lines = 0
    on_line = 0
    i = 0
    while i < n:
        c = buf[i]
        if _is_space(c):
            ends_line = c == 10 or (text_lines and c == 13 and (i + 1 == n or buf[i + 1] != 10))
            if ends_line and (on_line or text_lines):
                lengths[n_lines] = on_line
                n_lines += 1
                on_line = 0
            i += 1
            continue
        start = i
        slash = -1
        while i < n and not _is_space(buf[i]):
            if buf[i] > 127 and not text_lines:
                return starts[:0], ends[:0], np.zeros(0, np.uint64), lengths[:0], i
            if buf[i] == 47:
                slash = i
            i += 1
        if part == 2:
            starts[n_tokens], ends[n_tokens] = (slash + 1, i) if slash >= 0 else (i, i)
        else:
            starts[n_tokens], ends[n_tokens] = start, (slash if part == 1 and slash >= 0 else i)
        n_tokens += 1
        on_line += 1
    if on_line or (text_lines and n > 0 and buf[n - 1] != 10 and buf[n - 1] != 13):
        lengths[n_lines] = on_line
        n_lines += 1
    hashes = np.empty(n_tokens, np.uint64)
    for t in range(n_tokens):
        h = np.uint64(14695981039346656037)
        for j in range(starts[t], ends[t]):
            c = buf[j]
            if part == 2 and 97 <= c <= 122:
                c -= 32
            h = (h ^ np.uint64(c)) * np.uint64(1099511628211)
        hashes[t] = h
    return starts[:n_tokens], ends[:n_tokens], hashes, lengths[:n_lines], -1


@njit(cache=True)
def same_parts(buf, starts, ends, other, fold_case):
    """Whether every part t equals part ``other[t]`` byte for byte (upper-cased when
    ``fold_case``): no two distinct strings share a hash."""
    for t in range(len(starts)):
        o = other[t]
        if ends[t] - starts[t] != ends[o] - starts[o]:
            return False
        for j in range(ends[t] - starts[t]):
            a, b = buf[starts[t] + j], buf[starts[o] + j]
            if fold_case:
                a = a - 32 if 97 <= a <= 122 else a
                b = b - 32 if 97 <= b <= 122 else b
            if a != b:
                return False
    return True
