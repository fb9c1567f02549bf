"""``read_corpus``: any supported file into an encoded Corpus, the format detected or given.

Formats: those of the registry (:mod:`seqspectral.corpus.formats`): ``conllu``, ``conllx``,
``malttab`` (treebanks: ``Corpus.heads`` is filled), ``pautomac``, ``text`` (one sequence per
line), ``brown`` (NLTK's Brown corpus). Detection looks at the name first, then at the first
lines of the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from .formats import FALLBACK, get_format, registered
from .sequences import Corpus
from .textfile import DEFAULT_ENCODING, ascii_bytes, check_head
from .vocabulary import Vocabulary

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
    formats = registered()
    for fmt in sorted(formats, key=lambda f: not (f.directory and path.is_dir())):  # a directory first
        reason = fmt.by_name(path)
        if reason:
            return Detection(fmt.name, reason, False)
    with open(path, "rb") as f:
        chunk = f.read(1 << 16)
    data, encoding = ascii_bytes(path, chunk, encoding)
    head = data.decode(encoding, "replace").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(chunk) == 1 << 16:
        head.pop()  # possibly cut
    lines = [line for line in head if line.strip()]
    for fmt in formats:
        reason = fmt.sniff(lines) if fmt.sniff is not None else None
        if reason:
            if fmt.name == FALLBACK:  # no layout found: binary input is named by its first undecodable byte
                check_head(path, data, encoding, cut=len(chunk) == 1 << 16)
            return Detection(fmt.name, reason)
    check_head(path, data, encoding, cut=len(chunk) == 1 << 16)
    return Detection(FALLBACK, "no registered format's layout in its first lines")


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
    return get_format(format).read_corpus(path, field=field, tagset=tagset, vocabulary=vocabulary, errors=errors,
                                          encoding=encoding)
