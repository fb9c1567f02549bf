"""EM for the mixture of linear regressions from many starts: screened on a subsample, the best refined.

The baseline of Chaganty & Liang (2013), §6: β_h ~ N(0, I), π uniform plus a small
perturbation, at most 1000 iterations; "Spectral+EM" starts from the Spectral Experts
estimate instead. E-step: responsibilities γ_ih ∝ π_h N(y_i; β_hᵀx_i, σ²); M-step:
π_h = mean_i γ_ih, β_h by least squares weighted by γ_·h, and (unless σ² is given)
σ² = Σ_ih γ_ih (y_i − β_hᵀx_i)² / n. Screening many starts cheaply and refining the few best
follows the "short runs" strategy of Biernacki, Celeux & Govaert (2003); here the cheap runs are
EM on a random subsample rather than a few iterations on all rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...base import either, integer, one_of, real, seed
from ._kernels import em_pass
from .alignment import parameter_error
from .mixture import InputError, LinearExpertsMixture, check_data
from .spectral import SpectralExperts

#: the relative size of the random perturbation of the uniform starting weights
WEIGHT_PERTURBATION = 0.1
#: final mean log-likelihoods (nats per sample) this close are the same optimum: the earliest start wins
TIE_TOLERANCE = 1e-6
#: screened fits closer than this (‖B − B'‖_F after alignment, relative to ‖B‖_F ∨ 1) are one optimum
SAME_OPTIMUM = 1e-2


def _stats(XT, y, coef, weights, sigma2):
    """One E-step pass (see :func:`em_pass`) at (B, π, σ²) over the features ``XT = Xᵀ`` and responses ``y``."""
    with np.errstate(divide="ignore"):
        log_weights = np.log(weights)
    return em_pass(XT, y, np.ascontiguousarray(coef), log_weights, 1.0 / sigma2, -0.5 * np.log(2 * np.pi * sigma2))


def _m_step(mass, gram, rhs, square, n: int, fixed_variance: float | None):
    """π, B and σ² from the pass's sums: β_h = (Σγ_h x xᵀ)⁻¹ Σγ_h y x; σ² = Σ_h Σ_i γ_ih (y_i − β_hᵀx_i)² / n."""
    d = gram.shape[1]
    ridge = 1e-12 * np.maximum(np.trace(gram, axis1=1, axis2=2), 1e-300)  # an empty component stays solvable
    coef = np.linalg.solve(gram + ridge[:, None, None] * np.eye(d), rhs[:, :, None])[:, :, 0].T
    weights = np.maximum(mass / n, 1e-300)  # a component that lost every sample keeps a finite log-weight
    if fixed_variance is not None:
        return weights, coef, fixed_variance
    # Σ_i γ_ih (y_i − β_hᵀx_i)² = Σγy² − 2 β_hᵀ Σγ y x + β_hᵀ (Σγ x xᵀ) β_h
    residual = square - 2 * np.einsum("hd,dh->h", rhs, coef) + np.einsum("dh,hde,eh->h", coef, gram, coef)
    return weights, coef, max(float(np.sum(residual)) / n, 1e-12)


@dataclass(frozen=True)
class StartResult:
    """One start's EM run: its label (``"spectral"``, ``"random 1"``, ``"given"``), the start and the fit;
    ``history``: the mean log-likelihood after each of its ``n_iter`` M-steps."""

    label: str
    start_coef: np.ndarray
    start_weights: np.ndarray
    coef: np.ndarray
    weights: np.ndarray
    noise_variance: float
    log_likelihood: float
    n_iter: int
    converged: bool
    history: np.ndarray


