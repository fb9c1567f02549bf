"""Tagged corpora read through NLTK's own corpus readers (the Brown corpus).

``source`` is an NLTK data directory (holding ``corpora/brown.zip`` or
``corpora/brown/``), the ``brown.zip`` file or the ``brown/`` directory itself, or None
to let NLTK search its data path (``NLTK_DATA``). The universal-tagset mapping
(``taggers/universal_tagset``) is looked up on NLTK's data path. NLTK opens files only
under its data path, so the directory of a ``source`` given is added to it.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from .errors import CorpusFormatError, CorpusOptionError
from .sequences import Corpus
from .tagsets import tag_mapping
from .vocabulary import Vocabulary

BROWN_FILEIDS = r"c[a-z]\d\d"
_NOT_BROWN = "not the Brown corpus (expected brown.zip, a brown/ directory or an NLTK data directory)"


def _find_brown(paths=None):
    import nltk.data

    for resource in ("corpora/brown", "corpora/brown.zip/brown/"):
        try:
            return nltk.data.find(resource, paths=paths)
        except LookupError:
            pass
    where = paths or ["NLTK's data path (set NLTK_DATA)"]
    raise FileNotFoundError(2, f"the Brown corpus was not found under {', '.join(map(str, where))}", "brown")


def _authorise(directory: Path) -> None:
    """NLTK opens files only under its data path: add a directory the caller named."""
    import nltk.data

    if str(directory) not in nltk.data.path:
        nltk.data.path.append(str(directory))


def _brown_root(source):
    import nltk.data

    if source is None:
        return _find_brown()
    path = Path(source).resolve()
    if not path.exists():
        raise FileNotFoundError(2, "No such file or directory", str(source))
    if path.is_dir() and (path / "corpora").is_dir():
        _authorise(path)
        return _find_brown([str(path)])
    _authorise(path.parent)
    if path.parent.name == "corpora":  # inside a data directory: its tagset mappings too
        _authorise(path.parent.parent)
    if path.suffix == ".zip":
        try:
            return nltk.data.ZipFilePathPointer(str(path), "brown/")
        except (OSError, KeyError, zipfile.BadZipFile):
            raise CorpusFormatError(source, None, _NOT_BROWN) from None
    if not path.is_dir():
        raise CorpusFormatError(source, None, _NOT_BROWN)
    return nltk.data.FileSystemPathPointer(str(path))


def read_brown(
    source=None,
    field: str = "upos",
    tagset: str | None = None,
    vocabulary: Vocabulary | None = None,
    categories: list[str] | str | None = None,
) -> Corpus:
    """The Brown corpus as sentences of ``field``: ``upos`` (NLTK's universal tags),
    ``xpos`` (the original Brown tags) or ``form`` (the words), optionally restricted
    to ``categories`` (e.g. "news") and mapped by ``tagset``."""
    from nltk.corpus.reader import CategorizedTaggedCorpusReader

    if field not in ("upos", "xpos", "form"):
        raise CorpusOptionError(f"the Brown corpus has fields upos, xpos and form, not {field!r}")
    root = _brown_root(source)
    codes: dict[str, int] = {}
    symbols: list[int] = []
    lengths: list[int] = []
    try:
        reader = CategorizedTaggedCorpusReader(root, BROWN_FILEIDS, cat_file="cats.txt", tagset="brown", encoding="ascii")
        if not reader.fileids():
            raise CorpusFormatError(source, None, _NOT_BROWN)
        if field == "form":
            sentences = reader.sents(categories=categories)
        else:
            tagged = reader.tagged_sents(categories=categories, tagset="universal" if field == "upos" else None)
            sentences = ([t for _, t in s] for s in tagged)
        for sentence in sentences:
            lengths.append(len(sentence))
            for s in sentence:
                code = codes.get(s)
                if code is None:
                    code = codes[s] = len(codes)
                symbols.append(code)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as e:  # not a zip, no brown/ inside, ...
        if isinstance(e, CorpusFormatError):
            raise
        raise CorpusFormatError(source, None, f"{_NOT_BROWN}: {' '.join(str(e).split())[:120]}") from None
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids, vocabulary = Vocabulary.encode_codes(list(codes), np.array(symbols, dtype=np.int64), vocabulary, tag_mapping(tagset))
    return Corpus(ids, offsets, vocabulary)
