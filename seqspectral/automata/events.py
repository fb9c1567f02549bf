"""What the weighted automaton and the HMM share as language models: floored next-event
conditionals over a corpus, computed by a compiled pass (the sequence-model protocol)."""

from __future__ import annotations

import numpy as np

from ..protocols import EventLogProbs, SequenceLanguageModel, in_vocabulary


class FlooredEventModel(SequenceLanguageModel):
    """A sequence model whose next-event conditionals are floored weights. Subclasses give
    ``_event_arrays()`` — (the states' weight of every event as a (k, events) matrix, the
    event ids, every symbol's column or -1) — and ``_event_pass(corpus, matrix, events,
    column, out)``, the kernel's (log_prob, predicted, n_floored, n_missing) that fills
    ``out`` with the distributions when it has rows."""

    def event_log_probs(self, corpus) -> EventLogProbs:
        """The sequence-model protocol (``seqspectral.protocols``), with the floored-weight counts."""
        return self._run(corpus, False)

    def event_distributions(self, corpus) -> np.ndarray:
        """Every event's full conditional, (n_tokens + n_sequences, len(event_ids)), columns = ``event_ids``."""
        return self._run(corpus, True)

    def _run(self, corpus, distributions: bool):
        corpus = in_vocabulary(corpus, self.vocabulary)
        self._check_ids(corpus.symbols)
        matrix, events, column = self._event_arrays()
        out = np.empty((corpus.n_tokens + len(corpus) if distributions else 0, len(events)))
        log_prob, predicted, n_floored, n_missing = self._event_pass(corpus, matrix, events, column, out)
        if n_missing:
            bad = np.unique(corpus.symbols[column[corpus.symbols] < 0])
            raise ValueError(f"{n_missing} tokens have ids outside the model's alphabet (ids {bad[:10].tolist()}); "
                             "encode the corpus with the model's vocabulary")
        if distributions:
            return out
        return EventLogProbs(log_prob, predicted, int(n_floored), int(len(log_prob) * len(events)))
