"""How far gold trees are from projective: their non-projective arcs, and the projective tree
closest to each (Eisner's algorithm over a score of 1 for a gold arc) — the ceiling of a
projective decoder on a treebank."""

from __future__ import annotations

import numpy as np

from ._eisner_kernels import eisner
from ._training_kernels import crossing_arcs


def non_projective_arcs(heads) -> int:
    """The arcs of one tree (``heads`` of words 1..n, 0 the root) with a word between head and
    dependent that the head does not dominate."""
    table = np.concatenate(([0], np.asarray(heads))).astype(np.int32)
    return int(crossing_arcs(table, np.array([0, len(table)], dtype=np.int64)))


def closest_projective_heads(heads, single_root: bool = True) -> np.ndarray:
    """The heads of the projective tree sharing the most arcs with ``heads`` (exactly one
    dependent of the root when ``single_root``)."""
    gold = np.asarray(heads, dtype=np.int64)
    n = len(gold)
    scores = np.zeros((n + 1, n + 1))
    scores[gold, np.arange(1, n + 1)] = 1.0
    return np.asarray(eisner(scores, single_root))
