"""Spectral reranking features finer than one log p̂(words | tree) per candidate: the tree
model's per-word conditional log-probabilities log p̂(x_i | E_i, descendants of i)
(:func:`seqspectral.dependency_trees.spectral.conditional_log_probs`) summed by the side of its head the
word hangs on (left dependent, right dependent, child of the root), so the reranker weighs
the model's evidence on each kind of attachment on its own; their sum is the global feature.
"""

from __future__ import annotations

import numpy as np

SIDES = ("left", "right", "root")


class DirectionScorers:
    """Three scorers (``<prefix>:left``, ``:right``, ``:root``) over one spectral tree model,
    sharing one pass of the model per set of candidates."""

    def __init__(self, model, prefix: str = "tree"):
        self.model = model
        self.prefix = prefix
        self._cache: tuple[int, np.ndarray] | None = None

    def scorers(self) -> list["_Side"]:
        return [_Side(self, j, f"{self.prefix}:{side}") for j, side in enumerate(SIDES)]

    def by_side(self, trees) -> np.ndarray:
        """Per candidate of :class:`~seqspectral.parsing.tree_lists.TreeLists`, the sums of
        its words' conditional log-probabilities by side (columns :data:`SIDES`)."""
        if self._cache is not None and self._cache[0] == id(trees):
            return self._cache[1]
        from seqspectral.corpus import Corpus, Reading, corpus_from_sentences
        from seqspectral.dependency_trees.spectral import conditional_log_probs

        model = self.model
        reading = getattr(model, "reading_", None) or Reading()
        words = corpus_from_sentences(trees.sentences, field=reading.field, tagset=reading.tagset)
        corpus = Corpus(trees.tile(words.symbols, words.offsets), trees.tree_offsets, words.vocabulary, trees.heads)
        if corpus.vocabulary != model.vocabulary_:
            corpus = corpus.with_vocabulary(model.vocabulary_)
        (per_word,), _, _ = conditional_log_probs(model.operators_, corpus, model.frequencies_, (model.floor_,))
        offsets = trees.tree_offsets
        lengths = np.diff(offsets)
        candidate = np.repeat(np.arange(len(lengths)), lengths)
        position = np.arange(offsets[-1]) - np.repeat(offsets[:-1], lengths) + 1
        heads = trees.heads
        side = np.where(heads == 0, 2, np.where(position < heads, 0, 1))
        out = np.bincount(candidate * 3 + side, weights=per_word, minlength=3 * len(lengths)).reshape(-1, 3)
        self._cache = (id(trees), out)
        return out


class _Side:
    """One column of :class:`DirectionScorers` (the scorer interface of :mod:`.parses`)."""

    source = None  # no model file of its own: the tree model's

    def __init__(self, parent: DirectionScorers, column: int, name: str):
        self.parent, self.column, self.name = parent, column, name

    def tree_log_probs(self, trees) -> np.ndarray:
        return self.parent.by_side(trees)[:, self.column]
