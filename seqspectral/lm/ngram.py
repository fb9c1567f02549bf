"""Add-k smoothed n-gram language models: the references of the POS-sequence table.

p(w | h) = (c(h, w) + k) / (c(h) + k·|E|), with h the previous ``order - 1`` symbols
(padded with a start marker) and E = the alphabet plus the stop event. Every conditional
is a proper distribution over E, so perplexity and WER follow the language-model
protocol of :mod:`seqspectral.metrics` (events of a sequence: its tokens, then stop).

Counts are kept as sorted int64 keys (context code · V + event) with ``np.unique``, so
fitting and scoring are a few vectorised passes, whatever the vocabulary size.
"""

from __future__ import annotations

import numpy as np

from ..base import Estimator
from ..corpus import Corpus, Vocabulary
from ..metrics import LanguageModelMixin, event_targets

_START = Vocabulary.EOS_ID  # the start padding reuses the stop id: stop never occurs inside a history


def _context_codes(corpus: Corpus, events: np.ndarray, n_history: int, base: int) -> np.ndarray:
    """Code of the ``n_history`` symbols before each event (start-padded), in base ``base``."""
    n_events = len(events)
    codes = np.zeros(n_events, dtype=np.int64)
    if n_history == 0:
        return codes
    event_offsets = corpus.offsets + np.arange(len(corpus) + 1)
    starts = np.repeat(event_offsets[:-1], np.diff(event_offsets))
    index = np.arange(n_events)
    for j in range(1, n_history + 1):
        back = index - j
        codes = codes * base + np.where(back >= starts, events[np.maximum(back, 0)], _START)
    return codes


