"""Reading on several threads (``seqspectral.corpus.chunks``): the chunks cut only at record
boundaries, the numbering joined by first appearance over the file, and every threaded reader
giving byte for byte what one pass gives, whatever the number of threads and chunks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from seqspectral.corpus import chunks, read_corpus
from seqspectral.corpus.errors import CorpusFormatError
from seqspectral.corpus.tokens import TAG, WORD, numbered_tokens

CORPORA = Path(__file__).resolve().parents[2] / "corpora"


@pytest.fixture
def threads(monkeypatch):
    """Set the threads and a small chunk size, so that even the bundled files are cut."""
    def use(n, chunk_bytes=4096, chunk_tokens=100, most_bytes=1 << 40):
        monkeypatch.setattr(chunks, "reading_threads", lambda: n)
        monkeypatch.setattr(chunks, "MIN_CHUNK_BYTES", chunk_bytes)
        monkeypatch.setattr(chunks, "MAX_CHUNK_BYTES", most_bytes)
        monkeypatch.setattr(chunks, "MIN_CHUNK_TOKENS", chunk_tokens)
    return use


def _same(a, b):
    assert a.vocabulary == b.vocabulary
    for name in ("symbols", "offsets", "heads"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None)
        if x is not None:
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)


def test_chunk_bounds_cut_just_after_a_boundary(threads):
    rng = np.random.default_rng(0)
    text = b"".join(b"x" * int(k) + (b"\n\n" if k % 3 == 0 else b"\n") for k in rng.integers(1, 300, 2000))
    buf = np.frombuffer(text, np.uint8)
    for n in (1, 2, 3, 7):
        threads(n, chunk_bytes=1000)
        bounds = chunks.chunk_bounds(buf, (b"\n\n",))
        assert bounds[0] == 0 and bounds[-1] == len(buf) and np.all(np.diff(bounds) > 0)
        assert len(bounds) - 1 == n  # the file is long enough for every thread
        assert all(text[b - 2:b] == b"\n\n" for b in bounds[1:-1].tolist())
        assert all(bounds[j] >= len(buf) * j // n for j in range(1, n))  # at or after the even share
    threads(4, chunk_bytes=1000)
    assert chunks.chunk_bounds(np.frombuffer(b"y" * 10_000, np.uint8), (b"\n",)).tolist() == [0, 10_000]  # no boundary
    threads(4, chunk_bytes=6000)
    assert len(chunks.chunk_bounds(buf, (b"\n",))) - 1 == min(4, len(buf) // 6000)  # no chunk below the least


def test_joined_numbering_is_first_appearance_over_the_file(threads):
    """Random tokens with many repeats, cut into up to 9 chunks: the same numbers and distinct
    strings as a Python dictionary filled token by token."""
    rng = np.random.default_rng(1)
    words = ["".join(rng.choice(list("abcé"), size=rng.integers(1, 12))) for _ in range(300)]
    lines = [" ".join(rng.choice(words, size=rng.integers(0, 15))) for _ in range(3000)]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    first: dict[str, int] = {}
    expected = [first.setdefault(w, len(first)) for line in lines for w in line.split()]
    for n in (1, 2, 9):
        threads(n, chunk_bytes=len(data) // 9)
        distinct, codes, lengths, bad = numbered_tokens(data)
        assert bad == -1 and distinct == list(first) and codes.tolist() == expected
        assert lengths.tolist() == [len(line.split()) for line in lines]


@pytest.mark.parametrize("fmt, field", [("conllu", "form"), ("conllu", "upos"), ("conllu", "deprel")])
def test_treebank_the_same_on_any_number_of_threads(threads, fmt, field):
    path = CORPORA / "ewt-sample.conllu"
    threads(1)
    one = read_corpus(path, format=fmt, field=field)
    for n in (2, 3, 8):
        threads(n)
        _same(read_corpus(path, format=fmt, field=field), one)


def test_text_the_same_on_any_number_of_threads(threads, tmp_path):
    """Blank lines, CR LF and a lone CR, a last line without a line break."""
    lines = [" ".join(s) for s in read_corpus(CORPORA / "ewt-sample.conllu", format="conllu", field="form").to_symbols()]
    text = "\r\n".join(lines[:300]) + "\n\n\r" + "\n".join(lines[300:]) + "\n\n \nlast"
    path = tmp_path / "t.txt"
    path.write_bytes(text.encode("utf-8"))
    threads(1)
    one = read_corpus(path, format="text")
    assert len(one) == len(lines) + 5 and one.to_symbols()[-1] == ["last"]
    for n in (2, 3, 8):
        threads(n, chunk_bytes=2000)
        _same(read_corpus(path, format="text"), one)


@pytest.mark.parametrize("part", [WORD, TAG])
def test_first_bad_byte_found_in_a_later_chunk(threads, part):
    """NLTK's tagged text: the offset of the first byte beyond ASCII is the file's, in whichever
    chunk it lies, and the same as one pass finds."""
    data = b"".join(b"w%d/nn x/VB\n" % i for i in range(5000))
    at = len(data) * 3 // 4
    data = data[:at] + b"\xe9" + data[at + 1:]
    results = []
    for n in (1, 4):
        threads(n, chunk_bytes=len(data) // 8)
        results.append(numbered_tokens(data, part, text_lines=False))
    assert results[0][3] == results[1][3] == at
    assert results[1][2].tolist() == [] and results[1][1].tolist() == []


def test_defect_in_a_later_chunk_reported_at_its_line(threads, tmp_path):
    """A cycle in a sentence near the end and a bad head near the start: the one pass reads the
    file, and the tree check, on threads, reports each defect at the file's line."""
    text = (CORPORA / "ewt-sample.conllu").read_text(encoding="utf-8").rstrip("\n").split("\n")
    last_word = max(i for i, line in enumerate(text) if line[:1].isdigit() and "\t" in line)
    cells = text[last_word].split("\t")
    cells[6] = cells[0]  # its own head: a cycle
    text[last_word] = "\t".join(cells)
    path = tmp_path / "cycle.conllu"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    skipped = []
    for n in (1, 3):
        threads(n)
        with pytest.raises(CorpusFormatError, match=f":{last_word + 1}: not a tree"):
            read_corpus(path, format="conllu")
        with pytest.warns(Warning, match=f"{last_word + 1}"):
            skipped.append(read_corpus(path, format="conllu", errors="skip"))
    _same(*skipped)
    threads(1)
    assert len(skipped[0]) == len(read_corpus(CORPORA / "ewt-sample.conllu", format="conllu")) - 1


