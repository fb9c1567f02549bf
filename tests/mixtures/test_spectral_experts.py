"""Spectral Experts (Chaganty & Liang 2013) and EM for mixtures of linear regressions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import norm

from seqspectral.base import NotFittedError, ParameterError
from seqspectral.mixtures.experts.fista import objective, root_objective, solve_low_rank_regression, solve_root_loss_regression
from seqspectral.mixtures.experts.alignment import align_components, parameter_error
from seqspectral.mixtures.experts._kernels import BLOCK, _exp_nonpositive, em_pass
from seqspectral.mixtures.experts.em import TIE_TOLERANCE, MixtureOfLinearRegressionsEM
from seqspectral.mixtures.experts.irls import solve_root_loss_regression_irls
from seqspectral.mixtures.experts.mixture import InputError
from seqspectral.mixtures.datasets.experts import (FEATURE_MAPS, HISTOGRAM_MAP, independent_monomials,
                                                    polynomial_features, random_instance, sample_inputs,
                                                    sample_responses)
from seqspectral.mixtures.experts.cvxpy_regression import solve_low_rank_regression_cvxpy
from seqspectral.mixtures.experts.completion import subspace_moments, subspace_regression
from seqspectral.mixtures.experts.monomials import RegressionStatistics, SymmetricIndex, regression_statistics
from seqspectral.mixtures.experts.spectral import SpectralExperts, experts_from_moments, mixture_moments


def planted(n, coef, weights, noise_variance, seed, *, bias=False):
    rng = np.random.default_rng(seed)
    d = coef.shape[0]
    X = rng.standard_normal((n, d))
    if bias:
        X[:, 0] = 1.0
    y, _ = sample_responses(X, coef, weights, noise_variance, rng)
    return X, y


# -- the moments and Algorithm 1 ---------------------------------------------------------------
@pytest.mark.parametrize("d,k", [(3, 2), (5, 5), (8, 3), (8, 8)])
def test_exact_moments_recover_parameters(d, k):
    rng = np.random.default_rng(d * 10 + k)
    B, pi = rng.standard_normal((d, k)), rng.dirichlet(np.ones(k))
    _, M2, M3 = mixture_moments(B, pi)
    weights, coef = experts_from_moments(M2, M3, k, random_state=1)
    p = align_components(B, coef)
    assert np.max(np.abs(coef[:, p] - B)) < 1e-6
    assert np.max(np.abs(weights[p] - pi)) < 1e-6


def test_mixture_moments_match_brute_force():
    rng = np.random.default_rng(0)
    B, pi = rng.standard_normal((3, 2)), np.array([0.3, 0.7])
    M1, M2, M3 = mixture_moments(B, pi)
    assert np.allclose(M1, sum(pi[h] * B[:, h] for h in range(2)))
    assert np.allclose(M2, sum(pi[h] * np.outer(B[:, h], B[:, h]) for h in range(2)))
    assert np.allclose(M3, sum(pi[h] * np.multiply.outer(np.outer(B[:, h], B[:, h]), B[:, h]) for h in range(2)))


def test_symmetric_monomial_features_give_the_tensor_inner_product():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, 3))
    for order in (2, 3):
        index = SymmetricIndex.build(3, order)
        m = rng.standard_normal(index.size)
        T = index.to_tensor(m)
        assert np.allclose(index.from_tensor(T), m)
        for x, phi in zip(X, index.features(X)):
            brute = sum(T[idx] * np.prod(x[list(idx)]) for idx in itertools.product(range(3), repeat=order))
            assert phi @ m == pytest.approx(brute)


# -- the regressions: FISTA against cvxpy ---------------------------------------------------------
@pytest.mark.parametrize("order", [2, 3])
def test_fista_agrees_with_cvxpy(order):
    B, pi = np.array([[1.0, -0.5], [0.8, 1.2], [-0.6, 0.9]]), np.array([0.45, 0.55])
    X, y = planted(400, B, pi, 0.09, seed=3, bias=True)
    stats = regression_statistics(X, y ** order, order)
    regularization = 0.3  # large enough that the nuclear norm shapes the solution
    pytest.importorskip("cvxpy")
    ours = solve_low_rank_regression(stats, regularization, max_iter=50000, tol=1e-13)
    reference = solve_low_rank_regression_cvxpy(stats, regularization).coef
    assert ours.converged
    assert np.linalg.norm(ours.coef - reference) <= 1e-4 * np.linalg.norm(reference)
    assert objective(stats, ours.coef, regularization) <= objective(stats, reference, regularization) + 1e-9
    # the regulariser is active: the unregularised least-squares solution differs
    least_squares = np.linalg.lstsq(stats.gram, stats.target, rcond=None)[0]
    assert np.linalg.norm(least_squares - reference) > 1e-2 * np.linalg.norm(reference)


@pytest.mark.parametrize("order", [2, 3])
def test_root_loss_fista_agrees_with_cvxpy(order):
    """The authors' objective ½ rms + c R(M): FISTA with λ = 2c·rms refreshed, against cvxpy's direct solution."""
    B, pi = np.array([[1.0, -0.5], [0.8, 1.2], [-0.6, 0.9]]), np.array([0.45, 0.55])
    X, y = planted(400, B, pi, 0.09, seed=3, bias=True)
    stats = regression_statistics(X, y ** order, order)
    regularization = 0.1
    pytest.importorskip("cvxpy")
    ours = solve_root_loss_regression(stats, regularization, max_iter=50000, tol=1e-13)
    reference = solve_low_rank_regression_cvxpy(stats, regularization, root_loss=True).coef
    assert ours.converged
    assert np.linalg.norm(ours.coef - reference) <= 1e-4 * np.linalg.norm(reference)
    assert root_objective(stats, ours.coef, regularization) <= root_objective(stats, reference, regularization) + 1e-9
    # the squared-loss problem with λ = 2c·rms at the solution has the same minimiser
    squared = solve_low_rank_regression(stats, 2 * regularization * stats.residual_rms(ours.coef), max_iter=50000, tol=1e-13)
    assert np.linalg.norm(squared.coef - ours.coef) <= 1e-5 * np.linalg.norm(ours.coef)
    assert stats.residual_rms(reference) == pytest.approx(np.sqrt(np.mean((y ** order - stats.index.features(X) @ reference) ** 2)))


@pytest.mark.parametrize("order", [2, 3])
def test_irls_solves_the_authors_problem_as_cvxpy_does(order):
    """IRLS against cvxpy's interior-point solution of ½ rms + c R(M), in the original features.

    At order 2 the solution has rank 2 of 3 (a non-smooth point): IRLS stalls 1.4e-6 above cvxpy's objective."""
    B, pi = np.array([[1.0, -0.5], [0.8, 1.2], [-0.6, 0.9]]), np.array([0.45, 0.55])
    X, y = planted(400, B, pi, 0.09, seed=3, bias=True)
    stats = regression_statistics(X, y ** order, order)
    pytest.importorskip("cvxpy")
    ours = solve_root_loss_regression_irls(stats, 0.1)
    reference = solve_low_rank_regression_cvxpy(stats, 0.1, root_loss=True).coef
    assert len(ours.history) == ours.n_iter and ours.history[-1] == pytest.approx(root_objective(stats, ours.coef, 0.1))
    assert root_objective(stats, ours.coef, 0.1) <= root_objective(stats, reference, 0.1) * (1 + 1e-5)
    assert np.linalg.norm(ours.coef - reference) <= 1e-2 * np.linalg.norm(reference)


