"""Numba kernels of the readers: one pass over the raw bytes of a file of integers."""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

#: the key of a part of 8 bytes or more (a short part's key holds its length, below 8, in its top byte)
LONG = np.uint64(2**64 - 1)
#: a token of this many digits or more is refused (PAutomaC numbers are far shorter; int64-safe)
MAX_DIGITS = 15


#: what a line of a PAutomaC file is (``integer_lines``): a string, a blank line, a length field
#: that is not the number of symbols after it, a symbol beyond the alphabet
GOOD, BLANK, LENGTH, SYMBOL = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def integer_lines(buf, k, ids, ends, kinds):
    """The lines of ``buf`` (uint8 bytes) as PAutomaC strings, in one pass: each a length
    field, then that many symbols below ``k``, non-negative integers separated by spaces or
    tabs (LF, CR LF and a lone CR end a line; a last line without its line break counts).

    Symbol ``s`` is written as the id ``s + 2`` into ``ids`` (int32; room for
    ``len(buf) // 2 + 1``), in order, and for line ``j``: ``ends[j]`` = the ids written by its
    end, ``kinds[j]`` = GOOD, BLANK (no token), LENGTH (takes precedence) or SYMBOL. Returns
    ``(lines, first_bad, stop)``: the lines read, the first that is not GOOD (-1: none), and
    ``len(buf)``, or where the pass stopped: at the first byte that is neither white space
    nor a digit, or the first digit of a token of ``MAX_DIGITS`` digits or more, or at the
    start of line ``len(kinds)`` (no room left for it).
    """
    n = len(buf)
    m = n  # the bytes up to the last line break; a last line without one is read from a copy
    while m > 0 and buf[m - 1] != 10 and buf[m - 1] != 13:
        m -= 1
    lines, n_ids, first_bad, stop = _broken_lines(buf[:m], k, ids, ends, kinds, 0, 0, -1)
    if stop < m or m == n:
        return lines, first_bad, stop
    tail = np.empty(n - m + 1, np.uint8)
    tail[:n - m] = buf[m:]
    tail[n - m] = 10
    lines, n_ids, first_bad, stop = _broken_lines(tail, k, ids, ends, kinds, lines, n_ids, first_bad)
    return lines, first_bad, m + min(stop, n - m)


@njit(cache=True, nogil=True)
def _broken_lines(buf, k, ids, ends, kinds, lines, n_ids, first_bad):
    """``integer_lines`` over ``buf``, which is empty or ends with a line break (so that no
    byte past its end is read), going on from ``lines`` lines and ``n_ids`` ids written:
    ``(lines, n_ids, first_bad, stop)``. Indices are unsigned: no check for negative ones."""
    one = np.uint64(1)
    n = np.uint64(len(buf))
    room = np.uint64(len(kinds))
    longest = np.uint64(MAX_DIGITS)
    line = np.uint64(lines)
    written = np.uint64(n_ids)
    i = np.uint64(0)
    while i < n:
        if line == room:
            return np.int64(line), np.int64(written), first_bad, np.int64(i)
        c = buf[i]
        while c == 32 or c == 9:
            i += one
            c = buf[i]
        kind = BLANK
        if np.uint8(c - 48) < 10:  # the length field, then the symbols
            start = i
            length = 0
            while np.uint8(c - 48) < 10:
                length = length * 10 + (c - 48)
                i += one
                c = buf[i]
            if i - start >= longest:
                return np.int64(line), np.int64(written), first_bad, np.int64(start)
            first = written
            outside = False
            while True:
                while c == 32 or c == 9:
                    i += one
                    c = buf[i]
                if np.uint8(c - 48) >= 10:
                    break
                start = i
                value = 0
                while np.uint8(c - 48) < 10:
                    value = value * 10 + (c - 48)
                    i += one
                    c = buf[i]
                if i - start >= longest:
                    return np.int64(line), np.int64(written), first_bad, np.int64(start)
                outside |= value >= k
                ids[written] = value + 2
                written += one
            kind = LENGTH if np.int64(written - first) != length else SYMBOL if outside else GOOD
        if c != 10 and c != 13:
            return np.int64(line), np.int64(written), first_bad, np.int64(i)
        ends[line] = written
        kinds[line] = kind
        if kind != GOOD and first_bad < 0:
            first_bad = np.int64(line)
        line += one
        if c == 13 and i + one < n and buf[i + one] == 10:  # CR LF: one line break
            i += one
        i += one
    return np.int64(line), np.int64(written), first_bad, np.int64(n)


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


