"""Unknown symbols: a base model made total over UNK.

A model's vocabulary is its training corpus's; a symbol it never saw is read as UNK
(id 0). :class:`UnknownEscape` gives UNK a fixed probability ε after every history (the
Good-Turing estimate of unseen mass in the training data, n1/(N+1), at least 1/(N+1)) and
scales the base model's conditionals by 1 − ε. The history seen by the base model skips
unknown tokens (``Corpus.drop_unknown``), so each conditional stays a proper distribution
over UNK, the alphabet and stop; the base models never see id 0. No whole-string floor is
ever applied.
"""

from __future__ import annotations

import numpy as np

from ..corpus import Corpus, Vocabulary
from ..metrics import token_event_index
from ..protocols import EventLogProbs, SequenceLanguageModel
from ..serialize import nest, unnest


class UnknownEscape(SequenceLanguageModel):
    """p(UNK | h) = ε, p(e | h) = (1 − ε) p_base(e | h'), with h' the history without unknown tokens."""

    kind = "unknown_escape"

    def __init__(self, model, unknown_probability: float):
        if not 0.0 < unknown_probability < 1.0:
            raise ValueError(f"unknown_probability must be in (0, 1), got {unknown_probability}")
        self.model = model
        self.unknown_probability = float(unknown_probability)

    def event_log_probs(self, corpus: Corpus) -> EventLogProbs:
        unknown = corpus.symbols == Vocabulary.UNK_ID
        base = self.model.event_log_probs(corpus.drop_unknown())
        log_prob, predicted = base.log_prob + np.log1p(-self.unknown_probability), base.predicted
        if unknown.any():
            event_unknown = np.zeros(corpus.n_tokens + len(corpus), dtype=bool)
            event_unknown[token_event_index(corpus)] = unknown
            # index of the base-model event at the same history: the next known event
            base_index = np.cumsum(~event_unknown) - (~event_unknown)
            log_prob = np.where(event_unknown, np.log(self.unknown_probability), log_prob[base_index])
            predicted = predicted[base_index]
        return EventLogProbs(log_prob, predicted, base.n_floored, base.n_weights)

    def to_state(self) -> tuple[dict, dict]:
        header, arrays = nest("model", self.model)
        return {"unknown_probability": self.unknown_probability, "model": header}, arrays

    @classmethod
    def schema(cls, header: dict):
        from seqspectral.serialize import nested_schema

        if not 0.0 <= float(header["unknown_probability"]) < 1.0:
            raise ValueError(f"unknown_probability {header['unknown_probability']!r} is not in [0, 1)")
        return nested_schema("model", header["model"])

    @classmethod
    def from_state(cls, header: dict, arrays: dict) -> "UnknownEscape":
        return cls(unnest("model", header["model"], arrays), header["unknown_probability"])


def unseen_mass(symbol_counts: np.ndarray) -> float:
    """Good-Turing mass of unseen symbols, n1 / (N + 1), at least 1 / (N + 1), from the
    occurrences of every symbol id: n1 symbols (reserved ids aside) seen once, N tokens."""
    n = max(int(symbol_counts.sum()), 1)
    return float(max(int(np.sum(symbol_counts[Vocabulary.N_RESERVED:] == 1)), 1) / (n + 1))
