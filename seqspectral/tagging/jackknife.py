"""Jackknifed tagging: each fold of a corpus tagged by a tagger trained on the other folds,
so predicted tags (or n-best lists) of training data look like those of unseen data — what
a parser or a reranker trained on predicted tags needs."""

from __future__ import annotations

import numpy as np

from seqspectral.parsing.jackknife import fold_of


def jackknife(tagger, sentences, n_folds: int, k: int | None = None) -> list:
    """Every sentence tagged (1-best copies, or ``k``-best lists) by a tagger with
    ``tagger``'s settings (and the epoch count it chose on dev, if it did) trained on the
    other ``n_folds - 1`` folds (contiguous blocks); output in input order."""
    sentences = list(sentences)
    folds = fold_of(len(sentences), n_folds)
    params = tagger.get_params(deep=False)
    if hasattr(tagger, "selection_"):
        params.update(tagger.selection_.chosen)
    out = [None] * len(sentences)
    for f in range(n_folds):
        inside = np.flatnonzero(folds == f)
        model = type(tagger)(**params).fit([s for s, g in zip(sentences, folds) if g != f])
        held = [sentences[i] for i in inside]
        for i, result in zip(inside, model.kbest(held, k) if k else model.tag(held)):
            out[i] = result
    return out