def test_irls_on_the_papers_collided_monomials():
    """x = (1, t, t⁴, t⁷): t·t⁷ = t⁴·t⁴ makes G singular; IRLS still meets cvxpy's objective (1e-7 relative)."""
    pytest.importorskip("cvxpy")
    rng = np.random.default_rng(4)
    B, pi = random_instance(4, 3, rng)
    X = polynomial_features(sample_inputs(20_000, 1, rng), HISTOGRAM_MAP)
    y, _ = sample_responses(X, B, pi, 0.1, rng)
    for order, c in ((2, 1e-5), (3, 1e-3)):
        stats = regression_statistics(X, y ** order, order)
        assert np.linalg.eigvalsh(stats.gram)[0] < 1e-12 * np.linalg.eigvalsh(stats.gram)[-1]
        ours = root_objective(stats, solve_root_loss_regression_irls(stats, c).coef, c)
        assert ours <= root_objective(stats, solve_low_rank_regression_cvxpy(stats, c, root_loss=True).coef, c) * (1 + 1e-7)


def _exact_statistics(X, M) -> RegressionStatistics:
    """The statistics of regressing z = ⟨M, x^{⊗p}⟩ on x^{⊗p} without noise: b = G m*, E[z²] = m*ᵀ G m*."""
    stats = regression_statistics(X, np.zeros(len(X)), M.ndim)
    m = stats.index.from_tensor(M)
    return RegressionStatistics(stats.index, stats.gram, stats.gram @ m, stats.n_samples, float(m @ stats.gram @ m))


