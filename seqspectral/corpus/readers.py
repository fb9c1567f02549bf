"""``read_corpus``: any supported file into an encoded Corpus, the format detected or given.

Formats: ``conllu``, ``conllx``, ``malttab`` (treebanks: ``Corpus.heads`` is filled),
``pautomac``, ``text`` (one sequence per line), ``brown`` (NLTK's Brown corpus).
Detection looks at the extension first, then at the first lines of the file.
"""

from __future__ import annotations

import re
from pathlib import Path

from .conllu_format import read_conllu_corpus
from .conllx import read_conllx_corpus, read_malttab_corpus
from .errors import CorpusOptionError
from .nltk_corpora import read_brown
from .pautomac import read_pautomac
from .sequences import Corpus
from .text import read_text
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


def detect_format(path) -> str:
    """The format of ``path``: by its name, else by its first non-blank lines."""
    path = Path(path)
    name = path.name.lower()
    if path.is_dir() or name == "brown.zip":
        return "brown"
    if re.search(r"\.pautomac\.(train|test)$", name):
        return "pautomac"
    if path.suffix.lower() in _EXTENSIONS:
        return _EXTENSIONS[path.suffix.lower()]
    with open(path, "rb") as f:
        chunk = f.read(1 << 16)
    head = chunk.decode("utf-8", "replace").split("\n")
    if len(chunk) == 1 << 16:
        head.pop()  # possibly cut
    lines = [line.rstrip("\r") for line in head if line.strip()]
    tokens = [line for line in lines if not line.startswith("#")][:20]
    lines = lines[:20]
    if tokens and all(line.count("\t") == 9 for line in tokens):
        return "conllu"
    if tokens and all(_malttab_like(line) for line in tokens):
        return "malttab"
    if lines and all(_INTEGERS.fullmatch(line.strip()) for line in lines):
        header = lines[0].split()
        rows = [line.split() for line in lines[1:]]
        if len(header) == 2 and all(int(r[0]) == len(r) - 1 for r in rows):
            return "pautomac"
    return "text"


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
) -> Corpus:
    """Read ``path`` into a Corpus of int32 ids.

    ``field`` (form, lemma, upos, xpos, deprel) picks the column of a treebank or of the
    Brown corpus; ``tagset="universal12"`` folds UD UPOS tags; with ``vocabulary``
    symbols it lacks become UNK (id 0). ``errors="skip"`` drops malformed records
    (sentences, strings) with one SkippedRecordsWarning giving their count, instead of
    raising CorpusFormatError; bytes that are not UTF-8 always raise.
    """
    if format == "auto":
        format = detect_format(path)
    if format in ("conllu", "conllx", "malttab"):
        reader = {"conllu": read_conllu_corpus, "conllx": read_conllx_corpus, "malttab": read_malttab_corpus}[format]
        return reader(path, field=field, tagset=tagset, vocabulary=vocabulary, errors=errors)
    if format == "pautomac":
        if tagset is not None:
            raise CorpusOptionError("a tagset does not apply to PAutomaC files")
        return read_pautomac(path, vocabulary=vocabulary, errors=errors)
    if format == "text":
        return read_text(path, vocabulary=vocabulary, tagset=tagset)
    if format == "brown":
        return read_brown(path, field=field, tagset=tagset, vocabulary=vocabulary)
    raise CorpusOptionError(f"unknown format {format!r}; expected auto or one of {', '.join(FORMATS)}")
