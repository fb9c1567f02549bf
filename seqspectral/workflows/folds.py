"""Jackknifing folds of a build: the fold blocks, the workers that tag or parse one fold
(module level: they run in worker processes), and the n-best trees a stage keeps."""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from seqspectral.io import atomic_open
from seqspectral.tagging.columns import ATTRIBUTE


#: sentences k-best parsed per kernel call (the kernel holds the interpreter while it runs)
KBEST_CHUNK = 128


def fold_blocks(n: int, folds: int) -> list[tuple[int, int]]:
    """``[(start, stop)]`` of each fold's consecutive sentences (:func:`seqspectral.jackknife.fold_of`)."""
    from seqspectral.jackknife import fold_of

    of = fold_of(n, folds)
    return [(int(np.flatnonzero(of == f)[0]), int(np.flatnonzero(of == f)[-1]) + 1) for f in range(folds)]


def tag_fold(params: dict, fields: list[str], train: list, held: list) -> tuple[list[dict], float]:
    """The ``fields`` of ``held`` predicted by models trained on ``train``, one after the other
    (each reading the columns predicted before it), as sentence attributes to replace
    (``lemmas`` for LEMMA), and the CPU seconds spent."""
    from seqspectral.tagging.columns import ColumnTaggers

    start = time.process_time()
    clusters = next((p["clusters"] for p in params.values() if p.get("clusters") is not None), None)
    model = ColumnTaggers(tuple(fields), clusters=clusters).fitted_with(params, train)
    tagged = model.tag(held)
    attributes = [ATTRIBUTE[f] for f in fields]
    return [{a: getattr(s, a) for a in attributes} for s in tagged], time.process_time() - start


def parse_fold(params: dict, train: list, held: list, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The k-best trees of ``held`` by a parser trained on ``train``, and the CPU seconds spent."""
    from seqspectral.parsing import DependencyParser

    start = time.process_time()
    parser = DependencyParser(**{**params, "labels": False}).fit(train)  # the trees only: no label classifier
    # in chunks: between two kernel calls the progress heartbeat and an interrupt get their turn
    parts = [parser.kbest_trees(held[i:i + KBEST_CHUNK], k) for i in range(0, len(held), KBEST_CHUNK)]
    return (np.concatenate([p.heads for p in parts]), np.concatenate([p.scores for p in parts]),
            np.concatenate([p.n_trees for p in parts]), time.process_time() - start)


def parallel_map(function, jobs: list[tuple], workers: int):
    """``function(*job)`` of every job, in order, as each is done (on ``workers`` processes)."""
    if workers <= 1 or len(jobs) <= 1:
        yield from (function(*job) for job in jobs)
        return
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        yield from pool.map(function, *zip(*jobs))


def save_trees(path: Path, trees) -> None:
    """A stage's n-best trees (the build's own cache, not a model file: plain .npz, no pickles)."""
    with atomic_open(path, "wb", encoding=None) as f:
        np.savez(f, heads=trees.heads, scores=trees.scores, n_trees=trees.n_trees)


def load_trees(path: Path, sentences):
    """The n-best trees :func:`save_trees` wrote, over ``sentences``."""
    from seqspectral.parsing import TreeLists

    with np.load(path, allow_pickle=False) as arrays:
        return TreeLists(list(sentences), arrays["heads"], arrays["scores"], arrays["n_trees"])
