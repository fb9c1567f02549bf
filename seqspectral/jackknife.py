"""Jackknifing: each fold of a data set processed by a model trained on the other folds, so
outputs on training data (predicted tags, n-best lists) look like those on unseen data —
what a model trained on such outputs (a parser on predicted tags, a reranker) needs."""

from __future__ import annotations

import numpy as np


def fold_of(n_items: int, n_folds: int) -> np.ndarray:
    """The fold of each item: contiguous blocks of nearly equal size."""
    if n_folds < 2 or n_folds > n_items:
        raise ValueError(f"folds must be in 2..{n_items} (the number of items), not {n_folds}")
    return np.arange(n_items) * n_folds // n_items


#: held-out items given to ``apply`` at a time (a kernel holds the interpreter while it runs)
CHUNK = 128


def jackknife(estimator, items, n_folds: int, apply, progress: bool | None = None) -> list:
    """``apply(model, held_out_items)`` (one result per item, items independent: called on chunks
    of at most :data:`CHUNK`) for every fold, ``model`` a fresh
    estimator with ``estimator``'s settings (and the choices it made on dev, its
    ``selection_.chosen``, if it made any) fitted on the other ``n_folds - 1`` folds;
    results in input order. The folds are one stage of :mod:`seqspectral.progress`, a step each
    (``progress``: a line per fold in a log, a bar on a terminal; None: part of the stage it
    runs in, if any)."""
    from .progress import stage

    items = list(items)
    folds = fold_of(len(items), n_folds)
    params = estimator.get_params(deep=False)
    if getattr(estimator, "selection_", None) is not None:
        params.update(estimator.selection_.chosen)
    out = [None] * len(items)
    with stage("jackknife", total=n_folds, unit="fold", show=progress, inner=progress is None) as done:
        for f in range(n_folds):
            inside = np.flatnonzero(folds == f)
            model = type(estimator)(**params).fit([x for x, g in zip(items, folds) if g != f])
            for start in range(0, len(inside), CHUNK):  # between two calls: the heartbeat, an interrupt
                part = inside[start:start + CHUNK]
                for i, result in zip(part, apply(model, [items[i] for i in part])):
                    out[i] = result
            done.step(f"{len(inside)} {'item' if len(inside) == 1 else 'items'} predicted")
    return out
