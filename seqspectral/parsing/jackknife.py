"""Jackknifed parsing: each fold of a treebank parsed by a parser trained on the others,
so n-best lists of training data look like those of unseen data (what a reranker trains on)."""

from __future__ import annotations

from seqspectral import jackknife as _shared


def jackknife(parser, sentences, n_folds: int, k: int | None = None, progress: bool | None = None) -> list:
    """Every sentence parsed (1-best, or ``k``-best lists) by a clone of ``parser``'s settings
    (with the epoch count it chose on dev, if it did) trained on the other ``n_folds - 1``
    folds (:func:`seqspectral.jackknife.jackknife`); output in input order."""
    return _shared.jackknife(parser, sentences, n_folds,
                             lambda model, held: model.kbest(held, k) if k else model.parse(held), progress)
