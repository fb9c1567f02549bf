"""Jackknifed parsing: each fold of a treebank parsed by a parser trained on the others,
so n-best lists of training data look like those of unseen data (what a reranker trains on)."""

from __future__ import annotations

import numpy as np


def fold_of(n_sentences: int, n_folds: int) -> np.ndarray:
    """The fold of each sentence: contiguous blocks of nearly equal size."""
    if n_folds < 2 or n_folds > n_sentences:
        raise ValueError(f"folds must be in 2..{n_sentences} (the number of sentences), not {n_folds}")
    return np.arange(n_sentences) * n_folds // n_sentences


def jackknife(parser, sentences, n_folds: int, k: int | None = None) -> list:
    """Every sentence parsed (1-best, or ``k``-best lists) by a clone of ``parser``'s settings
    (with the epoch count it chose on dev, if it did) trained on the other ``n_folds - 1``
    folds; output in input order."""
    sentences = list(sentences)
    folds = fold_of(len(sentences), n_folds)
    params = parser.get_params(deep=False)
    if hasattr(parser, "selection_"):
        params.update(parser.selection_.chosen)
    out = [None] * len(sentences)
    for f in range(n_folds):
        inside = np.flatnonzero(folds == f)
        model = type(parser)(**params)
        model.fit([s for s, g in zip(sentences, folds) if g != f])
        held = [sentences[i] for i in inside]
        parsed = model.kbest(held, k) if k else model.parse(held)
        for i, p in zip(inside, parsed):
            out[i] = p
    return out
