"""Members of a zip file inflated straight from the archive's bytes, on every core.

``zipfile`` reads a member through a file object of its own (a seek, a local-header parse,
a decompressor fed in chunks): for the 500 members of ``brown.zip`` that machinery is about a
fifth of the unzipping. Here the archive is mapped into memory once (:func:`archive_bytes`);
each member's deflate stream is inflated in one call into its place in one buffer (sizes and
CRC-32s are known from the central directory) and checked against its CRC-32, as ``zipfile``
checks it. The members are shared out to threads in runs of about equal inflated size
(:mod:`.chunks`): inflating releases the GIL. The inflating is zlib's, or libdeflate's when
the optional package ``deflate`` is installed (``pip install "seqspectral[fast]"``; about
twice as fast as zlib on Brown). Encrypted members and other compression methods are left
to ``zipfile``.
"""

from __future__ import annotations

import mmap
import struct
import zipfile
import zlib

import numpy as np

from . import chunks

try:  # optional: libdeflate
    from deflate import DeflateError as _DeflateError
    from deflate import crc32 as _crc32
    from deflate import deflate_decompress as _libdeflate
except ImportError:  # pragma: no cover - depends on the environment
    _libdeflate = None
    _DeflateError = zlib.error
    _crc32 = zlib.crc32

_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, ..., file name length, extra field length
#: the least inflated bytes worth a thread of their own
MIN_THREAD_BYTES = 1 << 20


def inflater() -> str:
    """The library that inflates: ``libdeflate`` or ``zlib``."""
    return "zlib" if _libdeflate is None else "libdeflate"


def _inflate(stream: memoryview, size: int):
    if _libdeflate is not None:
        return _libdeflate(stream, size)
    return zlib.decompress(stream, -15, size)


def archive_bytes(path) -> mmap.mmap:
    """The bytes of the zip file ``path`` mapped into memory, the kernel asked to read them all
    ahead: a file not in the page cache arrives while the first members inflate. The file must
    not shrink while the bytes are in use."""
    with open(path, "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    if hasattr(mmap, "MADV_WILLNEED"):
        data.madvise(mmap.MADV_WILLNEED)
    return data


def read_members(archive: zipfile.ZipFile, data, names: list[str], threads: int | None = None) -> list[bytes]:
    """The contents of the members ``names`` of ``archive``, whose bytes are ``data`` (bytes-like).
    A damaged member raises ``zipfile.BadZipFile``, a missing one ``KeyError``."""
    buffer, bounds = joined_members(archive, data, names, threads=threads)
    return [buffer[a:b].tobytes() for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())]


def joined_members(archive: zipfile.ZipFile, data, names: list[str], separator: bytes = b"",
                   threads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(buffer, bounds)``: the members ``names`` of ``archive`` (whose bytes are ``data``, bytes-like)
    one after the other in one uint8 buffer, ``separator`` between two, member ``k`` at
    ``buffer[bounds[k]:bounds[k + 1] - len(separator)]``. Inflated on up to ``threads`` threads
    (default: :func:`.chunks.reading_threads`), the same bytes and errors whatever their
    number: a damaged member raises ``zipfile.BadZipFile`` (the first in ``names``), a
    missing one ``KeyError``."""
    infos = [archive.getinfo(name) for name in names]
    sizes = np.array([info.file_size for info in infos], dtype=np.int64)
    bounds = np.zeros(len(infos) + 1, dtype=np.int64)
    np.cumsum(sizes + len(separator), out=bounds[1:])
    buffer = np.empty(max(int(bounds[-1]) - len(separator), 0), dtype=np.uint8)
    for j in range(len(separator)):
        buffer[bounds[1:-1] - len(separator) + j] = separator[j]
    view, out, at = memoryview(data), memoryview(buffer), bounds.tolist()

    def inflate(run: tuple[int, int]) -> None:
        for k in range(*run):
            info = infos[k]
            if info.flag_bits & 1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                content = archive.read(info)
            else:
                stream = _stream(data, view, info)
                try:
                    content = stream if info.compress_type == zipfile.ZIP_STORED else _inflate(stream, info.file_size)
                except (zlib.error, _DeflateError) as e:
                    raise zipfile.BadZipFile(f"{info.filename!r} does not inflate ({e})") from None
                if len(content) != info.file_size or _crc32(content) != info.CRC:
                    raise zipfile.BadZipFile(f"Bad CRC-32 for file {info.filename!r}")
            out[at[k]:at[k] + info.file_size] = content

    total = int(sizes.sum())
    n_runs = max(1, min(threads or chunks.reading_threads(), total // MIN_THREAD_BYTES, len(infos)))
    cuts = np.searchsorted(np.cumsum(sizes), np.arange(1, n_runs) * total // n_runs).tolist()
    edges = sorted({0, *cuts, len(infos)})
    chunks.thread_map(inflate, list(zip(edges[:-1], edges[1:])), threads=n_runs)
    return buffer, bounds


def _stream(data, view: memoryview, info: zipfile.ZipInfo) -> memoryview:
    """The compressed bytes of member ``info``, after its local header."""
    at = info.header_offset
    if at + _LOCAL_HEADER.size > len(data):
        raise zipfile.BadZipFile(f"truncated local header of {info.filename!r}")
    signature, name_length, extra_length = _LOCAL_HEADER.unpack_from(data, at)
    if signature != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"bad local header of {info.filename!r}")
    start = at + _LOCAL_HEADER.size + name_length + extra_length
    return view[start:start + info.compress_size]
