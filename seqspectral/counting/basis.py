"""Hankel bases: the prefix set P and suffix set S that index the rows and columns of H.

A basis is ``prefixes`` and ``suffixes`` (lists of int tuples, the empty string ``()``
always first) and the ``alphabet`` (sorted int32 symbol ids) whose symbols index the
blocks H_sigma. It is built (a) as all strings up to a length over an alphabet
(``all_strings``), (b) from the most frequent prefixes / suffixes / substrings of a
sample (``from_corpus``, the data-driven bases of Balle, Carreras, Luque & Quattoni
2014, "Spectral learning of weighted automata: a forward-backward perspective"), or (c)
from user lists (the constructor).
"""

from __future__ import annotations

import itertools
from functools import cached_property

import numpy as np

STATISTICS = ("string", "prefix", "substring")


def _normalise(strings) -> list[tuple[int, ...]]:
    """Tuples of ints, duplicates dropped (first kept), the empty string moved to index 0."""
    seen = {(): None}
    for s in strings:
        t = tuple(map(int, s))
        if t not in seen:
            seen[t] = None
    return list(seen)


def _flat(strings: list[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """The strings as one flat int32 array plus int64 offsets (the Corpus layout)."""
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, strings), dtype=np.int64, count=len(strings)), out=offsets[1:])
    flat = np.fromiter(itertools.chain.from_iterable(strings), dtype=np.int32, count=int(offsets[-1]))
    return flat, offsets


class HankelBasis:
    """Prefixes P and suffixes S (int tuples, ``()`` at index 0) and the alphabet Sigma.

    The rows of H are P, its columns S; ``H_sigma`` has one block per ``alphabet`` entry.
    """

    def __init__(self, prefixes, suffixes, alphabet):
        self._set(_normalise(prefixes), _normalise(suffixes), alphabet)

    @classmethod
    def _clean(cls, prefixes, suffixes, alphabet) -> "HankelBasis":
        """From lists already normalised (int tuples, ``()`` first, no repeats)."""
        basis = cls.__new__(cls)
        basis._set(prefixes, suffixes, alphabet)
        return basis

    def _set(self, prefixes, suffixes, alphabet) -> None:
        self.prefixes = prefixes
        self.suffixes = suffixes
        alphabet = np.asarray(alphabet, dtype=np.int64).reshape(-1)
        if len(alphabet) and alphabet.min() < 0:
            raise ValueError("symbol ids in the alphabet must be >= 0")
        self.alphabet = np.unique(alphabet).astype(np.int32)
        for name, (flat, _) in (("prefix", self.flat_prefixes), ("suffix", self.flat_suffixes)):
            if len(flat) and flat.min() < 0:
                raise ValueError(f"a {name} in the basis has a negative symbol id")

    # -- constructors ---------------------------------------------------------------
    @classmethod
    def all_strings(cls, alphabet, max_length: int) -> "HankelBasis":
        """P = S = every string over ``alphabet`` of length 0..max_length (by length, then
        lexicographically)."""
        if max_length < 0:
            raise ValueError("max_length must be >= 0")
        alphabet = np.unique(np.asarray(alphabet, dtype=np.int64)).tolist()
        strings = [s for n in range(max_length + 1) for s in itertools.product(alphabet, repeat=n)]
        return cls._clean(strings, strings, alphabet)

    @classmethod
    def from_corpus(cls, corpus, statistic: str = "substring", n_prefixes: int = 1000,
                    n_suffixes: int = 1000, max_length: int = 3) -> "HankelBasis":
        """The most frequent strings of length 1..max_length in ``corpus`` (plus ``()``).

        Which counts rank the candidates follows the statistic, so that the chosen rows
        and columns carry the largest entries of H:

        - ``"string"``: P = most frequent prefixes (number of strings starting with p),
          S = most frequent suffixes (number of strings ending with s);
        - ``"prefix"``: P = most frequent prefixes, S = most frequent substrings;
        - ``"substring"``: P = S = most frequent substrings (number of occurrences).

        ``n_prefixes``/``n_suffixes`` count the empty string; ties are broken by length,
        then lexicographically. The alphabet is every symbol observed in ``corpus``.
        """
        if n_prefixes < 1 or n_suffixes < 1 or max_length < 0:
            raise ValueError("n_prefixes and n_suffixes must be >= 1 and max_length >= 0")
        kind_p, kind_s = ranking_kinds(statistic)
        if kind_s == kind_p:
            ranked = _most_frequent(corpus, kind_p, max(n_prefixes, n_suffixes) - 1, max_length)
            prefixes, suffixes = ranked[: n_prefixes - 1], ranked[: n_suffixes - 1]
        else:
            prefixes = _most_frequent(corpus, kind_p, n_prefixes - 1, max_length)
            suffixes = _most_frequent(corpus, kind_s, n_suffixes - 1, max_length)
        return cls._clean([()] + prefixes, [()] + suffixes, np.unique(corpus.symbols))

    def with_prefix_closure(self) -> "HankelBasis":
        """The basis with P replaced by P ∪ P·Sigma (new prefixes appended after P), as the
        convex method needs (Balle, Quattoni & Carreras 2012, "Local loss optimization in
        operator models")."""
        known, alphabet = set(self.prefixes), self.alphabet.tolist()
        extra = [q for p in self.prefixes for a in alphabet if (q := p + (a,)) not in known]
        return HankelBasis._clean(self.prefixes + list(dict.fromkeys(extra)), self.suffixes, self.alphabet)

    # -- views -------------------------------------------------------------------------
    @property
    def n_prefixes(self) -> int:
        return len(self.prefixes)

    @property
    def n_suffixes(self) -> int:
        return len(self.suffixes)

    @cached_property
    def flat_prefixes(self) -> tuple[np.ndarray, np.ndarray]:
        """P as (int32 symbols, int64 offsets), the layout the kernels read."""
        return _flat(self.prefixes)

    @cached_property
    def flat_suffixes(self) -> tuple[np.ndarray, np.ndarray]:
        return self.flat_prefixes if self.suffixes is self.prefixes else _flat(self.suffixes)

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        return (isinstance(other, HankelBasis) and self.prefixes == other.prefixes
                and self.suffixes == other.suffixes and np.array_equal(self.alphabet, other.alphabet))

    def __repr__(self) -> str:
        return f"HankelBasis({self.n_prefixes} prefixes, {self.n_suffixes} suffixes, {len(self.alphabet)} symbols)"

    def to_json(self) -> dict:
        return {"prefixes": [list(p) for p in self.prefixes], "suffixes": [list(s) for s in self.suffixes],
                "alphabet": self.alphabet.tolist()}

    @classmethod
    def from_json(cls, data: dict) -> "HankelBasis":
        try:
            return cls(data["prefixes"], data["suffixes"], data["alphabet"])
        except (KeyError, TypeError) as e:
            raise ValueError(f"not a Hankel basis description ({e})") from None


