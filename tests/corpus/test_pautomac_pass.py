"""The one pass of the PAutomaC reader (``integer_lines``) against a line-by-line Python
reference, and the reader the same whatever the number of threads and chunks."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqspectral.corpus import CorpusFormatError, SkippedRecordsWarning, read_pautomac
from seqspectral.corpus import chunks
from seqspectral.corpus._kernels import BLANK, GOOD, LENGTH, MAX_DIGITS, SYMBOL, integer_lines


def reference(data: bytes, k: int, room: int):
    """``integer_lines`` in Python, line by line: (ids, ends, kinds, first_bad, stop)."""
    ids, ends, kinds = [], [], []
    starts = [0] + [m.end() for m in re.finditer(rb"\r\n|\r|\n", data)]
    if starts[-1] == len(data):
        starts.pop()  # a last line break starts no line
    for start in starts:
        if len(kinds) == room:
            return ids, ends, kinds, next((j for j, x in enumerate(kinds) if x != GOOD), -1), start
        line = re.match(rb"[^\r\n]*", data[start:]).group()
        values = []
        for m in re.finditer(rb"[0-9]+|[^0-9 \t]", line):
            if not m.group().isdigit() or len(m.group()) >= MAX_DIGITS:
                return ids, ends, kinds, next((j for j, x in enumerate(kinds) if x != GOOD), -1), start + m.start()
            values.append(int(m.group()))
        ids += [v + 2 for v in values[1:]]
        ends.append(len(ids))
        kinds.append(BLANK if not values else LENGTH if values[0] != len(values) - 1
                     else SYMBOL if any(v >= k for v in values[1:]) else GOOD)
    return ids, ends, kinds, next((j for j, x in enumerate(kinds) if x != GOOD), -1), len(data)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"0", b"1", b"2", b"7", b"12", b"3 ", b" ", b"  ", b"\t", b"\n", b"\r", b"\r\n",
                                 b"x", b"1234567890123456", b"2 0 1\n"]), max_size=30),
       st.integers(0, 13), st.integers(0, 12))
def test_the_pass_matches_a_line_by_line_reading(pieces, k, room):
    data = b"".join(pieces)
    buf = np.frombuffer(data, np.uint8)
    ids, ends, kinds = np.full(len(data) // 2 + 1, -7, np.int32), np.zeros(room, np.int64), np.zeros(room, np.int8)
    lines, first_bad, stop = integer_lines(buf, k, ids, ends, kinds)
    want_ids, want_ends, want_kinds, want_first_bad, want_stop = reference(data, k, room)
    assert (lines, first_bad, stop) == (len(want_kinds), want_first_bad, want_stop)
    assert ends[:lines].tolist() == want_ends and kinds[:lines].tolist() == want_kinds
    starts = [0] + want_ends[:-1]
    for start, end, kind in zip(starts, want_ends, want_kinds):  # a bad line's ids are left unspecified
        if kind == GOOD:
            assert ids[start:end].tolist() == want_ids[start:end]


def outcome(path, **options):
    """The corpus (arrays, dtypes, vocabulary) or the error, and the warnings, of one reading."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            c = read_pautomac(path, **options)
            result = (c.symbols.dtype, c.symbols.tolist(), c.offsets.dtype, c.offsets.tolist(), c.vocabulary.symbols)
        except CorpusFormatError as e:
            result = (e.line, e.reason)
    return result, [str(w.message) for w in caught if isinstance(w.message, SkippedRecordsWarning)]


@pytest.fixture
def threads(monkeypatch):
    """Set the reader's threads and cut chunks down to a few bytes."""
    def use(n, chunk_bytes=16):
        monkeypatch.setattr(chunks, "reading_threads", lambda: n)
        monkeypatch.setattr(chunks, "MIN_CHUNK_BYTES", chunk_bytes)
    return use


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 12), max_size=7), max_size=40), st.sampled_from(["\n", "\r\n"]),
       st.lists(st.sampled_from(["", "3 1", "1 99", "  "]), max_size=4), st.booleans(), st.data())
def test_any_number_of_threads_reads_the_same(tmp_path_factory, strings, ending, defects, last_break, data):
    """1, 2, 3 and 7 threads over chunks of a few lines: the same corpus, byte for byte (dtypes
    too), the same skipped lines and the same first error."""
    lines = [f"{len(s)} " + " ".join(map(str, s)) if s else "0" for s in strings]
    for defect in defects:
        lines.insert(data.draw(st.integers(0, len(lines))), defect)
    text = ending.join([f"{len(strings)} 13", *lines]) + (ending if last_break else "")
    path = tmp_path_factory.mktemp("t") / "x.pautomac.train"
    path.write_bytes(text.encode())
    mp = pytest.MonkeyPatch()
    try:
        results = []
        for n in (1, 2, 3, 7):
            mp.setattr(chunks, "reading_threads", lambda n=n: n)
            mp.setattr(chunks, "MIN_CHUNK_BYTES", 8)
            results.append([outcome(path, errors=errors) for errors in ("raise", "skip")])
    finally:
        mp.undo()
    assert all(r == results[0] for r in results[1:])


def test_more_lines_than_the_room_reserved(tmp_path, threads):
    """Blank lines take one byte each: more lines than half the bytes, read all the same."""
    threads(2, chunk_bytes=64)
    path = tmp_path / "b.pautomac.train"
    path.write_bytes(b"3 2\n" + b"1 0\n" + b"\n" * 300 + b"2 1 1\n" + b"0\n" + b"\r\n" * 50)
    (_, symbols, _, offsets, _), skipped = outcome(path, errors="skip")
    assert symbols == [2, 3, 3] and offsets == [0, 1, 3, 3]
    assert skipped == [f"{path}: skipped 300 malformed record(s); first: {path}:3: blank line (an empty string is "
                       f"written as a line with length 0)"]


@pytest.mark.parametrize("encoding, data", [
    ("utf-8", b"3 4\r\n2 0 1\r\n3 1 1 3\r\n0\r\n"),
    ("utf-8", b"3 4\r2 0 1\r3 1 1 3\r0\r"),
    ("utf-8", b"\xef\xbb\xbf3 4\n2 0 1\n3 1 1 3\n0"),
    ("utf-16", "3 4\n2 0 1\n3 1 1 3\n0\n".encode("utf-16")),
    ("latin-1", b"3 4\n2 0 1\n3 1 1 3\n0\n"),
])
def test_line_endings_marks_and_encodings(tmp_path, threads, encoding, data):
    """CR LF, a lone CR, a byte-order mark, UTF-16: the strings of the plain LF file."""
    threads(2, chunk_bytes=4)
    path = tmp_path / "e.pautomac.train"
    path.write_bytes(data)
    corpus = read_pautomac(path, encoding=encoding)
    assert [x.tolist() for x in corpus] == [[2, 3], [3, 3, 5], []] and len(corpus.vocabulary) == 6


def test_the_first_defect_in_the_file_is_raised(tmp_path, threads):
    """A bad line before a byte that is no integer: the bad line is the error, on any threads."""
    path = tmp_path / "d.pautomac.train"
    path.write_bytes(b"3 4\n2 0 1\n3 1 1\n1 z\n")
    for n in (1, 2):
        threads(n, chunk_bytes=4)
        with pytest.raises(CorpusFormatError, match=":3: length field 3 but 2 symbols"):
            read_pautomac(path)
        with pytest.raises(CorpusFormatError, match=":4: not a non-negative integer in '1 z'"):
            read_pautomac(path, errors="skip")
