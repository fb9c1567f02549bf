"""Dependency trees as head arrays: validation and projectivity."""

from __future__ import annotations

import numpy as np


def head_errors(heads) -> str | None:
    """Why ``heads`` is not a dependency tree, or None when it is one.

    ``heads[i]`` is the head of word ``i + 1`` (1-based), 0 for the root. A tree has
    exactly one root, every head in ``0..n`` and no word its own head, and no cycle.
    """
    heads = np.asarray(heads)
    n = len(heads)
    if n == 0:
        return None
    bad = np.flatnonzero((heads < 0) | (heads > n))
    if len(bad):
        return f"head {int(heads[bad[0]])} of word {bad[0] + 1} is out of range 0..{n}"
    roots = np.flatnonzero(heads == 0)
    if len(roots) != 1:
        return f"{len(roots)} roots (words {', '.join(str(r + 1) for r in roots[:5])})" if len(roots) else "no root"
    self_loops = np.flatnonzero(heads == np.arange(1, n + 1))
    if len(self_loops):
        return f"word {self_loops[0] + 1} is its own head"
    # every word must reach the root within n steps
    state = np.zeros(n + 1, dtype=np.int8)  # 0 unseen, 1 on the current path, 2 reaches root
    state[0] = 2
    for start in range(1, n + 1):
        path = []
        w = start
        while state[w] == 0:
            state[w] = 1
            path.append(w)
            w = int(heads[w - 1])
        if state[w] == 1:
            return f"cycle through word {w}"
        for p in path:
            state[p] = 2
    return None


def is_projective(heads) -> bool:
    """True when no two arcs cross (the root arc counted from position 0)."""
    heads = np.asarray(heads)
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads.tolist(), start=1)]
    for i, (a, b) in enumerate(arcs):
        for c, d in arcs[i + 1:]:
            if a < c < b < d or c < a < d < b:
                return False
    return True


class DependencyTree:
    """A validated dependency tree over ``n`` words: ``heads`` 1-based, 0 = root."""

    __slots__ = ("heads",)

    def __init__(self, heads):
        heads = np.asarray(heads, dtype=np.int32)
        problem = head_errors(heads)
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
