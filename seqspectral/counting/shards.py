"""Shards of corpus files: whole files or byte ranges cut at sentence boundaries.

A :class:`Shard` names a file and a byte range ``[start, stop)``; it is small, so it is
what travels to a worker, which opens the file and reads the range itself
(:func:`read_shard`). Ranges are cut where a sentence ends: after a blank line in a
treebank (CoNLL-U, CoNLL-X, MaltTab), after a line end in a PAutomaC or plain-text file.
A PAutomaC file's header line belongs to the first range only; the reader gives every
range a header of its own (the number of strings in the range, the file's alphabet size),
so the strings and their ids are those of the whole file.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass

from seqspectral.corpus import CorpusFormatError, detect, read_corpus
from seqspectral.corpus.errors import CorpusOptionError
from seqspectral.corpus.formats import SHARD_AT_BLANK_LINE, get_format
from seqspectral.corpus.textfile import DEFAULT_ENCODING

_BLANK_LINE = re.compile(rb"\n[ \t\r]*\n")
_NONBLANK_LINE = re.compile(rb"^[ \t]*[^\s]", re.MULTILINE)
_SCAN = 1 << 16  # bytes read at a time while looking for a boundary


@dataclass(frozen=True)
class Shard:
    """Bytes ``start:stop`` of ``path`` (``stop=None``: to the end) in ``format``."""

    path: str
    format: str
    start: int = 0
    stop: int | None = None
    alphabet_size: int | None = None  # a PAutomaC range's header needs the file's k

    @property
    def whole_file(self) -> bool:
        return self.start == 0 and self.stop is None


def split_file(path, n_shards: int, format: str = "auto", encoding: str = DEFAULT_ENCODING) -> list[Shard]:
    """``path`` cut into at most ``n_shards`` byte ranges of about equal size, each ending
    at a sentence boundary (ranges that would be empty are dropped)."""
    if n_shards < 1:
        raise ValueError("n_shards must be >= 1")
    path = str(path)
    format = detect(path, encoding).format if format == "auto" else format
    cut_at = get_format(format).shard
    if n_shards == 1 or get_format(format).directory:
        return [Shard(path, format)]
    if cut_at is None:
        raise CorpusOptionError(f"cannot cut a {format!r} file into byte ranges")
    if "a\n".encode(encoding) != b"a\n":
        raise CorpusOptionError(f"{path}: byte ranges need an ASCII-compatible encoding, not {encoding}")
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        header_end = _line_end(f, 0) if format == "pautomac" else 0
        k = int(_header(f, header_end)[1]) if format == "pautomac" else None
        cuts = [0]
        for i in range(1, n_shards):
            target = max(size * i // n_shards, header_end, cuts[-1])
            cut = _blank_line_end(f, target) if cut_at == SHARD_AT_BLANK_LINE else _line_end(f, target)
            if cut < size and cut > cuts[-1]:
                cuts.append(cut)
    cuts.append(size)
    return [Shard(path, format, lo, hi if hi < size else None, k) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]


def shard_files(paths, shard_bytes: int | None = None, format: str = "auto", encoding: str = DEFAULT_ENCODING,
                workers: int = 1) -> list[Shard]:
    """Shards of every file of ``paths``: one per file, or ranges of about ``shard_bytes``.

    With ``shard_bytes``, the number of ranges is a multiple of ``workers`` where the files
    allow it (each extra range goes to the file whose ranges are largest), so ``workers``
    processes counting them get equal work: 9 ranges on 2 workers leave one worker idle
    for the last ninth of the time, 10 do not."""
    if workers < 1:
        raise ValueError("workers must be >= 1")
    sizes = [os.path.getsize(path) for path in paths]
    if shard_bytes is None:
        counts = [1] * len(sizes)
    else:
        counts = [max(1, -(-size // int(shard_bytes))) for size in sizes]
        while sum(counts) % workers and any(size > n for size, n in zip(sizes, counts)):
            largest = max(range(len(sizes)), key=lambda i: sizes[i] / counts[i])
            counts[largest] += 1
    shards = []
    for path, n in zip(paths, counts):
        shards += split_file(path, n, format, encoding)
    return shards


def read_shard(shard: Shard, field: str = "upos", tagset: str | None = None, vocabulary=None,
               errors: str = "raise", encoding: str = DEFAULT_ENCODING):
    """The Corpus of one shard, read as :func:`~seqspectral.corpus.read_corpus` reads a
    file (same options); errors name the file and its line."""
    options = dict(format=shard.format, field=field, tagset=tagset, vocabulary=vocabulary, errors=errors,
                   encoding=encoding)
    if shard.whole_file:
        return read_corpus(shard.path, **options)
    with open(shard.path, "rb") as f:
        f.seek(shard.start)
        data = f.read(-1 if shard.stop is None else shard.stop - shard.start)
    shift = 0  # file line = line of the range read + shift + the lines before the range
    if shard.format == "pautomac":
        if shard.start == 0:
            data = data[data.index(b"\n") + 1:]
            shift += 1
        n_strings = len(_NONBLANK_LINE.findall(data))
        data = f"{n_strings} {shard.alphabet_size}\n".encode(encoding) + data
        shift -= 1
    with tempfile.NamedTemporaryFile(suffix=".shard") as tmp:
        tmp.write(data)
        tmp.flush()
        del data
        try:
            return read_corpus(tmp.name, **options)
        except CorpusFormatError as e:
            line = None if e.line is None else e.line + shift + _lines_before(shard.path, shard.start)
            raise CorpusFormatError(shard.path, line, e.reason) from None


def _line_end(f, pos: int) -> int:
    """The offset just after the first line end at or after ``pos`` (or the file's end)."""
    f.seek(pos)
    while chunk := f.read(_SCAN):
        i = chunk.find(b"\n")
        if i >= 0:
            return pos + i + 1
        pos += len(chunk)
    return pos


def _blank_line_end(f, pos: int) -> int:
    """The offset just after the first blank line that ends at or after ``pos``."""
    start = max(pos - 1, 0)  # a blank line starts right after a line end
    f.seek(start)
    data = f.read(_SCAN)
    while data:
        m = _BLANK_LINE.search(data)
        if m:
            return start + m.end()
        more = f.read(_SCAN)
        if not more:
            break
        keep = min(len(data), _SCAN)  # a blank line may straddle the two reads
        start += len(data) - keep
        data = data[-keep:] + more
    return start + len(data)


def _header(f, header_end: int) -> list[bytes]:
    f.seek(0)
    fields = f.read(header_end).lstrip(b"\xef\xbb\xbf").split()
    if len(fields) != 2 or not all(x.isdigit() for x in fields):
        raise CorpusFormatError(f.name, 1, "the header must be two integers: number of strings, alphabet size")
    return fields


def _lines_before(path, offset: int) -> int:
    """Number of line ends in the first ``offset`` bytes of ``path``."""
    n = 0
    with open(path, "rb") as f:
        while offset > 0 and (chunk := f.read(min(_SCAN * 16, offset))):
            n += chunk.count(b"\n")
            offset -= len(chunk)
    return n
