"""ConvexWA: singular-value thresholding, ADMM against cvxpy on a small problem, warm starts,
recovery from exact Hankel matrices as τ → 0, learning from samples."""

import itertools

import numpy as np
import pytest

from seqspectral.automata.convex import ADMMSolver, ConvexWA, singular_value_threshold
from seqspectral.automata.wfa import WeightedAutomaton

from tests.references import exact_hankel

ALPHABET = (2, 3)


def test_singular_value_threshold_matches_svd():
    rng = np.random.default_rng(0)
    M = rng.normal(size=(30, 6))
    L, R = singular_value_threshold(M, 1.5)
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    expected = (U * np.maximum(s - 1.5, 0)) @ Vt
    np.testing.assert_allclose(L @ R, expected, atol=1e-10)
    assert R.shape[0] == np.sum(s > 1.5)


@pytest.fixture(scope="module")
def target():
    return WeightedAutomaton.random_stochastic(3, 2, stop=(0.2, 0.4), random_state=5)


def exact_substring_statistics(wa, length=2):
    return exact_hankel(wa, "substring", ALPHABET, length)


def test_admm_reaches_the_cvxpy_optimum(target):
    cp = pytest.importorskip("cvxpy")
    stats = exact_substring_statistics(target, length=1)
    H, H_sigma = stats.H.toarray(), np.vstack([h.toarray() for h in stats.H_sigma])
    tau = 0.05 * 2 * np.linalg.norm(np.vstack([h.toarray() @ H.T for h in stats.H_sigma]), 2)
    solver = ADMMSolver(stats, max_iter=5000, tol=1e-7)
    L, R = solver.solve(tau / solver.tau_max)
    n_p = H.shape[0]

    def objective(A):
        blocks = [A[i * n_p:(i + 1) * n_p] @ H - stats.H_sigma[i].toarray() for i in range(len(ALPHABET))]
        return sum(np.sum(b ** 2) for b in blocks) + tau * np.linalg.norm(A, "nuc")

    A = cp.Variable((len(ALPHABET) * n_p, n_p))
    residual = cp.vstack([A[i * n_p:(i + 1) * n_p] @ H for i in range(len(ALPHABET))]) - H_sigma
    problem = cp.Problem(cp.Minimize(cp.sum_squares(residual) + tau * cp.normNuc(A)))
    problem.solve(solver=cp.SCS, eps=1e-9, max_iters=200000)
    assert objective(L @ R) <= objective(A.value) + 1e-6 * max(1.0, abs(problem.value))
    assert objective(L @ R) == pytest.approx(problem.value, rel=1e-4, abs=1e-7)


def test_warm_started_path_matches_a_cold_solve(target):
    stats = exact_substring_statistics(target)
    path = ADMMSolver(stats, max_iter=5000, tol=1e-8)
    for fraction in (1e-2, 1e-3, 1e-4):
        L, R = path.solve(fraction)
    cold = ADMMSolver(stats, max_iter=5000, tol=1e-8)
    L2, R2 = cold.solve(1e-4)
    np.testing.assert_allclose(L @ R, L2 @ R2, atol=1e-5 * np.abs(L2 @ R2).max())


def test_small_regularisation_recovers_the_automaton(target):
    errors = []
    for tau in (1e-5, 1e-7, 1e-9):
        est = ConvexWA(regularization=tau, statistic="substring", floor=0.0, max_iter=5000, tol=1e-8)
        est.fit_statistics(exact_substring_statistics(target), ALPHABET, 4)
        strings = [x for n in range(5) for x in itertools.product(ALPHABET, repeat=n)]
        errors.append(max(abs(est.model_.value(x) - target.value(x)) for x in strings))
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-4


def test_learning_from_samples_with_selection(target):
    train, test = target.sample(20000, random_state=1), target.sample(2000, random_state=2)
    est = ConvexWA(regularization="auto", basis_length=2, floor=0.01).fit(train)
    assert est.regularization_ in [r["regularization"] for r in est.selection_.table]
    assert est.score(test) == pytest.approx(target.score(test), rel=0.02)
    log_prob = est.event_log_probs(test).log_prob
    assert np.all(np.isfinite(log_prob)) and np.all(log_prob < 0)
