"""A corpus of symbol sequences stored as one flat int32 array plus int64 offsets."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from .vocabulary import Vocabulary


class Corpus:
    """Sequences of int32 symbol ids: sequence ``i`` is ``symbols[offsets[i]:offsets[i+1]]``.

    ``heads`` (optional, int32, aligned with ``symbols``) makes it a treebank: the head of
    each token as a 1-based position within its sentence, 0 for the root. Numba kernels
    take ``symbols``, ``offsets`` (and ``heads``) directly.
    """

    __slots__ = ("symbols", "offsets", "vocabulary", "heads")

    def __init__(self, symbols, offsets, vocabulary: Vocabulary | None = None, heads=None):
        self.symbols = np.ascontiguousarray(symbols, dtype=np.int32)
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        self.vocabulary = vocabulary
        self.heads = None if heads is None else np.ascontiguousarray(heads, dtype=np.int32)
        if self.offsets.ndim != 1 or len(self.offsets) == 0 or self.offsets[0] != 0:
            raise ValueError("offsets must be a 1-d array starting at 0")
        if self.offsets[-1] != len(self.symbols) or np.any(np.diff(self.offsets) < 0):
            raise ValueError("offsets must be non-decreasing and end at len(symbols)")
        if self.heads is not None and self.heads.shape != self.symbols.shape:
            raise ValueError("heads must be aligned with symbols")

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_ids(cls, sequences: Iterable[Sequence[int]], vocabulary: Vocabulary | None = None) -> "Corpus":
        """From sequences of integer ids."""
        arrays = [np.asarray(s, dtype=np.int32).reshape(-1) for s in sequences]
        return cls._concat(arrays, vocabulary)

    @classmethod
    def from_symbols(
        cls,
        sequences: Iterable[Sequence[str]],
        vocabulary: Vocabulary | None = None,
        min_count: int = 1,
    ) -> "Corpus":
        """From sequences of string symbols; builds the vocabulary when none is given."""
        sequences = [list(s) for s in sequences]
        if vocabulary is None:
            vocabulary = Vocabulary.from_counts(Counter(x for s in sequences for x in s), min_count)
        return cls._concat([vocabulary.encode(s) for s in sequences], vocabulary)

    @classmethod
    def join(cls, parts: Sequence["Corpus"]) -> "Corpus":
        """The sequences of ``parts`` (at least one; one vocabulary, no heads) one after the other."""
        offsets = [parts[0].offsets[:1]]
        shift = 0
        for part in parts:
            offsets.append(part.offsets[1:] + shift)
            shift += part.n_tokens
        return cls(np.concatenate([p.symbols for p in parts]), np.concatenate(offsets), parts[-1].vocabulary)

    @classmethod
    def _concat(cls, arrays: list[np.ndarray], vocabulary) -> "Corpus":
        offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
        np.cumsum([len(a) for a in arrays], out=offsets[1:])
        symbols = np.concatenate(arrays).astype(np.int32, copy=False) if arrays else np.zeros(0, np.int32)
        return cls(symbols, offsets, vocabulary)

    # -- sequence protocol ------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return self.subset(np.arange(len(self))[i])
            stop = max(start, stop)  # a contiguous run of sequences: views, no copy of the tokens
            a, b = self.offsets[start], self.offsets[stop]
            heads = None if self.heads is None else self.heads[a:b]
            return Corpus(self.symbols[a:b], self.offsets[start:stop + 1] - a, self.vocabulary, heads)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"sequence index {i} out of range for a corpus of {n}")
        return self.symbols[self.offsets[i]:self.offsets[i + 1]]

    def __iter__(self):
        s, o = self.symbols, self.offsets
        for i in range(len(self)):
            yield s[o[i]:o[i + 1]]

    def __repr__(self) -> str:
        kind = "treebank" if self.heads is not None else "sequences"
        return f"Corpus({len(self)} {kind}, {self.n_tokens} tokens)"

    @property
    def n_tokens(self) -> int:
        return int(self.offsets[-1])

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def nbytes(self) -> int:
        return self.symbols.nbytes + self.offsets.nbytes + (0 if self.heads is None else self.heads.nbytes)

    def subset(self, indices) -> "Corpus":
        """The sequences at ``indices`` (any integer index array or boolean mask), in that order."""
        if np.asarray(indices).dtype == bool:  # the kept tokens by a mask of them: no index of every token
            keep = np.asarray(indices)
            lengths = self.lengths
            tokens = np.repeat(keep, lengths)
            offsets = np.zeros(int(np.count_nonzero(keep)) + 1, dtype=np.int64)
            np.cumsum(lengths[keep], out=offsets[1:])
            return Corpus(self.symbols[tokens], offsets, self.vocabulary, None if self.heads is None else self.heads[tokens])
        idx = np.asarray(indices, dtype=np.int64)
        starts, ends = self.offsets[idx], self.offsets[idx + 1]
        lengths = ends - starts
        offsets = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        # positions of every kept token, built without a Python loop
        take = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])
        heads = None if self.heads is None else self.heads[take]
        return Corpus(self.symbols[take], offsets, self.vocabulary, heads)

    def split(self, fraction: float, random_state=None) -> tuple["Corpus", "Corpus"]:
        """A random split into (1 - fraction, fraction) parts, e.g. train and held-out."""
        rng = np.random.default_rng(random_state)
        perm = rng.permutation(len(self))
        n_second = int(round(fraction * len(self)))
        second = np.zeros(len(self), dtype=bool)
        second[perm[:n_second]] = True
        return self.subset(~second), self.subset(second)  # each part in the corpus's order

    def to_symbols(self) -> list[list[str]]:
        if self.vocabulary is None:
            raise ValueError("this corpus has no vocabulary to decode with")
        return [self.vocabulary.decode(s) for s in self]

    def drop_unknown(self) -> "Corpus":
        """This corpus without its unknown tokens (id ``Vocabulary.UNK_ID``); itself if it has none.
        The sequences keep no heads (positions shift once a token is gone)."""
        keep = self.symbols != Vocabulary.UNK_ID
        if keep.all():
            return self
        removed_before = np.concatenate([[0], np.cumsum(~keep)])[self.offsets]
        return Corpus(self.symbols[keep], self.offsets - removed_before, self.vocabulary)

    def with_vocabulary(self, vocabulary: Vocabulary) -> "Corpus":
        """Re-encode into another vocabulary; symbols it lacks become UNK."""
        if self.vocabulary is None:
            raise ValueError("this corpus has no vocabulary to re-encode from")
        table = np.array([vocabulary.id(s) for s in self.vocabulary.symbols], dtype=np.int32)
        return Corpus(table[self.symbols], self.offsets, vocabulary, self.heads)
