"""Mixtures of smooth product distributions (Kargas & Sidiropoulos, AISTATS 2019).

f(x) = Σ_h λ_h Π_n f_n(x_n | h), with the conditionals f_n(· | h) smooth but of no
assumed parametric form. Learning (Sections 3–4): discretise every variable into I
equal-width bins (:mod:`.histograms`), estimate the 3-way joint histograms of a
set of triples, fit them jointly by one coupled rank-F CP model whose factors are the
binned conditionals and whose weights are λ (:mod:`.coupled_cp`, KL objective by
alternating mirror descent), then recover each conditional density from its bin
probabilities by sinc interpolation of the CDF (:mod:`.sinc`). Clustering is by
the maximum a-posteriori component under the recovered densities.

Missing values are NaN: each triple is estimated from the rows where its three variables
are present, and a row is scored over its observed variables (the others marginalised).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp, softmax

from ...base import Estimator, either, integer, one_of, real, seed
from ...selection import BINS_GRID, grid_search, select_and_refit
from .coupled_cp import LOSSES, fit_coupled_cp, random_start
from .histograms import EqualWidthBins, all_triples, balanced_triples, triple_histograms
from .sinc import SincDensities


def _triples_check(v):
    if isinstance(v, str):
        return None if v == "all" else "'all', a number of triples or a list of triples"
    if integer(1)(v) is None:
        return None
    try:
        array = np.asarray(v)
    except (TypeError, ValueError):
        array = None
    if array is not None and array.ndim == 2 and array.shape[1] == 3 and array.shape[0] >= 1:
        return None
    return "'all', a number of triples or a list of triples"


class SmoothProductMixture(Estimator):
    """A mixture of F product distributions learned from 3-way histograms.

    Parameters
    ----------
    n_components : F, the number of mixture components.
    n_bins : bins per variable (I), or ``"auto"``: chosen among ``bins_grid`` by the mean
        held-out log-likelihood (the ``dev`` rows given to :meth:`fit`, else a
        seeded :data:`seqspectral.selection.HELD_OUT_FRACTION` (20%) of the rows, by
        :func:`seqspectral.selection.held_out_split`), then refitted on all rows; the record is ``selection_``.
    triples : ``"all"`` (every j < k < l), a number m (m random triples chosen to cover the
        variables evenly) or an explicit (T, 3) list of variable indices.
    loss : ``"kl"`` (the paper's objective) or ``"frobenius"``.
    n_init : random starts; the fit of lowest cost is kept.
    max_iter, tol : outer iterations and the stopping rule on the relative cost change.
    inner_max_iter, inner_tol : mirror-descent steps per block and their stopping rule
        (relative change of the block).
    random_state : seed of the starts and of the random triples.
    """

    _parameter_checks = {
        "n_components": integer(1),
        "n_bins": either(integer(2), one_of("auto")),
        "bins_grid": lambda v: None if (len(v) >= 1 and all(integer(2)(b) is None for b in v)) else "integers >= 2",
        "triples": _triples_check,
        "loss": one_of(*LOSSES),
        "n_init": integer(1),
        "max_iter": integer(1),
        "tol": real(0),
        "inner_max_iter": integer(1),
        "inner_tol": real(0),
        "random_state": seed,
    }

    def __init__(self, n_components, *, n_bins=15, bins_grid=BINS_GRID, triples="all", loss="kl", n_init=3,
                 max_iter=500, tol=1e-5, inner_max_iter=10, inner_tol=1e-4, random_state=0):
        self.n_components = n_components
        self.n_bins = n_bins
        self.bins_grid = bins_grid
        self.triples = triples
        self.loss = loss
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.inner_max_iter = inner_max_iter
        self.inner_tol = inner_tol
        self.random_state = random_state

    # -- fitting -----------------------------------------------------------------------------
    def fit(self, X, y=None, *, dev=None):
        """Learn λ and the conditionals from the rows of ``X`` (n × N, NaN = missing); an
        ``"auto"`` number of bins is chosen on the ``dev`` rows (else on held-out rows of ``X``,
        then refitted on all of them: ``selection.select_and_refit``)."""
        self._validate_params()
        X = _as_data(X, "X")
        if X.shape[1] < 3:
            raise ValueError(f"{type(self).__name__} needs at least 3 variables, got {X.shape[1]}")
        if self.n_bins != "auto":
            self.selection_ = None
            return self._fit_bins(X, self.n_bins)
        if dev is not None:
            dev = _as_data(dev, "dev")
            if dev.shape[1] != X.shape[1]:
                raise ValueError(f"dev has {dev.shape[1]} variables, X has {X.shape[1]}")

        def choose(fit_rows, held, on):
            candidates = {}

            def score(n_bins):  # each candidate fitted apart: nothing of this estimator written
                candidates[n_bins] = type(self)(**{**self.get_params(deep=False), "n_bins": n_bins})
                return candidates[n_bins]._fit_bins(fit_rows, n_bins).score(held)

            result = grid_search({"n_bins": list(self.bins_grid)}, score, on=on)
            chosen = candidates[result.chosen["n_bins"]]
            vars(self).update({k: v for k, v in vars(chosen).items() if k.endswith("_") and k != "selection_"})
            return result

        self.selection_ = select_and_refit(X, dev, self.random_state, choose,
                                           lambda train, held: self._fit_bins(train, self.n_bins_))
        return self

    def _fit_bins(self, X, n_bins: int):
        rng = np.random.default_rng(self.random_state)
        N, F = X.shape[1], self.n_components
        triples = self._resolve_triples(N, rng)
        bins = EqualWidthBins.from_data(X, n_bins)
        histograms, self.n_rows_per_triple_ = triple_histograms(bins.transform(X), triples, n_bins)
        best = None
        for _ in range(self.n_init):
            weights, factors = random_start(N, n_bins, F, rng)
            fit = fit_coupled_cp(histograms, triples, weights, factors, loss=self.loss, max_iter=self.max_iter,
                                 tol=self.tol, inner_max_iter=self.inner_max_iter, inner_tol=self.inner_tol)
            if best is None or fit.cost < best.cost:
                best = fit
        self.bins_, self.triples_, self.n_bins_ = bins, triples, n_bins
        self.weights_, self.factors_ = best.weights, best.factors
        self.cost_, self.history_, self.converged_ = best.cost, best.cost_history, best.converged
        self.n_iter_ = len(best.cost_history)
        self.densities_ = SincDensities(best.factors, bins.low, bins.width)
        self.n_features_in_ = N
        return self

    def _resolve_triples(self, N: int, rng: np.random.Generator) -> np.ndarray:
        if isinstance(self.triples, str):
            return all_triples(N)
        if integer(1)(self.triples) is None:
            return balanced_triples(N, self.triples, rng)
        triples = np.sort(np.asarray(self.triples, dtype=np.int64), axis=1)
        if triples.min() < 0 or triples.max() >= N or np.any(triples[:, 0] == triples[:, 1]) \
                or np.any(triples[:, 1] == triples[:, 2]):
            raise ValueError(f"triples must hold three different variables in 0..{N - 1}")
        return triples

    # -- using the model ---------------------------------------------------------------------
    def _joint_log(self, X) -> np.ndarray:
        self._check_fitted()
        X = _as_data(X, "X")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} variables, the model {self.n_features_in_}")
        with np.errstate(divide="ignore"):
            return self.densities_.log_pdf(X) + np.log(self.weights_)

    def score_samples(self, X) -> np.ndarray:
        """log f(x) of every row (NaN entries marginalised)."""
        return logsumexp(self._joint_log(X), axis=1)

    def score(self, X, y=None) -> float:
        """Mean log-likelihood per row (higher is better)."""
        return float(np.mean(self.score_samples(X)))

    def predict_proba(self, X) -> np.ndarray:
        """(n, F) posterior probabilities of the components."""
        return softmax(self._joint_log(X), axis=1)

    def predict(self, X) -> np.ndarray:
        """The maximum a-posteriori component of every row."""
        return np.argmax(self._joint_log(X), axis=1)


def _as_data(X, name: str) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or len(X) == 0:
        raise ValueError(f"{name} must be a non-empty 2-d array (rows × variables), got shape {X.shape}")
    if np.isinf(X).any():
        raise ValueError(f"{name} holds infinite values; use NaN for missing ones")
    return X
