"""Zip members inflated straight from the archive's bytes, against ``zipfile``'s own reading."""

import zipfile

import pytest

from seqspectral.corpus import zipmembers
from seqspectral.corpus.zipmembers import archive_bytes, joined_members, read_members

MEMBERS = {"a/stored": (b"stored bytes\n" * 50, zipfile.ZIP_STORED), "a/deflated": (b"word/tag " * 4000, zipfile.ZIP_DEFLATED),
           "a/empty": (b"", zipfile.ZIP_DEFLATED), "a/bz2": (b"bz2 is zipfile's\n" * 30, zipfile.ZIP_BZIP2)}


@pytest.fixture(params=["zlib", "libdeflate"])
def inflater(request, monkeypatch):
    if request.param == "zlib":
        monkeypatch.setattr(zipmembers, "_libdeflate", None)
    elif zipmembers._libdeflate is None:
        pytest.skip("the optional package deflate (libdeflate) is not installed")
    return request.param


def _archive(path):
    with zipfile.ZipFile(path, "w") as z:
        for name, (content, method) in MEMBERS.items():
            z.writestr(zipfile.ZipInfo(name), content, compress_type=method)
    return path


def test_members_equal_zipfiles_reading(tmp_path, inflater):
    path = _archive(tmp_path / "x.zip")
    names = list(MEMBERS)
    assert read_members(zipfile.ZipFile(path), path.read_bytes(), names) == [MEMBERS[n][0] for n in names]
    assert read_members(zipfile.ZipFile(path), archive_bytes(path), names) == [MEMBERS[n][0] for n in names]  # mapped
    with pytest.raises(KeyError):
        read_members(zipfile.ZipFile(path), path.read_bytes(), ["a/absent"])


def test_shared_brown_equals_zipfile(nltk_data_dir, inflater):
    path = nltk_data_dir / "corpora" / "brown.zip"
    archive = zipfile.ZipFile(path)
    names = archive.namelist()
    assert read_members(archive, path.read_bytes(), names) == [archive.read(n) for n in names]


@pytest.fixture()
def many_threads(monkeypatch):
    """Every member worth a thread of its own, whatever its size."""
    monkeypatch.setattr(zipmembers, "MIN_THREAD_BYTES", 1)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_joined_members_on_threads(tmp_path, inflater, many_threads, threads):
    """One buffer, a separator between two members, the same bytes on 1, 2 or 3 threads."""
    path = _archive(tmp_path / "x.zip")
    names = ["a/deflated", "a/empty", "a/bz2", "a/stored", "a/deflated"]
    buffer, bounds = joined_members(zipfile.ZipFile(path), path.read_bytes(), names, b"\n", threads=threads)
    assert buffer.tobytes() == b"\n".join(MEMBERS[n][0] for n in names)
    assert [buffer[a:b - 1].tobytes() for a, b in zip(bounds[:-1], bounds[1:])] == [MEMBERS[n][0] for n in names]
    assert read_members(zipfile.ZipFile(path), path.read_bytes(), names, threads=threads) == [MEMBERS[n][0] for n in names]


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("damage", ["stream", "crc"])
def test_a_damaged_member_is_refused(tmp_path, inflater, many_threads, damage, threads):
    """The first damaged member in the order asked for is named, whatever the threads."""
    path = _archive(tmp_path / "x.zip")
    archive = zipfile.ZipFile(path)
    data = bytearray(path.read_bytes())
    for name in ("a/deflated", "a/stored"):
        info = archive.getinfo(name)
        if damage == "stream" and name == "a/deflated":  # a byte inside the deflate stream
            data[info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size // 2] ^= 0x55
        else:
            info.CRC ^= 1
    for names, first in ((["a/empty", "a/deflated", "a/stored"], "a/deflated"), (["a/empty", "a/stored", "a/deflated"], "a/stored")):
        crc = f"Bad CRC-32 for file '{first}'"
        with pytest.raises(zipfile.BadZipFile, match=crc if damage == "crc" or first == "a/stored" else f"{crc}|'{first}' does not inflate"):
            read_members(archive, bytes(data), names, threads=threads)