def test_subspace_moments_complete_the_papers_collided_monomials():
    """Table 1's (2,6,·) features: x⊗x has a 3-dimensional null space (x1x2³·x1³x2 = (x1²x2²)², …).

    On this planted instance (Table 1's instance 15 of (2,6,2)) the data fit the planted M2 and another completion
    equally, and the nuclear norm prefers the other; the rank-k completion with M3 in its column space recovers
    M2, M3 and B from exact statistics."""
    rng = np.random.default_rng([2, 6, 2, 0, 15])
    coef, weights = random_instance(6, 2, rng)
    X = polynomial_features(sample_inputs(20_000, 2, rng), FEATURE_MAPS[(2, 6)])
    _, M2, M3 = mixture_moments(coef, weights)
    second, third = _exact_statistics(X, M2), _exact_statistics(X, M3)
    assert np.sum(np.linalg.eigvalsh(second.gram) < 1e-10 * np.linalg.eigvalsh(second.gram)[-1]) == 3
    regularized = solve_root_loss_regression_irls(second, 1e-5)
    assert second.residual_rms(regularized.coef) < 1e-6 and np.linalg.norm(regularized.tensor - M2) > 1.0
    M2_hat, M3_hat, rms = subspace_moments(second, third, regularized.coef, 2, 10, np.random.default_rng(0))
    assert rms < 1e-5  # 100 alternating projections converge linearly: to about 3e-6 here, against errors > 1
    assert np.linalg.norm(M2_hat - M2) < 1e-4 and np.linalg.norm(M3_hat - M3) < 1e-4
    assert parameter_error(coef, experts_from_moments(M2_hat, M3_hat, 2)[1]) < 1e-4


def test_subspace_regression_recovers_a_planted_tensor_in_the_subspace():
    """z = ⟨T(Qᵀ, Qᵀ, Qᵀ), x^{⊗3}⟩ + noise: least squares over symmetric T (k³) in span(Q) finds the planted T."""
    rng = np.random.default_rng(3)
    Q = rng.standard_normal((4, 2))
    T = SymmetricIndex.build(2, 3).to_tensor(rng.standard_normal(4))
    X = rng.standard_normal((50_000, 4))
    z = np.einsum("abc,ia,jb,kc,ni,nj,nk->n", T, Q, Q, Q, X, X, X, optimize=True)
    T_hat, rms = subspace_regression(regression_statistics(X, z + 0.01 * rng.standard_normal(len(z)), 3), Q)
    assert np.max(np.abs(T_hat - T)) < 1e-3 and abs(rms - 0.01) < 1e-3


