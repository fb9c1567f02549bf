"""Spectral Experts: a mixture of linear regressions by low-rank regression and tensor factorisation.

Chaganty & Liang, "Spectral Experts for Estimating Mixtures of Linear Regressions", ICML 2013.
For y = β_hᵀx + ε with h ~ π and symmetric noise of variance σ² = E[ε²] (known, §3):

- ``M1 = Σ_h π_h β_h`` by least squares of y on x (eq. 4);
- ``M2 = Σ_h π_h β_h^{⊗2}`` by regressing ``y² − σ²`` on ``x^{⊗2}`` with nuclear-norm
  regularisation λ2 (eqs. 5-6);
- ``M3 = Σ_h π_h β_h^{⊗3}`` by regressing ``y³ − 3σ²⟨M1, x⟩`` on ``x^{⊗3}`` with the
  mean of the three unfoldings' nuclear norms, λ3 (eqs. 5, 7);
- Algorithm 1: whiten M2 by W (Wᵀ M2 W = I), run the robust tensor power method on
  ``M3(W, W, W) = Σ_h a_h v_h^{⊗3}``, and read off ``π_h = a_h^{-2}`` and
  ``β_h = (Wᵀ)⁺ a_h v_h``.

Both regressions run on precomputed sufficient statistics of the symmetric monomials and
minimise the objective of the authors' CVX programs: ``½ sqrt(E[(z − ⟨M, x^{⊗p}⟩)²]) + c R(M)``.
The paper's ``λ_n = c/√n`` (§6: c2 = 1e-5, c3 = 1e-3, the defaults) multiplies R against
``(0.5/n) ‖z − X vec(M)‖₂`` — a norm, not its square — which is ``½ rms/√n``: dividing
both by ``1/√n`` leaves the constant c against the root mean squared residual, so the
regularisation is relative to the residual's size and does not vanish with n. (Read as a
penalty on the *squared* loss, ``c/√n`` is ``2 rms √n`` times weaker: at n = 500,000 nothing
but rounding then decides the directions the data do not fix.) With the paper's polynomial
features distinct monomials of x^{⊗p} can coincide (t·t⁷ = t⁴·t⁴), so G is singular and
R alone picks M2 and M3 along those directions.

``solver="irls"`` (the default) solves the authors' problem itself, in the original features, by
iteratively reweighted least squares (:mod:`.irls`): every step is one exact linear solve, so
the singular Gram matrices of the paper's features cost nothing more; it reaches the objective
of cvxpy's interior-point solution (``solver="cvxpy"``, cvxpy + Clarabel, as the authors' CVX)
to 1e-7 relative or better, 1.5-30 times faster (``evaluation/spectral_experts.py``).
``solver="fista"`` solves it by FISTA (:func:`.fista.solve_root_loss_regression`) on the
*whitened* covariates ``x' = Pᵀx`` (``Pᵀ E[xxᵀ] P = I``), which conditions the problem for a
gradient method; the model in x' has ``β'_h = P⁻¹β_h``, so every estimate maps back
(``β_h = P β'_h``) — but the nuclear norm is then taken in the whitened coordinates, a
different regulariser (the estimate is equivariant to an invertible map of the features).

``moments="subspace"`` keeps the regularised M2 only as a start where the data leave a choice:
M2 is completed to rank k and M3 regressed by least squares in its column space
(:mod:`.completion`; the nuclear norm can prefer a wrong completion, docs/spectral-experts.md).
"""

from __future__ import annotations

import numpy as np

from ...base import integer, one_of, real, seed
from ...linalg import robust_tensor_power, whitening
from .completion import subspace_moments
from .fista import LowRankSolution, solve_root_loss_regression
from .irls import solve_root_loss_regression_irls
from .mixture import InputError, LinearExpertsMixture, check_data
from .monomials import regression_statistics


