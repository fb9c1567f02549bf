"""One annotated sentence of a treebank, and a treebank as a flat encoded Corpus."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from .errors import CorpusOptionError
from .options import FIELDS
from .sequences import Corpus
from .tagsets import tag_mapping
from .dependency_trees import DependencyTree
from .vocabulary import Vocabulary

#: the head of a word not parsed yet (HEAD ``_`` in the file; written back as ``_``)
NO_HEAD = -1


@dataclass(frozen=True)
class Source:
    """What a sentence's block held besides its words' modelled columns.

    ``format``: the layout it was read from (``conllu``, ``conllx``, ``malttab``);
    ``comments``: its comment lines as they were; ``others``: the lines that are no word
    (multiword tokens ``3-4``, empty nodes ``5.1``) as ``(number of words before it, line)``;
    ``rest``: for each word, the tab-joined columns no attribute holds (CoNLL-X PHEAD and
    PDEPREL), None when there are none or all are ``_``.
    """

    format: str
    comments: tuple[str, ...] = ()
    others: tuple[tuple[int, str], ...] = ()
    rest: tuple[str, ...] | None = None


@dataclass(eq=False)
class Sentence:
    """The words of a sentence with their annotation columns; ``heads`` 1-based, 0 = root,
    :data:`NO_HEAD` (-1) for a sentence not parsed yet.

    ``feats``, ``deps`` and ``misc`` keep the raw CoNLL-U columns (None: all ``_``);
    ``source`` keeps the rest of the file's block (comments, multiword-token and
    empty-node lines, columns no attribute holds) so that
    :func:`~seqspectral.corpus.writer.write_treebank` writes the sentence back as it was
    read, except what was changed. ``line`` is where it starts in its file.
    """

    forms: list[str]
    lemmas: list[str]
    upos: list[str]
    xpos: list[str]
    heads: np.ndarray
    deprels: list[str]
    metadata: dict[str, str] = field(default_factory=dict)
    feats: list[str] | None = None
    deps: list[str] | None = None
    misc: list[str] | None = None
    line: int | None = None
    source: Source | None = None

    def __post_init__(self):
        self.heads = np.asarray(self.heads, dtype=np.int32)
        n = len(self.forms)
        for name in ("lemmas", "upos", "xpos", "deprels", "heads", "feats", "deps", "misc"):
            if getattr(self, name) is not None and len(getattr(self, name)) != n:
                raise ValueError(f"Sentence.{name} has {len(getattr(self, name))} entries for {n} words")

    def __len__(self) -> int:
        return len(self.forms)

    def __copy__(self) -> "Sentence":
        """A shallow copy (the same lists and arrays), made without checking the columns again
        as ``__init__`` does: a tenth of the time (the taggers copy every sentence they tag)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __eq__(self, other) -> bool:
        if not isinstance(other, Sentence):
            return NotImplemented
        same_lists = all(
            getattr(self, k) == getattr(other, k) for k in ("forms", "lemmas", "upos", "xpos", "deprels", "metadata")
        )
        extras = all(
            (getattr(self, k) or ["_"] * len(self)) == (getattr(other, k) or ["_"] * len(other))
            for k in ("feats", "deps", "misc")
        )
        return same_lists and extras and np.array_equal(self.heads, other.heads)

    def column(self, name: str) -> list[str]:
        """The column ``form``, ``lemma``, ``upos``, ``xpos`` or ``deprel``."""
        if name not in FIELDS:
            raise CorpusOptionError(f"unknown field {name!r}; expected one of {', '.join(FIELDS)}")
        return getattr(self, "upos" if name == "upos" else "xpos" if name == "xpos" else name + "s")

    def tree(self) -> DependencyTree:
        return DependencyTree(self.heads)


def corpus_from_sentences(
    sentences: Iterable[Sentence],
    field: str = "upos",
    tagset: str | None = None,
    vocabulary: Vocabulary | None = None,
    min_count: int = 1,
) -> Corpus:
    """The sentences' ``field`` column as an encoded Corpus with ``heads`` filled in."""
    sentences = list(sentences)
    mapping = tag_mapping(tagset)
    columns = [s.column(field) for s in sentences]
    if mapping:
        columns = [[mapping.get(t, t) for t in col] for col in columns]
    if vocabulary is None:
        vocabulary = Vocabulary.from_counts(Counter(t for col in columns for t in col), min_count)
    corpus = Corpus.from_symbols(columns, vocabulary)
    heads = np.concatenate([s.heads for s in sentences]) if sentences else np.zeros(0, np.int32)
    return Corpus(corpus.symbols, corpus.offsets, vocabulary, heads)