@njit(cache=True, nogil=True)
def tree_defects(heads, offsets, several_roots):
    """For each sentence of a flat treebank (``heads`` 1-based, 0 the root; int64
    ``offsets``): whether its heads form no tree (a head out of range, no root attachment
    or, without ``several_roots``, more than one, a cycle), and its number of root
    attachments. One walk per word at most, each word settled once: linear time."""
    n_sent = len(offsets) - 1
    bad = np.zeros(n_sent, np.bool_)
    roots = np.zeros(n_sent, np.int64)
    longest = 0
    for s in range(n_sent):
        longest = max(longest, offsets[s + 1] - offsets[s])
    state = np.empty(longest + 1, np.int8)  # 0 unseen, 1 on the current walk, 2 reaches the root
    for s in range(n_sent):
        start, n = offsets[s], offsets[s + 1] - offsets[s]
        in_range = True
        for w in range(n):
            h = heads[start + w]
            if h < 0 or h > n:
                in_range = False
            elif h == 0:
                roots[s] += 1
        if n == 0:
            continue
        if not in_range or roots[s] == 0 or (roots[s] > 1 and not several_roots):
            bad[s] = True
            continue
        state[0] = 2
        state[1:n + 1] = 0
        for first in range(1, n + 1):
            w = first
            while state[w] == 0:
                state[w] = 1
                w = heads[start + w - 1]
            if state[w] == 1:  # the walk came back to itself
                bad[s] = True
                break
            w = first
            while state[w] == 1:
                state[w] = 2
                w = heads[start + w - 1]
    return bad, roots


@njit(cache=True)
def _is_space(c):
    """Python's ``str.split()`` white space among ASCII bytes: space, \\t \\n \\v \\f \\r, \\x1c-\\x1f."""
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31


@njit(cache=True)
def _token_part(starts, ends, t, part, start, end, slash):
    """The byte range of ``part`` of the token ``buf[start:end]`` whose last slash is at
    ``slash`` (-1: none) into ``starts[t]``, ``ends[t]``."""
    if part == 2:
        starts[t], ends[t] = (slash + 1, end) if slash >= 0 else (end, end)
    else:
        starts[t], ends[t] = start, (slash if part == 1 and slash >= 0 else end)