class NGramLM(LanguageModelMixin, Estimator):
    """Add-k smoothed n-gram model over symbol sequences with a stop event.

    Parameters
    ----------
    order : int
        1 for a unigram, 3 for a trigram.
    k : float
        Additive smoothing constant (> 0, so every event of the alphabet has non-zero
        probability after every history).

    Attributes
    ----------
    n_ids_ : int — vocabulary size V (ids ``0 .. V-1``); the event set is ids ``1 .. V-1``.
    keys_, counts_ : sorted n-gram codes and their counts.
    context_keys_, context_counts_, context_best_ : sorted history codes, their counts and
        their most frequent next event.
    unigram_best_ : the most frequent event, predicted after unseen histories.
    """

    def __init__(self, order: int = 3, k: float = 0.1):
        self.order = order
        self.k = k

    def _check(self, corpus: Corpus, n_ids: int) -> None:
        if corpus.n_tokens and (corpus.symbols.min() < Vocabulary.N_RESERVED or corpus.symbols.max() >= n_ids):
            raise ValueError(
                "symbol ids must lie in 2 .. V-1 of the training vocabulary (the unknown symbol "
                "is handled by seqspectral.lm.UnknownEscape)"
            )

    def fit(self, corpus: Corpus, n_ids: int | None = None) -> "NGramLM":
        """Count the n-grams of ``corpus``; V is ``n_ids`` or the vocabulary size."""
        if int(self.order) < 1 or not self.k > 0:
            raise ValueError("order must be >= 1 and k > 0")
        if n_ids is None:
            n_ids = len(corpus.vocabulary) if corpus.vocabulary is not None else int(corpus.symbols.max(initial=1)) + 1
        if int(self.order) * np.log2(max(n_ids, 2)) >= 62:
            raise ValueError(f"an order-{self.order} model over {n_ids} symbols does not fit 64-bit n-gram codes")
        self._check(corpus, n_ids)
        self.n_ids_ = int(n_ids)
        events = event_targets(corpus).astype(np.int64)
        contexts = _context_codes(corpus, events, int(self.order) - 1, self.n_ids_)
        self.keys_, self.counts_ = np.unique(contexts * self.n_ids_ + events, return_counts=True)
        key_contexts = self.keys_ // self.n_ids_
        self.context_keys_, first = np.unique(key_contexts, return_index=True)
        self.context_counts_ = np.add.reduceat(self.counts_, first) if len(first) else self.counts_.copy()
        # per history, the event of the largest count (ties: the smallest id), for WER
        ranked = np.lexsort((self.keys_ % self.n_ids_, -self.counts_, key_contexts))
        leaders = ranked[np.searchsorted(key_contexts[ranked], self.context_keys_)]
        self.context_best_ = (self.keys_[leaders] % self.n_ids_).astype(np.int32)
        totals = np.bincount(events, minlength=self.n_ids_)
        totals[0] = -1
        self.unigram_best_ = int(np.argmax(totals))
        return self

    @property
    def n_events_(self) -> int:
        """Size of the event set: the alphabet plus stop."""
        return self.n_ids_ - 1

    def event_log_probs(self, corpus: Corpus) -> tuple[np.ndarray, np.ndarray]:
        """Natural-log conditional probability of every event and the predicted event."""
        self._check(corpus, self.n_ids_)
        events = event_targets(corpus).astype(np.int64)
        contexts = _context_codes(corpus, events, int(self.order) - 1, self.n_ids_)
        c_hw = _lookup(self.keys_, self.counts_, contexts * self.n_ids_ + events)
        c_h = _lookup(self.context_keys_, self.context_counts_, contexts)
        k = float(self.k)
        log_prob = np.log(c_hw + k) - np.log(c_h + k * self.n_events_)
        where = np.searchsorted(self.context_keys_, contexts)
        where = np.minimum(where, len(self.context_keys_) - 1)
        seen = self.context_keys_[where] == contexts
        predicted = np.where(seen, self.context_best_[where], self.unigram_best_).astype(np.int32)
        return log_prob, predicted

    @property
    def event_ids(self) -> np.ndarray:
        """The events of every conditional: the alphabet ids 2 .. V-1, then EOS."""
        return np.append(np.arange(Vocabulary.N_RESERVED, self.n_ids_), Vocabulary.EOS_ID).astype(np.int32)

    def event_distributions(self, corpus: Corpus) -> np.ndarray:
        """The whole next-event distribution before every event, (n_events, V - 1), columns ``event_ids``."""
        self._check(corpus, self.n_ids_)
        events = event_targets(corpus).astype(np.int64)
        contexts = _context_codes(corpus, events, int(self.order) - 1, self.n_ids_)
        c_hw = _lookup(self.keys_, self.counts_, (contexts * self.n_ids_)[:, None] + self.event_ids[None, :])
        c_h = _lookup(self.context_keys_, self.context_counts_, contexts)
        k = float(self.k)
        return (c_hw + k) / (c_h + k * self.n_events_)[:, None]

    # -- persistence (arrays + JSON-able parameters; the CLI adds the file header) --------
    def to_arrays(self) -> dict[str, np.ndarray]:
        return {
            "keys": self.keys_, "counts": self.counts_, "context_keys": self.context_keys_,
            "context_counts": self.context_counts_, "context_best": self.context_best_,
        }

    @classmethod
    def from_arrays(cls, params: dict, arrays: dict[str, np.ndarray], n_ids: int, unigram_best: int) -> "NGramLM":
        model = cls(**params)
        model.keys_, model.counts_ = arrays["keys"].astype(np.int64), arrays["counts"].astype(np.int64)
        model.context_keys_ = arrays["context_keys"].astype(np.int64)
        model.context_counts_ = arrays["context_counts"].astype(np.int64)
        model.context_best_ = arrays["context_best"].astype(np.int32)
        model.n_ids_, model.unigram_best_ = int(n_ids), int(unigram_best)
        return model


def _lookup(keys: np.ndarray, values: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """``values`` at ``queries`` (any shape) in the sorted ``keys``, 0 where absent."""
    if len(keys) == 0:
        return np.zeros(np.shape(queries), dtype=np.float64)
    where = np.minimum(np.searchsorted(keys, queries), len(keys) - 1)
    return np.where(keys[where] == queries, values[where], 0).astype(np.float64)


def select_k(order: int, train: Corpus, held_out: Corpus, grid=(0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0), n_ids=None) -> float:
    """The smoothing constant of ``grid`` with the best held-out log-likelihood."""
    scores = [NGramLM(order, k).fit(train, n_ids).event_log_probs(held_out)[0].sum() for k in grid]
    return float(grid[int(np.argmax(scores))])
