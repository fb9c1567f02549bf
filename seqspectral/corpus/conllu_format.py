"""CoNLL-U: reader (token lines split on tabs; ids and comments parsed by the ``conllu``
package's ``parse_id_value`` and ``parse_comment_line``) and writer.

Multiword-token lines (``3-4``) and empty nodes (``5.1``) are skipped: a sentence is its
words 1..n. Comments before a sentence become its ``metadata``. Sentences with several
root attachments are read as they are, with a warning giving their count (UD allows one).
"""

from __future__ import annotations

from collections.abc import Iterable

from conllu.exceptions import ParseException
from conllu.parser import DEFAULT_FIELDS, parse_comment_line, parse_id_value

from seqspectral.io import atomic_open

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


def _metadata(line: str) -> list[tuple[str, str | None]]:
    return parse_comment_line(line, metadata_parsers={"__fallback__": lambda key, value: (key, value)})


CONLLU = Layout("conllu", _split, {name: i for i, name in enumerate(DEFAULT_FIELDS)}, comments=True,
                parse_comment=_metadata, warn_several_roots=True)


def read_conllu(path, errors: str = "raise", encoding: str = DEFAULT_ENCODING) -> list[Sentence]:
    """The sentences of a CoNLL-U file, every column kept."""
    return read_sentences(path, CONLLU, errors, encoding)


def read_conllu_corpus(
    path, field: str = "upos", tagset: str | None = None, vocabulary: Vocabulary | None = None, errors: str = "raise",
    encoding: str = DEFAULT_ENCODING,
) -> Corpus:
    """One column of a CoNLL-U file as an encoded Corpus with heads."""
    return read_encoded(path, CONLLU, field, tagset, vocabulary, errors, encoding)


def format_conllu(sentence: Sentence) -> str:
    """One sentence block (comments, token lines, the blank line after it)."""
    out = [f"# {k}" if v is None else f"# {k} = {v}" for k, v in sentence.metadata.items()]
    n = len(sentence)
    columns = [
        sentence.forms,
        sentence.lemmas,
        sentence.upos,
        sentence.xpos,
        sentence.feats or ["_"] * n,
        sentence.heads.tolist(),
        sentence.deprels,
        sentence.deps or ["_"] * n,
        sentence.misc or ["_"] * n,
    ]
    for i, values in enumerate(zip(*columns), 1):
        cells = [str(i)] + [str(v) if str(v) else "_" for v in values]
        line = "\t".join(cells)
        if "\n" in line or line.count("\t") != 9:
            raise ValueError(f"word {i} of a sentence has a tab or newline inside a column: {values!r}")
        out.append(line)
    out.append("")
    return "\n".join(out) + "\n"


def write_conllu(path, sentences: Iterable[Sentence]) -> None:
    """Write ``sentences`` as CoNLL-U, atomically."""
    with atomic_open(path) as f:
        for sentence in sentences:
            f.write(format_conllu(sentence))
