"""Members of a zip file inflated straight from the archive's bytes.

``zipfile`` reads a member through a file object of its own (a seek, a local-header parse,
a decompressor fed in chunks): for the 500 members of ``brown.zip`` that machinery is about a
fifth of the unzipping. Here the archive is read once; each member's deflate stream is
inflated in one call into a buffer of its known size and checked against its CRC-32, as
``zipfile`` checks it. The inflating is zlib's, or libdeflate's when the optional package
``deflate`` is installed (``pip install "seqspectral[fast]"``; about twice as fast as zlib
on Brown). Encrypted members and other compression methods are left to ``zipfile``.
"""

from __future__ import annotations

import struct
import zipfile
import zlib

try:  # optional: libdeflate
    from deflate import DeflateError as _DeflateError
    from deflate import deflate_decompress as _libdeflate
except ImportError:  # pragma: no cover - depends on the environment
    _libdeflate = None
    _DeflateError = zlib.error

_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, ..., file name length, extra field length


def inflater() -> str:
    """The library that inflates: ``libdeflate`` or ``zlib``."""
    return "zlib" if _libdeflate is None else "libdeflate"


def _inflate(stream: memoryview, size: int) -> bytes:
    if _libdeflate is not None:
        return _libdeflate(stream, size)
    return zlib.decompress(stream, -15, size)


def read_members(archive: zipfile.ZipFile, data: bytes, names: list[str]) -> list[bytes]:
    """The contents of the members ``names`` of ``archive``, whose bytes are ``data``.
    A damaged member raises ``zipfile.BadZipFile``, a missing one ``KeyError``."""
    view = memoryview(data)
    out = []
    for name in names:
        info = archive.getinfo(name)
        if info.flag_bits & 1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            out.append(archive.read(name))
            continue
        at = info.header_offset
        if at + _LOCAL_HEADER.size > len(data):
            raise zipfile.BadZipFile(f"truncated local header of {name!r}")
        signature, name_length, extra_length = _LOCAL_HEADER.unpack_from(data, at)
        if signature != b"PK\x03\x04":
            raise zipfile.BadZipFile(f"bad local header of {name!r}")
        start = at + _LOCAL_HEADER.size + name_length + extra_length
        stream = view[start:start + info.compress_size]
        try:
            content = bytes(stream) if info.compress_type == zipfile.ZIP_STORED else _inflate(stream, info.file_size)
        except (zlib.error, _DeflateError) as e:
            raise zipfile.BadZipFile(f"{name!r} does not inflate ({e})") from None
        if len(content) != info.file_size or zlib.crc32(content) != info.CRC:
            raise zipfile.BadZipFile(f"Bad CRC-32 for file {name!r}")
        out.append(content)
    return out
