"""Input files as text: the encoding the caller names, a byte-order mark dropped, and every
line ending (LF, CR LF, CR alone) read as a line break.

Undecodable bytes raise :class:`~seqspectral.corpus.errors.CorpusFormatError` at their
line, suggesting the ``encoding`` option (``--encoding`` on the command line).
"""

from __future__ import annotations

import codecs
import functools
import mmap
import os
from pathlib import Path

from .errors import CorpusFormatError, CorpusOptionError

DEFAULT_ENCODING = "utf-8"
_ASCII_PROBE = b"0123456789 \t\r\n"


def check_encoding(encoding: str) -> str:
    """The codec's canonical name; an unknown name raises CorpusOptionError."""
    try:
        return codecs.lookup(encoding).name
    except (LookupError, TypeError):
        raise CorpusOptionError(f"unknown encoding {encoding!r} (e.g. utf-8, latin-1, cp1252, utf-16)") from None


@functools.lru_cache(maxsize=None)
def every_byte_decodes(encoding: str) -> bool:
    """Whether each of the 256 byte values is a character on its own in ``encoding`` (Latin-1,
    ...): a file in it is text whatever its bytes, and need not be decoded to be checked."""
    try:
        return all(len(bytes([b]).decode(encoding)) == 1 for b in range(256))
    except UnicodeDecodeError:
        return False


def decode(path, data: bytes, encoding: str = DEFAULT_ENCODING) -> str:
    """``data`` (the bytes of ``path``) as text with ``\\n`` line breaks and no byte-order mark."""
    name = check_encoding(encoding)
    try:
        text = data.decode(name)
    except UnicodeDecodeError as e:
        line = line_of(data, e.start)
        raise CorpusFormatError(
            path, line, f"bytes that are not {name} ({data[e.start:e.end]!r}); if the file has another encoding, "
                        f"name it with --encoding (e.g. --encoding latin-1)"
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def iter_lines(path, encoding: str = DEFAULT_ENCODING):
    """The lines of ``path`` one at a time, without their line break, decoded as by
    :func:`decode` (memory: one line, not the file)."""
    name = check_encoding(encoding)
    try:
        with open(path, encoding="utf-8-sig" if name == "utf-8" else name, newline=None) as f:
            for line in f:
                yield line[:-1] if line.endswith("\n") else line
    except UnicodeDecodeError:
        decode(path, Path(path).read_bytes(), name)  # raises with the exact line
        raise


def read_text_file(path, encoding: str = DEFAULT_ENCODING) -> str:
    """The whole file ``path`` decoded by :func:`decode`."""
    return decode(path, Path(path).read_bytes(), encoding)


def ascii_bytes(path, data: bytes, encoding: str = DEFAULT_ENCODING) -> tuple[bytes, str]:
    """``data`` as bytes whose digits and white space are ASCII, without a byte-order mark,
    and the encoding of those bytes.

    For ASCII-compatible encodings (UTF-8, Latin-1, ...) the bytes themselves; for the
    others (UTF-16, ...) the text decoded and written back as UTF-8.
    """
    name = check_encoding(encoding)
    if _ASCII_PROBE.decode("ascii").encode(name) != _ASCII_PROBE:
        return decode(path, data, name).encode("utf-8"), "utf-8"
    return (data[3:] if data.startswith(codecs.BOM_UTF8) and name == "utf-8" else data), name


def mapped_bytes(path):
    """The bytes of ``path`` as a read-only uint8 array over the file mapped into memory: the
    page cache's own pages, not a copy (at 142 MB, 11 ms of page mapping instead of 94 ms of
    copying into a new ``bytes``). The file must not shrink while the array is in use."""
    import numpy as np

    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:  # an empty file cannot be mapped
            return np.zeros(0, np.uint8)
        return np.frombuffer(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), np.uint8)


def line_of(data: bytes, offset: int) -> int:
    """1-based line of byte ``offset``, counting LF, CR LF and lone CR as line breaks."""
    head = data[:offset]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def read_utf8(path, data: bytes | None = None) -> str:
    """The UTF-8 text of ``path`` (see :func:`decode`)."""
    return decode(path, Path(path).read_bytes() if data is None else data)
