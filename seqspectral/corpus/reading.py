"""How a file is read: format, column, tagset and encoding, as data a model keeps — the one
carrier of the reading options, built from the command line's options or in Python.

A model trained on a file records the :class:`Reading` of that file in its model-file
header (``reading``; :mod:`seqspectral.serialize` stores and restores a model's
``reading_``, which the training functions of :mod:`seqspectral.workflows.training` set), so
the commands that apply the model read their input the same way unless told otherwise.
:meth:`Reading.read_sentences` is the one reader of sentences; the formats are those of the
registry (:mod:`seqspectral.corpus.formats`).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, replace

from .errors import CorpusOptionError
from .options import FIELDS, SPLITS
from .textfile import DEFAULT_ENCODING, check_encoding

#: the fields a model file records (``errors`` and ``text_split`` say how to treat one file)
RECORDED = ("format", "field", "tagset", "encoding")


@dataclass(frozen=True)
class Reading:
    """``format`` (``auto`` or a registered format, :mod:`~seqspectral.corpus.formats`), ``field``
    (the treebank column read as symbols), ``tagset`` (a tag folding, or None) and
    ``encoding`` of a file — what a model records (:data:`RECORDED`) — and, for one file,
    ``errors`` ("raise", or "skip" malformed records) and ``text_split`` (raw text:
    "paragraphs" or "lines")."""

    format: str = "auto"
    field: str = "upos"
    tagset: str | None = None
    encoding: str = DEFAULT_ENCODING
    errors: str = "raise"
    text_split: str = "paragraphs"

    def __post_init__(self):
        from .formats import get_format
        from .tagsets import TAGSETS

        if self.format != "auto":
            get_format(self.format)
        if self.errors not in ("raise", "skip"):
            raise CorpusOptionError(f"errors must be 'raise' or 'skip', not {self.errors!r}")
        if self.text_split not in SPLITS:
            raise CorpusOptionError(f"unknown text split {self.text_split!r}; expected one of {', '.join(SPLITS)}")
        if self.field not in FIELDS:
            raise CorpusOptionError(f"unknown field {self.field!r}; expected one of {', '.join(FIELDS)}")
        if self.tagset is not None and self.tagset not in TAGSETS:
            raise CorpusOptionError(f"unknown tagset {self.tagset!r}; expected one of {', '.join(sorted(TAGSETS))}")
        name = check_encoding(self.encoding)
        if not getattr(codecs.lookup(name), "_is_text_encoding", True):  # rot13, base64: codecs of bytes
            raise CorpusOptionError(f"{self.encoding!r} is not a text encoding (e.g. utf-8, latin-1, cp1252)")
        object.__setattr__(self, "encoding", name)

    def to_json(self) -> dict:
        """What a model file records (:data:`RECORDED`)."""
        return {name: getattr(self, name) for name in RECORDED}

    @classmethod
    def from_json(cls, data: dict | None) -> Reading | None:
        """The Reading a header recorded (None: none recorded); unknown keys are ignored, so
        a file written by another version still loads."""
        if data is None:
            return None
        if not isinstance(data, dict):
            raise ValueError(f"a reading is a JSON object, not {type(data).__name__}")
        return cls(**{k: v for k, v in data.items() if k in RECORDED and v is not None})

    def updated(self, **given) -> Reading:
        """This reading with the options that were ``given`` (not None) replaced."""
        return replace(self, **{k: v for k, v in given.items() if v is not None})

    def detected(self, path) -> Reading:
        """This reading with ``format`` fixed: as given, else detected from ``path``."""
        from .readers import detect

        return self if self.format != "auto" else replace(self, format=detect(path, self.encoding).format)

    def recorded(self) -> Reading:
        """This reading as a model records it (``errors`` and ``text_split`` at their defaults)."""
        return Reading(**self.to_json())

    def read_corpus(self, path, vocabulary=None) -> "Corpus":  # noqa: F821
        """The file's ``field`` column as an encoded Corpus (see :func:`~seqspectral.corpus.read_corpus`)."""
        from .readers import read_corpus

        return read_corpus(path, format=self.format, field=self.field, tagset=self.tagset, vocabulary=vocabulary,
                           errors=self.errors, encoding=self.encoding)

    def read_sentences(self, path, heads_required: bool = True) -> list:
        """The sentences of a file, every line kept for the writer: the one reader of
        sentences. Without ``heads_required`` HEAD may be ``_``, and raw text is tokenised
        (:func:`~seqspectral.corpus.rawtext.read_raw_text` with ``text_split``); a format
        that holds no sentences, or raw text where trees are needed, is refused naming the file."""
        from .formats import get_format

        fmt = get_format(self.detected(path).format)
        if fmt.read_sentences is None or (heads_required and not fmt.treebank):
            raise CorpusOptionError(f"{path}: read as {fmt.name}, which holds no "
                                    f"{'trees' if fmt.read_sentences is not None else 'sentences'}; give a "
                                    "treebank (or --format)")
        return fmt.read_sentences(path, errors=self.errors, encoding=self.encoding, heads_required=heads_required,
                                  text_split=self.text_split)
