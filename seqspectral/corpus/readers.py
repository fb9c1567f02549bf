"""``read_corpus``: any supported file into an encoded Corpus, the format detected or given.

Formats: ``conllu``, ``conllx``, ``malttab`` (treebanks: ``Corpus.heads`` is filled),
``pautomac``, ``text`` (one sequence per line), ``brown`` (NLTK's Brown corpus).
Detection looks at the extension first, then at the first lines of the file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from .conllu_format import read_conllu_corpus
from .conllx import read_conllx_corpus, read_malttab_corpus
from .errors import CorpusOptionError
from .nltk_corpora import read_brown
from .pautomac import read_pautomac
from .sequences import Corpus
from .text import read_text
from .textfile import DEFAULT_ENCODING, ascii_bytes, check_head
from .vocabulary import Vocabulary

FORMATS = ("conllu", "conllx", "malttab", "pautomac", "text", "brown")

_EXTENSIONS = {
    ".conllu": "conllu",
    ".conll": "conllx",
    ".conllx": "conllx",
    ".dp": "malttab",
    ".malt": "malttab",
    ".tab": "malttab",
}
_INTEGERS = re.compile(r"\d+(?:[ \t]+\d+)*")


class Detection(NamedTuple):
    """A detected format, what it was detected by (for the user to check), and whether
    that was the file's content rather than its name."""

    format: str
    reason: str
    by_content: bool = True


def detect_format(path) -> str:
    """The format of ``path``: by its name, else by its first non-blank lines."""
    return detect(path).format


def detect(path, encoding: str = DEFAULT_ENCODING) -> Detection:
    """The format of ``path`` and why: its name, else its first non-blank lines.

    Ten tab-separated columns are CoNLL-U when a comment line or a multiword/empty-node id
    (``3-4``, ``5.1``) is among them, else CoNLL-X.
    """
    path = Path(path)
    name = path.name.lower()
    if path.is_dir() or name == "brown.zip":
        return Detection("brown", "a directory or brown.zip", False)
    if re.search(r"\.pautomac\.(train|test)$", name):
        return Detection("pautomac", "the name *.pautomac.train/test", False)
    if path.suffix.lower() in _EXTENSIONS:
        return Detection(_EXTENSIONS[path.suffix.lower()], f"the extension {path.suffix}", False)
    with open(path, "rb") as f:
        chunk = f.read(1 << 16)
    data, encoding = ascii_bytes(path, chunk, encoding)
    head = data.decode(encoding, "replace").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(chunk) == 1 << 16:
        head.pop()  # possibly cut
    lines = [line for line in head if line.strip()]
    tokens = [line for line in lines if not line.startswith("#")]
    if tokens and all(line.count("\t") == 9 for line in tokens[:20]):
        if len(tokens) < len(lines) or any(not line.split("\t", 1)[0].isdigit() for line in tokens):
            return Detection("conllu", "10 tab-separated columns with comment lines or multiword ids")
        return Detection("conllx", "10 tab-separated columns, no comment lines or multiword ids")
    tokens, lines = tokens[:20], lines[:20]
    if tokens and all(_malttab_like(line) for line in tokens):
        return Detection("malttab", "3 or 4 tab-separated columns with an integer third")
    if lines and all(_INTEGERS.fullmatch(line.strip()) for line in lines):
        header = lines[0].split()
        rows = [line.split() for line in lines[1:]]
        if len(header) == 2 and all(int(r[0]) == len(r) - 1 for r in rows):
            return Detection("pautomac", "a two-integer header and length-prefixed lines")
    check_head(path, data, encoding, cut=len(chunk) == 1 << 16)  # binary input: its first undecodable byte
    return Detection("text", "no treebank or PAutomaC layout in its first lines")


def _malttab_like(line: str) -> bool:
    parts = line.split("\t")
    return len(parts) in (3, 4) and parts[2].isdigit()


def read_corpus(
    path,
    format: str = "auto",
    field: str = "upos",
    tagset: str | None = None,
    vocabulary: Vocabulary | None = None,
    errors: str = "raise",
    encoding: str = DEFAULT_ENCODING,
) -> Corpus:
    """Read ``path`` into a Corpus of int32 ids.

    ``field`` (form, lemma, upos, xpos, deprel) picks the column of a treebank or of the
    Brown corpus; ``tagset="universal12"`` folds UD UPOS tags; with ``vocabulary``
    symbols it lacks become UNK (id 0). ``errors="skip"`` drops malformed records
    (sentences, strings) with one SkippedRecordsWarning giving their count, instead of
    raising CorpusFormatError; bytes that ``encoding`` cannot decode always raise.
    """
    if format == "auto":
        format = detect(path, encoding).format
    if format in ("conllu", "conllx", "malttab"):
        reader = {"conllu": read_conllu_corpus, "conllx": read_conllx_corpus, "malttab": read_malttab_corpus}[format]
        return reader(path, field=field, tagset=tagset, vocabulary=vocabulary, errors=errors, encoding=encoding)
    if format == "pautomac":
        if tagset is not None:
            raise CorpusOptionError("a tagset does not apply to PAutomaC files")
        return read_pautomac(path, vocabulary=vocabulary, errors=errors, encoding=encoding)
    if format == "text":
        return read_text(path, vocabulary=vocabulary, tagset=tagset, encoding=encoding)
    if format == "brown":
        return read_brown(path, field=field, tagset=tagset, vocabulary=vocabulary)
    raise CorpusOptionError(f"unknown format {format!r}; expected auto or one of {', '.join(FORMATS)}")
