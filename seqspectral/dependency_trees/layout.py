"""The layout of a treebank the tree kernels share: heads, dependents, a top-down order."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _kernels


class TreeError(ValueError):
    """A corpus whose heads do not form trees (the message names sentence and word)."""

    user_facing = True


class TreeLayout(NamedTuple):
    """See :func:`seqspectral.dependency_trees._kernels.tree_layout`."""

    parent: np.ndarray
    is_left: np.ndarray
    order: np.ndarray
    child_start: np.ndarray
    child_list: np.ndarray


def tree_layout(corpus) -> TreeLayout:
    """The layout of every tree of ``corpus`` (a Corpus with ``heads``); a clear
    :class:`TreeError` when a sentence is not a tree."""
    if corpus.heads is None:
        raise TreeError("a tree model needs a corpus with heads (a treebank such as CoNLL-U)")
    *arrays, bad = _kernels.tree_layout(corpus.heads, corpus.offsets)
    if bad >= 0:
        sentence = int(np.searchsorted(corpus.offsets, bad, side="right")) - 1
        word = bad - int(corpus.offsets[sentence]) + 1
        raise TreeError(f"sentence {sentence + 1}: word {word} (head {int(corpus.heads[bad])}) is not "
                        "attached to the root by a chain of heads (head out of range, itself, or a cycle)")
    return TreeLayout(*arrays)