def test_sequence_ranges_share_the_tokens(threads):
    offsets = np.concatenate([[0], np.cumsum(np.random.default_rng(2).integers(1, 40, 5000))])
    threads(4, chunk_tokens=1000)
    ranges = chunks.sequence_ranges(offsets)
    assert [a for a, _ in ranges][0] == 0 and ranges[-1][1] == len(offsets) - 1
    assert all(b == c for (_, b), (c, _) in zip(ranges, ranges[1:])) and len(ranges) == 4
    shares = [offsets[b] - offsets[a] for a, b in ranges]
    assert max(shares) - min(shares) <= 2 * 40
    threads(4, chunk_tokens=10**9)
    assert chunks.sequence_ranges(offsets) == [(0, len(offsets) - 1)]
    assert chunks.sequence_ranges(np.zeros(1, np.int64)) == []


def test_more_chunks_than_threads_for_a_large_file(threads):
    """Chunks of at most MAX_CHUNK_BYTES: a treebank of 484 KB in chunks of about 16 KB on two
    threads reads as on one thread in one piece."""
    path = CORPORA / "ewt-sample.conllu"
    threads(1)
    one = read_corpus(path, format="conllu", field="form")
    threads(2, most_bytes=1 << 14)
    assert len(chunks.chunk_bounds(np.frombuffer(path.read_bytes(), np.uint8), (b"\n\n",))) - 1 >= 25
    _same(read_corpus(path, format="conllu", field="form"), one)


def test_an_interrupt_drops_the_chunks_not_started():
    """A failure in one chunk (as Ctrl-C raises KeyboardInterrupt in the waiting thread) is raised
    at once; the chunks still queued are not read."""
    import threading
    import time

    started = []
    lock = threading.Lock()

    def read(i):
        with lock:
            started.append(i)
        if i == 0:
            raise KeyboardInterrupt
        time.sleep(0.01)
        return i

    with pytest.raises(KeyboardInterrupt):
        chunks.thread_map(read, list(range(200)), threads=2)
    assert 0 in started and len(started) < 20
