"""The Brown corpus, read straight from NLTK's data files: ``brown.zip`` or ``brown/``.

``source`` is an NLTK data directory (holding ``corpora/brown.zip`` or
``corpora/brown/``), the ``brown.zip`` file or the ``brown/`` directory itself, or None
to search NLTK's data path (``nltk.data.path`` when NLTK is imported, else its default:
``NLTK_DATA``, ``~/nltk_data``, the system directories). The universal-tagset mapping
(``taggers/universal_tagset/en-brown.map``) is looked up beside ``source`` and on that path.

The files are parsed as NLTK's ``CategorizedTaggedCorpusReader`` parses them (one sentence
per non-blank line, tokens split at white space, ``word/tag`` split at the last slash, tags
upper-cased, tags outside the universal mapping → ``X``; ``tests/test_corpus_nltk.py``
compares the two), without importing NLTK (a second of start-up) and without its per-token
stream machinery: the whole corpus in about a tenth of NLTK's time.
"""

from __future__ import annotations

import os
import re
import sys
import zipfile
from pathlib import Path

import numpy as np

from .errors import CorpusFormatError, CorpusOptionError
from .sequences import Corpus
from .tagsets import tag_mapping
from .tokens import TAG, WORD, numbered_tokens
from .vocabulary import Vocabulary
from .zipmembers import archive_bytes, joined_members

BROWN_FILEIDS = r"c[a-z]\d\d"
_BROWN_FILEID = re.compile(BROWN_FILEIDS)
_NOT_BROWN = "not the Brown corpus (expected brown.zip, a brown/ directory or an NLTK data directory)"


def nltk_data_path() -> list[str]:
    """NLTK's data directories: ``nltk.data.path`` if NLTK is imported (it may have been set),
    else the default NLTK builds (``nltk/data.py``)."""
    if "nltk.data" in sys.modules:
        return list(sys.modules["nltk.data"].path)
    path = [d for d in os.environ.get("NLTK_DATA", "").split(os.pathsep) if d]
    if os.path.expanduser("~/") != "~/":
        path.append(os.path.expanduser("~/nltk_data"))
    path += [os.path.join(sys.prefix, *parts) for parts in (("nltk_data",), ("share", "nltk_data"), ("lib", "nltk_data"))]
    return path + ["/usr/share/nltk_data", "/usr/local/share/nltk_data", "/usr/lib/nltk_data", "/usr/local/lib/nltk_data"]


class _Files:
    """The members of a zip file under ``prefix`` or the files of a directory, by name."""

    def __init__(self, path: Path, prefix: str = ""):
        self.path, self.prefix = path, prefix
        self.zip = zipfile.ZipFile(path) if path.is_file() else None

    def names(self) -> list[str]:
        if self.zip is None:
            return sorted(p.name for p in self.path.iterdir() if p.is_file())
        return sorted(n[len(self.prefix):] for n in self.zip.namelist() if n.startswith(self.prefix) and n != self.prefix)

    def read(self, name: str) -> bytes:
        return (self.path / name).read_bytes() if self.zip is None else self.zip.read(self.prefix + name)

    def read_joined(self, names: list[str]):
        """The contents of ``names`` one after the other, a line feed between two (bytes or a
        uint8 array); from a zip, inflated on threads straight from its bytes mapped into memory
        (:mod:`.zipmembers`)."""
        if self.zip is None:
            return b"\n".join((self.path / name).read_bytes() for name in names)
        return joined_members(self.zip, archive_bytes(self.path), [self.prefix + name for name in names], b"\n")[0]


def _in_data_dir(directory: Path, corpus: str):
    """``<directory>/corpora/<corpus>/`` or ``<directory>/corpora/<corpus>.zip``, or None."""
    plain, zipped = directory / "corpora" / corpus, directory / "corpora" / f"{corpus}.zip"
    if plain.is_dir():
        return _Files(plain)
    if zipped.is_file():
        return _Files(zipped, f"{corpus}/")
    return None


