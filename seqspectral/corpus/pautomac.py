"""PAutomaC files: ``.train``/``.test`` (header ``N k``, then ``len s1 .. slen`` per line)
and ``_solution.txt`` (``N``, then one probability per line); readers and writers.

The reader goes through the file in blocks of whole lines (``BLOCK_BYTES``), so memory
follows the block, not the file (:func:`iter_pautomac` yields the strings block by block;
:func:`read_pautomac` joins them). Each block is read in one Numba pass that sums up every
line as it goes (its number of tokens, its length field, its largest symbol), so the checks
against the header are numpy operations on lines, not tokens, and no Python loop. PAutomaC symbol ``i`` gets id ``i + 2`` (a vocabulary of
"0".."k-1" in numeric order). A UTF-8 byte-order mark is skipped; LF, CR LF and a lone CR
end a line. A header declaring more than ``MAX_ALPHABET`` symbols is refused (the
vocabulary would hold them all).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from seqspectral.io import atomic_open

from .errors import CorpusFormatError, ErrorPolicy
from .sequences import Corpus
from .textfile import DEFAULT_ENCODING, ascii_bytes, check_encoding, decode, line_of, read_text_file
from .vocabulary import Vocabulary

#: the largest alphabet a header may declare (PAutomaC's have at most a few dozen symbols)
MAX_ALPHABET = 1 << 20
#: bytes of whole lines read and checked at a time
BLOCK_BYTES = 1 << 22


def _line_blocks(path, encoding: str, block_bytes: int) -> Iterator[bytes]:
    """Blocks of whole lines of ``path``, in order, as ASCII digits and white space
    (:func:`~seqspectral.corpus.textfile.ascii_bytes`)."""
    name = check_encoding(encoding)
    if ascii_bytes(path, b"", name)[1] != name:  # not ASCII-compatible (UTF-16, ...): decoded whole
        yield ascii_bytes(path, Path(path).read_bytes(), name)[0]
        return
    with open(path, "rb") as f:
        head = f.read(len(codecs.BOM_UTF8))
        rest = head[len(codecs.BOM_UTF8):] if head == codecs.BOM_UTF8 and name == "utf-8" else head
        while True:
            chunk = f.read(block_bytes)
            rest += chunk
            cut = max(rest.rfind(b"\n"), rest.rfind(b"\r"))
            if chunk and cut == len(rest) - 1 and rest.endswith(b"\r"):  # a CR LF may be split here
                cut = max(rest.rfind(b"\n", 0, cut), rest.rfind(b"\r", 0, cut))
            if not chunk:
                cut = len(rest) - 1
            if cut >= 0:
                block, rest = rest[:cut + 1], rest[cut + 1:]
                yield block
            if not chunk:
                return


def _lines(path, data: bytes, first_line: int, encoding: str):
    """``integer_lines`` of a block of whole lines of integers starting at line ``first_line``
    of the file (0-based): (the tokens after each line's first, and per line: the number of
    tokens, the first, the largest of the others)."""
    from ._kernels import integer_lines

    rest, counts, firsts, largest, bad = integer_lines(np.frombuffer(data, dtype=np.uint8))
    if bad >= 0:
        line = line_of(data, bad)
        if data[bad:bad + 1].isdigit():
            raise CorpusFormatError(path, first_line + line, "an integer too large for a PAutomaC file")
        try:
            text = decode(path, data, encoding)  # undecodable bytes are reported as such
        except CorpusFormatError as e:
            raise CorpusFormatError(path, first_line + e.line, e.reason) from None
        word = text.split("\n")[line - 1]
        raise CorpusFormatError(path, first_line + line, f"not a non-negative integer in {word.strip()[:60]!r}")
    return rest, counts, firsts, largest


class _Strings:
    """The checks of one file carried from block to block: the header, the strings counted,
    blank lines not yet known to lie inside the file, the encoding table."""

    def __init__(self, path, vocabulary: Vocabulary | None, policy: ErrorPolicy, encoding: str):
        self.path, self.vocabulary, self.policy, self.encoding = path, vocabulary, policy, encoding
        self.header: tuple[int, int] | None = None
        self.n_strings = 0
        self.lines_read = 0  # lines of the blocks read so far
        self.pending_blank: list[int] = []  # blank lines after the last string so far (0-based, in the file)
        self.table = np.zeros(0, dtype=np.int32)

    def block(self, data: bytes) -> Corpus:
        """The good strings of the next block of whole lines (the bad ones go to the policy)."""
        first_line = self.lines_read
        rest, per_line, firsts, largest = _lines(self.path, data, first_line, self.encoding)
        self.lines_read += len(per_line)  # a block ends with a line break, or is the last one
        if self.header is None and per_line.any():
            first = int(np.flatnonzero(per_line)[0])
            self._read_header(int(firsts[first]), int(rest[0]) if per_line[first] == 2 else -1, first_line + first,
                              per_line[first] if first_line == 0 else 0)
            rest, per_line[0], firsts[0] = rest[1:], 0, -1  # the header is no string
        k = self.header[1] if self.header else 0
        data_lines = np.flatnonzero(per_line)
        blank = np.flatnonzero(per_line == 0)
        if first_line == 0 and self.header is not None:
            blank = blank[blank > 0]
        problems = []  # (line in the file, 0-based; message)
        if len(data_lines):
            last = data_lines[-1]
            problems += [(line, None) for line in self.pending_blank + (first_line + blank[blank < last]).tolist()]
            self.pending_blank = (first_line + blank[blank > last]).tolist()
        else:
            self.pending_blank += (first_line + blank).tolist()
        n_symbols = np.maximum(per_line - 1, 0)  # tokens after the length field, by line
        bad = np.zeros(len(per_line), dtype=bool)
        bad[data_lines] = (per_line[data_lines] != firsts[data_lines] + 1) | (largest[data_lines] >= k)
        bad_lines = np.flatnonzero(bad)
        if len(bad_lines):
            starts = np.cumsum(n_symbols) - n_symbols
            for line in bad_lines.tolist():
                if per_line[line] != firsts[line] + 1:
                    message = f"length field {firsts[line]} but {per_line[line] - 1} symbols"
                else:
                    syms = rest[starts[line]:starts[line] + n_symbols[line]]
                    message = f"symbol {int(syms[syms >= k][0])} outside the alphabet 0..{k - 1} of the header"
                problems.append((first_line + line, message))
            rest = rest[np.repeat(~bad, n_symbols)]
        for line, message in sorted(problems):
            self.policy.bad(line + 1, message or "blank line (an empty string is written as a line with length 0)")
        self.n_strings += len(data_lines)
        good = data_lines[~bad[data_lines]]
        offsets = np.zeros(len(good) + 1, dtype=np.int64)
        np.cumsum(n_symbols[good], out=offsets[1:])
        return Corpus(self.encode(rest), offsets, self.full_vocabulary())

    def _read_header(self, strings: int, alphabet: int, line: int, n_on_first_line: int) -> None:
        if line != 0 or n_on_first_line != 2:
            raise CorpusFormatError(self.path, line + 1, "the header must be two integers: number of strings, "
                                                         "alphabet size")
        self.header = strings, alphabet
        if self.header[1] > MAX_ALPHABET:
            raise CorpusFormatError(self.path, 1, f"the header declares an alphabet of {self.header[1]} symbols; "
                                                  f"at most {MAX_ALPHABET} are supported")

    def encode(self, raw: np.ndarray) -> np.ndarray:
        """The int32 ids of the symbols ``raw`` (int64, checked: below k <= MAX_ALPHABET), in one pass."""
        if self.vocabulary is None:
            return np.add(raw, Vocabulary.N_RESERVED, out=np.empty(len(raw), np.int32), casting="unsafe")
        if len(raw) and raw.max() >= len(self.table):  # the table covers the symbols seen, not the header's k
            self.table = np.array([self.vocabulary.id(str(i)) for i in range(int(raw.max()) + 1)], dtype=np.int32)
        return self.table[raw]

    def full_vocabulary(self) -> Vocabulary:
        if self.vocabulary is None:
            self.vocabulary = Vocabulary(str(i) for i in range(self.header[1] if self.header else 0))
        return self.vocabulary

    def finish(self) -> None:
        n_declared = self.header[0] if self.header else 0
        if self.header is not None and self.n_strings != n_declared:
            self.policy.bad(1, f"the header declares {n_declared} strings but the file has {self.n_strings}")
        self.policy.finish()


def iter_pautomac(
    path, vocabulary: Vocabulary | None = None, errors: str = "raise", encoding: str = DEFAULT_ENCODING,
    block_bytes: int | None = None,
) -> Iterator[Corpus]:
    """The strings of a PAutomaC file as consecutive corpora of about ``block_bytes`` of text
    each (default ``BLOCK_BYTES``), in order, with the checks of :func:`read_pautomac` (the
    count against the header once the last block is read)."""
    strings = _Strings(path, vocabulary, ErrorPolicy(path, errors), check_encoding(encoding))
    for data in _line_blocks(path, encoding, block_bytes or BLOCK_BYTES):
        yield strings.block(data)
    strings.finish()


def read_pautomac(
    path, vocabulary: Vocabulary | None = None, errors: str = "raise", encoding: str = DEFAULT_ENCODING
) -> Corpus:
    """A PAutomaC ``.train``/``.test`` file; lengths and the count are checked against the file.

    Without ``vocabulary`` the corpus has symbols "0".."k-1" (ids 2..k+1), k from the
    header; with one, symbol ``i`` is encoded as ``vocabulary.id(str(i))``.
    """
    parts = list(iter_pautomac(path, vocabulary, errors, encoding))
    if not parts:
        return Corpus(np.zeros(0, np.int32), np.zeros(1, np.int64), Vocabulary() if vocabulary is None else vocabulary)
    return Corpus.join(parts)


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
    with atomic_open(path) as f:
        f.write(f"{len(corpus)} {alphabet_size}\n")
        for seq in corpus:
            f.write(" ".join(map(str, [len(seq), *(seq - Vocabulary.N_RESERVED).tolist()])) + "\n")


def write_pautomac_solution(path, probabilities) -> None:
    """Write probabilities in the ``_solution.txt`` layout (count, then one per line)."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    with atomic_open(path) as f:
        f.write(f"{len(probabilities)}\n")
        f.writelines(f"{p!r}\n" for p in probabilities.tolist())
