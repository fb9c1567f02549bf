"""Dependency trees as head arrays: validation (one tree or a whole treebank) and projectivity."""

from __future__ import annotations

import numpy as np


def head_problem(heads, several_roots: bool = False) -> tuple[int, str] | None:
    """``(word, reason)`` for the first defect of ``heads`` as a tree, or None when it is one.

    ``heads[i]`` is the head of word ``i + 1`` (1-based), 0 for the root. A tree has every
    head in ``0..n``, exactly one root (at least one with ``several_roots``: several words
    attached to the artificial root, as CoNLL-X allows), no word its own head, and no
    cycle. ``word`` is the 1-based position the defect is found at.
    """
    heads = np.asarray(heads)
    n = len(heads)
    if n == 0:
        return None
    bad = np.flatnonzero((heads < 0) | (heads > n))
    if len(bad):
        return int(bad[0]) + 1, f"head {int(heads[bad[0]])} of word {bad[0] + 1} is out of range 0..{n}"
    roots = np.flatnonzero(heads == 0)
    if len(roots) == 0:
        return 1, "no root (no word has head 0)"
    if len(roots) > 1 and not several_roots:
        return int(roots[1]) + 1, f"{len(roots)} roots (words {', '.join(str(r + 1) for r in roots[:5])})"
    self_loops = np.flatnonzero(heads == np.arange(1, n + 1))
    if len(self_loops):
        return int(self_loops[0]) + 1, f"word {self_loops[0] + 1} is its own head"
    state = np.zeros(n + 1, dtype=np.int8)  # 0 unseen, 1 on the current path, 2 reaches the root
    state[0] = 2
    for start in range(1, n + 1):
        path = []
        w = start
        while state[w] == 0:
            state[w] = 1
            path.append(w)
            w = int(heads[w - 1])
        if state[w] == 1:
            return w, f"cycle through word {w}"
        for p in path:
            state[p] = 2
    return None


def head_errors(heads, several_roots: bool = False) -> str | None:
    """Why ``heads`` is not a dependency tree, or None when it is one."""
    problem = head_problem(heads, several_roots)
    return None if problem is None else problem[1]


def invalid_trees(heads, offsets, several_roots: bool = False) -> np.ndarray:
    """Indices of the sentences of a flat treebank whose heads do not form a tree
    (with one root attachment, or at least one with ``several_roots``); one compiled pass
    (``tree_defects``)."""
    from ._kernels import tree_defects

    return np.flatnonzero(tree_defects(np.ascontiguousarray(heads, dtype=np.int64),
                                       np.ascontiguousarray(offsets, dtype=np.int64), several_roots)[0])


def is_projective(heads) -> bool:
    """True when no two arcs cross (the root arcs counted from position 0)."""
    heads = np.asarray(heads, dtype=np.int32)
    return not nonprojective(heads, np.array([0, len(heads)], dtype=np.int64))[0]


def nonprojective(heads, offsets) -> np.ndarray:
    """For each sentence of a flat treebank of valid trees: whether two of its arcs cross.

    Linear time and memory: arcs cross exactly when the words under some word do not
    form one contiguous span (with the root at position 0).
    """
    from ._kernels import nonprojective_sentences

    return nonprojective_sentences(np.ascontiguousarray(heads, dtype=np.int32),
                                   np.ascontiguousarray(offsets, dtype=np.int64))


class DependencyTree:
    """A validated dependency tree over ``n`` words: ``heads`` 1-based, 0 = root."""

    __slots__ = ("heads",)

    def __init__(self, heads, several_roots: bool = False):
        heads = np.asarray(heads, dtype=np.int32)
        problem = head_errors(heads, several_roots)
        if problem:
            raise ValueError(f"not a dependency tree: {problem}")
        self.heads = heads

    def __len__(self) -> int:
        return len(self.heads)

    def is_projective(self) -> bool:
        return is_projective(self.heads)

    def children(self, word: int) -> np.ndarray:
        """1-based positions of the dependents of ``word`` (0 = the root), left to right."""
        return np.flatnonzero(self.heads == word) + 1