@njit(cache=True, nogil=True)
def split_tokens(buf, part, text_lines):
    """The white-space separated tokens of ``buf`` (bytes; those of 128 and above belong to tokens).

    ``part``: 0 the whole token; 1 the word of ``word/tag`` (split at the last slash; the
    whole token without one); 2 its tag, upper-cased (empty without a slash).
    ``text_lines``: every line is a sequence, blank ones too (LF, CR LF and a lone CR end a
    line; the line break ending the buffer starts none), and a byte of 128 or above is bad
    unless it starts a UTF-8 sequence (as Python's strict decoder takes them) of a character
    that is not white space (``str.split`` splits at no-break spaces and the like: the caller
    then splits in Python); else (NLTK's tagged corpora) only LF ends a sentence, lines
    without a token are skipped, and a byte of 128 or above is bad.
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
    after = 0  # the byte after the last white space, where a token may start
    slash = -1  # the last slash since then
    masks = _byte_masks(buf, _TOKEN_STOPS if part == 0 else _TOKEN_STOPS_SLASH)
    block = 0
    bits = masks[0] if len(masks) else np.uint64(0)  # the stops not yet looked at, of this block
    while True:
        at, block, bits = _next_stop(masks, block, bits)
        if at < 0:
            break
        c = buf[at]
        if c == 47:
            slash = at
            continue
        if c > 127:
            k = _utf8_length(buf, at) if text_lines else 0
            if k == 0 or _wide_space(buf, at, k):
                return starts[:0], ends[:0], lengths[:0], at
            for _ in range(k - 1):  # its continuation bytes, beyond ASCII too: the next stops
                _, block, bits = _next_stop(masks, block, bits)
            continue
        if at > after:  # white space ends a token
            _token_part(starts, ends, n_tokens, part, after, at, slash)
            n_tokens += 1
            on_line += 1
        after, slash = at + 1, -1
        ends_line = c == 10 or (text_lines and c == 13 and (at + 1 == n or buf[at + 1] != 10))
        if ends_line and (on_line or text_lines):
            lengths[n_lines] = on_line
            n_lines += 1
            on_line = 0
    if n > after:
        _token_part(starts, ends, n_tokens, part, after, n, slash)
        n_tokens += 1
        on_line += 1
    if on_line or (text_lines and n > 0 and buf[n - 1] != 10 and buf[n - 1] != 13):
        lengths[n_lines] = on_line
        n_lines += 1
    return starts[:n_tokens], ends[:n_tokens], lengths[:n_lines], -1


@njit(cache=True)
def _upper(c, fold_case):
    return c - 32 if fold_case and 97 <= c <= 122 else c


@njit(cache=True)
def _home(h, bits):
    """The first slot of hash ``h`` in a table of 2^bits slots: its top bits after a
    multiplication by 2^64/φ (the low bits of an FNV hash mix poorly)."""
    return np.int64((h * np.uint64(11400714819323198485)) >> np.uint64(64 - bits))


@njit(cache=True)
def _table(hashes, m, bits):
    """An open-addressing table of 2^bits slots holding numbers 0 .. m-1 by their ``hashes``:
    slot ``s`` is ``table[2s]`` (the number + 1; 0: empty) beside ``table[2s + 1]`` (the low
    32 bits of its hash): 8 bytes, one memory access a probe."""
    size = 1 << bits
    table = np.zeros(2 * size, np.uint32)
    for k in range(m):
        slot = _home(hashes[k], bits)
        while table[2 * slot]:
            slot = (slot + 1) & (size - 1)
        table[2 * slot] = k + 1
        table[2 * slot + 1] = np.uint32(hashes[k] & np.uint64(0xFFFFFFFF))
    return table


@njit(cache=True, nogil=True)
def number_parts(buf, starts, ends, fold_case, hash_mask):
    """Each part ``buf[starts[t]:ends[t]]`` numbered by first appearance, in one pass: its
    64-bit FNV-1a hash (of its upper-cased bytes when ``fold_case``; the bits of
    ``hash_mask`` kept: all, or none in the tests, so that every part collides) looked up in
    an open-addressing table of two to four slots a distinct part, matches checked byte for
    byte against a compact copy of the distinct parts (an arena), so equal hashes of
    different strings never merge them. A part of fewer than 8 bytes is its own key (its
    bytes and its length in 64 bits): it is hashed and compared as that one word.

    Returns ``(codes, arena, bounds)``: each part's number, and the distinct parts'
    (upper-cased) bytes, number ``k`` at ``arena[bounds[k]:bounds[k + 1]]``."""
    n = len(starts)
    bits = 10
    size = 1 << bits
    distinct_hashes = np.empty(n, np.uint64)
    table = _table(distinct_hashes, 0, bits)
    codes = np.empty(n, np.int64)
    arena = np.empty(4096, np.uint8)
    bounds = np.empty(n + 1, np.int64)  # the arena bytes of number k: bounds[k] .. bounds[k + 1]
    bounds[0] = 0
    keys = np.empty(n, np.uint64)  # the key of each short number (LONG for the others)
    m = 0
    for t in range(n):
        a, length = starts[t], ends[t] - starts[t]
        key = LONG
        if length < 8:  # the bytes and the length in one word: equal keys are equal parts
            key = np.uint64(length) << np.uint64(56)
            for j in range(length):
                key |= np.uint64(_upper(buf[a + j], fold_case)) << np.uint64(8 * j)
            h = key
        else:
            h = np.uint64(14695981039346656037)
            for j in range(a, a + length):
                h = (h ^ np.uint64(_upper(buf[j], fold_case))) * np.uint64(1099511628211)
        h &= hash_mask
        low = np.uint32(h & np.uint64(0xFFFFFFFF))
        slot = _home(h, bits)
        while True:
            k = np.int64(table[2 * slot]) - 1
            if k < 0:
                table[2 * slot] = m + 1
                table[2 * slot + 1] = low
                distinct_hashes[m] = h
                keys[m] = key
                codes[t] = m
                while bounds[m] + length > len(arena):
                    arena = np.concatenate((arena, arena))
                for j in range(length):
                    arena[bounds[m] + j] = _upper(buf[a + j], fold_case)
                bounds[m + 1] = bounds[m] + length
                m += 1
                if 2 * m > size:
                    bits += 1
                    size = 1 << bits
                    table = _table(distinct_hashes, m, bits)
                break
            if table[2 * slot + 1] == low:
                if key != LONG:
                    same = keys[k] == key
                else:
                    same = keys[k] == LONG and bounds[k + 1] - bounds[k] == length
                    for j in range(length):
                        if not same:
                            break
                        same = arena[bounds[k] + j] == _upper(buf[a + j], fold_case)
                if same:
                    codes[t] = k
                    break
            slot = (slot + 1) & (size - 1)
    return codes, arena[:bounds[m]], bounds[:m + 1]


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


def _utf8_leads():
    """Per byte: the continuation bytes that follow it as the lead byte of a UTF-8 sequence
    Python's strict decoder takes (0: none does), and the range of the first of them, which
    excludes overlong forms, surrogates and code points beyond U+10FFFF (the others: 80-BF)."""
    need = np.zeros(256, np.int64)
    need[0xC2:0xE0], need[0xE0:0xF0], need[0xF0:0xF5] = 1, 2, 3
    low, high = np.full(256, 0x80, np.int64), np.full(256, 0xBF, np.int64)
    low[0xE0], high[0xED], low[0xF0], high[0xF4] = 0xA0, 0x9F, 0x90, 0x8F
    return need, low, high


_UTF8_NEED, _UTF8_LOW, _UTF8_HIGH = _utf8_leads()


@njit(cache=True)
def _utf8_length(buf, i):
    """The length of the UTF-8 sequence starting at ``buf[i]`` (a byte of 128 or more), or 0
    if it is not one Python's strict decoder takes (overlong forms, surrogates, beyond U+10FFFF
    and cut sequences are not)."""
    c = buf[i]
    need = _UTF8_NEED[c]
    if need == 0 or i + need >= len(buf) or not _UTF8_LOW[c] <= buf[i + 1] <= _UTF8_HIGH[c]:
        return 0
    for j in range(i + 2, i + need + 1):
        if not 0x80 <= buf[j] <= 0xBF:
            return 0
    return need + 1


@njit(cache=True)
def _wide_space(buf, i, k):
    """Whether the UTF-8 sequence of ``k`` bytes at ``buf[i]`` is white space beyond ASCII
    (``str.isspace``: U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
    U+3000)."""
    if k == 2:
        code = ((buf[i] & 0x1F) << 6) | (buf[i + 1] & 0x3F)
        return code == 0x85 or code == 0xA0
    if k != 3:
        return False
    code = ((buf[i] & 0x0F) << 12) | ((buf[i + 1] & 0x3F) << 6) | (buf[i + 2] & 0x3F)
    return (code == 0x1680 or 0x2000 <= code <= 0x200A or code == 0x2028 or code == 0x2029 or code == 0x202F
            or code == 0x205F or code == 0x3000)


@njit(cache=True)
def _blank(buf, a, b):
    """Whether ``buf[a:b]`` is ASCII white space only (``str.isspace`` of those bytes)."""
    for j in range(a, b):
        if not _is_space(buf[j]):
            return False
    return True

def _byte_classes(*ranges):
    """A table of the 256 byte values: 1 for those in the ``(first, last)`` ranges, else 0."""
    table = np.zeros(256, np.uint8)
    for first, last in ranges:
        table[first:last + 1] = 1
    return table


#: the bytes a pass stops at: a treebank's (below 14: tab, line feed, CR, ...; in UTF-8 also
#: those beyond ASCII), and white space (``str.split``'s among ASCII bytes), those beyond ASCII
#: and, for ``word/tag`` tokens, the slash
_TABULAR_STOPS = _byte_classes((0, 13))
_TABULAR_STOPS_UTF8 = _byte_classes((0, 13), (128, 255))
_TOKEN_STOPS = _byte_classes((9, 13), (28, 32), (128, 255))
_TOKEN_STOPS_SLASH = _byte_classes((9, 13), (28, 32), (47, 47), (128, 255))


@njit(cache=True)
def _byte_masks(buf, stops):
    """Bit ``j`` of ``masks[b]`` set when byte ``64 b + j`` of ``buf`` is one of ``stops`` (a
    0/1 table of the byte values): the passes walk these bits (``trailing_zeros``) instead of
    looking at every byte with a branch. The loop over each block of 64 bytes has no branch:
    about 0.3 ns a byte."""
    n = len(buf)
    masks = np.zeros((n + 63) // 64, np.uint64)
    full = n // 64
    for b in range(full):
        m = np.uint64(0)
        for j in range(64):
            m |= np.uint64(stops[buf[64 * b + j]]) << np.uint64(j)
        masks[b] = m
    for j in range(n - 64 * full):
        masks[full] |= np.uint64(stops[buf[64 * full + j]]) << np.uint64(j)
    return masks


@njit(cache=True)
def _next_stop(masks, block, bits):
    """The next of the stops ``_byte_masks`` found, after those taken: ``(its offset, block,
    bits)`` with ``bits`` the stops of ``block`` still to take (offset -1: none left)."""
    while bits == 0 and block + 1 < len(masks):
        block += 1
        bits = masks[block]
    if bits == 0:
        return -1, block, bits
    return block * 64 + np.int64(trailing_zeros(bits)), block, bits & (bits - np.uint64(1))


@njit(cache=True, nogil=True)
def tabular_words(buf, field, head_column, layout, utf8):
    """One pass over a tab-separated treebank read as ``tabular.iter_blocks`` reads it, for the
    files that need none of its messages. ``layout``: 0 CoNLL-X and 1 CoNLL-U (10 columns, the
    first the word's id; comments; CoNLL-U's multiword tokens and empty nodes skipped), 2
    Malt-TAB (3 or 4 columns, ids the words' positions, no comments).

    Only a tab, a line feed, a CR or, with ``utf8``, a byte beyond ASCII needs a look; those
    bytes are found from bit masks (``_byte_masks``), and with ``utf8`` the bytes beyond ASCII
    are checked to be UTF-8 as Python decodes it. Returns ``(starts, ends, heads, lines,
    lengths, unusual, n_lines)``: the byte range of column ``field`` (counted from 0) and
    the head (in column ``head_column``) of each word, its 1-based line, the words of each
    sentence, the lines read, and ``unusual``: 0, or the first line that is not a blank line,
    a comment before a sentence's words, a multiword-token or empty-node line (CoNLL-U), or a
    word line of the layout's tab-separated columns (holding column ``field``) whose id is its
    position and whose head is an integer below 2^31 (or a line with a lone CR, or bytes that
    are not UTF-8): the line-by-line reader then reads the file and says what is wrong.
    """
    n = len(buf)
    # room for every word a file of n bytes can hold: its shortest word line is 12 bytes in
    # CoNLL (id, nine tabs, head, line feed), 4 in Malt-TAB (two tabs, head, line feed); the
    # pages no word is written on are never touched. (Arrays grown in the loop would cost
    # twice the time: the loop could no longer keep them in registers.)
    room = n // (4 if layout == 2 else 12) + 2
    starts = np.empty(room, np.int64)
    ends = np.empty(room, np.int64)
    heads = np.empty(room, np.int64)
    lines = np.empty(room, np.int32)
    lengths = np.empty(room, np.int64)
    columns = np.empty(10, np.int64)  # the byte after each column
    n_words = 0
    n_sentences = 0
    rows = 0
    line = 0
    i = 0
    masks = _byte_masks(buf, _TABULAR_STOPS_UTF8 if utf8 else _TABULAR_STOPS)
    block = 0
    bits = masks[0] if len(masks) else np.uint64(0)  # the special bytes not yet looked at, of this block
    while i < n:
        line += 1
        tabs = 0
        carriage = -1
        end = n
        while True:  # the special bytes of this line, up to its line feed
            at, block, bits = _next_stop(masks, block, bits)
            if at < 0:
                break
            c = buf[at]
            if c == 10:
                end = at
                break
            if c == 9:
                if tabs < 9:
                    columns[tabs] = at
                tabs += 1
            elif c == 13:
                if carriage >= 0:
                    return starts[:0], ends[:0], heads[:0], lines[:0], lengths[:0], line, line
                carriage = at
            elif c >= 128 and utf8:
                k = _utf8_length(buf, at)
                if k == 0:
                    return starts[:0], ends[:0], heads[:0], lines[:0], lengths[:0], line, line
                for _ in range(k - 1):  # its continuation bytes, beyond ASCII too: the next special bytes
                    _, block, bits = _next_stop(masks, block, bits)
        stop = end - 1 if carriage == end - 1 and end > i else end
        if 0 <= carriage < stop:
            return starts[:0], ends[:0], heads[:0], lines[:0], lengths[:0], line, line
        if buf[i] == 35 and layout != 2:  # '#': a comment, before the words of a sentence only
            if rows:
                return starts[:0], ends[:0], heads[:0], lines[:0], lengths[:0], line, line
            i = end + 1
            continue
        word = -1
        if layout == 2:
            if tabs == 2 or tabs == 3:
                columns[tabs] = stop
                word = rows + 1 if field <= tabs else -1
        elif tabs == 9:
            columns[9] = stop
            word = _digits(buf, i, columns[0])
            if word < 0 and layout == 1 and _no_word_id(buf, i, columns[0]):
                i = end + 1
                continue
        if word < 0:  # no word: a blank line, or one for the line-by-line reader
            if not _blank(buf, i, end):
                return starts[:0], ends[:0], heads[:0], lines[:0], lengths[:0], line, line
            if rows:
                lengths[n_sentences] = rows
                n_sentences += 1
                rows = 0
            i = end + 1
            continue
        head = _digits(buf, columns[head_column - 1] + 1, columns[head_column])
        if word != rows + 1 or head < 0 or head >= 1 << 31:
            return starts[:0], ends[:0], heads[:0], lines[:0], lengths[:0], line, line
        starts[n_words] = columns[field - 1] + 1 if field else i
        ends[n_words] = columns[field]
        heads[n_words] = head
        lines[n_words] = line
        n_words += 1
        rows += 1
        i = end + 1
    if rows:
        lengths[n_sentences] = rows
        n_sentences += 1
    return starts[:n_words], ends[:n_words], heads[:n_words], lines[:n_words], lengths[:n_sentences], 0, line
