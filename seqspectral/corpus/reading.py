"""How a file is read: format, column, tagset and encoding, as data a model keeps.

A model trained on a file records the :class:`Reading` of that file in its model-file
header (``reading``; :mod:`seqspectral.serialize` stores and restores a model's
``reading_``), so the commands that apply the model read their input the same way unless
told otherwise.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

from .errors import CorpusOptionError
from .sentence import FIELDS
from .textfile import DEFAULT_ENCODING, check_encoding

#: the formats whose files hold trees (one Sentence per block)
TREEBANK_FORMATS = ("conllu", "conllx", "malttab")


@dataclass(frozen=True)
class Reading:
    """``format`` (``auto`` or one of :data:`~seqspectral.corpus.readers.FORMATS`), ``field``
    (the treebank column read as symbols), ``tagset`` (a tag folding, or None) and
    ``encoding`` of a file."""

    format: str = "auto"
    field: str = "upos"
    tagset: str | None = None
    encoding: str = DEFAULT_ENCODING

    def __post_init__(self):
        from .readers import FORMATS
        from .tagsets import TAGSETS

        if self.format != "auto" and self.format not in FORMATS:
            raise CorpusOptionError(f"unknown format {self.format!r}; expected auto or one of {', '.join(FORMATS)}")
        if self.field not in FIELDS:
            raise CorpusOptionError(f"unknown field {self.field!r}; expected one of {', '.join(FIELDS)}")
        if self.tagset is not None and self.tagset not in TAGSETS:
            raise CorpusOptionError(f"unknown tagset {self.tagset!r}; expected one of {', '.join(sorted(TAGSETS))}")
        object.__setattr__(self, "encoding", check_encoding(self.encoding))

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict | None) -> Reading | None:
        """The Reading a header recorded (None: none recorded); unknown keys are ignored, so
        a file written by another version still loads."""
        if data is None:
            return None
        if not isinstance(data, dict):
            raise ValueError(f"a reading is a JSON object, not {type(data).__name__}")
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names and v is not None})

    def updated(self, **given) -> Reading:
        """This reading with the options that were ``given`` (not None) replaced."""
        return replace(self, **{k: v for k, v in given.items() if v is not None})

    def detected(self, path) -> Reading:
        """This reading with ``format`` fixed: as given, else detected from ``path``."""
        from .readers import detect

        return self if self.format != "auto" else replace(self, format=detect(path, self.encoding).format)

    def read_corpus(self, path, vocabulary=None, errors: str = "raise"):
        """The file's ``field`` column as an encoded Corpus (see :func:`~seqspectral.corpus.read_corpus`)."""
        from .readers import read_corpus

        return read_corpus(path, format=self.format, field=self.field, tagset=self.tagset, vocabulary=vocabulary,
                           errors=errors, encoding=self.encoding)

    def read_sentences(self, path, errors: str = "raise", heads_required: bool = True,
                       text_split: str = "paragraphs") -> list:
        """The sentences of a treebank file, every line kept for the writer. Without
        ``heads_required`` HEAD may be ``_``, and a ``text`` file is raw text, tokenised
        (:func:`~seqspectral.corpus.rawtext.read_raw_text` with ``text_split``)."""
        from .conllu_format import read_conllu
        from .conllx import read_conllx, read_malttab
        from .rawtext import read_raw_text

        fmt = self.detected(path).format
        if fmt == "text" and not heads_required:
            return read_raw_text(path, text_split, self.encoding)
        if fmt not in TREEBANK_FORMATS:
            raise CorpusOptionError(f"{path}: read as {fmt}, which holds no trees; give --format")
        read = {"conllu": read_conllu, "conllx": read_conllx, "malttab": read_malttab}[fmt]
        return read(path, errors=errors, encoding=self.encoding, heads_required=heads_required)
