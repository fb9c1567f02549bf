"""The word2vec embedding file format (Mikolov et al.'s ``word2vec`` tool), text and binary.

Both start with a header line ``"<n_words> <dim>\\n"``. The text format then has one line
per word, ``word v1 ... v_dim`` separated by single spaces; the binary one has per word the
word's bytes, one space and ``dim`` little-endian float32 values (the C tool adds a newline
after each vector, gensim does not; both are read). gensim's
``KeyedVectors.load_word2vec_format`` reads what :func:`write_word2vec` writes.

The text format is written with the shortest decimal that reads back to the same float64
(Python's ``repr``), so a text round trip is exact; the binary one stores float32.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from seqspectral.corpus.errors import CorpusFormatError
from seqspectral.io import atomic_open

__all__ = ["EmbeddingsFormatError", "read_word2vec", "write_word2vec"]


class EmbeddingsFormatError(CorpusFormatError):
    """A malformed word2vec file; the message names the file and the line (a binary
    file's records count as lines: the header is line 1, the i-th word line i + 1)."""

    user_facing = True


def read_word2vec(path: str | Path, binary: bool | None = None, encoding: str = "utf-8") -> tuple[list[str], np.ndarray]:
    """(words, vectors) of a word2vec file; ``vectors`` is float64 of shape (n, dim).

    ``binary=None`` decides from the file: text when the first word line parses as a word
    and ``dim`` numbers, binary otherwise.
    """
    path = Path(path)
    with open(path, "rb") as f:
        data = f.read()
    header_end = data.find(b"\n")
    if header_end < 0:
        raise EmbeddingsFormatError(path, 1, "no header line '<n_words> <dim>'")
    n, dim = _header(path, data[:header_end])
    if binary is None:
        binary = not _looks_like_text(data, header_end + 1, dim, encoding)
    reader = _read_binary if binary else _read_text
    words, vectors = reader(path, data, header_end + 1, n, dim, encoding)
    seen: dict[str, int] = {}
    for i, w in enumerate(words):
        if w in seen:
            raise EmbeddingsFormatError(path, i + 2, f"word {w!r} repeats line {seen[w] + 2}")
        seen[w] = i
    return words, vectors


def write_word2vec(path: str | Path, words, vectors, binary: bool = False) -> None:
    """Write ``words`` and their ``vectors`` (n × dim) atomically in word2vec format."""
    words = list(words)
    vectors = np.asarray(vectors, dtype=np.float64)
    if vectors.ndim != 2 or vectors.shape[0] != len(words):
        raise ValueError(f"{len(words)} words but vectors of shape {vectors.shape}")
    if not np.all(np.isfinite(vectors)):
        raise ValueError("vectors hold NaN or infinite values")
    for w in words:
        if not isinstance(w, str) or not w or len(w.split()) != 1 or w.split()[0] != w:
            raise ValueError(f"word {w!r} cannot be stored in word2vec format (empty or holds whitespace)")
    if len(set(words)) != len(words):
        raise ValueError("words repeat")
    header = f"{len(words)} {vectors.shape[1]}\n".encode()
    with atomic_open(path, "wb") as f:
        f.write(header)
        if binary:
            as_float32 = vectors.astype("<f4")
            for w, row in zip(words, as_float32):
                f.write(w.encode("utf-8") + b" " + row.tobytes() + b"\n")
        else:
            text = io.TextIOWrapper(f, encoding="utf-8", newline="\n")
            for w, row in zip(words, vectors.tolist()):
                text.write(w + " " + " ".join(map(repr, row)) + "\n")
            text.flush()
            text.detach()


def _header(path: Path, line: bytes) -> tuple[int, int]:
    parts = line.split()
    try:
        n, dim = (int(p) for p in parts)
    except ValueError:
        raise EmbeddingsFormatError(path, 1, f"header must be '<n_words> <dim>', got {line[:80]!r}") from None
    if n < 0 or dim < 1:
        raise EmbeddingsFormatError(path, 1, f"header declares {n} words of dimension {dim}")
    return n, dim


def _looks_like_text(data: bytes, start: int, dim: int, encoding: str) -> bool:
    end = data.find(b"\n", start)
    line = data[start:end if end >= 0 else len(data)]
    try:
        parts = line.decode(encoding).split()
        [float(p) for p in parts[1:]]
    except (UnicodeDecodeError, ValueError):
        return False
    return len(parts) == dim + 1 or start == len(data)


def _read_text(path, data, start, n, dim, encoding):
    if n * dim * 2 > len(data) - start:  # every number takes at least two bytes ("0 ")
        raise EmbeddingsFormatError(path, 1, f"header declares {n} words of dimension {dim}, more than the file holds")
    lines = data[start:].split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    words: list[str] = []
    vectors = np.empty((n, dim), dtype=np.float64)
    for i, raw in enumerate(lines):
        lineno = i + 2
        if i >= n:
            if raw.strip():
                raise EmbeddingsFormatError(path, lineno, f"more word lines than the {n} the header declares")
            continue
        try:
            parts = raw.decode(encoding).split()
        except UnicodeDecodeError:
            raise EmbeddingsFormatError(path, lineno, f"bytes that are not {encoding}") from None
        if len(parts) != dim + 1:
            raise EmbeddingsFormatError(path, lineno, f"expected a word and {dim} numbers, found {len(parts)} fields")
        try:
            vectors[i] = [float(p) for p in parts[1:]]
        except ValueError as e:
            raise EmbeddingsFormatError(path, lineno, f"not a number ({e})") from None
        words.append(parts[0])
    if len(words) < n:
        raise EmbeddingsFormatError(path, len(lines) + 2, f"file ends after {len(words)} of the {n} words the header declares")
    if not np.all(np.isfinite(vectors)):
        bad = int(np.flatnonzero(~np.all(np.isfinite(vectors), axis=1))[0])
        raise EmbeddingsFormatError(path, bad + 2, "NaN or infinite value")
    return words, vectors


def _read_binary(path, data, start, n, dim, encoding):
    size = 4 * dim
    if n * (size + 2) > len(data) - start:  # a word of one byte, a space and the vector
        raise EmbeddingsFormatError(path, 1, f"header declares {n} words of dimension {dim}, more than the file holds")
    words: list[str] = []
    vectors = np.empty((n, dim), dtype=np.float64)
    pos = start
    for i in range(n):
        lineno = i + 2
        while pos < len(data) and data[pos:pos + 1] == b"\n":
            pos += 1
        space = data.find(b" ", pos)
        if space < 0 or space == pos:
            raise EmbeddingsFormatError(path, lineno, f"record {i + 1}: no word followed by a space (byte {pos})")
        try:
            word = data[pos:space].decode(encoding)
        except UnicodeDecodeError:
            raise EmbeddingsFormatError(path, lineno, f"record {i + 1}: word bytes that are not {encoding} (byte {pos})") from None
        if len(word.split()) != 1:
            raise EmbeddingsFormatError(path, lineno, f"record {i + 1}: word {word[:40]!r} holds whitespace (byte {pos})")
        end = space + 1 + size
        if end > len(data):
            raise EmbeddingsFormatError(path, lineno, f"record {i + 1}: file ends inside the vector of {word!r}")
        vectors[i] = np.frombuffer(data, dtype="<f4", count=dim, offset=space + 1)
        words.append(word)
        pos = end
    if data[pos:].strip(b"\n"):
        raise EmbeddingsFormatError(path, n + 2, f"bytes after the {n} records the header declares")
    if not np.all(np.isfinite(vectors)):
        bad = int(np.flatnonzero(~np.all(np.isfinite(vectors), axis=1))[0])
        raise EmbeddingsFormatError(path, bad + 2, "NaN or infinite value")
    return words, vectors
