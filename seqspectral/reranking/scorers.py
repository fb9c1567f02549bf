"""Real-valued reranking features from any model on the per-item scorer protocol.

A :class:`CorpusScorer` turns candidate sentences into the encoded Corpus (with heads) a
model reads — the column the model was trained on (its ``reading_["field"]`` when it
records one), in the model's own vocabulary when it has one — and returns one log-score per candidate from the model's ``log_probs`` (the
:class:`~seqspectral.protocols.ItemScorer` protocol) or another such method, e.g. a tree
model's ``topology_log_probs``. Tree models, POS-sequence language models and taggers all
plug in this way.
"""

from __future__ import annotations

import numpy as np


class ScorerError(ValueError):
    """A scorer gave a score that is not a finite number."""

    user_facing = True


class CorpusScorer:
    """``name`` and ``log_probs(sentences)`` for a model scoring encoded corpora; ``source``
    (say, the model file's path and content hash) is recorded by a reranker trained on it."""

    def __init__(self, model, name: str, *, method: str = "log_probs", field: str | None = None,
                 source: dict | None = None):
        self.model = model
        self.name = name
        self.method = method
        self.source = source
        reading = getattr(model, "reading_", None) or getattr(model, "reading", None) or {}
        self.field = field or reading.get("field") or "upos"
        self.tagset = reading.get("tagset")

    def log_probs(self, sentences) -> np.ndarray:
        """One score per sentence (its own words and heads)."""
        from seqspectral.corpus import corpus_from_sentences

        return self._score(corpus_from_sentences(sentences, field=self.field, tagset=self.tagset))

    def tree_log_probs(self, trees) -> np.ndarray:
        """One score per candidate of :class:`~seqspectral.parsing.tree_lists.TreeLists`: the
        sentences are encoded once and their symbols repeated for every candidate tree."""
        from seqspectral.corpus import Corpus, corpus_from_sentences

        words = corpus_from_sentences(trees.sentences, field=self.field, tagset=self.tagset)
        corpus = Corpus(trees.tile(words.symbols, words.offsets), trees.tree_offsets, words.vocabulary, trees.heads)
        return self._score(corpus)

    def _score(self, corpus) -> np.ndarray:
        vocabulary = getattr(self.model, "vocabulary_", None) or getattr(self.model, "vocabulary", None)
        if vocabulary is not None and corpus.vocabulary != vocabulary:
            corpus = corpus.with_vocabulary(vocabulary)  # models that read ids in their own vocabulary
        scores = np.asarray(getattr(self.model, self.method)(corpus), dtype=np.float64)
        if scores.shape != (len(corpus),):
            raise ValueError(f"scorer {self.name} gave {scores.shape} scores for {len(corpus)} items")
        bad = np.flatnonzero(~np.isfinite(scores))
        if len(bad):
            raise ScorerError(f"scorer {self.name} gave {len(bad)} score(s) that are not finite numbers "
                              f"(first: {scores[bad[0]]} for item {bad[0] + 1})")
        return scores


def tree_model_scorers(model, prefix: str = "tree", topology: bool = True, source: dict | None = None
                       ) -> list[CorpusScorer]:
    """The spectral feature (log p(words | tree)) of a tree model and, when it has one and
    ``topology`` is asked for, its topology term."""
    out = [CorpusScorer(model, f"{prefix}:log_prob", source=source)]
    if topology and hasattr(model, "topology_"):
        out.append(CorpusScorer(model, f"{prefix}:topology", method="topology_log_probs", source=source))
    return out