def ranking_kinds(statistic: str) -> tuple[str, str]:
    """The counts (prefix, suffix or substring) that rank the basis prefixes and suffixes of ``statistic``."""
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, not {statistic!r}")
    return ("substring" if statistic == "substring" else "prefix",
            {"string": "suffix", "prefix": "substring", "substring": "substring"}[statistic])


def string_counts(corpus, kind: str, max_length: int) -> dict[tuple[int, ...], int]:
    """Occurrences of every non-empty prefix / suffix / substring up to ``max_length``."""
    from . import _kernels

    mode = {"prefix": _kernels.PREFIX, "suffix": _kernels.SUFFIX, "substring": _kernels.SUBSTRING}[kind]
    parent, sym, depth, count = _kernels.count_trie(corpus.symbols, corpus.offsets, mode, max_length)
    strings = _kernels.node_strings(parent, sym, depth, max(max_length, 1))
    keep = np.flatnonzero((count > 0) & (depth > 0))
    return {tuple(row[:d]): c for row, d, c in zip(strings[keep].tolist(), depth[keep].tolist(), count[keep].tolist())}


def most_frequent(counts: dict, n: int) -> list[tuple[int, ...]]:
    """The ``n`` strings of ``counts`` ranked as :meth:`HankelBasis.from_corpus` ranks them:
    by count, then the shorter, then lexicographically."""
    return sorted(counts, key=lambda s: (-counts[s], len(s), s))[:n]


def _most_frequent(corpus, kind: str, n: int, max_length: int) -> list[tuple[int, ...]]:
    """The ``n`` most frequent non-empty prefixes / suffixes / substrings up to max_length."""
    from . import _kernels

    mode = {"prefix": _kernels.PREFIX, "suffix": _kernels.SUFFIX, "substring": _kernels.SUBSTRING}[kind]
    parent, sym, depth, count = _kernels.count_trie(corpus.symbols, corpus.offsets, mode, max_length)
    strings = _kernels.node_strings(parent, sym, depth, max(max_length, 1))
    keep = np.flatnonzero((count > 0) & (depth > 0))
    keys = [strings[keep, k] for k in range(max_length - 1, -1, -1)] + [depth[keep], -count[keep]]
    chosen = keep[np.lexsort(keys)[:n]] if len(keep) else keep
    return [tuple(row[:d]) for row, d in zip(strings[chosen].tolist(), depth[chosen].tolist())]
