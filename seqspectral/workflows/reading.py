"""Reading the sentences of a file the one way every workflow and command reads them: the
format detected (and said, when the content decided), the readers' warnings collected as
data, a file of the wrong kind refused naming it."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field


class InputError(ValueError):
    """An input file of the wrong kind (a directory, raw text where trees are needed, an
    n-best file where sentences are, an empty file): one line naming the file."""

    user_facing = True


@dataclass
class Read:
    """The ``sentences`` of a file, the ``format`` read, and the ``notes`` and ``warnings``
    for the user (messages, not printed)."""

    sentences: list
    format: str
    notes: list = field(default_factory=list)
    warnings: list = field(default_factory=list)


def read_sentences(path, reading, heads_required: bool = True, name: str | None = None,
                   max_words: int | None = None, nbest: bool = False) -> Read:
    """The sentences of ``path`` read as ``reading`` (a :class:`~seqspectral.corpus.Reading`);
    ``name``: what messages call the file (default ``path``). Refused (:class:`InputError`):
    a directory, a file with no sentences, an n-best file (``parse run -k``: candidates,
    not sentences; unless ``nbest``: its candidates are the sentences), raw text where
    ``heads_required``, a sentence of more than ``max_words`` words."""
    from seqspectral.corpus import CorpusFormatError, CorpusWarning, detect

    shown = str(name or path)
    if os.path.isdir(path):
        raise InputError(f"{shown}: a directory; give a treebank file")
    notes = []
    if reading.format == "auto":
        detection = detect(path, reading.encoding)
        if detection.by_content:
            notes.append(f"{shown}: read as {detection.format} ({detection.reason}); if it is not, give --format")
        reading = reading.updated(format=detection.format)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CorpusWarning)
        try:
            sentences = reading.read_sentences(path, heads_required)
        except CorpusFormatError as e:
            if shown == str(path):
                raise
            raise CorpusFormatError(shown, e.line, e.reason) from None
        except ValueError as e:
            if getattr(e, "user_facing", False) and str(path) != shown:
                raise type(e)(str(e).replace(str(path), shown)) from None
            raise
    said = [str(w.message).replace(str(path), shown) for w in caught if isinstance(w.message, CorpusWarning)]
    for w in caught:
        if not isinstance(w.message, CorpusWarning):  # not the readers': as Python would have shown it
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if not sentences:
        raise InputError(f"{shown}: no sentences")
    if not nbest and "nbest_rank" in sentences[0].metadata:
        raise InputError(f"{shown}: an n-best file (candidates of parse run -k / tag run -k), not sentences")
    if max_words is not None:  # the bounds table's rule and message (seqspectral.bounds)
        from seqspectral.bounds import BoundError, check_sentences

        try:
            check_sentences(sentences, shown, limit=max_words)
        except BoundError as e:
            raise InputError(str(e)) from None
    return Read(sentences, reading.format, notes, said)
