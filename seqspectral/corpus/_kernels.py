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
    Returns ``(starts, ends, lengths, bad)``: each kept part's byte range, the tokens of each
    sequence, and the offset of the first bad byte (-1: none).
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
                return starts[:0], ends[:0], lengths[:0], i
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
    return starts[:n_tokens], ends[:n_tokens], lengths[:n_lines], -1


@njit(cache=True)
def part_hashes(buf, starts, ends, fold_case):
    """The 64-bit FNV-1a hash of every part ``buf[starts[t]:ends[t]]`` (of its upper-cased
    bytes when ``fold_case``)."""
    hashes = np.empty(len(starts), np.uint64)
    for t in range(len(starts)):
        h = np.uint64(14695981039346656037)
        for j in range(starts[t], ends[t]):
            c = buf[j]
            if fold_case and 97 <= c <= 122:
                c -= 32
            h = (h ^ np.uint64(c)) * np.uint64(1099511628211)
        hashes[t] = h
    return hashes


@njit(cache=True)
def _upper(c, fold_case):
    return c - 32 if fold_case and 97 <= c <= 122 else c


@njit(cache=True)
def _home(h, bits):
    """The first slot of hash ``h`` in a table of 2^bits slots: its top bits after a
    multiplication by 2^64/φ (the low bits of an FNV hash mix poorly)."""
    return np.int64((h * np.uint64(11400714819323198485)) >> np.uint64(64 - bits))


@njit(cache=True)
def _slots(hashes, m, bits):
    """An open-addressing table of 2^bits slots holding numbers 0 .. m-1 by their ``hashes``,
    and the hash of each slot's number."""
    size = 1 << bits
    slots = np.full(size, -1, np.int64)
    slot_hashes = np.zeros(size, np.uint64)
    for k in range(m):
        slot = _home(hashes[k], bits)
        while slots[slot] >= 0:
            slot = (slot + 1) & (size - 1)
        slots[slot] = k
        slot_hashes[slot] = hashes[k]
    return slots, slot_hashes


@njit(cache=True)
def number_parts(buf, starts, ends, hashes, fold_case):
    """Each part ``buf[starts[t]:ends[t]]`` numbered by first appearance, in one pass through an
    open-addressing table keyed by ``hashes`` (twice the distinct parts, or more) and checked
    byte for byte (upper-cased when ``fold_case``) against a compact copy of the distinct
    parts (a cache-friendly arena), so equal hashes of different strings never merge them.
    Returns (codes, firsts): each part's number and the first part of each number."""
    n = len(starts)
    bits = 10
    size = 1 << bits
    slots, slot_hashes = _slots(hashes, 0, bits)
    firsts = np.empty(n, np.int64)
    distinct_hashes = np.empty(n, np.uint64)
    codes = np.empty(n, np.int64)
    arena = np.empty(4096, np.uint8)
    bounds = np.empty(n + 1, np.int64)  # the arena bytes of number k: bounds[k] .. bounds[k + 1]
    bounds[0] = 0
    m = 0
    for t in range(n):
        a, length = starts[t], ends[t] - starts[t]
        slot = _home(hashes[t], bits)
        while True:
            k = slots[slot]
            if k < 0:
                slots[slot] = m
                slot_hashes[slot] = hashes[t]
                firsts[m] = t
                distinct_hashes[m] = hashes[t]
                codes[t] = m
                while bounds[m] + length > len(arena):
                    arena = np.concatenate((arena, arena))
                for j in range(length):
                    arena[bounds[m] + j] = _upper(buf[a + j], fold_case)
                bounds[m + 1] = bounds[m] + length
                m += 1
                if 2 * m > size:
                    bits += 2
                    size = 1 << bits
                    slots, slot_hashes = _slots(distinct_hashes, m, bits)
                break
            if slot_hashes[slot] == hashes[t] and bounds[k + 1] - bounds[k] == length:
                same = True
                for j in range(length):
                    if arena[bounds[k] + j] != _upper(buf[a + j], fold_case):
                        same = False
                        break
                if same:
                    codes[t] = k
                    break
            slot = (slot + 1) & (size - 1)
    return codes, firsts[:m]


@njit(cache=True)
def joined_parts(buf, starts, ends, which, separator):
    """The parts ``which`` of ``buf`` one after the other, each followed by ``separator`` (a
    byte none of them holds): decoded and split at once, not one by one."""
    size = 0
    for k in which:
        size += ends[k] - starts[k] + 1
    out = np.empty(size, np.uint8)
    at = 0
    for k in which:
        for j in range(starts[k], ends[k]):
            out[at] = buf[j]
            at += 1
        out[at] = separator
        at += 1
    return out


