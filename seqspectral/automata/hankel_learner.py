"""The Hankel-based learners' common part: basis, counting once, preparing once, building cheaply.

A learner counts the Hankel statistics of its training corpus once, *prepares* them once
(an SVD for ``SpectralWA``, an ADMM solver for ``ConvexWA``) and *builds* an automaton for
any value of its swept hyper-parameter (rank, or regularisation) from the prepared object;
selection, the held-out split and the refit are :class:`SelectingLearner`'s. The refit adds
the held-out part's counts to the stored ones on the same basis (``stats_a + stats_b``).
"""

from __future__ import annotations

import numpy as np

from ..base import either, integer, one_of, real, seed
from .learner import SelectingLearner
from .wfa import STATISTICS, WeightedAutomaton


def n_symbols_of(corpus) -> int:
    """Size of the symbol-id space: the vocabulary's, else the largest id + 1."""
    if corpus.vocabulary is not None:
        return len(corpus.vocabulary)
    return int(max(corpus.symbols.max(initial=1), 1)) + 1


FLOOR_CHECK = either(one_of("auto"), real(0.0, 1.0, open_high=True))
HANKEL_CHECKS = {
    "statistic": one_of(*STATISTICS),
    "floor": FLOOR_CHECK,
    "basis_size": integer(1),
    "basis_length": integer(0),
    "random_state": seed,
}


class HankelEstimator(SelectingLearner):
    """Base of ``SpectralWA`` and ``ConvexWA``: subclasses implement
    ``_prepare(stats, previous, largest)`` and ``_build(prepared, value) -> WeightedAutomaton``."""

    _adds_statistics = True

    def choose_basis(self, corpus):
        """The Hankel basis a fit on ``corpus`` uses (``basis`` if given, else chosen from it),
        for counting more data on it first (``fit(..., extra=)``)."""
        return self._make_basis(corpus)

    def _make_basis(self, corpus):
        from ..counting import HankelBasis

        if self.basis is not None:
            return self.basis
        return HankelBasis.from_corpus(corpus, self.statistic, n_prefixes=self.basis_size,
                                       n_suffixes=self.basis_size, max_length=self.basis_length)

    def _count(self, corpus):
        from ..counting import hankel_statistics

        return hankel_statistics(corpus, self.basis_, statistic=self.statistic)

    def _largest(self, corpus):
        """The largest swept value the prepared object must serve (every rank up to it: one SVD)."""
        value = getattr(self, self._swept)
        return max(self._grid(corpus)) if value == "auto" else value

    def _candidates(self, corpus, extra=None):
        self.n_symbols_ = n_symbols_of(corpus)
        self.vocabulary_ = corpus.vocabulary
        # extra statistics were counted on choose_basis(corpus): take their basis, not a second choice
        self.basis_ = self._make_basis(corpus) if extra is None or self.basis is not None else extra.basis
        self.alphabet_ = np.asarray(self.basis_.alphabet, dtype=np.int32)
        self.statistics_ = self._count(corpus)
        if extra is not None:  # + refuses statistics of another kind or on another basis
            self.statistics_ = self.statistics_ + extra
        self.prepared_ = self._prepare(self.statistics_, None, self._largest(corpus))
        return lambda v: self._build(self.prepared_, v)

    def _refit(self, corpus, added):
        value = getattr(self, self._swept + "_")
        self.statistics_ = self.statistics_ + self._count(added)
        self.prepared_ = self._prepare(self.statistics_, self.prepared_, self._largest(corpus))
        return self._build(self.prepared_, value)

    def fit_statistics(self, stats, alphabet, n_symbols: int, vocabulary=None):
        """Fit from given Hankel statistics (e.g. exact ones) at explicit hyper-parameters."""
        self._validate_params()
        value = getattr(self, self._swept)
        if self._selects():
            raise ValueError("fit_statistics needs explicit hyper-parameters, not 'auto'")
        self.basis_, self.statistics_ = stats.basis, stats
        self.alphabet_ = np.asarray(alphabet, dtype=np.int32)
        self.n_symbols_, self.vocabulary_, self.selection_ = int(n_symbols), vocabulary, None
        self.prepared_ = self._prepare(stats, None, value)
        self.model_ = self._build(self.prepared_, value).with_floor(float(self.floor))
        self._finish(value, self.floor)
        return self


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
