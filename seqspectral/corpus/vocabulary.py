"""Symbol <-> int32 id mapping with reserved ids for unknown and end-of-sequence."""

from __future__ import annotations

import functools
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
        none is given: the symbols sorted as bytes (:func:`_name_order`), merged and counted
        in numpy, no Python call per symbol.
        """
        codes = np.asarray(codes, dtype=np.int64)
        symbols = [mapping.get(s, s) for s in raw] if mapping else raw
        if vocabulary is not None:
            table = vocabulary.encode(symbols)
        else:
            by_name, first = _name_order(symbols)
            group = np.empty(len(symbols), dtype=np.int64)  # each symbol's rank among the distinct names
            group[by_name] = np.cumsum(first) - 1
            starts = np.flatnonzero(first)
            counts = np.add.reduceat(np.bincount(codes, minlength=len(symbols))[by_name], starts) if len(starts) else starts
            seen = np.flatnonzero(counts)  # most frequent first, then by name rank: one integer key each
            width = max(len(counts), 1)
            order = np.sort((counts.max(initial=0) - counts[seen]) * width + seen) % width
            names = np.fromiter(symbols, dtype=object, count=len(symbols))
            vocabulary = cls._of_distinct(names[by_name[starts[order]]].tolist())
            ranked = np.full(len(counts), cls.UNK_ID, dtype=np.int32)
            ranked[order] = np.arange(cls.N_RESERVED, cls.N_RESERVED + len(order), dtype=np.int32)
            table = ranked[group]
        return (table[codes] if len(codes) else np.zeros(0, np.int32)), vocabulary

    @classmethod
    def _of_distinct(cls, symbols: list[str]) -> "Vocabulary":
        """The vocabulary of ``symbols``, known to be distinct (its index built when first used)."""
        vocabulary = cls.__new__(cls)
        vocabulary._symbols = [UNK, EOS, *symbols]
        return vocabulary

    @functools.cached_property
    def _index(self) -> dict[str, int]:
        return dict(zip(self._symbols[self.N_RESERVED:], range(self.N_RESERVED, len(self._symbols))))

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


def _name_order(symbols: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(by_name, first)``: the indices of ``symbols`` in Python's string order and, along
    it, whether each differs from the one before (equal strings are neighbours, in any order).

    Sorted as UTF-8 bytes, whose order is the code points' (lone surrogates included, encoded
    as ``surrogatepass`` does), 7 bytes at a time: each round's key is a big-endian integer of
    the next 7 bytes (zero past the end) and, in its low byte, how many bytes are left (at most
    8, "more than 7"), so a string that ends sorts before any longer one with the same bytes,
    NULs included. Round 0 sorts all; each further round only the runs still tied with bytes
    left, by (run, key).
    """
    n = len(symbols)
    encoded = "\x00".join(symbols).encode("utf-8", "surrogatepass")
    text = np.frombuffer(encoded + bytes(8), dtype=np.uint8)
    ends = np.flatnonzero(text[:len(encoded)] == 0)
    if len(ends) == n - 1:  # NUL only between the symbols
        ends = np.append(ends, len(encoded))
        lengths = ends - np.append(0, ends[:-1] + 1)
    else:
        lengths = np.fromiter((len(s.encode("utf-8", "surrogatepass")) for s in symbols), dtype=np.int64, count=n)
        ends = np.cumsum(lengths + 1) - 1
    starts = ends - lengths
    windows = np.lib.stride_tricks.sliding_window_view(text, 8)  # the 8 bytes from each offset
    by_name = np.arange(n)
    first = np.ones(n, dtype=bool)
    todo, run, at = np.arange(n), np.zeros(n, dtype=np.int64), 0  # positions along by_name still tied, their runs
    while len(todo):
        items = by_name[todo]
        left = np.minimum(lengths[items] - at, 8)
        key = (windows[starts[items] + at].view(">u8").ravel() & _KEEP[left]) | left.astype(np.uint64)
        moved = np.argsort(key) if at == 0 else np.lexsort((key, run))
        by_name[todo], key, run = items[moved], key[moved], run[moved]
        tied = np.zeros(len(todo), dtype=bool)
        tied[1:] = (key[1:] == key[:-1]) & (run[1:] == run[:-1])
        first[todo] = ~tied
        run = np.cumsum(~tied) - 1
        again = tied | np.append(tied[1:], False)  # in a run of two or more, with more than 7 bytes left
        again &= key & 0xFF == 8
        todo, run, at = todo[again], run[again], at + 7
    return by_name, first


#: the 7 key bytes kept of a window with 0, 1, ..., 8 bytes left
_KEEP = np.array([(2**64 - 2**(64 - 8 * min(k, 7))) & ~0xFF for k in range(9)], dtype=np.uint64)
