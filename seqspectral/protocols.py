"""The two protocols every model of the toolkit speaks.

**Sequence language model** — ``event_log_probs(corpus) -> EventLogProbs``: one entry per
*event*, the tokens of each sequence followed by one stop event (id ``Vocabulary.EOS_ID``),
so sequence ``i`` owns events ``offsets[i] + i`` to ``offsets[i + 1] + i`` inclusive.
``log_prob`` is the natural log of the model's normalised conditional probability of the
actual event, ``predicted`` (int32) the most likely event after the same prefix, and
``n_floored`` / ``n_weights`` count the next-event weights the non-stochastic rule floored
and all weights it looked at (0 and 0 for models stochastic by construction). Each
conditional is a proper distribution over the alphabet and stop (DESIGN.md, Definitions),
so perplexity, WER and sequence probabilities come from one distribution.
:class:`SequenceLanguageModel` derives ``sequence_log_probs``, ``log_probs`` and ``score``.

**Per-item scorer** — ``log_probs(items) -> np.ndarray``: one natural-log score per item
(a sequence of a corpus, a tree, a tagged sentence), in order. Language models, tree
models, taggers and the reranker's feature scorers share it, so a reranker can take any of
them as a feature.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from .metrics import sequence_log_probs


def in_vocabulary(corpus, vocabulary):
    """``corpus`` encoded in ``vocabulary`` (a model's): re-encoded when it was read with
    another one (its symbols the model lacks become UNK), so ids always mean the model's words."""
    if vocabulary is None or corpus.vocabulary is None or corpus.vocabulary is vocabulary or \
            corpus.vocabulary == vocabulary:
        return corpus
    return corpus.with_vocabulary(vocabulary)


class EventLogProbs(NamedTuple):
    """Per-event log-probabilities, predictions and the floored-weight counts."""

    log_prob: np.ndarray
    predicted: np.ndarray
    n_floored: int = 0
    n_weights: int = 0


@runtime_checkable
class ItemScorer(Protocol):
    """Anything giving one log-score per item."""

    def log_probs(self, items) -> np.ndarray: ...


class SequenceLanguageModel:
    """Base of every sequence language model: implement ``event_log_probs``, get the rest."""

    def event_log_probs(self, corpus) -> EventLogProbs:
        raise NotImplementedError

    def sequence_log_probs(self, corpus) -> np.ndarray:
        """Natural-log probability of every sequence of ``corpus``."""
        return sequence_log_probs(self.event_log_probs(corpus).log_prob, corpus)

    def log_probs(self, items) -> np.ndarray:
        """The per-item scorer protocol: ``sequence_log_probs``."""
        return self.sequence_log_probs(items)

    def score(self, corpus) -> float:
        """Mean log-likelihood per sequence (natural log; higher is better)."""
        return float(self.sequence_log_probs(corpus).mean())
