"""Zip members inflated straight from the archive's bytes, against ``zipfile``'s own reading."""

import zipfile

import pytest

from seqspectral.corpus import zipmembers
from seqspectral.corpus.zipmembers import read_members

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
    with pytest.raises(KeyError):
        read_members(zipfile.ZipFile(path), path.read_bytes(), ["a/absent"])


def test_shared_brown_equals_zipfile(nltk_data_dir, inflater):
    path = nltk_data_dir / "corpora" / "brown.zip"
    archive = zipfile.ZipFile(path)
    names = archive.namelist()
    assert read_members(archive, path.read_bytes(), names) == [archive.read(n) for n in names]


@pytest.mark.parametrize("damage", ["stream", "crc"])
def test_a_damaged_member_is_refused(tmp_path, inflater, damage):
    path = _archive(tmp_path / "x.zip")
    archive = zipfile.ZipFile(path)
    info = archive.getinfo("a/deflated")
    data = bytearray(path.read_bytes())
    if damage == "stream":  # a byte inside the deflate stream
        data[info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size // 2] ^= 0x55
    else:
        info.CRC ^= 1
    with pytest.raises(zipfile.BadZipFile):
        read_members(archive, bytes(data), ["a/deflated"])
