"""EM for the mixture of linear regressions, from random starts or from Spectral Experts.

The baseline of Chaganty & Liang (2013), §6: β_h ~ N(0, I), π uniform plus a small
perturbation, at most 1000 iterations; "Spectral+EM" starts from the Spectral Experts
estimate instead. E-step: responsibilities γ_ih ∝ π_h N(y_i; β_hᵀx_i, σ²); M-step:
π_h = mean_i γ_ih, β_h by least squares weighted by γ_·h, and (unless σ² is given)
σ² = Σ_ih γ_ih (y_i − β_hᵀx_i)² / n.
"""

from __future__ import annotations

import numpy as np

from ...base import either, integer, one_of, real, seed
from ._kernels import em_pass
from .mixture import InputError, LinearExpertsMixture, check_data
from .spectral import SpectralExperts

#: the relative size of the random perturbation of the uniform starting weights
WEIGHT_PERTURBATION = 0.1


def _stats(X, y, coef, weights, sigma2):
    """One E-step pass (see :func:`em_pass`) at (B, π, σ²)."""
    with np.errstate(divide="ignore"):
        log_weights = np.log(weights)
    return em_pass(X, y, np.ascontiguousarray(coef), log_weights, 1.0 / sigma2, -0.5 * np.log(2 * np.pi * sigma2))


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


class MixtureOfLinearRegressionsEM(LinearExpertsMixture):
    """Maximum likelihood for the mixture of linear regressions by EM.

    Parameters
    ----------
    n_components : k.
    init : ``"random"`` (β_h ~ N(0, I), π uniform times 1 + U(−0.1, 0.1), renormalised) or
        ``"spectral"`` (the estimate of ``spectral``, Spectral+EM); ``coef_init`` /
        ``weights_init``, when given, replace the start of either.
    noise_variance : σ², fixed and known; ``None`` estimates it (starting from Var(y)).
    spectral : the :class:`SpectralExperts` of ``init="spectral"``; ``None`` builds one with
        this estimator's k, noise variance (0 if ``None``) and random_state.
    max_iter, tol : stop after ``max_iter`` iterations or once the mean log-likelihood gains
        less than ``tol`` nats per sample.
    random_state : seeds the random start (and the default Spectral Experts).

    Fitted attributes: ``coef_`` (d x k), ``weights_``, ``noise_variance_``, ``n_iter_``,
    ``converged_``, ``log_likelihood_`` (mean per sample, at the returned parameters),
    ``start_`` ((coef, weights) it started from), ``spectral_`` with ``init="spectral"``.
    """

    _parameter_checks = {
        "n_components": integer(1),
        "init": one_of("random", "spectral"),
        "noise_variance": either(one_of(None), real(0.0, open_low=True)),
        "max_iter": integer(0),
        "tol": real(0.0),
        "random_state": seed,
    }

    def __init__(self, n_components: int = 2, *, init: str = "random", noise_variance: float | None = None,
                 spectral: SpectralExperts | None = None, coef_init=None, weights_init=None, max_iter: int = 1000,
                 tol: float = 1e-8, random_state=0):
        self.n_components = n_components
        self.init = init
        self.noise_variance = noise_variance
        self.spectral = spectral
        self.coef_init = coef_init
        self.weights_init = weights_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _start(self, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d, k = X.shape[1], self.n_components
        rng = np.random.default_rng(self.random_state)
        if self.init == "spectral" and (self.coef_init is None or self.weights_init is None):
            spectral = self.spectral if self.spectral is not None else SpectralExperts(
                k, noise_variance=self.noise_variance or 0.0, random_state=self.random_state)
            self.spectral_ = spectral.fit(X, y)
            coef, weights = spectral.coef_, spectral.weights_
        else:
            coef = rng.standard_normal((d, k))
            weights = (1.0 + rng.uniform(-WEIGHT_PERTURBATION, WEIGHT_PERTURBATION, size=k)) / k
        if self.coef_init is not None:
            coef = np.asarray(self.coef_init, dtype=np.float64)
        if self.weights_init is not None:
            weights = np.asarray(self.weights_init, dtype=np.float64)
        if coef.shape != (d, k) or weights.shape != (k,):
            raise InputError(f"the start must be coef {(d, k)} and weights {(k,)}, got {coef.shape} and {weights.shape}")
        weights = np.clip(weights, 1e-12, None)  # a spectral weight can come out ≤ 0 on noisy moments
        return coef.copy(), weights / weights.sum()

    def fit(self, X, y) -> "MixtureOfLinearRegressionsEM":
        """Run EM from the chosen start; returns self."""
        self._validate_params()
        X, y = check_data(X, y)
        if len(X) < 2:
            raise InputError("EM needs at least two samples")
        coef, weights = self._start(X, y)
        self.start_ = (coef.copy(), weights.copy())
        sigma2 = float(self.noise_variance) if self.noise_variance is not None else max(float(np.var(y)), 1e-12)
        previous = current = -np.inf
        self.converged_ = False
        n_iter = 0
        X = np.ascontiguousarray(X)
        for n_iter in range(1, self.max_iter + 1):
            total, mass, gram, rhs, square = _stats(X, y, coef, weights, sigma2)
            current = total / len(y)
            if current - previous < self.tol:
                self.converged_ = True
                n_iter -= 1
                break
            previous = current
            weights, coef, sigma2 = _m_step(mass, gram, rhs, square, len(y), self.noise_variance)
        self.coef_, self.weights_, self.noise_variance_ = coef, weights, sigma2
        self.n_iter_ = n_iter
        self.log_likelihood_ = current if self.converged_ else _stats(X, y, coef, weights, sigma2)[0] / len(y)
        return self
