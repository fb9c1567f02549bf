"""CoNLL-U reader (token lines split on tabs; ids and comments parsed by the ``conllu``
package's ``parse_id_value`` and ``parse_comment_line``); the writer is
:mod:`~seqspectral.corpus.writer`.

A sentence is its words 1..n; multiword-token lines (``3-4``) and empty nodes (``5.1``)
are kept in its ``source`` for the writer. Comments before a sentence become its ``metadata``. Sentences with several
root attachments are read as they are, with a warning giving their count (UD allows one).
"""

from __future__ import annotations

from conllu.exceptions import ParseException
from conllu.parser import DEFAULT_FIELDS, parse_comment_line, parse_id_value

from .sentence import Sentence
from .sequences import Corpus
from .tabular import BadLine, Layout, read_encoded, read_sentences
from .textfile import DEFAULT_ENCODING
from .vocabulary import Vocabulary


def _word_id(value: str) -> int | None:
    if value.isdigit():
        return int(value)
    try:
        parsed = parse_id_value(value)
    except ParseException:
        parsed = None
    if parsed is None:
        raise BadLine(f"non-integer id {value!r}")
    return None  # a range (multiword token) or a decimal (empty node)


def _split(line: str) -> tuple[int | None, list[str]]:
    # columns split on tabs only (conllu's parse_line also splits on double spaces, which FORM
    # and LEMMA may hold); only the id is parsed, every other column stays a string
    parts = line.split("\t")
    if len(parts) != 10:
        raise BadLine(f"{len(parts)} tab-separated columns where CoNLL-U has 10")
    value = parts[0]
    return (int(value) if value.isdigit() else _word_id(value)), parts


def parse_comment(line: str) -> list[tuple[str, str | None]]:
    """The ``(key, value)`` pairs of a comment line (``# newdoc``: value None)."""
    return parse_comment_line(line, metadata_parsers={"__fallback__": lambda key, value: (key, value)})


CONLLU = Layout("conllu", _split, {name: i for i, name in enumerate(DEFAULT_FIELDS)}, comments=True,
                parse_comment=parse_comment, warn_several_roots=True)


def read_conllu(path, errors: str = "raise", encoding: str = DEFAULT_ENCODING,
                heads_required: bool = True) -> list[Sentence]:
    """The sentences of a CoNLL-U file, every column kept (``heads_required=False``: HEAD may be
    ``_`` in a sentence not parsed yet, read as ``NO_HEAD``)."""
    return read_sentences(path, CONLLU, errors, encoding, heads_required)


def read_conllu_corpus(
    path, field: str = "upos", tagset: str | None = None, vocabulary: Vocabulary | None = None, errors: str = "raise",
    encoding: str = DEFAULT_ENCODING,
) -> Corpus:
    """One column of a CoNLL-U file as an encoded Corpus with heads."""
    return read_encoded(path, CONLLU, field, tagset, vocabulary, errors, encoding)
