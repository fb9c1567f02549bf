"""Jackknifed tagging (:mod:`seqspectral.jackknife`): each fold of a corpus tagged by a
tagger trained on the other folds — what a parser or a reranker trained on predicted tags
needs."""

from __future__ import annotations

from seqspectral import jackknife as _jackknife


def jackknife(tagger, sentences, n_folds: int, k: int | None = None, progress: bool | None = None) -> list:
    """Every sentence tagged (1-best copies, or ``k``-best lists) by a tagger with
    ``tagger``'s settings (and the epoch count it chose on dev, if it did) trained on the
    other ``n_folds - 1`` folds (contiguous blocks); output in input order."""
    return _jackknife.jackknife(tagger, sentences, n_folds,
                                lambda model, held: model.kbest(held, k) if k else model.tag(held), progress)
