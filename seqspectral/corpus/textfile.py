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
    check_start(path, data[:_START], name)
    try:
        text = data.decode(name)
    except UnicodeError as e:
        raise undecodable(path, data, name, e) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


#: bytes of a file's start that :func:`check_start` looks at
_START = 256


def check_start(path, head: bytes, name: str) -> None:
    """Refuse a file whose first bytes cannot start text in ``name``: in an encoding of two or
    four bytes a character (UTF-16, UTF-32) every ASCII character has a zero byte, so a start
    with neither a byte-order mark nor a zero byte (a UTF-8 file, say) is not text in it —
    though its bytes may decode, to nonsense."""
    if not head or b"\0" not in "0".encode(name):
        return  # an encoding of ASCII without zero bytes
    boms = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
    if b"\0" not in head and not head.startswith(boms):
        raise CorpusFormatError(path, 1, f"bytes that are not {name} ({head[:4]!r}: no byte-order mark and no zero "
                                         f"byte); if the file has another encoding, name it with --encoding "
                                         f"(e.g. --encoding utf-8)")


def check_head(path, data: bytes, encoding: str, cut: bool) -> None:
    """Refuse the first bytes of ``path`` (``cut``: the file goes on) where they are not text in
    ``encoding``, as :func:`decode` would (a character cut at the end is not counted)."""
    try:
        data.decode(encoding)
    except UnicodeDecodeError as e:
        if not (cut and e.reason == "unexpected end of data"):
            raise undecodable(path, data, encoding, e) from None


def undecodable(path, data: bytes, name: str, error: UnicodeError) -> CorpusFormatError:
    """The one error of every reader for bytes that are not text in encoding ``name``: the
    file, the line and the bytes. ``error`` is Python's: a UnicodeDecodeError has the bytes'
    place; the stream decoders of UTF-16 and UTF-32 raise a bare UnicodeError at the file's
    first bytes (no byte-order mark)."""
    start, end = (error.start, error.end) if isinstance(error, UnicodeDecodeError) else (0, min(len(data), 4))
    return CorpusFormatError(
        path, line_of(data, start), f"bytes that are not {name} ({data[start:end]!r}); if the file has another "
                                    f"encoding, name it with --encoding (e.g. --encoding latin-1)")


def iter_lines(path, encoding: str = DEFAULT_ENCODING):
    """The lines of ``path`` one at a time, without their line break, decoded as by
    :func:`decode` (memory: one line, not the file)."""
    name = check_encoding(encoding)
    with open(path, "rb") as f:
        check_start(path, f.read(_START), name)
    try:
        with open(path, encoding="utf-8-sig" if name == "utf-8" else name, newline=None) as f:
            for i, line in enumerate(f):
                if i == 0 and line.startswith("\ufeff"):  # the byte-order mark of UTF-16-LE, ...
                    line = line[1:]
                yield line[:-1] if line.endswith("\n") else line
    except UnicodeError as e:
        data = Path(path).read_bytes()
        decode(path, data, name)  # raises with the exact line
        raise undecodable(path, data, name, e) from None  # only the stream decoder refused (a UTF-16 BOM)


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