# -- Spectral Experts from samples ---------------------------------------------------------------
@pytest.mark.parametrize("B, pi, m2_bound", [
    # the authors' own unit test: β "eye" (e1 and −e2), π uniform
    (np.array([[1.0, 0.0], [0.0, -1.0], [0.0, 0.0]]), np.array([0.5, 0.5]), 1e-2),
    # β of norms 1.4 and 1.6: the statistical error of M̂2 at n = 1e5 is then 0.010-0.023 over
    # seeds (the regression is solved to convergence), so M2 is held to 3e-2
    (np.array([[1.0, -0.5], [0.8, 1.2], [-0.6, 0.9]]), np.array([0.4, 0.6]), 3e-2),
], ids=["authors-model", "larger-coefficients"])
@pytest.mark.parametrize("moments", ["regularized", "subspace"])
def test_authors_unit_test_sizes(B, pi, m2_bound, moments):
    """The authors' own unit test: k = 2, d = 3, no bias, σ² = 0, x uniform on [−1, 1]³, n = 1e5:
    ‖M̂2 − M2‖ < 1e-2, ‖M̂3 − M3‖ < 1e-1, ‖B̂ − B‖_F < 0.1, ‖π̂ − π‖_∞ < 0.1."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, size=(100_000, 3))
    y, _ = sample_responses(X, B, pi, 0.0, rng)
    model = SpectralExperts(2, moments=moments).fit(X, y)
    _, M2, M3 = mixture_moments(B, pi)
    assert all(model.converged_)
    assert np.linalg.norm(model.moments_[1] - M2) < m2_bound
    assert np.linalg.norm(model.moments_[2] - M3) < 1e-1
    assert parameter_error(B, model.coef_) < 0.1
    assert np.max(np.abs(model.weights_[align_components(B, model.coef_)] - pi)) < 0.1


@pytest.mark.parametrize("n,target", [(100_000, 0.03), (500_000, 0.015)])
def test_second_moment_error_gaussian_covariates(n, target):
    """d = 4 with a bias feature, k = 3, σ² = 0.1: relative error of M̂2."""
    B, pi = np.random.default_rng(7).standard_normal((4, 3)), np.full(3, 1 / 3)
    X, y = planted(n, B, pi, 0.1, seed=n, bias=True)
    model = SpectralExperts(3, noise_variance=0.1).fit_moments(X, y)
    _, M2, _ = mixture_moments(B, pi)
    assert np.linalg.norm(model.moments_[1] - M2) / np.linalg.norm(M2) <= target


def test_cvxpy_solver_on_identified_regressions():
    """Where the data identify M2 and M3, the three solvers' problems (whitened or not) nearly agree."""
    pytest.importorskip("cvxpy")
    B, pi = np.array([[1.0, -0.5], [0.8, 1.2], [-0.6, 0.9]]), np.array([0.4, 0.6])
    X, y = planted(20_000, B, pi, 0.05, seed=2)
    exact = SpectralExperts(2, noise_variance=0.05, solver="cvxpy").fit(X, y)
    for solver, tolerance in (("irls", 3e-5), ("fista", 1e-4)):  # IRLS solves cvxpy's problem (to its accuracy), FISTA a whitened one
        fit = SpectralExperts(2, noise_variance=0.05, solver=solver).fit(X, y)
        assert np.allclose(fit.moments_[2], exact.moments_[2], atol=tolerance)
        assert parameter_error(fit.coef_, exact.coef_) < 100 * tolerance  # the power method amplifies it
    assert parameter_error(B, exact.coef_) < 0.1


def test_whitened_fista_estimates_are_equivariant_to_an_invertible_feature_map():
    """solver="fista" regularises in whitened features, so a feature map changes nothing (IRLS and cvxpy
    regularise the original features, the authors' problem, which is not equivariant)."""
    B, pi = np.array([[1.0, -0.5], [0.8, 1.2], [-0.6, 0.9]]), np.array([0.4, 0.6])
    X, y = planted(20_000, B, pi, 0.05, seed=1)
    A = np.array([[2.0, 0.3, 0.0], [0.0, 1.0, -0.4], [0.1, 0.0, 0.5]])
    plain = SpectralExperts(2, noise_variance=0.05, solver="fista").fit(X, y)
    mapped = SpectralExperts(2, noise_variance=0.05, solver="fista").fit(X @ A, y)  # β for x' = Aᵀx is A⁻¹β
    assert np.allclose(np.linalg.solve(A, plain.coef_), mapped.coef_[:, align_components(np.linalg.solve(A, plain.coef_), mapped.coef_)], atol=1e-6)