def mixture_moments(coef, weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact ``(M1, M2, M3)`` of a mixture: ``Σ_h π_h β_h^{⊗p}`` for p = 1, 2, 3."""
    B, pi = np.asarray(coef, dtype=np.float64), np.asarray(weights, dtype=np.float64)
    return B @ pi, np.einsum("h,ih,jh->ij", pi, B, B), np.einsum("h,ih,jh,kh->ijk", pi, B, B, B)


def experts_from_moments(M2, M3, n_components: int, *, random_state=0, n_starts: int = 20,
                         n_iter: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """``(weights, coef)`` from ``M2`` and ``M3`` by Algorithm 1 (whitening + robust tensor power).

    ``weights[h] = a_h^{-2}`` (not renormalised) and ``coef[:, h] = (Wᵀ)⁺ a_h v_h``. The sign
    of a recovered pair (a_h, v_h) does not matter: ``a_h v_h`` and ``a_h²`` are invariant.
    """
    W, W_pinv_T = whitening(M2, n_components)
    T = np.einsum("abc,ai,bj,ck->ijk", np.asarray(M3, dtype=np.float64), W, W, W)
    a, V = robust_tensor_power(T, n_components, n_starts=n_starts, n_iter=n_iter, random_state=random_state)
    return a ** -2.0, W_pinv_T @ (V * a)


class SpectralExperts(LinearExpertsMixture):
    """Spectral Experts (Chaganty & Liang 2013): moments by low-rank regression, parameters by Algorithm 1.

    Parameters
    ----------
    n_components : k, the number of linear regressions mixed (≤ the number of features).
    noise_variance : σ² = E[ε²], assumed known (the paper's setting); 0 for noiseless data.
    regularization2, regularization3 : c2, c3, the weights of R against ½ rms residual
        (the paper's λ_n = c/√n against (0.5/n) ‖residual‖₂).
    solver : ``"irls"`` (the authors' problem, original features), ``"cvxpy"`` (the same problem
        by an interior-point method, needs cvxpy) or ``"fista"`` (whitened features).
    max_iter, tol : the iteration cap and relative-move stopping rule of IRLS (per regression) or
        FISTA (per regression and round).
    moments : ``"regularized"`` (the paper's: M2 and M3 by the regularised regressions) or
        ``"subspace"`` (M2's regularised estimate completed to rank k, from it and
        ``n_completions`` random points of the data's null space; M3 by least squares in each
        completion's column space; the completion whose M3 fits y³ best: :mod:`.completion`).
    n_completions : the random restarts of the rank-k completion (``moments="subspace"``).
    n_starts, n_power_iter : the robust tensor power method's L and N.
    random_state : seeds the tensor power method's random starts (and the completions' restarts).

    Fitted attributes: ``coef_`` (d x k), ``weights_`` (π, renormalised to sum 1; the raw
    a_h^{-2} in ``raw_weights_``), ``noise_variance_``, ``moments_`` ((M1, M2, M3) in the
    original features), ``n_iter_``, ``converged_`` and ``history_`` (the regressions', for M2 and
    M3; history: the objective after each iteration; with ``moments="subspace"`` M3's are 0, True
    and empty: it is a least-squares solution; with ``solver="cvxpy"`` only the final objective,
    Clarabel logging no iterates).
    """

    _parameter_checks = {
        "n_components": integer(1),
        "noise_variance": real(0.0),
        "regularization2": real(0.0),
        "regularization3": real(0.0),
        "solver": one_of("irls", "cvxpy", "fista"),
        "moments": one_of("regularized", "subspace"),
        "n_completions": integer(0),
        "max_iter": integer(1),
        "tol": real(0.0, open_low=True),
        "n_starts": integer(1),
        "n_power_iter": integer(1),
        "random_state": seed,
    }

    def __init__(self, n_components: int = 2, *, noise_variance: float = 0.0, regularization2: float = 1e-5,
                 regularization3: float = 1e-3, solver: str = "irls", moments: str = "regularized", n_completions: int = 10,
                 max_iter: int = 1000, tol: float = 1e-10, n_starts: int = 20, n_power_iter: int = 100,
                 random_state=0):
        self.n_components = n_components
        self.noise_variance = noise_variance
        self.regularization2 = regularization2
        self.regularization3 = regularization3
        self.solver = solver
        self.moments = moments
        self.n_completions = n_completions
        self.max_iter = max_iter
        self.tol = tol
        self.n_starts = n_starts
        self.n_power_iter = n_power_iter
        self.random_state = random_state

    def fit(self, X, y) -> "SpectralExperts":
        """Estimate M1, M2, M3 from (X, y), then (π, B) by Algorithm 1; returns self."""
        self._validate_params()
        X, y = check_data(X, y)
        self.fit_moments(X, y)
        return self.decompose(random_state=self.random_state)

    def fit_moments(self, X, y) -> "SpectralExperts":
        """The regression stage alone: sets ``moments_`` (and the whitened moments it decomposes)."""
        self._validate_params()
        X, y = check_data(X, y)
        n, d = X.shape
        k = self.n_components
        if k > d:
            raise InputError(f"n_components = {k} exceeds the {d} features: B (d x k) cannot have rank k")
        if n < d * (d + 1) * (d + 2) // 6:
            raise InputError(f"{n} samples cannot determine the {d * (d + 1) * (d + 2) // 6} entries of M3")
        try:
            P, _ = whitening(X.T @ X / n, d)
        except ValueError:
            raise InputError("the features are linearly dependent (E[xxᵀ] is singular): drop the redundant ones") from None
        if self.solver == "cvxpy":
            from .cvxpy_regression import solve_low_rank_regression_cvxpy

            P = np.eye(d)

            def solve(stats, regularization):
                return solve_low_rank_regression_cvxpy(stats, regularization, root_loss=True)
        elif self.solver == "irls":
            P = np.eye(d)

            def solve(stats, regularization):
                return solve_root_loss_regression_irls(stats, regularization, max_iter=self.max_iter, tol=self.tol)
        else:
            def solve(stats, regularization):
                return solve_root_loss_regression(stats, regularization, max_iter=self.max_iter, tol=self.tol)
        Xw = X @ P
        sigma2 = float(self.noise_variance)
        m1 = np.linalg.solve(Xw.T @ Xw, Xw.T @ y)  # least squares (eq. 4)
        second_stats = regression_statistics(Xw, y ** 2 - sigma2, 2)
        third_stats = regression_statistics(Xw, y ** 3 - 3 * sigma2 * (Xw @ m1), 3)
        second = solve(second_stats, self.regularization2)
        if self.moments == "subspace":
            try:
                M2, M3, _ = subspace_moments(second_stats, third_stats, second.coef, k, self.n_completions,
                                             np.random.default_rng(self.random_state))
            except ValueError as error:
                raise InputError(f"cannot complete the estimated moments: {error}") from None
            second = LowRankSolution(second_stats.index.from_tensor(M2), M2, second.n_iter, second.converged,
                                     second.history)
            third = LowRankSolution(third_stats.index.from_tensor(M3), M3, 0, True)  # least squares: exact
        else:
            third = solve(third_stats, self.regularization3)
        self.whitened_moments_ = (m1, second.tensor, third.tensor)
        self.feature_whitening_ = P
        self.moments_ = (P @ m1, P @ second.tensor @ P.T, np.einsum("abc,ia,jb,kc->ijk", third.tensor, P, P, P))
        self.n_iter_ = (second.n_iter, third.n_iter)
        self.converged_ = (second.converged, third.converged)
        self.history_ = (second.history, third.history)
        self.noise_variance_ = sigma2
        return self

    def decompose(self, random_state=None) -> "SpectralExperts":
        """Algorithm 1 on the fitted moments with the given seed (the regressions are not redone)."""
        if not hasattr(self, "whitened_moments_"):
            raise InputError("decompose needs the moments: call fit or fit_moments first")
        _, M2, M3 = self.whitened_moments_
        try:
            raw, coef = experts_from_moments(M2, M3, self.n_components, random_state=random_state,
                                             n_starts=self.n_starts, n_iter=self.n_power_iter)
        except ValueError as error:
            raise InputError(f"cannot factorise the estimated moments: {error}") from None
        self.raw_weights_ = raw
        self.weights_ = raw / raw.sum()
        self.coef_ = self.feature_whitening_ @ coef
        return self