def _brown_files(source):
    """(the Brown files, data directories to look for the tagset mapping in)."""
    if source is None:
        for directory in map(Path, nltk_data_path()):
            found = _in_data_dir(directory, "brown")
            if found is not None:
                return found, [directory]
        where = nltk_data_path() or ["NLTK's data path (set NLTK_DATA)"]
        raise FileNotFoundError(2, f"the Brown corpus was not found under {', '.join(map(str, where))}", "brown")
    path = Path(source).resolve()
    if not path.exists():
        raise FileNotFoundError(2, "No such file or directory", str(source))
    if path.is_dir() and (path / "corpora").is_dir():
        found = _in_data_dir(path, "brown")
        if found is None:
            raise FileNotFoundError(2, f"the Brown corpus was not found under {path}", "brown")
        return found, [path]
    near = [path.parent.parent] if path.parent.name == "corpora" else []
    if path.suffix == ".zip":
        try:
            return _Files(path, "brown/"), near
        except (OSError, zipfile.BadZipFile):
            raise CorpusFormatError(source, None, _NOT_BROWN) from None
    if not path.is_dir():
        raise CorpusFormatError(source, None, _NOT_BROWN)
    return _Files(path), near


def universal_mapping(tagset_file: str, directories) -> dict[str, str]:
    """NLTK's mapping ``tagset_file`` (say ``en-brown``) → the universal tagset, from
    ``taggers/universal_tagset[.zip]`` under ``directories`` or NLTK's data path."""
    for directory in [*map(Path, directories), *map(Path, nltk_data_path())]:
        found = directory / "taggers" / "universal_tagset" / f"{tagset_file}.map"
        zipped = directory / "taggers" / "universal_tagset.zip"
        if found.is_file():
            text = found.read_text(encoding="utf-8")
        elif zipped.is_file():
            text = zipfile.ZipFile(zipped).read(f"universal_tagset/{tagset_file}.map").decode("utf-8")
        else:
            continue
        return dict(line.strip().split("\t") for line in text.splitlines() if line.strip())
    raise FileNotFoundError(2, f"NLTK's universal tagset (taggers/universal_tagset) was not found for {tagset_file}",
                            "universal_tagset")


def _fileids(files: _Files, source, categories) -> list[str]:
    fileids = list(filter(_BROWN_FILEID.fullmatch, files.names()))
    if not fileids:
        raise CorpusFormatError(source, None, _NOT_BROWN)
    if categories is None:
        return fileids
    wanted = {categories} if isinstance(categories, str) else set(categories)
    in_category = set()
    for line in files.read("cats.txt").decode("ascii").splitlines():
        name, *cats = line.split()
        if wanted.intersection(cats):
            in_category.add(name)
    return [f for f in fileids if f in in_category]


def read_brown(
    source=None,
    field: str = "upos",
    tagset: str | None = None,
    vocabulary: Vocabulary | None = None,
    categories: list[str] | str | None = None,
) -> Corpus:
    """The Brown corpus as sentences of ``field``: ``upos`` (NLTK's universal tags),
    ``xpos`` (the original Brown tags, upper-cased as NLTK gives them) or ``form`` (the
    words), optionally restricted to ``categories`` (e.g. "news") and mapped by ``tagset``."""
    if field not in ("upos", "xpos", "form"):
        raise CorpusOptionError(f"the Brown corpus has fields upos, xpos and form, not {field!r}")
    files, near = _brown_files(source)
    try:
        text = files.read_joined(_fileids(files, source, categories))
    except (OSError, KeyError, zipfile.BadZipFile) as e:  # not a zip, no brown/ inside, ...
        raise CorpusFormatError(source, None, f"{_NOT_BROWN}: {' '.join(str(e).split())[:120]}") from None
    distinct, provisional, lengths, bad = numbered_tokens(text, WORD if field == "form" else TAG,
                                                          text_lines=False)  # a file ends its last sentence
    if bad >= 0:
        raise CorpusFormatError(source, None, f"not ASCII: a byte of 128 or more at offset {bad} of the corpus")
    if field == "upos":
        universal = universal_mapping("en-brown", near)
        distinct = [universal.get(tag, "X") for tag in distinct]
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids, vocabulary = Vocabulary.encode_codes(distinct, provisional, vocabulary, tag_mapping(tagset))
    return Corpus(ids, offsets, vocabulary)