# -- EM ------------------------------------------------------------------------------------------
def brute_force_em_step(X, y, coef, weights, sigma2):
    dens = weights * norm.pdf(y[:, None], loc=X @ coef, scale=np.sqrt(sigma2))
    resp = dens / dens.sum(axis=1, keepdims=True)
    new_coef = np.column_stack([np.linalg.lstsq(X * np.sqrt(r)[:, None], y * np.sqrt(r), rcond=None)[0] for r in resp.T])
    new_sigma2 = np.sum(resp * (y[:, None] - X @ new_coef) ** 2) / len(y)
    return new_coef, resp.mean(axis=0), new_sigma2, np.mean(np.log(dens.sum(axis=1)))


def test_em_step_matches_brute_force():
    B, pi = np.array([[1.0, -1.0], [0.5, 1.5]]), np.array([0.3, 0.7])
    X, y = planted(500, B, pi, 0.2, seed=4)
    start_coef, start_weights = np.array([[0.5, -0.2], [0.1, 1.0]]), np.array([0.5, 0.5])
    em = MixtureOfLinearRegressionsEM(2, n_init=1, coef_init=start_coef, weights_init=start_weights, max_iter=1,
                                      tol=0.0).fit(X, y)
    start_variance = np.mean(np.min((y[:, None] - X @ start_coef) ** 2, axis=1))  # to the nearest regression
    coef, weights, sigma2, _ = brute_force_em_step(X, y, start_coef, start_weights, start_variance)
    assert np.allclose(em.coef_, coef) and np.allclose(em.weights_, weights) and em.noise_variance_ == pytest.approx(sigma2)
    assert em.score(X, y) == pytest.approx(brute_force_em_step(X, y, coef, weights, sigma2)[3])


@pytest.mark.parametrize("n,k,identical", [(1000, 3, False), (700, 20, True)])
def test_em_pass_sums_match_brute_force(n, k, identical):
    # the blocked kernel against numpy: partial last block (n not a multiple of BLOCK), and k = 20 identical
    # components, where every row's Σ_h exp(log p_h − max) is 20 and a block's product (20^256) overflows
    rng = np.random.default_rng(12)
    X, y = rng.standard_normal((n, 4)), rng.standard_normal(n) * 3
    coef = np.repeat(rng.standard_normal((4, 1)), k, axis=1) if identical else rng.standard_normal((4, k))
    weights, sigma2 = (np.full(k, 1 / k) if identical else rng.dirichlet(np.ones(k))), 0.3
    log_p = np.log(weights) - 0.5 * (y[:, None] - X @ coef) ** 2 / sigma2 - 0.5 * np.log(2 * np.pi * sigma2)
    resp = np.exp(log_p - log_p.max(axis=1, keepdims=True))
    resp /= resp.sum(axis=1, keepdims=True)
    total, mass, gram, rhs, square = em_pass(np.ascontiguousarray(X.T), y, coef, np.log(weights),
                                             1 / sigma2, -0.5 * np.log(2 * np.pi * sigma2))
    assert n % BLOCK and total == pytest.approx(np.sum(np.log(np.sum(np.exp(log_p), axis=1))), rel=1e-12)
    assert np.allclose(mass, resp.sum(axis=0), rtol=1e-12, atol=0)
    assert np.allclose(gram, np.einsum("ih,ia,ib->hab", resp, X, X), rtol=1e-11, atol=1e-11)
    assert np.allclose(rhs, resp.T @ (X * y[:, None]), rtol=1e-11, atol=1e-11)
    assert np.allclose(square, resp.T @ y ** 2, rtol=1e-12, atol=0)


def test_vectorised_exponential_is_exact_to_an_ulp():
    x = np.concatenate([-np.random.default_rng(13).uniform(0, 700, 5000), -np.logspace(-300, 0, 200), [0.0, -0.5]])
    out = np.empty_like(x)
    _exp_nonpositive(x.copy(), out, out.view(np.int64))
    assert out[-2] == 1.0 and np.max(np.abs(out - np.exp(x)) / np.exp(x)) <= 4.5e-16