@njit(cache=True)
def _digits(buf, a, b):
    """The value of buf[a:b] if it is 1 to 14 ASCII digits, else -1."""
    if b <= a or b - a >= 15:
        return -1
    value = 0
    for j in range(a, b):
        c = buf[j]
        if not 48 <= c <= 57:
            return -1
        value = value * 10 + (c - 48)
    return value


@njit(cache=True)
def _positive(buf, a, b):
    """The value of buf[a:b] if it is a number without a leading zero ([1-9][0-9]*), else -1."""
    return _digits(buf, a, b) if b > a and buf[a] != 48 else -1


@njit(cache=True)
def _no_word_id(buf, a, b):
    """Whether buf[a:b] is the id of a multiword token (``3-4``, to ≥ from) or an empty node
    (``5.1``), as the ``conllu`` package's ``parse_id_value`` accepts them."""
    for j in range(a, b):
        if buf[j] == 45:  # '-'
            low, high = _positive(buf, a, j), _positive(buf, j + 1, b)
            return low > 0 and high >= low
        if buf[j] == 46:  # '.'
            return _digits(buf, a, j) >= 0 and _positive(buf, j + 1, b) > 0
    return False


@njit(cache=True)
def tabular_words(buf, field, head_column, multiword):
    """One pass over a 10-column treebank (CoNLL-U with ``multiword``, else CoNLL-X) read as
    ``tabular.iter_blocks`` reads it, for the files that need none of its messages.

    Returns ``(starts, ends, heads, lines, lengths, unusual)``: the byte range of column
    ``field`` and the head of each word, its 1-based line, the words of each sentence, and
    ``unusual``: 0, or the first line that is not a blank line, a comment before a
    sentence's words, a multiword-token or empty-node line (with ``multiword``), or a word
    line of 10 tab-separated columns whose id is its position and whose head is an integer
    below 2^31 (or a file with a lone CR): the line-by-line reader then reads the file and
    says what is wrong.
    """
    n = len(buf)
    starts = np.empty(n // 64 + 1, np.int64)  # grown by doubling
    ends = np.empty(n // 64 + 1, np.int64)
    heads = np.empty(n // 64 + 1, np.int64)
    lines = np.empty(n // 64 + 1, np.int32)
    lengths = np.empty(n // 64 + 1, np.int64)
    columns = np.empty(10, np.int64)  # the byte after each column
    n_words = 0
    n_sentences = 0
    rows = 0
    line = 0
    i = 0
    while i < n:
        line += 1
        blank = True
        tabs = 0
        carriage = -1
        end = i
        while end < n:
            c = buf[end]
            if c == 10:
                break
            if c == 9:
                if tabs < 9:
                    columns[tabs] = end
                tabs += 1
            elif c == 13:
                if carriage >= 0:
                    return starts[:0], ends[:0], heads[:0], lines[:0], lengths[:0], line
                carriage = end
            elif blank and not _is_space(c):
                blank = False
            end += 1
        stop = end - 1 if carriage == end - 1 and end > i else end
        if 0 <= carriage < stop:  # a lone CR: a line break the line-by-line reader reads
            return starts[:0], ends[:0], heads[:0], lines[:0], lengths[:0], line
        if blank:
            if rows:
                if n_sentences == len(lengths):
                    lengths = np.concatenate((lengths, lengths))
                lengths[n_sentences] = rows
                n_sentences += 1
                rows = 0
        elif buf[i] == 35:  # '#': a comment, before the words of a sentence only
            if rows:
                return starts[:0], ends[:0], heads[:0], lines[:0], lengths[:0], line
        else:
            if tabs != 9:
                return starts[:0], ends[:0], heads[:0], lines[:0], lengths[:0], line
            columns[9] = stop
            word = _digits(buf, i, columns[0])
            if word < 0 and multiword and _no_word_id(buf, i, columns[0]):
                i = end + 1
                continue
            head = _digits(buf, columns[head_column - 1] + 1, columns[head_column])
            if word != rows + 1 or head < 0 or head >= 1 << 31:
                return starts[:0], ends[:0], heads[:0], lines[:0], lengths[:0], line
            if n_words == len(starts):
                starts, ends = np.concatenate((starts, starts)), np.concatenate((ends, ends))
                heads, lines = np.concatenate((heads, heads)), np.concatenate((lines, lines))
            starts[n_words] = columns[field - 1] + 1 if field else i
            ends[n_words] = columns[field]
            heads[n_words] = head
            lines[n_words] = line
            n_words += 1
            rows += 1
        i = end + 1
    if rows:
        if n_sentences == len(lengths):
            lengths = np.concatenate((lengths, lengths))
        lengths[n_sentences] = rows
        n_sentences += 1
    return starts[:n_words], ends[:n_words], heads[:n_words], lines[:n_words], lengths[:n_sentences], 0