class MixtureOfLinearRegressionsEM(LinearExpertsMixture):
    """Maximum likelihood for the mixture of linear regressions by EM, from many screened starts.

    By default (``init="spectral"``, ``n_init=50``, ``screen_size=20_000``, ``n_refine=3``):

    1. **Screen**: EM runs from the Spectral Experts estimate (Spectral+EM) and from 49 random
       starts on one random subsample of 20,000 rows (to a mean gain < ``screen_tol`` nats per
       sample, at most ``max_iter`` iterations);
    2. **Refine**: the ``n_refine`` screened fits of highest subsample likelihood that are
       distinct optima run EM on all rows from where screening left them (``tol``, ``max_iter``);
    3. the refined fit of highest likelihood is kept — on a tie (within :data:`TIE_TOLERANCE`
       nats per sample, the same optimum reached twice) the earliest start, so the spectral one
       wins ties. ``start_`` says which start won.

    Local optima of this likelihood swap pieces of crossing regression curves; a random start
    finds the global one's basin on some instances only a few times in a hundred, so many cheap
    starts beat a few expensive ones: on fresh random instances of the paper's histogram set-up
    the default reaches the global optimum far more often than Spectral+EM or ten full starts,
    at about the same cost (``evaluation/spectral_experts.py``, docs/spectral-experts.md). With
    ``n_init ≤ n_refine`` or at most ``screen_size`` rows there is no screening: every start runs
    on all rows (``n_init=1`` is plain EM from one start).

    Parameters
    ----------
    n_components : k.
    init : ``"spectral"`` (the first start is the B̂ of ``spectral`` with π uniform — as the
        authors' Spectral+EM; the spectral π̂ is far less accurate than B̂ — the other
        ``n_init − 1`` random) or ``"random"`` (all ``n_init`` random: β_h ~ N(0, I), π uniform
        times 1 + U(−0.1, 0.1), renormalised). ``coef_init`` / ``weights_init``, when given,
        replace the first start (labelled ``"given"``).
    n_init : the number of starts.
    screen_size : rows of the screening subsample (drawn with ``random_state``).
    n_refine : the screened fits run on all rows.
    noise_variance : σ², fixed and known; ``None`` (default) estimates it, starting from the mean
        squared residual of every row to the start's nearest regression (starting from Var(y)
        instead washes an informed start out in the first E-step).
    spectral : the :class:`SpectralExperts` of ``init="spectral"``; ``None`` builds one with
        this estimator's k, noise variance (0 if ``None``) and random_state.
    max_iter, tol : per run, stop after ``max_iter`` iterations or once the mean
        log-likelihood gains less than ``tol`` (on all rows) or ``screen_tol`` (screening)
        nats per sample.
    random_state : seeds the random starts, the subsample (and the default Spectral Experts).

    Fitted attributes: ``coef_`` (d x k), ``weights_``, ``noise_variance_``, ``n_iter_``,
    ``converged_``, ``history_`` (the mean log-likelihood after each of its ``n_iter_`` M-steps,
    non-decreasing), ``log_likelihood_`` (mean per sample over all rows, at the returned
    parameters) — all of the winning start's run on all rows; ``start_`` (its label: ``"spectral"``, ``"given"``
    or ``"random i"``), ``starts_`` (a :class:`StartResult` per start, in order: its screening
    run, or its run on all rows without screening), ``refined_`` (the runs on all rows, best
    screened first), ``spectral_`` with ``init="spectral"``.
    """

    _parameter_checks = {
        "n_components": integer(1),
        "init": one_of("random", "spectral"),
        "n_init": integer(1),
        "screen_size": integer(1),
        "n_refine": integer(1),
        "noise_variance": either(one_of(None), real(0.0, open_low=True)),
        "max_iter": integer(0),
        "tol": real(0.0),
        "screen_tol": real(0.0),
        "random_state": seed,
    }

    def __init__(self, n_components: int = 2, *, init: str = "spectral", n_init: int = 50,
                 screen_size: int = 20_000, n_refine: int = 3, noise_variance: float | None = None,
                 spectral: SpectralExperts | None = None, coef_init=None, weights_init=None, max_iter: int = 1000,
                 tol: float = 1e-8, screen_tol: float = 1e-6, random_state=0):
        self.n_components = n_components
        self.init = init
        self.n_init = n_init
        self.screen_size = screen_size
        self.n_refine = n_refine
        self.noise_variance = noise_variance
        self.spectral = spectral
        self.coef_init = coef_init
        self.weights_init = weights_init
        self.max_iter = max_iter
        self.tol = tol
        self.screen_tol = screen_tol
        self.random_state = random_state

    def _starts(self, X: np.ndarray, y: np.ndarray) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """``(label, coef, weights)`` of every start, in order."""
        d, k = X.shape[1], self.n_components
        rng = np.random.default_rng(self.random_state)
        starts = []
        if self.coef_init is not None or self.weights_init is not None:
            coef = rng.standard_normal((d, k)) if self.coef_init is None else np.asarray(self.coef_init, dtype=np.float64)
            weights = np.full(k, 1.0 / k) if self.weights_init is None else np.asarray(self.weights_init, dtype=np.float64)
            starts.append(("given", coef, weights))
        elif self.init == "spectral":
            spectral = self.spectral if self.spectral is not None else SpectralExperts(
                k, noise_variance=self.noise_variance or 0.0, random_state=self.random_state)
            self.spectral_ = spectral.fit(X, y)
            starts.append(("spectral", spectral.coef_, np.full(k, 1.0 / k)))
        while len(starts) < self.n_init:
            coef = rng.standard_normal((d, k))
            weights = (1.0 + rng.uniform(-WEIGHT_PERTURBATION, WEIGHT_PERTURBATION, size=k)) / k
            starts.append((f"random {sum(label.startswith('random') for label, _, _ in starts) + 1}", coef, weights))
        checked = []
        for label, coef, weights in starts:
            if coef.shape != (d, k) or weights.shape != (k,):
                raise InputError(f"the start must be coef {(d, k)} and weights {(k,)}, got {coef.shape} and {weights.shape}")
            weights = np.clip(weights, 1e-12, None)  # a spectral weight can come out ≤ 0 on noisy moments
            checked.append((label, coef.copy(), weights / weights.sum()))
        return checked

    def fit(self, X, y) -> "MixtureOfLinearRegressionsEM":
        """Screen every start, refine the best on all rows, keep the refined fit of highest likelihood; returns self."""
        self._validate_params()
        X, y = check_data(X, y)
        if len(X) < 2:
            raise InputError("EM needs at least two samples")
        starts = self._starts(X, y)
        XT = np.ascontiguousarray(X.T)  # feature-major for the EM pass: no copy when X is Fortran-ordered
        if len(starts) <= self.n_refine or len(X) <= self.screen_size:
            self.starts_ = [self._run(XT, y, label, coef, weights, self.tol) for label, coef, weights in starts]
            self.refined_ = self.starts_
        else:
            rows = np.sort(np.random.default_rng(self.random_state).choice(len(X), self.screen_size, replace=False))
            sub_XT, sub_y = np.ascontiguousarray(XT[:, rows]), y[rows]
            self.starts_ = [self._run(sub_XT, sub_y, label, coef, weights, self.screen_tol)
                            for label, coef, weights in starts]
            self.refined_ = [self._run(XT, y, run.label, run.coef, run.weights, self.tol,
                                       noise_variance=run.noise_variance, start=(run.start_coef, run.start_weights))
                             for run in self._distinct_best(self.starts_)]
        # the same optimum reached from several starts: the earliest start within the tie tolerance
        order = {run.label: i for i, run in enumerate(self.starts_)}
        top = max(run.log_likelihood for run in self.refined_)
        best = min((run for run in self.refined_ if run.log_likelihood >= top - TIE_TOLERANCE),
                   key=lambda run: order[run.label])
        self.coef_, self.weights_, self.noise_variance_ = best.coef, best.weights, best.noise_variance
        self.n_iter_, self.converged_, self.log_likelihood_ = best.n_iter, best.converged, best.log_likelihood
        self.history_ = best.history
        self.start_ = best.label
        return self

    def _distinct_best(self, runs: list[StartResult]) -> list[StartResult]:
        """One run per optimum for the ``n_refine`` optima of highest likelihood: the earliest start that reached it.

        Runs within :data:`SAME_OPTIMUM` of an optimum's best run are that optimum."""
        optima: list[list[int]] = []
        for i in sorted(range(len(runs)), key=lambda i: -runs[i].log_likelihood):
            scale = max(float(np.linalg.norm(runs[i].coef)), 1.0)
            home = next((o for o in optima if parameter_error(runs[o[0]].coef, runs[i].coef) <= SAME_OPTIMUM * scale),
                        None)
            if home is not None:
                home.append(i)
            elif len(optima) < self.n_refine:
                optima.append([i])
        return [runs[min(o)] for o in optima]

    def _run(self, XT: np.ndarray, y: np.ndarray, label: str, coef: np.ndarray, weights: np.ndarray, tol: float, *,
             noise_variance: float | None = None, start=None) -> StartResult:
        """EM from one start (Chaganty & Liang 2013, §6's baseline) on ``XT = Xᵀ`` and ``y``, σ² from ``noise_variance`` if given.

        ``start``: the (coef, weights) recorded as the start (a refined run keeps its original start)."""
        n = len(y)
        start_coef, start_weights = (coef.copy(), weights.copy()) if start is None else start
        if self.noise_variance is not None:
            sigma2 = float(self.noise_variance)
        elif noise_variance is not None:
            sigma2 = noise_variance
        else:  # each row's squared residual to its nearest regression: a wide σ² would wash the start out
            sigma2 = max(float(np.mean(np.min((y - coef.T @ XT) ** 2, axis=0))), 1e-12)
        previous = current = -np.inf
        converged = False
        n_iter = 0
        history = []  # the log-likelihood after each M-step: the E-step of the next iteration computes it
        for n_iter in range(1, self.max_iter + 1):
            total, mass, gram, rhs, square = _stats(XT, y, coef, weights, sigma2)
            current = total / n
            if n_iter > 1:
                history.append(current)
            if current - previous < tol:
                converged = True
                n_iter -= 1
                break
            previous = current
            weights, coef, sigma2 = _m_step(mass, gram, rhs, square, n, self.noise_variance)
        log_likelihood = current if converged else _stats(XT, y, coef, weights, sigma2)[0] / n
        if not converged and n_iter:
            history.append(log_likelihood)
        return StartResult(label, start_coef, start_weights, coef, weights, sigma2, float(log_likelihood), n_iter,
                           converged, np.array(history, dtype=np.float64))