def test_em_log_likelihood_never_decreases():
    B, pi = np.array([[1.0, -1.0, 0.2], [0.5, 1.5, -1.0]]), np.array([0.3, 0.3, 0.4])
    X, y = planted(2000, B, pi, 0.1, seed=5)
    values = [MixtureOfLinearRegressionsEM(3, init="random", n_init=1, max_iter=t, tol=0.0, random_state=2).fit(X, y)
              .log_likelihood_
              for t in range(0, 30, 3)]
    assert np.all(np.diff(values) >= -1e-12)
    # history_: the log-likelihood after each M-step, that is of the runs stopped after 1, 2, ... M-steps
    full = MixtureOfLinearRegressionsEM(3, init="random", n_init=1, max_iter=12, tol=0.0, random_state=2).fit(X, y)
    assert len(full.history_) == full.n_iter_ == 12 and full.history_[-1] == full.log_likelihood_
    np.testing.assert_allclose(full.history_[2::3], values[1:5], rtol=1e-12)


def test_spectral_em_reaches_the_planted_parameters():
    B, pi = np.array([[1.0, -0.5], [0.8, 1.2], [-0.6, 0.9]]), np.array([0.4, 0.6])
    X, y = planted(50_000, B, pi, 0.1, seed=6)
    em = MixtureOfLinearRegressionsEM(2, init="spectral", n_init=1, noise_variance=0.1).fit(X, y)
    assert em.converged_ and hasattr(em, "spectral_")
    assert parameter_error(B, em.coef_) < 0.05
    free = MixtureOfLinearRegressionsEM(2, init="spectral", n_init=1, spectral=SpectralExperts(2, noise_variance=0.1)).fit(X, y)
    assert free.noise_variance_ == pytest.approx(0.1, rel=0.05)
    assert em.predict(X[:3]) == pytest.approx(X[:3] @ (em.coef_ @ em.weights_))


def test_default_em_screens_many_starts_and_keeps_the_best_refined_fit():
    # a planted k = 3 mixture of the paper's histogram features: the default procedure (Spectral+EM and 49 random
    # starts screened on a subsample — 3,000 of 10,000 rows here, to keep the test short — the best three optima
    # refined on all rows) ends at the global optimum (EM from the planted parameters) with its likelihood
    rng = np.random.default_rng(11)
    B, pi = random_instance(4, 3, rng)
    X = polynomial_features(sample_inputs(10_000, 1, rng), HISTOGRAM_MAP)
    y, _ = sample_responses(X, B, pi, 0.1, rng)
    em = MixtureOfLinearRegressionsEM(3, screen_size=3000).fit(X, y)
    assert [r.label for r in em.starts_] == ["spectral"] + [f"random {i}" for i in range(1, 50)]
    assert np.allclose(em.starts_[0].start_coef, em.spectral_.coef_)
    assert 1 <= len(em.refined_) <= 3 and {r.label for r in em.refined_} <= {r.label for r in em.starts_}
    assert em.log_likelihood_ >= max(r.log_likelihood for r in em.refined_) - TIE_TOLERANCE
    assert em.score(X, y) == pytest.approx(em.log_likelihood_, abs=1e-6)  # on all rows, not the subsample
    optimum = MixtureOfLinearRegressionsEM(3, n_init=1, coef_init=B, weights_init=pi).fit(X, y)
    assert parameter_error(optimum.coef_, em.coef_) < 0.05 and em.log_likelihood_ >= optimum.log_likelihood_ - 1e-6
    assert parameter_error(B, em.coef_) < 0.2 and em.noise_variance_ == pytest.approx(0.1, rel=0.1)


