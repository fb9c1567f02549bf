"""Smoothing by interpolation: λ·p_model(e | h) + (1 − λ)·p_lower(e | h).

Both conditionals are proper distributions over the alphabet and stop after every
history, so the mixture is one too; λ is chosen on held-out data (:func:`select_weight`,
through ``seqspectral.selection``). The usual lower-order partner is an add-k bigram
(:class:`seqspectral.lm.ngram.NGramLM`): mixing a spectral automaton with it repairs the
positions where the automaton's weight for the actual event is negative (EWT POS tags:
7.55 → 7.10 perplexity, shared/notes/spectral-wa-findings.md).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..protocols import EventLogProbs, SequenceLanguageModel
from ..selection import SelectionResult, grid_search
from ..serialize import nest, unnest

_MAX_DISTRIBUTION_CELLS = 20_000_000


class Interpolated(SequenceLanguageModel):
    """The per-history mixture of ``model`` (weight λ) and ``lower`` (weight 1 − λ).

    The prediction (for WER) is the argmax of the mixed distribution, from both models'
    whole next-event distributions (``event_distributions``), a block of sequences at a
    time. The floored-weight counts reported are ``model``'s.
    """

    kind = "interpolated"

    def __init__(self, model, lower, weight: float):
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"the mixture weight must be in [0, 1], got {weight}")
        self.model = model
        self.lower = lower
        self.weight = float(weight)

    def event_log_probs(self, corpus) -> EventLogProbs:
        own = self.model.event_log_probs(corpus)
        log_prob = mix_log_probs(own.log_prob, self.lower.event_log_probs(corpus).log_prob, self.weight)
        predicted = own.predicted
        if self.weight < 1.0:
            n_blocks = 1 + (corpus.n_tokens + len(corpus)) * len(self.lower.event_ids) // _MAX_DISTRIBUTION_CELLS
            predicted = np.concatenate([self._predict(corpus.subset(block))
                                        for block in np.array_split(np.arange(len(corpus)), n_blocks)])
        return EventLogProbs(log_prob, predicted, own.n_floored, own.n_weights)

    def _predict(self, corpus) -> np.ndarray:
        probs_a, ids_a = self.model.event_distributions(corpus), np.asarray(self.model.event_ids)
        probs_b, ids_b = self.lower.event_distributions(corpus), np.asarray(self.lower.event_ids)
        column = np.full(max(ids_a.max(), ids_b.max()) + 1, -1)
        column[ids_b] = np.arange(len(ids_b))
        mixed = self.weight * probs_a + (1.0 - self.weight) * probs_b[:, column[ids_a]]
        return ids_a[np.argmax(mixed, axis=1)].astype(np.int32)

    def to_state(self) -> tuple[dict, dict]:
        model_header, model_arrays = nest("model", self.model)
        lower_header, lower_arrays = nest("lower", self.lower)
        return {"weight": self.weight, "model": model_header, "lower": lower_header}, {**model_arrays, **lower_arrays}

    @classmethod
    def schema(cls, header: dict):
        from seqspectral.serialize import nested_schema

        if not 0.0 <= float(header["weight"]) <= 1.0:
            raise ValueError(f"mixture weight {header['weight']!r} is not in [0, 1]")
        return nested_schema("model", header["model"]).merged(nested_schema("lower", header["lower"]))

    @classmethod
    def from_state(cls, header: dict, arrays: dict) -> "Interpolated":
        return cls(unnest("model", header["model"], arrays), unnest("lower", header["lower"], arrays), header["weight"])


def mix_log_probs(lp_model: np.ndarray, lp_lower: np.ndarray, weight: float) -> np.ndarray:
    """log(λ·exp(lp_model) + (1 − λ)·exp(lp_lower)), exact at λ = 0 and λ = 1."""
    if weight >= 1.0:
        return lp_model
    if weight <= 0.0:
        return lp_lower
    return np.logaddexp(np.log(weight) + lp_model, np.log1p(-weight) + lp_lower)


def select_weight(totals: Mapping[float, float], n_sequences: int, on: str) -> SelectionResult:
    """The weight λ maximising the held-out log-likelihood per sequence of the mixture, from
    every weight's total (``FloorSweep.mixed``: all scored in the floor sweep's one pass)."""
    return grid_search({"model_weight": tuple(totals)}, lambda model_weight: totals[model_weight] / n_sequences, on)
