"""Smoothing by interpolation: λ·p_model(e | h) + (1 − λ)·p_lower(e | h).

Both conditionals are proper distributions over the alphabet and stop after every
history, so the mixture is one too; λ is chosen on held-out data (:func:`select_weight`).
The usual lower-order partner is an add-k bigram (:class:`seqspectral.ngram.NGramLM`):
mixing a spectral automaton with it repairs the positions where the automaton's weight for
the actual event is negative (EWT POS tags: 7.55 → 7.10 perplexity,
shared/notes/spectral-wa-findings.md).
"""

from __future__ import annotations

import inspect

import numpy as np

from ..metrics import LanguageModelMixin

#: weights λ tried by :func:`select_weight` (λ = 1: the model alone)
WEIGHT_GRID = np.linspace(0.0, 1.0, 21)
_MAX_DISTRIBUTION_CELLS = 20_000_000


class Interpolated(LanguageModelMixin):
    """The per-history mixture of ``model`` (weight λ) and ``lower`` (weight 1 − λ).

    Follows the event protocol of :mod:`seqspectral.metrics`. The prediction (for WER) is
    the argmax of the mixed distribution, from both models' whole next-event distributions
    (an HMM's through its automaton), computed a block of sequences at a time.
    """

    def __init__(self, model, lower, weight: float):
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"the mixture weight must be in [0, 1], got {weight}")
        self.model = model
        self.lower = lower
        self.weight = float(weight)

    def event_log_probs(self, corpus, return_n_floored: bool = False):
        """(log_prob, predicted[, n_floored, n_weights]): the floored counts are ``model``'s."""
        if return_n_floored and counts_floored(self.model):
            lp_model, predicted, n_floored, n_weights = self.model.event_log_probs(corpus, return_n_floored=True)
        else:
            (lp_model, predicted), n_floored, n_weights = self.model.event_log_probs(corpus), 0, 0
        log_prob = mix_log_probs(lp_model, self.lower.event_log_probs(corpus)[0], self.weight)
        if self.weight < 1.0:
            n_blocks = 1 + (corpus.n_tokens + len(corpus)) * len(self.lower.event_ids) // _MAX_DISTRIBUTION_CELLS
            predicted = np.concatenate([self._predict(corpus.subset(block))
                                        for block in np.array_split(np.arange(len(corpus)), n_blocks)])
        if return_n_floored:
            return log_prob, predicted, n_floored, n_weights
        return log_prob, predicted

    def _predict(self, corpus) -> np.ndarray:
        probs_a, ids_a = next_event_distributions(self.model, corpus)
        probs_b, ids_b = next_event_distributions(self.lower, corpus)
        column = np.full(max(ids_a.max(), ids_b.max()) + 1, -1)
        column[ids_b] = np.arange(len(ids_b))
        mixed = self.weight * probs_a + (1.0 - self.weight) * probs_b[:, column[ids_a]]
        return ids_a[np.argmax(mixed, axis=1)].astype(np.int32)


def mix_log_probs(lp_model: np.ndarray, lp_lower: np.ndarray, weight: float) -> np.ndarray:
    """log(λ·exp(lp_model) + (1 − λ)·exp(lp_lower)), exact at λ = 0 and λ = 1."""
    if weight >= 1.0:
        return lp_model
    if weight <= 0.0:
        return lp_lower
    return np.logaddexp(np.log(weight) + lp_model, np.log1p(-weight) + lp_lower)


def select_weight(lp_model: np.ndarray, lp_lower: np.ndarray, grid=None) -> float:
    """The weight λ of ``grid`` maximising the held-out log-likelihood of the mixture."""
    grid = WEIGHT_GRID if grid is None else np.asarray(grid)
    scores = [mix_log_probs(lp_model, lp_lower, w).sum() for w in grid]
    return float(grid[int(np.argmax(scores))])


def next_event_distributions(model, corpus) -> tuple[np.ndarray, np.ndarray]:
    """(probs of shape (n_events, n_event_ids), event_ids): the distribution before every event."""
    if not hasattr(model, "event_distributions") and hasattr(model, "to_automaton"):
        model = model.to_automaton()
    return model.event_distributions(corpus), np.asarray(model.event_ids)


def counts_floored(model) -> bool:
    """Whether ``model.event_log_probs`` can report how many weights the non-stochastic rule
    floored (it takes ``return_n_floored``: automata and the estimators that wrap them)."""
    try:
        return "return_n_floored" in inspect.signature(model.event_log_probs).parameters
    except (AttributeError, TypeError, ValueError):
        return False
