"""The mixture of linear regressions y = β_hᵀ x + ε, h ~ π, ε ~ N(0, σ²): what its fitted estimators share.

Chaganty & Liang (2013), §2. A fitted estimator holds ``coef_`` (d x k, column h = β_h),
``weights_`` (π, k) and ``noise_variance_`` (σ²).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from ...base import Estimator


class InputError(ValueError):
    """Covariates and responses that cannot be fitted (shape, non-finite values, too few rows)."""

    user_facing = True


def check_data(X, y=None, *, n_features: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """``X`` as an n x d float array and ``y`` as n floats, both finite, or an :class:`InputError`."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise InputError(f"X must be a 2-D array (samples x features), got shape {X.shape}")
    if n_features is not None and X.shape[1] != n_features:
        raise InputError(f"X has {X.shape[1]} features, the model was fitted on {n_features}")
    if not np.all(np.isfinite(X)):
        raise InputError(f"X has {int(np.sum(~np.isfinite(X)))} non-finite values (first in row {int(np.argwhere(~np.isfinite(X))[0, 0])})")
    if y is None:
        return X, None
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (len(X),):
        raise InputError(f"y must hold one response per row of X ({len(X)}), got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise InputError(f"y has {int(np.sum(~np.isfinite(y)))} non-finite values (first in row {int(np.argwhere(~np.isfinite(y))[0, 0])})")
    return X, y


def component_log_densities(X: np.ndarray, y: np.ndarray, coef: np.ndarray, weights: np.ndarray,
                            noise_variance: float) -> np.ndarray:
    """``log π_h + log N(y_i; β_hᵀ x_i, σ²)`` for every row i and component h (n x k)."""
    residuals = y[:, None] - X @ coef
    with np.errstate(divide="ignore"):
        log_weights = np.log(weights)
    return log_weights - 0.5 * residuals ** 2 / noise_variance - 0.5 * np.log(2 * np.pi * noise_variance)


class LinearExpertsMixture(Estimator):
    """``predict``, ``score`` and the fitted check of an estimator of the mixture."""

    def predict(self, X) -> np.ndarray:
        """``E[y | x] = Σ_h π_h β_hᵀ x`` for every row of ``X``."""
        self._check_fitted()
        X, _ = check_data(X, n_features=self.coef_.shape[0])
        return X @ (self.coef_ @ self.weights_)

    def score(self, X, y) -> float:
        """The mean log-likelihood per sample (natural log) under ``coef_``, ``weights_``, ``noise_variance_``."""
        self._check_fitted()
        X, y = check_data(X, y, n_features=self.coef_.shape[0])
        if self.noise_variance_ <= 0:
            raise ValueError("the likelihood needs a positive noise variance; this model was fitted with σ² = 0")
        return float(np.mean(logsumexp(component_log_densities(X, y, self.coef_, self.weights_,
                                                               self.noise_variance_), axis=1)))
