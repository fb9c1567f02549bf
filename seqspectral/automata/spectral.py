"""Spectral learning of a weighted automaton from Hankel statistics by truncated SVD.

Hsu, Kakade & Zhang (2009); Bailly, Denis & Ralaivola (2009); Balle, Hamilton & Pineau
(2014), Algorithm 1: with H ≈ U D Vᵀ (rank n),

    A_σ = (HV)⁺ H_σ V = D⁻¹ Uᵀ H_σ V,    β0ᵀ = h_Sᵀ V,    β∞ = (HV)⁺ h_P = D⁻¹ Uᵀ h_P,

an automaton for the counted statistic (f, f^p or f^s), converted to one for string
probabilities (``WeightedAutomaton.from_statistic``). One SVD serves every rank: the
projected blocks Uᵀ H_σ V are computed once at the largest rank and every smaller rank
takes their leading sub-blocks.
"""

from __future__ import annotations

import numpy as np

from ..base import either, integer, one_of
from ..linalg import truncated_svd
from ..selection import RANK_GRID
from .hankel_learner import HANKEL_CHECKS, HankelEstimator, automaton_from_blocks


class SpectralFactorisation:
    """The SVD of H and the projected blocks, enough to build the automaton of any rank ≤ ``max_rank``."""

    def __init__(self, stats, max_rank: int):
        H = stats.H
        U, d, Vt = truncated_svd(H, max_rank)
        tol = d[0] * max(H.shape) * np.finfo(float).eps if len(d) and d[0] > 0 else np.inf
        r = int(min(max_rank, np.sum(d > tol)))
        if r == 0:
            raise ValueError("the Hankel matrix is zero: no statistics to learn from")
        U, d, V = U[:, :r], d[:r], np.ascontiguousarray(Vt[:r].T)
        self.singular_values = d
        self.blocks = np.stack([U.T @ np.asarray(Hs @ V) for Hs in stats.H_sigma])  # Uᵀ H_σ V, sparse-friendly
        self.initial = np.asarray(stats.h_S, dtype=np.float64) @ V
        self.final = U.T @ np.asarray(stats.h_P, dtype=np.float64)

    @property
    def max_rank(self) -> int:
        return len(self.singular_values)

    def automaton(self, rank: int, alphabet, n_symbols, statistic, vocabulary):
        k = min(int(rank), self.max_rank)
        inv_d = 1.0 / self.singular_values[:k]
        blocks = self.blocks[:, :k, :k] * inv_d[None, :, None]
        return automaton_from_blocks(self.initial[:k], self.final[:k] * inv_d, blocks, alphabet, n_symbols, statistic, vocabulary)


class SpectralWA(HankelEstimator):
    """Spectral weighted-automaton learner (string, prefix or substring statistics).

    Parameters
    ----------
    n_states : rank of the truncated SVD, or "auto" (chosen by held-out log-likelihood
        over ``selection.RANK_GRID`` up to ``max_states``, from one SVD). A rank above that
        of the Hankel matrix is an error.
    basis : a ``HankelBasis``; None builds one from the training corpus with the
        ``basis_size`` most frequent prefixes and suffixes of length ≤ ``basis_length``.
    statistic : "string" (f), "prefix" (f^p) or "substring" (f^s).
    floor : the non-stochastic rule's floor (fraction of the positive next-event mass), or "auto".
    random_state : seed of the held-out split used when no ``dev`` is given.
    progress : progress over the swept values on stderr (:mod:`seqspectral.progress`; None: a bar on a
        terminal only).
    """

    _swept = "n_states"
    _parameter_checks = {**HANKEL_CHECKS, "n_states": either(one_of("auto"), integer(1)), "max_states": integer(1)}

    def __init__(self, n_states="auto", *, basis=None, statistic="substring", basis_size=500, basis_length=3,
                 floor="auto", max_states=100, random_state=0, progress=None):
        self.n_states = n_states
        self.basis = basis
        self.statistic = statistic
        self.basis_size = basis_size
        self.basis_length = basis_length
        self.floor = floor
        self.max_states = max_states
        self.random_state = random_state
        self.progress = progress

    @property
    def method(self) -> str:
        return "spectral" if self.statistic == "string" else f"spectral-{self.statistic}"

    def _grid(self, corpus):
        return [r for r in RANK_GRID if r <= self.max_states]

    def _prepare(self, stats, previous, largest):
        return SpectralFactorisation(stats, largest)

    def _build(self, prepared, rank):
        if rank > prepared.max_rank:
            from ..selection import CandidateFailed

            raise CandidateFailed(f"n_states={rank} exceeds the rank of the Hankel matrix on these data "
                                  f"({prepared.max_rank}); use at most {prepared.max_rank} or 'auto'")
        return prepared.automaton(rank, self.alphabet_, self.n_symbols_, self.statistic, self.vocabulary_)

    def with_n_states(self, n_states: int):
        """The automaton of another rank from the stored SVD (no recount, no refactorisation)."""
        self._check_fitted()
        return self._build(self.prepared_, n_states).with_floor(self.floor_)
