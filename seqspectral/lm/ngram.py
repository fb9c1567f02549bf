"""Add-k smoothed n-gram language models: the references of the POS-sequence table.

p(w | h) = (c(h, w) + k) / (c(h) + k·|E|), with h the previous ``order - 1`` symbols
(padded with a start marker) and E = the alphabet plus the stop event. Every conditional
is a proper distribution over E, so perplexity and WER follow the language-model
protocol of :mod:`seqspectral.metrics` (events of a sequence: its tokens, then stop).

Counts are kept as sorted int64 keys (context code · V + event) with ``np.unique``, so
fitting and scoring are a few vectorised passes, whatever the vocabulary size.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from ..base import Estimator, either, integer, one_of, real, seed
from ..corpus import Corpus, Vocabulary
from ..metrics import event_targets
from ..protocols import EventLogProbs, SequenceLanguageModel
from ..selection import NGRAM_K_GRID, grid_search, select_and_refit

_START = Vocabulary.EOS_ID  # the start padding reuses the stop id: stop never occurs inside a history
#: n-gram tables of at most this many possible n-grams (8 bytes each) are counted densely
DENSE_NGRAMS = 1 << 22


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


@dataclass(frozen=True)
class NGramCounts:
    """Sorted n-gram codes (history code · V + event) and their counts. Counts of disjoint
    corpora add (``a + b``), as every statistic of the toolkit does."""

    keys: np.ndarray
    counts: np.ndarray

    def __add__(self, other: "NGramCounts") -> "NGramCounts":
        keys, inverse = np.unique(np.concatenate([self.keys, other.keys]), return_inverse=True)
        counts = np.zeros(len(keys), np.int64)
        np.add.at(counts, inverse, np.concatenate([self.counts, other.counts]))
        return NGramCounts(keys, counts)


def ngram_counts(corpus: Corpus, order: int, n_ids: int) -> NGramCounts:
    """The order-``order`` n-gram counts of ``corpus`` over ids ``0 .. n_ids-1`` (stop included):
    for at most :data:`DENSE_NGRAMS` possible n-grams, one compiled pass over the tokens into
    a table of them all; otherwise the sorted codes of every event, counted by ``np.unique``."""
    if int(n_ids) ** int(order) <= DENSE_NGRAMS:
        from seqspectral.counting._kernels import ngram_table

        table = ngram_table(corpus.symbols, corpus.offsets, int(order), int(n_ids), _START, Vocabulary.EOS_ID)
        keys = np.flatnonzero(table)
        return NGramCounts(keys, table[keys])
    events = event_targets(corpus).astype(np.int64)
    contexts = _context_codes(corpus, events, int(order) - 1, int(n_ids))
    return NGramCounts(*np.unique(contexts * int(n_ids) + events, return_counts=True))


class NGramLM(Estimator, SequenceLanguageModel):
    """Add-k smoothed n-gram model over symbol sequences with a stop event.

    Parameters
    ----------
    order : int
        1 for a unigram, 3 for a trigram.
    k : float or "auto"
        Additive smoothing constant (> 0, so every event of the alphabet has non-zero
        probability after every history), or "auto": chosen on ``dev`` (else on a held-out
        part of the training data, then counted on all of it) among ``NGRAM_K_GRID``.
    random_state : seed of the held-out split.

    Attributes
    ----------
    k_ : the constant used; ``selection_`` the choice (None for a fixed k).
    n_ids_ : int — vocabulary size V (ids ``0 .. V-1``); the event set is ids ``1 .. V-1``.
    keys_, counts_ : sorted n-gram codes and their counts.
    context_keys_, context_counts_, context_best_ : sorted history codes, their counts and
        their most frequent next event.
    unigram_best_ : the most frequent event, predicted after unseen histories.
    """

    kind = "ngram"
    _parameter_checks = {"order": integer(1), "k": either(one_of("auto"), real(0.0, open_low=True)), "random_state": seed}

    def __init__(self, order: int = 3, *, k="auto", random_state=0):
        self.order = order
        self.k = k
        self.random_state = random_state

    def _check(self, corpus: Corpus, n_ids: int) -> None:
        if corpus.n_tokens and (corpus.symbols.min() < Vocabulary.N_RESERVED or corpus.symbols.max() >= n_ids):
            raise ValueError(
                "symbol ids must lie in 2 .. V-1 of the training vocabulary (the unknown symbol "
                "is handled by seqspectral.lm.UnknownEscape)"
            )

    def fit(self, corpus: Corpus, dev: Corpus | None = None, n_ids: int | None = None,
            extra: NGramCounts | None = None) -> "NGramLM":
        """Count the n-grams of ``corpus`` (V is ``n_ids`` or the vocabulary size), plus
        ``extra`` (the counts of more training data, e.g. other shards); with ``k="auto"``
        choose k on ``dev`` or a held-out part of ``corpus``."""
        self._validate_params()
        if n_ids is None:
            n_ids = len(corpus.vocabulary) if corpus.vocabulary is not None else int(corpus.symbols.max(initial=1)) + 1
        if int(self.order) * np.log2(max(n_ids, 2)) >= 62:
            raise ValueError(f"an order-{self.order} model over {n_ids} symbols does not fit 64-bit n-gram codes")
        self.n_ids_ = int(n_ids)
        if self.k != "auto":
            self.k_, self.selection_ = float(self.k), None
            return self._set_counts(self._counted(corpus, extra))
        self.selection_ = select_and_refit(corpus, dev, self.random_state,
                                           lambda part, held, on: self._choose_k(part, held, on, extra), self.refit)
        return self

    def _choose_k(self, fit_part, held, on, extra):
        """Every k of ``NGRAM_K_GRID`` on the counts of ``fit_part`` (one table serves them all),
        scored on ``held``; the chosen ``k_`` adopted."""
        self._set_counts(self._counted(fit_part, extra))
        held_counts = self._counted(held)
        self._held_counts = (held, held_counts)  # for the refit, which adds them (it lets go of them)
        scores = self._k_scores(held_counts, len(held))
        result = grid_search({"k": NGRAM_K_GRID}, lambda k: scores[k], on)
        self.k_ = float(result.chosen["k"])
        return result

    def _k_scores(self, held: NGramCounts, n_sequences: int) -> dict:
        """k → the held-out log-likelihood per sequence, for every k of ``NGRAM_K_GRID``, from
        the held-out n-gram counts ``held``: each distinct n-gram scored once, times its count."""
        c_hw = _lookup(self.keys_, self.counts_, held.keys)
        c_h = _lookup(self.context_keys_, self.context_counts_, held.keys // self.n_ids_)
        return {k: float((held.counts * (np.log(c_hw + k) - np.log(c_h + k * self.n_events_))).sum() / n_sequences)
                for k in NGRAM_K_GRID}

    def refit(self, corpus: Corpus, added: Corpus | None = None) -> "NGramLM":
        """The chosen k on the counts of all of ``corpus``: the stored counts plus those of
        ``added``, the part of ``corpus`` they lack (the learners' refit; the held-out part's
        counts of the choice are not counted again); without ``added``, ``corpus`` counted anew."""
        self._check_fitted()
        if added is None:
            return self._set_counts(self._counted(corpus))
        held, counted = getattr(self, "_held_counts", None) or (None, None)
        self._held_counts = None
        return self._set_counts(self.table_ + (counted if held is added else self._counted(added)))

    def with_k(self, k: float) -> "NGramLM":
        """The same count tables with another smoothing constant (no refit)."""
        self._check_fitted()
        other = copy.copy(self)
        other.k_ = float(k)
        return other

    @property
    def table_(self) -> NGramCounts:
        """The n-gram counts the model was estimated from."""
        self._check_fitted()
        return NGramCounts(self.keys_, self.counts_)

    def _counted(self, corpus: Corpus, extra: NGramCounts | None = None) -> NGramCounts:
        self._check(corpus, self.n_ids_)
        table = ngram_counts(corpus, self.order, self.n_ids_)
        return table if extra is None else table + extra

    def _set_counts(self, table: NGramCounts) -> "NGramLM":
        """The model's tables from the n-gram counts: histories, their totals and best events."""
        self.keys_, self.counts_ = table.keys, table.counts
        key_contexts = self.keys_ // self.n_ids_
        self.context_keys_, first = np.unique(key_contexts, return_index=True)
        self.context_counts_ = np.add.reduceat(self.counts_, first) if len(first) else self.counts_.copy()
        # per history, the event of the largest count (ties: the smallest id), for WER
        ranked = np.lexsort((self.keys_ % self.n_ids_, -self.counts_, key_contexts))
        leaders = ranked[np.searchsorted(key_contexts[ranked], self.context_keys_)]
        self.context_best_ = (self.keys_[leaders] % self.n_ids_).astype(np.int32)
        totals = np.bincount(self.keys_ % self.n_ids_, weights=self.counts_, minlength=self.n_ids_)
        totals[0] = -1
        self.unigram_best_ = int(np.argmax(totals))
        return self

    @property
    def n_events_(self) -> int:
        """Size of the event set: the alphabet plus stop."""
        return self.n_ids_ - 1

    def _lookups(self, corpus: Corpus):
        """(c(h, w), c(h), predicted event) for every event of ``corpus``."""
        self._check_fitted()
        self._check(corpus, self.n_ids_)
        n_keys = self.n_ids_ ** int(self.order)
        if n_keys <= DENSE_NGRAMS and (len(self.keys_) == 0 or self.keys_[-1] < n_keys):
            return self._dense_lookups(corpus, n_keys)
        events = event_targets(corpus).astype(np.int64)
        contexts = _context_codes(corpus, events, int(self.order) - 1, self.n_ids_)
        c_hw = _lookup(self.keys_, self.counts_, contexts * self.n_ids_ + events)
        c_h = _lookup(self.context_keys_, self.context_counts_, contexts)
        where = np.minimum(np.searchsorted(self.context_keys_, contexts), len(self.context_keys_) - 1)
        seen = self.context_keys_[where] == contexts
        predicted = np.where(seen, self.context_best_[where], self.unigram_best_).astype(np.int32)
        return c_hw, c_h, predicted

    def _dense_lookups(self, corpus: Corpus, n_keys: int):
        """:meth:`_lookups` of a small alphabet: every event's key in one compiled pass, its
        counts read from tables of every possible n-gram and history (the same numbers)."""
        from seqspectral.counting._kernels import ngram_keys

        keys = ngram_keys(corpus.symbols, corpus.offsets, int(self.order), self.n_ids_, _START, Vocabulary.EOS_ID)
        contexts = keys // self.n_ids_
        c_hw, c_h = np.zeros(n_keys), np.zeros(n_keys // self.n_ids_)
        c_hw[self.keys_], c_h[self.context_keys_] = self.counts_, self.context_counts_
        best = np.full(len(c_h), self.unigram_best_, dtype=np.int32)
        best[self.context_keys_] = self.context_best_
        return c_hw[keys], c_h[contexts], best[contexts]

    def event_log_probs(self, corpus: Corpus) -> EventLogProbs:
        """Natural-log conditional probability of every event and the predicted event."""
        c_hw, c_h, predicted = self._lookups(corpus)
        return EventLogProbs(np.log(c_hw + self.k_) - np.log(c_h + self.k_ * self.n_events_), predicted)

    @property
    def event_ids(self) -> np.ndarray:
        """The events of every conditional: the alphabet ids 2 .. V-1, then EOS."""
        return np.append(np.arange(Vocabulary.N_RESERVED, self.n_ids_), Vocabulary.EOS_ID).astype(np.int32)

    def event_distributions(self, corpus: Corpus) -> np.ndarray:
        """The whole next-event distribution before every event, (n_events, V - 1), columns ``event_ids``."""
        self._check_fitted()
        self._check(corpus, self.n_ids_)
        events = event_targets(corpus).astype(np.int64)
        contexts = _context_codes(corpus, events, int(self.order) - 1, self.n_ids_)
        c_hw = _lookup(self.keys_, self.counts_, (contexts * self.n_ids_)[:, None] + self.event_ids[None, :])
        c_h = _lookup(self.context_keys_, self.context_counts_, contexts)
        return (c_hw + self.k_) / (c_h + self.k_ * self.n_events_)[:, None]

    # -- persistence (``seqspectral.serialize``) ---------------------------------------------------
    def to_state(self) -> tuple[dict, dict]:
        self._check_fitted()
        header = {"params": self.json_params(), "k_": self.k_, "n_ids": self.n_ids_, "unigram_best": self.unigram_best_}
        return header, {"keys": self.keys_, "counts": self.counts_, "context_keys": self.context_keys_,
                        "context_counts": self.context_counts_, "context_best": self.context_best_}

    @classmethod
    def schema(cls, header: dict):
        from seqspectral.serialize import Member, Schema, size

        n_ids = size(header["n_ids"], "n_ids", 2)
        order = size(header["params"]["order"], "order", 1, 20)
        if n_ids ** order >= 1 << 62:
            raise ValueError(f"{n_ids} symbol ids to the power {order} do not fit the 64-bit n-gram keys")
        size(header["unigram_best"], "unigram_best", 0, n_ids - 1)
        counts = {name: Member("iu", (length,), values=(0, None)) for name, length in
                  (("keys", "n_keys"), ("counts", "n_keys"), ("context_keys", "n_contexts"),
                   ("context_counts", "n_contexts"))}
        return Schema({**counts, "context_best": Member("iu", ("n_contexts",), values=(0, "n_ids"))}, {"n_ids": n_ids})

    @classmethod
    def from_state(cls, header: dict, arrays: dict) -> "NGramLM":
        model = cls(**header["params"])
        model.keys_, model.counts_ = arrays["keys"].astype(np.int64), arrays["counts"].astype(np.int64)
        model.context_keys_ = arrays["context_keys"].astype(np.int64)
        model.context_counts_ = arrays["context_counts"].astype(np.int64)
        model.context_best_ = arrays["context_best"].astype(np.int32)
        model.n_ids_, model.unigram_best_, model.k_ = int(header["n_ids"]), int(header["unigram_best"]), float(header["k_"])
        model.selection_ = None
        return model


def _lookup(keys: np.ndarray, values: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """``values`` at ``queries`` (any shape) in the sorted ``keys``, 0 where absent."""
    if len(keys) == 0:
        return np.zeros(np.shape(queries), dtype=np.float64)
    where = np.minimum(np.searchsorted(keys, queries), len(keys) - 1)
    return np.where(keys[where] == queries, values[where], 0).astype(np.float64)
