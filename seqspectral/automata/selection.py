"""The shared skeleton of the Hankel-based learners and their model selection.

A learner counts the Hankel statistics once, *prepares* them once (an SVD for
``SpectralWA``, an ADMM solver for ``ConvexWA``) and *builds* an automaton for any value
of its swept hyper-parameter (rank, or regularisation) cheaply from the prepared object.
``"auto"`` values (and ``floor="auto"``) are chosen by held-out log-likelihood: on
``dev`` when given, else on a random ``validation_fraction`` of the training corpus, whose
counts are then merged into the fit part's (``stats_a + stats_b``) for the final model. Mixing with a lower-order n-gram is
:mod:`seqspectral.mixture`'s (the ``lm`` layer chooses its weight on the same data).
"""

from __future__ import annotations

import time

import numpy as np

from ..base import Estimator
from ..metrics import LanguageModelMixin, event_targets, sequence_log_probs
from .wfa import STATISTICS, WeightedAutomaton

#: floors tried by ``floor="auto"`` (fractions of the positive next-event mass)
FLOOR_GRID = (1e-4, 1e-3, 1e-2, 3e-2, 0.1)


def n_symbols_of(corpus) -> int:
    """Size of the symbol-id space: the vocabulary's, else the largest id + 1."""
    if corpus.vocabulary is not None:
        return len(corpus.vocabulary)
    return int(max(corpus.symbols.max(initial=1), 1)) + 1


class HankelEstimator(Estimator, LanguageModelMixin):
    """Base of SpectralWA and ConvexWA; subclasses define the swept parameter and hooks.

    Subclasses set ``_swept`` (the name of the swept hyper-parameter) and implement
    ``_grid()`` (values tried for "auto", in sweep order), ``_prepare(stats, previous)``
    and ``_build(prepared, value) -> WeightedAutomaton`` for string probabilities.
    """

    _swept = ""
    method = ""

    def _check_params(self) -> None:
        if self.statistic not in STATISTICS:
            raise ValueError(f"statistic must be one of {STATISTICS}, got {self.statistic!r}")
        if self.floor != "auto" and not 0.0 <= float(self.floor) < 1.0:
            raise ValueError(f"floor must be 'auto' or in [0, 1), got {self.floor!r}")

    def _make_basis(self, corpus):
        from ..counting import HankelBasis

        if self.basis is not None:
            return self.basis
        return HankelBasis.from_corpus(corpus, self.statistic, n_prefixes=self.basis_size,
                                       n_suffixes=self.basis_size, max_length=self.basis_length)

    def _count(self, corpus):
        from ..counting import hankel_statistics

        return hankel_statistics(corpus, self.basis_, statistic=self.statistic)

    def fit(self, corpus, dev=None):
        """Count, prepare and build; choose "auto" hyper-parameters on held-out data. Returns self."""
        self._check_params()
        start = time.perf_counter()
        if len(corpus) == 0:
            raise ValueError("cannot fit on an empty corpus")
        self.n_symbols_ = max(n_symbols_of(corpus), n_symbols_of(dev) if dev is not None else 0)
        self.vocabulary_ = corpus.vocabulary
        self.basis_ = self._make_basis(corpus)
        self.alphabet_ = np.asarray(self.basis_.alphabet, dtype=np.int32)
        value, floor = getattr(self, self._swept), self.floor
        self.selection_ = []
        if "auto" in (value, floor):
            if dev is None:
                fit_part, held_out = corpus.split(self.validation_fraction, random_state=self.random_state)
            else:
                fit_part, held_out = corpus, dev
            stats = self._count(fit_part)
            prepared = self._prepare(stats, None)
            self.selection_ = self._sweep(prepared, fit_part, held_out)
            best = max(self.selection_, key=lambda r: r["score"] if np.isfinite(r["score"]) else -np.inf)
            value, floor = best[self._swept], best["floor"]
            if dev is None:
                prepared = self._prepare(stats + self._count(held_out), prepared)
        else:
            prepared = self._prepare(self._count(corpus), None)
        self._finish(prepared, value, floor)
        self.fit_time_ = time.perf_counter() - start
        return self

    def _sweep(self, prepared, fit_part, held_out) -> list[dict]:
        """Held-out mean log-likelihood per sequence of every (swept value, floor)."""
        value, floor = getattr(self, self._swept), self.floor
        values = self._grid() if value == "auto" else [value]
        floors = FLOOR_GRID if floor == "auto" else [float(floor)]
        table = []
        for v in values:
            for fl, log_prob in zip(floors, floored_log_probs(self._build(prepared, v), held_out, floors)):
                table.append({self._swept: v, "floor": fl, "score": float(sequence_log_probs(log_prob, held_out).mean())})
        return table

    def _finish(self, prepared, value, floor) -> None:
        self.prepared_ = prepared
        setattr(self, self._swept + "_", value)
        self.floor_ = float(floor)
        self.automaton_ = self._build(prepared, value).with_floor(self.floor_)

    def fit_statistics(self, stats, alphabet, n_symbols: int, vocabulary=None):
        """Fit from given Hankel statistics (e.g. exact ones) at the set hyper-parameters."""
        self._check_params()
        value = getattr(self, self._swept)
        if value == "auto" or self.floor == "auto":
            raise ValueError("fit_statistics needs explicit hyper-parameters, not 'auto'")
        self.basis_ = self.basis
        self.alphabet_ = np.asarray(alphabet, dtype=np.int32)
        self.n_symbols_, self.vocabulary_, self.selection_ = int(n_symbols), vocabulary, []
        self._finish(self._prepare(stats, None), value, self.floor)
        return self

    def _check_fitted(self):
        if not hasattr(self, "automaton_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def event_log_probs(self, corpus, return_n_floored: bool = False):
        """The event protocol (``seqspectral.metrics``), by the fitted automaton."""
        self._check_fitted()
        return self.automaton_.event_log_probs(corpus, return_n_floored)

    def save(self, path) -> None:
        """Save the fitted automaton with the method and its chosen hyper-parameters."""
        self._check_fitted()
        params = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v))
                  for k, v in self.get_params(deep=False).items()}
        chosen = {self._swept: getattr(self, self._swept + "_"), "floor": self.floor_}
        self.automaton_.save(path, {"method": self.method, "params": params, "chosen": chosen})


