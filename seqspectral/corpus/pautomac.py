"""PAutomaC files: ``.train``/``.test`` (header ``N k``, then ``len s1 .. slen`` per line)
and ``_solution.txt`` (``N``, then one probability per line); readers and writers.

The reader maps the file into memory (:func:`~seqspectral.corpus.textfile.mapped_bytes`: the
page cache's own pages, no copy) and reads it in one Numba pass (``integer_lines``) that
writes the ids and checks every line as it goes (its length field against its symbols, its
symbols against the header's alphabet), on several threads, each over a chunk of whole lines
(:mod:`seqspectral.corpus.chunks`; the same result whatever their number). The pass only
says which lines are bad; a file that has some is then reported line by line: every bad line
with its line number, skipped or raised as ``errors`` says. PAutomaC symbol ``i`` gets id
``i + 2`` (a vocabulary of "0".."k-1" in numeric order). A UTF-8 byte-order mark is skipped;
LF, CR LF and a lone CR end a line. A header declaring more than ``MAX_ALPHABET`` symbols is
refused (the vocabulary would hold them all).

Memory: :func:`read_pautomac` holds the corpus it returns, written in place by the pass: room
for the most symbols and lines the bytes could hold is reserved (about 6.5 bytes of address
space a byte of the file; pages never written cost no memory) and what is not used is given
back without a copy. :func:`iter_pautomac` yields the strings block by block (``block_bytes``
of whole lines): its memory follows the block, not the file. The mapped file's pages are the
page cache's, which the system reclaims as it needs.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from seqspectral.io import atomic_open

from .errors import CorpusFormatError, ErrorPolicy
from .sequences import Corpus
from .textfile import DEFAULT_ENCODING, ascii_bytes, check_encoding, decode, line_of, mapped_bytes, read_text_file
from .vocabulary import Vocabulary

#: the largest alphabet a header may declare (PAutomaC's have at most a few dozen symbols)
MAX_ALPHABET = 1 << 20
#: bytes of whole lines :func:`iter_pautomac` yields at a time
BLOCK_BYTES = 1 << 22
#: bytes looked at a time for the end of a line
_WINDOW = 1 << 12
#: the error of a first line that is not two integers
_HEADER = "the header must be two integers: number of strings, alphabet size"
#: the first byte of a header line that ``integer_lines`` would stop at (see its ``stop``)
_NOT_AN_INTEGER = re.compile(rb"[0-9]{15}|[^0-9 \t\r\n]")


def _file_bytes(path, encoding: str) -> tuple[np.ndarray, str]:
    """The bytes of ``path`` with ASCII digits and white space, without a UTF-8 byte-order
    mark, and their encoding: the file mapped into memory, or (an encoding that is not
    ASCII-compatible: UTF-16, ...) decoded and written back as UTF-8."""
    name = check_encoding(encoding)
    if ascii_bytes(path, b"", name)[1] != name:
        data, name = ascii_bytes(path, Path(path).read_bytes(), name)
        return np.frombuffer(data, np.uint8), name
    data = mapped_bytes(path)
    if name == "utf-8" and data[:len(codecs.BOM_UTF8)].tobytes() == codecs.BOM_UTF8:
        data = data[len(codecs.BOM_UTF8):]
    return data, name


def _line_end(data: np.ndarray, at: int) -> int:
    """The offset just after the first line break (LF, CR LF, a lone CR) at or after byte
    ``at`` of ``data``; ``len(data)`` if none."""
    while at < len(data):
        window = data[at:at + _WINDOW].tobytes()
        found = [i for i in (window.find(b"\n"), window.find(b"\r")) if i >= 0]
        if found:
            i = at + min(found)
            return i + 2 if data[i] == 13 and i + 1 < len(data) and data[i + 1] == 10 else i + 1
        at += _WINDOW
    return len(data)


def _strings(buf: np.ndarray, k: int):
    """``integer_lines`` over ``buf``, cut into chunks of whole lines read on threads, each
    into its own stretch of the same arrays, then joined in place: ``(ids, offsets, kinds,
    first_bad, stop)`` of the whole buffer (its lines up to ``stop``: see ``integer_lines``)."""
    from ._kernels import integer_lines
    from .chunks import chunk_bounds, thread_map

    bounds = chunk_bounds(buf, (b"\n",)).tolist()
    chunks = list(zip(bounds[:-1], bounds[1:]))
    id_at = np.cumsum([0] + [(b - a) // 2 + 1 for a, b in chunks]).tolist()  # a symbol takes a blank and a digit

    def read(j):
        (a, b), x, y = chunks[j], id_at[j], line_at[j]
        return integer_lines(buf[a:b], k, ids[x:id_at[j + 1]], offsets[1 + y:1 + line_at[j + 1]], kinds[y:line_at[j + 1]])

    # a line takes a digit and a line break; only blank lines take less (then: room for a line a byte)
    for line_room in (lambda size: (size + 1) // 2 + 1, lambda size: size + 1):
        line_at = np.cumsum([0] + [line_room(b - a) for a, b in chunks]).tolist()
        ids, offsets, kinds = np.empty(id_at[-1], np.int32), np.empty(line_at[-1] + 1, np.int64), np.empty(line_at[-1], np.int8)
        results = thread_map(read, list(range(len(chunks))))
        if all(lines < line_room(b - a) or stop == b - a for (lines, _, stop), (a, b) in zip(results, chunks)):
            break
    n_ids = n_lines = 0
    first_bad, stop = -1, len(buf)
    for (lines, bad, chunk_stop), (a, b), x, y in zip(results, chunks, id_at, line_at):
        n = int(offsets[y + lines]) if lines else 0  # the ids of the chunk
        if x != n_ids or y != n_lines:  # moved down to follow the chunk before
            ids[n_ids:n_ids + n] = ids[x:x + n]
            kinds[n_lines:n_lines + lines] = kinds[y:y + lines]
            offsets[1 + n_lines:1 + n_lines + lines] = offsets[1 + y:1 + y + lines] + n_ids
        elif n_ids:
            offsets[1 + n_lines:1 + n_lines + lines] += n_ids
        if first_bad < 0 and bad >= 0:
            first_bad = n_lines + bad
        n_ids += n
        n_lines += lines
        if chunk_stop < b - a:  # the pass stopped inside this chunk: the rest is not read
            stop = a + chunk_stop
            break
    offsets[0] = 0
    for array, size in ((ids, n_ids), (offsets, n_lines + 1), (kinds, n_lines)):
        array.resize(size, refcheck=False)  # the room not used given back, no copy (no view of them is left)
    return ids, offsets, kinds, first_bad, stop


class _Strings:
    """The checks of one file carried from block to block: the header, the strings counted,
    blank lines not yet known to lie inside the file, the encoding table."""

    def __init__(self, path, vocabulary: Vocabulary | None, policy: ErrorPolicy, encoding: str):
        self.path, self.vocabulary, self.policy, self.encoding = path, vocabulary, policy, encoding
        self.header: tuple[int, int] | None = None
        self.n_strings = 0
        self.lines_read = 0  # lines of the file read so far
        self.pending_blank: list[int] = []  # blank lines after the last string so far (0-based, in the file)
        self.table = np.zeros(0, dtype=np.int32)

    def read_header(self, data: np.ndarray) -> int:
        """The offset of the byte after the header line of ``data`` (the file's bytes), or -1
        if the file holds nothing but blank lines."""
        end = _line_end(data, 0)
        line = data[:end].tobytes()
        if not line.strip(b" \t\r\n"):  # a blank first line: the first line with a token is no header
            text = np.flatnonzero((data != 32) & (data != 9) & (data != 10) & (data != 13))
            if not len(text):
                return -1
            head = data[:text[0]].tobytes()
            self._check_integers(data, max(head.rfind(b"\n"), head.rfind(b"\r")) + 1, line_of(head, len(head)))
            raise CorpusFormatError(self.path, line_of(head, len(head)), _HEADER)
        self._check_integers(data, 0, 1)
        fields = line.split()
        if len(fields) != 2:
            raise CorpusFormatError(self.path, 1, _HEADER)
        self.header = int(fields[0]), int(fields[1])
        if self.header[1] > MAX_ALPHABET:
            raise CorpusFormatError(self.path, 1, f"the header declares an alphabet of {self.header[1]} symbols; "
                                                  f"at most {MAX_ALPHABET} are supported")
        self.lines_read = 1
        return end

    def _check_integers(self, data: np.ndarray, start: int, line: int) -> None:
        """Raise at the first byte of the line at ``start`` that is not part of a
        non-negative integer or white space, as ``integer_lines`` would stop at it."""
        found = _NOT_AN_INTEGER.search(data[start:_line_end(data, start)].tobytes())
        if found:
            raise self._bad_byte(data[start:], found.start(), line - 1)

    def _bad_byte(self, buf: np.ndarray, at: int, first_line: int) -> CorpusFormatError:
        """The error of byte ``at`` of ``buf`` (lines from ``first_line`` on, 0-based) where
        ``integer_lines`` stopped: an integer too long, or bytes that are not one."""
        head = buf[:at].tobytes()
        line = first_line + line_of(head, at)
        if 48 <= buf[at] <= 57:
            return CorpusFormatError(self.path, line, "an integer too large for a PAutomaC file")
        start = max(head.rfind(b"\n"), head.rfind(b"\r")) + 1
        try:
            text = decode(self.path, buf[start:_line_end(buf, at)].tobytes(), self.encoding)  # undecodable bytes are reported as such
        except CorpusFormatError as e:
            return CorpusFormatError(self.path, line + e.line - 1, e.reason)
        return CorpusFormatError(self.path, line, f"not a non-negative integer in {text.strip()[:60]!r}")

    def block(self, buf: np.ndarray) -> Corpus:
        """The good strings of the next block of whole lines (the bad ones go to the policy)."""
        first_line = self.lines_read
        ids, offsets, kinds, first_bad, stop = _strings(buf, self.header[1])
        self.lines_read += len(kinds)
        if first_bad < 0 and stop == len(buf):  # every line a string: nothing to look at again
            if len(kinds):
                self._report([(line, None) for line in self.pending_blank])
                self.pending_blank = []
            self.n_strings += len(kinds)
            return Corpus(self.encode(ids), offsets, self.full_vocabulary())
        return self._bad_lines(buf, first_line, ids, offsets, kinds, stop)

    def _bad_lines(self, buf, first_line: int, ids, offsets, kinds, stop: int) -> Corpus:
        """The good strings of a block with bad lines, each bad one reported, in file order."""
        from ._kernels import BLANK, LENGTH

        k = self.header[1]
        blank = kinds == BLANK
        data_lines = np.flatnonzero(~blank)
        last = len(kinds) if stop < len(buf) else (data_lines[-1] if len(data_lines) else -1)  # a bad byte's line is no blank
        blank_lines = np.flatnonzero(blank)
        problems = []  # (line in the file, 0-based; message)
        if last >= 0:
            problems += [(line, None) for line in self.pending_blank + (first_line + blank_lines[blank_lines < last]).tolist()]
            self.pending_blank = (first_line + blank_lines[blank_lines > last]).tolist()
        else:
            self.pending_blank += (first_line + blank_lines).tolist()
        bad = (kinds != BLANK) & (kinds != 0)
        bad_lines = np.flatnonzero(bad).tolist()
        if bad_lines:
            text = buf.tobytes().replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
            for line in bad_lines:
                fields = [int(x) for x in text[line].split()]
                if kinds[line] == LENGTH:
                    message = f"length field {fields[0]} but {len(fields) - 1} symbols"
                else:
                    message = f"symbol {next(x for x in fields[1:] if x >= k)} outside the alphabet 0..{k - 1} of the header"
                problems.append((first_line + line, message))
        self._report(problems)
        if stop < len(buf):
            raise self._bad_byte(buf, stop, first_line)
        self.n_strings += len(data_lines)
        lengths = np.diff(offsets)
        good = ~blank & ~bad
        kept = np.zeros(int(good.sum()) + 1, dtype=np.int64)
        np.cumsum(lengths[good], out=kept[1:])
        return Corpus(self.encode(ids[np.repeat(good, lengths)]), kept, self.full_vocabulary())

    def _report(self, problems: list) -> None:
        for line, message in sorted(problems):
            self.policy.bad(line + 1, message or "blank line (an empty string is written as a line with length 0)")

    def encode(self, ids: np.ndarray) -> np.ndarray:
        """``ids`` (symbol + 2, checked: below k + 2) in the given vocabulary, if any, in one pass."""
        if self.vocabulary is None:
            return ids
        if len(ids) and ids.max() >= len(self.table):  # the table covers the symbols seen, not the header's k
            symbols = range(int(ids.max()) - Vocabulary.N_RESERVED + 1)
            self.table = np.array([0] * Vocabulary.N_RESERVED + [self.vocabulary.id(str(i)) for i in symbols], dtype=np.int32)
        return self.table[ids]

    def full_vocabulary(self) -> Vocabulary:
        if self.vocabulary is None:
            self.vocabulary = Vocabulary(str(i) for i in range(self.header[1] if self.header else 0))
        return self.vocabulary

    def finish(self) -> None:
        n_declared = self.header[0] if self.header else 0
        if self.header is not None and self.n_strings != n_declared:
            self.policy.bad(1, f"the header declares {n_declared} strings but the file has {self.n_strings}")
        self.policy.finish()


def _read(path, vocabulary: Vocabulary | None, errors: str, encoding: str, block_bytes: int | None) -> Iterator[Corpus]:
    """The strings of ``path`` as consecutive corpora of about ``block_bytes`` of whole lines
    each (None: all in one), at least one."""
    data, name = _file_bytes(path, encoding)
    strings = _Strings(path, vocabulary, ErrorPolicy(path, errors), name)
    start = strings.read_header(data)
    if start < 0:
        yield Corpus(np.zeros(0, np.int32), np.zeros(1, np.int64), strings.full_vocabulary())
    else:
        while True:
            end = len(data) if block_bytes is None else _line_end(data, start + block_bytes - 1)
            yield strings.block(data[start:end])
            start = end
            if start >= len(data):
                break
    strings.finish()


def iter_pautomac(
    path, vocabulary: Vocabulary | None = None, errors: str = "raise", encoding: str = DEFAULT_ENCODING,
    block_bytes: int | None = None,
) -> Iterator[Corpus]:
    """The strings of a PAutomaC file as consecutive corpora of about ``block_bytes`` of text
    each (default ``BLOCK_BYTES``), in order, with the checks of :func:`read_pautomac` (the
    count against the header once the last block is read)."""
    return _read(path, vocabulary, errors, encoding, block_bytes or BLOCK_BYTES)


def read_pautomac(
    path, vocabulary: Vocabulary | None = None, errors: str = "raise", encoding: str = DEFAULT_ENCODING
) -> Corpus:
    """A PAutomaC ``.train``/``.test`` file; lengths and the count are checked against the file.

    Without ``vocabulary`` the corpus has symbols "0".."k-1" (ids 2..k+1), k from the
    header; with one, symbol ``i`` is encoded as ``vocabulary.id(str(i))``.
    """
    (corpus,) = _read(path, vocabulary, errors, encoding, None)
    return corpus


def read_pautomac_solution(path, encoding: str = DEFAULT_ENCODING) -> np.ndarray:
    """The probabilities of a ``_solution.txt`` (first line: their count, checked)."""
    lines = read_text_file(path, encoding).split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return np.zeros(0)
    try:
        n = int(lines[0])
    except ValueError:
        raise CorpusFormatError(path, 1, f"the first line must be the number of probabilities, not {lines[0][:40]!r}") from None
    try:
        probs = np.array(lines[1:], dtype=np.float64)
    except ValueError:
        for i, line in enumerate(lines[1:], 2):
            try:
                float(line)
            except ValueError:
                raise CorpusFormatError(path, i, f"not a number: {line[:40]!r}") from None
        raise
    if len(probs) != n:
        raise CorpusFormatError(path, 1, f"the header declares {n} probabilities but the file has {len(probs)}")
    bad = np.flatnonzero(~(probs >= 0) | ~np.isfinite(probs))
    if len(bad):
        raise CorpusFormatError(path, int(bad[0]) + 2, f"not a probability: {lines[bad[0] + 1]!r}")
    return probs


def write_pautomac(path, corpus: Corpus, alphabet_size: int | None = None) -> None:
    """Write ``corpus`` as a PAutomaC file: id ``i + 2`` is written as symbol ``i``.

    ``alphabet_size`` defaults to the vocabulary's number of real symbols (or the
    largest symbol + 1 without one). UNK/EOS ids cannot be written.
    """
    ids = corpus.symbols
    if len(ids) and int(ids.min()) < Vocabulary.N_RESERVED:
        raise ValueError("the corpus holds UNK or EOS ids, which a PAutomaC file cannot express")
    if alphabet_size is None:
        if corpus.vocabulary is not None:
            alphabet_size = len(corpus.vocabulary) - Vocabulary.N_RESERVED
        else:
            alphabet_size = int(ids.max()) - 1 if len(ids) else 0
    if len(ids) and int(ids.max()) - Vocabulary.N_RESERVED >= alphabet_size:
        raise ValueError(f"symbol ids exceed the alphabet size {alphabet_size}")
    symbols, offsets = (ids - Vocabulary.N_RESERVED).tolist(), corpus.offsets.tolist()  # one list, not a slice a string
    with atomic_open(path) as f:
        f.write(f"{len(corpus)} {alphabet_size}\n")
        for a, b in zip(offsets, offsets[1:]):
            f.write(" ".join(map(str, [b - a, *symbols[a:b]])) + "\n")


def write_pautomac_solution(path, probabilities) -> None:
    """Write probabilities in the ``_solution.txt`` layout (count, then one per line)."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    with atomic_open(path) as f:
        f.write(f"{len(probabilities)}\n")
        f.writelines(f"{p!r}\n" for p in probabilities.tolist())
