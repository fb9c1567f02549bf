"""The embedding vocabulary: normalised word forms, a frequency cut-off, the unknown word.

Words are normalised (optionally case-folded, every digit optionally written ``0``), then
the ``max_vocab`` most frequent forms seen at least ``min_count`` times are kept; every
other token is the unknown word ``<unk>`` (id 0), which so gets a vector of its own. Id 1
(``</s>``) is the sentence boundary, used only as a context.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from itertools import repeat

import numpy as np

from seqspectral.corpus import Corpus, Vocabulary

_DIGIT = re.compile(r"\d")


def normalise(word: str, lowercase: bool, digits: bool) -> str:
    """``word`` case-folded and with every digit written 0, as asked."""
    if lowercase:
        word = word.lower()
    if digits:
        word = _DIGIT.sub("0", word)
    return word


def normalise_all(words: list[str], lowercase: bool, digits: bool) -> list[str]:
    """:func:`normalise` of each of ``words``, a list at a time (C-level ``map`` and
    ``str.translate``: the digits are the characters ``\\d`` matches)."""
    if lowercase:
        words = list(map(str.lower, words))
    if digits:
        zero = {ord(c): "0" for c in set("".join(words)) if _DIGIT.match(c)}
        words = list(map(str.translate, words, repeat(zero)))
    return words


def word_counts(corpora: Iterable[Corpus], lowercase: bool, digits: bool) -> Counter:
    """Token counts of the normalised forms over ``corpora`` (reserved ids not counted)."""
    counts: Counter = Counter()
    for corpus in corpora:
        if corpus.vocabulary is None:
            raise ValueError("CCA embeddings need corpora with a vocabulary (words, not bare ids)")
        n = np.bincount(corpus.symbols, minlength=len(corpus.vocabulary)).tolist()
        for i, (symbol, c) in enumerate(zip(corpus.vocabulary.symbols, n)):
            if i >= Vocabulary.N_RESERVED and c:
                counts[normalise(symbol, lowercase, digits)] += c
    return counts


def build_vocabulary(counts: Counter, min_count: int, max_vocab: int | None) -> Vocabulary:
    """The kept forms, most frequent first (ties by name)."""
    vocabulary = Vocabulary.from_counts(counts, min_count)
    if max_vocab is not None and len(vocabulary) - Vocabulary.N_RESERVED > max_vocab:
        vocabulary = Vocabulary(vocabulary.symbols[Vocabulary.N_RESERVED:Vocabulary.N_RESERVED + max_vocab])
    return vocabulary


def word_map(corpus: Corpus, vocabulary: Vocabulary, lowercase: bool, digits: bool) -> np.ndarray:
    """int32 array: corpus id -> embedding id (kept forms; everything else ``<unk>``)."""
    table = np.array([vocabulary.id(normalise(s, lowercase, digits)) for s in corpus.vocabulary.symbols], dtype=np.int32)
    table[:Vocabulary.N_RESERVED] = Vocabulary.UNK_ID
    return table
