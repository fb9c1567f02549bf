"""The baselines of Guo & Schuurmans (NIPS 2007, Table 1): supervised training and Viterbi EM.

Both train the regularised log-linear tables of :mod:`seqspectral.mixtures.bayesnet.tables`
(the same β as the convex relaxation): :class:`SupervisedBayesNet` sees the hidden values
(the complete data), :class:`ViterbiEM` alternates the most probable hidden values under the
current tables (E-step, exact by enumeration) with the tables of the completed data (M-step)
from random assignments, keeping the restart with the lowest joint objective
Σ_i −log p(x_i, h_i) + (β/2)Σ_j‖W_j‖². Every estimator of a network shares
:class:`BayesNetEstimator`'s ``predict`` (the most probable hidden values) and ``score``.
"""

from __future__ import annotations

import numpy as np

from seqspectral.base import Estimator, integer, real, seed
from seqspectral.mixtures.bayesnet.network import BayesNetStructure, StructureError
from seqspectral.mixtures.bayesnet.tables import fit_tables


def _structure(v) -> str | None:
    return None if isinstance(v, BayesNetStructure) else "a BayesNetStructure"


def hard_em(structure: BayesNetStructure, X: np.ndarray, H: np.ndarray, beta: float, max_iter: int):
    """Viterbi EM from the assignments H: (network, joint objective, final H, history, converged).

    Alternates the tables of the completed data with the most probable hidden values until
    the assignments repeat (each step lowers the joint objective) or ``max_iter`` E-steps;
    ``history`` holds the joint objective of the tables fitted before each E-step (its length
    is the number of E-steps; non-increasing up to the M-step's optimiser tolerance).
    """
    history = []
    for _ in range(max_iter):
        net, objective = fit_tables(structure, structure.complete(X, H), beta)
        history.append(objective)
        H_next = net.most_probable_hidden(X)
        if np.array_equal(H_next, H):
            return net, objective, H, np.array(history), True
        H = H_next
    net, objective = fit_tables(structure, structure.complete(X, H), beta)  # not converged: the last assignments
    return net, objective, H, np.array(history), False


class BayesNetEstimator(Estimator):
    """``predict`` and ``score`` of an estimator whose fitted network is ``model_``."""

    def predict(self, X) -> np.ndarray:
        """The most probable hidden values argmax_h p(x, h) of every row of ``X`` (n × n_hidden)."""
        self._check_fitted()
        return self.model_.most_probable_hidden(X)

    def score(self, X) -> float:
        """Mean log-likelihood (1/n) Σ_i log p(x_i), hidden values summed out (nats; minus the log-loss)."""
        self._check_fitted()
        return float(np.mean(self.model_.log_marginal(X)))

    def _checked_input(self, X) -> np.ndarray:
        self._validate_params()
        X = self.structure.check_observed(X)
        if len(X) < 2:
            raise StructureError(f"{type(self).__name__} needs at least 2 examples, got {len(X)}")
        return X


class SupervisedBayesNet(BayesNetEstimator):
    """The regularised log-linear network of the complete data: hidden values revealed.

    Attributes after ``fit(X, H)``: ``model_`` (:class:`DiscreteBayesNet`), ``objective_``
    (the joint objective at the given H).
    """

    _parameter_checks = {"structure": _structure, "beta": real(0, open_low=True)}

    def __init__(self, structure: BayesNetStructure, *, beta: float = 1.0):
        self.structure = structure
        self.beta = beta

    def fit(self, X, H):
        X = self._checked_input(X)
        H = self.structure.check_hidden(H)
        self.model_, self.objective_ = fit_tables(self.structure, self.structure.complete(X, H), self.beta)
        return self


class ViterbiEM(BayesNetEstimator):
    """Hard (Viterbi) EM over the hidden values, ``n_restarts`` random starts, best by objective.

    Attributes after ``fit(X)``: ``model_``, ``hidden_`` (the training assignments of the best
    restart), ``objective_`` (its joint objective), ``restart_objectives_``, ``n_iter_`` (E-steps
    of the best restart), ``history_`` (the best restart's joint objective before each of its
    E-steps), ``converged_`` (its assignments repeated within ``max_iter``).
    """

    _parameter_checks = {"structure": _structure, "beta": real(0, open_low=True),
                         "n_restarts": integer(1), "max_iter": integer(1), "random_state": seed}

    def __init__(self, structure: BayesNetStructure, *, beta: float = 1.0, n_restarts: int = 10,
                 max_iter: int = 100, random_state=0):
        self.structure = structure
        self.beta = beta
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X):
        X = self._checked_input(X)
        s = self.structure
        rng = np.random.default_rng(self.random_state)
        cards = np.array([s.cardinalities[h] for h in s.hidden_index])
        best, objectives = None, []
        for _ in range(self.n_restarts):
            net, objective, H, history, converged = hard_em(s, X, rng.integers(0, cards, size=(len(X), len(cards))),
                                                            self.beta, self.max_iter)
            objectives.append(objective)
            if best is None or objective < best[0]:
                best = (objective, net, H, history, converged)
        self.objective_, self.model_, self.hidden_, self.history_, self.converged_ = best
        self.n_iter_ = len(self.history_)
        self.restart_objectives_ = np.array(objectives)
        return self
