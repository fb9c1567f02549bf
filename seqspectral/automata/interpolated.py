"""Smoothing by interpolation: p(e | h) = Σ_i λ_i p_i(e | h) over several automata.

Each p_i is the (floored, renormalised) conditional of a ``WeightedAutomaton``, so the
mixture is again a proper distribution over the alphabet and stop at every prefix; the
weights are chosen on held-out data (``HankelEstimator(smoothing=...)``). The usual
lower-order partner is an add-k bigram, itself a stochastic automaton whose state is the
previous symbol (``bigram_automaton``): mixing a spectral WA with it repairs the
positions where the WA's weight for the actual event is negative (measured on EWT POS
tags: 7.55 → 7.10 perplexity, notes/spectral-wa-findings.md).
"""

from __future__ import annotations

import numpy as np

from ..corpus.vocabulary import Vocabulary
from ..metrics import LanguageModelMixin, event_targets
from .wfa import WeightedAutomaton


def bigram_automaton(corpus, n_symbols: int, k: float = 0.1, vocabulary=None) -> WeightedAutomaton:
    """Add-k bigram as a stochastic automaton: state = previous symbol (EOS's row = start).

    p(e | q) = (c(q, e) + k) / (c(q) + k |E|) over the events E = ids 2.. plus stop.
    """
    if k <= 0:
        raise ValueError("k must be positive")
    start = Vocabulary.EOS_ID
    targets = event_targets(corpus).astype(np.int64)
    starts = corpus.offsets[:-1] + np.arange(len(corpus))
    previous = np.roll(targets, 1)
    previous[starts] = start
    counts = np.zeros((n_symbols, n_symbols))
    np.add.at(counts, (previous, targets), 1.0)
    events = np.append(np.arange(Vocabulary.N_RESERVED, n_symbols), start)
    table = np.zeros((n_symbols, n_symbols))
    table[:, events] = counts[:, events] + k
    table /= table.sum(axis=1, keepdims=True)
    operators = np.zeros((n_symbols, n_symbols, n_symbols))
    sym = np.arange(Vocabulary.N_RESERVED, n_symbols)
    operators[sym, :, sym] = table[:, sym].T  # A_σ[q, σ] = p(σ | q)
    initial = np.zeros(n_symbols)
    initial[start] = 1.0
    return WeightedAutomaton(initial, table[:, start], operators, vocabulary, floor=0.0)


class Interpolated(LanguageModelMixin):
    """The per-prefix mixture Σ_i λ_i p_i(e | h) of automata sharing their event set."""

    def __init__(self, models, weights):
        self.models = list(models)
        self.weights = np.asarray(weights, dtype=np.float64)
        if len(self.models) != len(self.weights) or not self.models:
            raise ValueError("one weight per model is needed")
        if np.any(self.weights < 0) or not np.isclose(self.weights.sum(), 1.0):
            raise ValueError(f"weights must be non-negative and sum to 1, got {self.weights}")
        events = self.models[0].event_ids
        if any(not np.array_equal(m.event_ids, events) for m in self.models[1:]):
            raise ValueError("the models must share their events (alphabet and stop)")

    @property
    def event_ids(self) -> np.ndarray:
        return self.models[0].event_ids

    def event_distributions(self, corpus) -> np.ndarray:
        return sum(w * m.event_distributions(corpus) for w, m in zip(self.weights, self.models) if w > 0)

    def event_log_probs(self, corpus):
        """The event protocol of ``seqspectral.metrics``."""
        return log_probs_from_distributions(self.event_distributions(corpus), self.event_ids, corpus)


def log_probs_from_distributions(probs: np.ndarray, event_ids: np.ndarray, corpus):
    """(log_prob, predicted) of the event protocol from full conditionals (n_events, |E|)."""
    cols = target_columns(corpus, event_ids)
    if np.any(cols < 0):
        raise ValueError("the corpus has symbols outside the models' alphabet; encode it with the model's vocabulary")
    with np.errstate(divide="ignore"):
        log_prob = np.log(probs[np.arange(len(cols)), cols])
    return log_prob, event_ids[np.argmax(probs, axis=1)].astype(np.int32)


def target_columns(corpus, event_ids) -> np.ndarray:
    """Column of every actual event of ``corpus`` among ``event_ids`` (-1: not an event)."""
    column = np.full(max(int(event_ids.max()), int(corpus.symbols.max(initial=0))) + 1, -1, dtype=np.int64)
    column[event_ids] = np.arange(len(event_ids))
    return column[event_targets(corpus)]
