"""Symbol <-> int32 id mapping with reserved ids for unknown and end-of-sequence."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from itertools import repeat
from pathlib import Path

import numpy as np

UNK = "<unk>"
EOS = "</s>"


class Vocabulary:
    """A bijection between symbols (strings) and int32 ids.

    Id ``UNK_ID`` (0) is the unknown symbol and ``EOS_ID`` (1) the end-of-sequence
    marker; real symbols start at ``N_RESERVED`` (2), in the order they were added.
    The reserved ids have display names (``<unk>``, ``</s>``) but are never looked up by
    name: a token ``</s>`` or ``<unk>`` read from a file is an ordinary symbol.
    """

    UNK_ID = 0
    EOS_ID = 1
    N_RESERVED = 2

    def __init__(self, symbols: Iterable[str] = ()):
        unique = list(symbols)
        index = dict(zip(unique, range(self.N_RESERVED, self.N_RESERVED + len(unique))))
        if len(index) < len(unique):  # as adding them one by one: each at its first occurrence
            unique = list(dict.fromkeys(unique))
            index = dict(zip(unique, range(self.N_RESERVED, self.N_RESERVED + len(unique))))
        self._symbols: list[str] = [UNK, EOS, *unique]
        self._index: dict[str, int] = index

    @classmethod
    def from_counts(cls, counts: Counter | dict, min_count: int = 1) -> "Vocabulary":
        """Symbols seen at least ``min_count`` times, most frequent first (ties by name)."""
        kept = sorted(s for s, c in counts.items() if c >= min_count)
        kept.sort(key=counts.__getitem__, reverse=True)  # stable: equal counts stay in name order
        return cls(kept)

    @classmethod
    def encode_codes(
        cls, raw: list[str], codes: np.ndarray, vocabulary: "Vocabulary | None" = None, mapping: dict | None = None
    ) -> tuple[np.ndarray, "Vocabulary"]:
        """Final ids for provisional ``codes`` (indices into the distinct symbols ``raw``).

        Readers give each distinct symbol a provisional code on first sight; this maps
        them through ``mapping`` (e.g. a coarse tagset) and into ``vocabulary``, built
        from the counts (most frequent first, ties by name, as :meth:`from_counts`) when
        none is given: symbols sorted, merged and counted in numpy, no Python call per
        symbol beyond building the vocabulary.
        """
        codes = np.asarray(codes, dtype=np.int64)
        symbols = [mapping.get(s, s) for s in raw] if mapping else raw
        if vocabulary is not None:
            table = vocabulary.encode(symbols)
        elif _python_sort(symbols):
            counts = Counter()
            for s, c in zip(symbols, np.bincount(codes, minlength=len(symbols)).tolist()):
                counts[s] += c
            vocabulary = cls.from_counts(counts)
            table = vocabulary.encode(symbols)
        else:
            names = np.array(symbols) if symbols else np.zeros(0, dtype="U1")
            by_name = np.argsort(names, kind="stable")
            in_order = names[by_name]
            first = np.ones(len(names), dtype=bool)  # the first of equal names (merged by a mapping)
            first[1:] = in_order[1:] != in_order[:-1]
            group = np.empty(len(names), dtype=np.int64)  # each symbol's rank among the distinct names
            group[by_name] = np.cumsum(first) - 1
            codes = group[codes]
            counts = np.bincount(codes, minlength=int(first.sum()))
            seen = np.flatnonzero(counts)
            order = seen[np.argsort(-counts[seen], kind="stable")]  # most frequent first, then by name
            vocabulary = cls(in_order[first][order].tolist())
            table = np.full(len(counts), cls.UNK_ID, dtype=np.int32)
            table[order] = np.arange(cls.N_RESERVED, cls.N_RESERVED + len(order), dtype=np.int32)
        return (table[codes] if len(codes) else np.zeros(0, np.int32)), vocabulary

    def add(self, symbol: str) -> int:
        idx = self._index.get(symbol)
        if idx is None:
            idx = len(self._symbols)
            self._symbols.append(symbol)
            self._index[symbol] = idx
        return idx

    def __len__(self) -> int:
        return len(self._symbols)

    def __contains__(self, symbol: str) -> bool:
        return symbol in self._index

    def __eq__(self, other) -> bool:
        return isinstance(other, Vocabulary) and self._symbols == other._symbols

    def __repr__(self) -> str:
        return f"Vocabulary({len(self) - self.N_RESERVED} symbols)"

    @property
    def symbols(self) -> list[str]:
        """All symbols in id order, reserved ones included."""
        return list(self._symbols)

    def id(self, symbol: str) -> int:
        """The id of ``symbol``; ``UNK_ID`` when it is not in the vocabulary."""
        return self._index.get(symbol, self.UNK_ID)

    def symbol(self, idx: int) -> str:
        return self._symbols[idx]

    def encode(self, symbols: Iterable[str]) -> np.ndarray:
        return np.fromiter(map(self._index.get, symbols, repeat(self.UNK_ID)), dtype=np.int32)

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self._symbols[i] for i in ids]

    def to_json(self) -> dict:
        return {"symbols": self._symbols[self.N_RESERVED:]}

    @classmethod
    def from_json(cls, data: dict) -> "Vocabulary":
        symbols = data.get("symbols") if isinstance(data, dict) else None
        if not isinstance(symbols, list) or not all(isinstance(s, str) for s in symbols):
            raise ValueError("vocabulary JSON must be an object with a list of strings 'symbols'")
        if len(set(symbols)) != len(symbols):
            raise ValueError("vocabulary JSON has repeated symbols")
        return cls(symbols)

    def save(self, path: str | Path) -> None:
        from seqspectral.io import atomic_write_text

        atomic_write_text(path, json.dumps(self.to_json(), ensure_ascii=False))

    @classmethod
    def load(cls, path: str | Path) -> "Vocabulary":
        try:
            return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
        except (ValueError, UnicodeDecodeError) as e:
            raise ValueError(f"{path}: not a vocabulary file ({e})") from None


def _python_sort(symbols: list[str]) -> bool:
    """Whether ``symbols`` are to be sorted in Python rather than as a numpy string array:
    numpy's strings drop trailing NULs, and its fixed width would make a few very long
    symbols take far more memory than all of them together."""
    text = "".join(symbols)
    return "\x00" in text or len(symbols) * max(map(len, symbols), default=0) > 8 * len(text) + (1 << 20)