def test_a_tie_goes_to_the_earliest_start():
    # two well-separated regressions: every start ends at the same optimum, so the spectral start (the first) wins
    B, pi = np.array([[2.0, -2.0], [1.0, -1.5]]), np.array([0.5, 0.5])
    X, y = planted(4000, B, pi, 0.05, seed=9, bias=True)
    em = MixtureOfLinearRegressionsEM(2, n_init=6, n_refine=6).fit(X, y)  # no screening: six runs on all rows
    assert len(em.refined_) == 6 and all(abs(r.log_likelihood - em.log_likelihood_) <= TIE_TOLERANCE for r in em.refined_)
    assert em.start_ == "spectral" and parameter_error(B, em.coef_) < 0.05
    screened = MixtureOfLinearRegressionsEM(2, n_init=6, screen_size=1000).fit(X, y)
    assert len(screened.refined_) == 1 and screened.start_ == "spectral"


# -- the paper's data ----------------------------------------------------------------------------
def test_misspecified_inputs_leave_out_the_gaps():
    T = sample_inputs(20_000, 2, np.random.default_rng(0), misspecified=True)
    a = np.abs(T)
    assert not np.any((a >= 0.25) & (a <= 0.5)) and a.max() <= 1.0
    assert np.mean(a < 0.25) == pytest.approx(0.25 / 0.75, abs=0.02)
    X = polynomial_features(np.array([[0.5, 2.0]]), FEATURE_MAPS[(2, 6)])
    assert np.allclose(X, [[1, 2.0, 0.5, 4.0, 1.0, 0.25]])  # (1, x2, x1, x1x2³, x1²x2², x1³x2)


def test_sieve_gives_the_feature_lists_of_the_papers_source():
    """The lists written beside the paper's table rows and in its text (x = (1, t, t⁴, t⁷))."""
    assert FEATURE_MAPS[(1, 4)] == ((0,), (1,), (4,))
    assert set(FEATURE_MAPS[(2, 5)]) == {(0, 0), (1, 0), (0, 1), (2, 2)}
    assert set(FEATURE_MAPS[(2, 6)]) == {(0, 0), (1, 0), (0, 1), (1, 3), (2, 2), (3, 1)}
    assert HISTOGRAM_MAP == ((0,), (1,), (4,), (7,))
    # brute force: no kept monomial is a product of two or three kept before it (its exponent a sum)
    for b, degree in ((1, 8), (2, 4), (2, 5)):
        kept = [np.array(e) for e in independent_monomials(b, degree)]
        for i, e in enumerate(kept):
            sums = [u + v for u, v in itertools.product(kept[:i], repeat=2)]
            sums += [u + v + w for u, v, w in itertools.product(kept[:i], repeat=3)]
            assert not any(np.array_equal(e, s) for s in sums)
        assert len(kept) >= degree // 2


def test_parameter_error_ignores_the_order_of_components():
    B = np.arange(6.0).reshape(3, 2)
    assert parameter_error(B, B[:, ::-1]) == 0.0
    assert parameter_error(B, B[:, ::-1] + 0.1) == pytest.approx(0.1 * np.sqrt(6))


# -- estimator conventions -----------------------------------------------------------------------
def test_clone_params_and_errors():
    from sklearn.base import clone

    for estimator in (SpectralExperts(3, noise_variance=0.1), MixtureOfLinearRegressionsEM(2, init="spectral")):
        copy = clone(estimator)
        assert copy.get_params() == estimator.get_params() and copy is not estimator
        with pytest.raises(NotFittedError):
            copy.predict(np.zeros((1, 3)))
    with pytest.raises(ParameterError, match="n_components"):
        SpectralExperts(0).fit(np.zeros((50, 2)), np.zeros(50))
    with pytest.raises(ParameterError, match="init"):
        MixtureOfLinearRegressionsEM(2, init="kmeans").fit(np.zeros((50, 2)), np.zeros(50))
    X = np.random.default_rng(0).standard_normal((100, 2))
    with pytest.raises(InputError, match="exceeds"):
        SpectralExperts(3).fit(X, X[:, 0])
    with pytest.raises(InputError, match="non-finite values \\(first in row 7\\)"):
        SpectralExperts(2).fit(X, np.where(np.arange(100) == 7, np.nan, 1.0))
    with pytest.raises(InputError, match="linearly dependent"):
        SpectralExperts(2).fit(np.column_stack([X, X[:, 0]]), X[:, 1])
