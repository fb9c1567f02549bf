"""Planted HMMs and how far an estimate is from one: for tests, benchmarks and users checking
a learner on data whose answer is known."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..corpus.vocabulary import Vocabulary
from .hmm import HMM


def planted_hmm(k: int, n_symbols: int, seed, stop: float = 0.15, sharp: float = 0.6) -> HMM:
    """An HMM whose k states each have their own most likely symbol (weight ``sharp``), with
    T half a random permutation and half Dirichlet(1) rows, and stop probability ``stop``."""
    rng = np.random.default_rng(seed)
    emit = np.zeros((k, n_symbols + Vocabulary.N_RESERVED))
    emit[:, 2:] = (1 - sharp) * rng.dirichlet(np.ones(n_symbols), k)
    emit[np.arange(k), 2 + rng.permutation(n_symbols)[:k]] += sharp
    trans = 0.5 * rng.dirichlet(np.ones(k), k)
    trans[np.arange(k), rng.permutation(k)] += 0.5
    return HMM(rng.dirichlet(np.full(k, 2.0)), trans, emit * (1 - stop), np.full(k, stop),
               Vocabulary(str(a) for a in range(n_symbols)))


def matched_errors(true: HMM, est: HMM) -> tuple[float, float]:
    """(max |O − Ô| over emissions with stop, max row-L1 error of T) after matching the states
    on their emissions (Hungarian algorithm, ``scipy.optimize.linear_sum_assignment``)."""
    Ot, Oe = true.extended_emissions().T, est.extended_emissions().T
    rows, cols = linear_sum_assignment(np.abs(Ot[:, :, None] - Oe[:, None, :]).sum(0))
    err_o = float(np.abs(Ot[:, rows] - Oe[:, cols]).max())
    err_t = float(np.abs(true.transitions[np.ix_(rows, rows)] - est.transitions[np.ix_(cols, cols)]).sum(1).max())
    return err_o, err_t
