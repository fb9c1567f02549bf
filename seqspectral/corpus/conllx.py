"""CoNLL-X (10 columns) and Malt-TAB (word, tag, head[, relation]; NLTK's dependency_treebank).

Both allow several words attached to the artificial root (the CoNLL-X and CoNLL-2007
shared-task files have them); cycles and heads out of range are refused. The CoNLL-2007
files are Latin-1: pass ``encoding="latin-1"``.
"""

from __future__ import annotations

from .sentence import Sentence
from .sequences import Corpus
from .tabular import IMPLICIT, BadLine, Layout, read_encoded, read_sentences
from .textfile import DEFAULT_ENCODING
from .vocabulary import Vocabulary

_CONLLX_COLUMNS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "phead", "pdeprel")


def _split_conllx(line: str) -> tuple[int, list[str]]:
    parts = line.split("\t")
    if len(parts) != 10:
        raise BadLine(f"{len(parts)} tab-separated columns where CoNLL-X has 10")
    if not parts[0].isdigit():
        raise BadLine(f"non-integer id {parts[0]!r}")
    return int(parts[0]), parts


_MALTTAB_COLUMNS = ("form", "lemma", "upos", "xpos", "head", "deprel")


def _split_malttab(line: str) -> tuple[int, list[str]]:
    parts = line.split("\t") if "\t" in line else line.split()
    if len(parts) not in (3, 4):
        raise BadLine(f"{len(parts)} columns where Malt-TAB has 3 or 4 (word, tag, head[, relation])")
    return IMPLICIT, [parts[0], "_", parts[1], parts[1], parts[2], parts[3] if len(parts) == 4 else "_"]


CONLLX = Layout("conllx", _split_conllx, {name: i for i, name in enumerate(_CONLLX_COLUMNS)}, comments=True)
MALTTAB = Layout("malttab", _split_malttab, {name: i for i, name in enumerate(_MALTTAB_COLUMNS)}, comments=False)


def read_conllx(path, errors: str = "raise", encoding: str = DEFAULT_ENCODING,
                heads_required: bool = True) -> list[Sentence]:
    """CoNLL-X sentences: CPOSTAG goes to ``upos``, POSTAG to ``xpos``."""
    return read_sentences(path, CONLLX, errors, encoding, heads_required)


def read_malttab(path, errors: str = "raise", encoding: str = DEFAULT_ENCODING,
                 heads_required: bool = True) -> list[Sentence]:
    """Malt-TAB sentences: the one tag column fills both ``upos`` and ``xpos``."""
    return read_sentences(path, MALTTAB, errors, encoding, heads_required)


def read_conllx_corpus(
    path, field: str = "upos", tagset: str | None = None, vocabulary: Vocabulary | None = None, errors: str = "raise",
    encoding: str = DEFAULT_ENCODING,
) -> Corpus:
    return read_encoded(path, CONLLX, field, tagset, vocabulary, errors, encoding)


def read_malttab_corpus(
    path, field: str = "upos", tagset: str | None = None, vocabulary: Vocabulary | None = None, errors: str = "raise",
    encoding: str = DEFAULT_ENCODING,
) -> Corpus:
    return read_encoded(path, MALTTAB, field, tagset, vocabulary, errors, encoding)