def floored_log_probs(wa: WeightedAutomaton, corpus, floors) -> list[np.ndarray]:
    """Event log-probabilities of ``corpus`` under ``wa`` with each floor, from one pass.

    The running state does not depend on the floor, and with q the conditional floored at
    0 (negative weights set to 0, divided by the positive mass) the conditional floored at f
    is max(q, f) / Σ max(q, f); so one pass gives every floor's log-probabilities.
    """
    if len(floors) == 1 or (corpus.n_tokens + len(corpus)) * len(wa.event_ids) > _MAX_SWEEP_CELLS:
        return [wa.with_floor(fl).event_log_probs(corpus)[0] for fl in floors]
    q = wa.with_floor(0.0).event_distributions(corpus)
    column = np.full(wa.n_symbols, -1, dtype=np.int64)
    column[wa.event_ids] = np.arange(len(wa.event_ids))
    q_target = q[np.arange(len(q)), column[event_targets(corpus)]]
    return [np.log(np.maximum(q_target, fl)) - np.log(np.maximum(q, fl).sum(axis=1)) for fl in floors]


_MAX_SWEEP_CELLS = 50_000_000


def _as_dense(m) -> np.ndarray:
    return np.asarray(m.toarray() if hasattr(m, "toarray") else m, dtype=np.float64)


def dense_blocks(stats) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(H, stacked H_σ of shape (|Σ|, |P|, |S|), h_P, h_S) as dense float64 arrays."""
    H = _as_dense(stats.H)
    H_sigma = np.stack([_as_dense(m) for m in stats.H_sigma]) if len(stats.H_sigma) else np.zeros((0,) + H.shape)
    return H, H_sigma, np.asarray(stats.h_P, dtype=np.float64), np.asarray(stats.h_S, dtype=np.float64)


def automaton_from_blocks(initial, final, blocks, alphabet, n_symbols, statistic, vocabulary) -> WeightedAutomaton:
    """A string automaton from an automaton for ``statistic`` given as per-alphabet operator blocks."""
    k = len(initial)
    ops = np.zeros((n_symbols, k, k))
    ops[np.asarray(alphabet, dtype=np.int64)] = blocks
    vocab = vocabulary if vocabulary is not None and len(vocabulary) == n_symbols else None
    return WeightedAutomaton(initial, final, ops, vocab).from_statistic(statistic)
