"""seqspectral.linalg: tensor power method, whitening, simplex projection."""

import numpy as np
import pytest

import scipy.sparse as sp

from seqspectral.linalg import project_simplex, robust_tensor_power, truncated_svd, whitening


def _orthogonal_tensor(k, seed):
    rng = np.random.default_rng(seed)
    V, _ = np.linalg.qr(rng.standard_normal((k, k)))
    lam = rng.uniform(1.0, 2.0, size=k)
    return np.einsum("r,ir,jr,kr->ijk", lam, V, V, V), lam, V


def _match(lam, V, lam_hat, V_hat):
    """Per true component: recovered weight and the error of the closest recovered vector."""
    closest = np.argmax(V.T @ V_hat, axis=1)
    assert len(set(closest)) == len(lam)
    return lam_hat[closest], np.linalg.norm(V_hat[:, closest] - V, axis=0)


@pytest.mark.parametrize("k", [5, 10, 20])
def test_exact_orthogonal_tensor_recovered(k):
    T, lam, V = _orthogonal_tensor(k, seed=k)
    lam_hat, V_hat = robust_tensor_power(T, random_state=0)
    w, err = _match(lam, V, lam_hat, V_hat)
    np.testing.assert_allclose(w, lam, atol=1e-10)
    assert err.max() < 1e-10


def test_noise_error_below_bound():
    k, eps = 10, 0.05
    T, lam, V = _orthogonal_tensor(k, seed=1)
    rng = np.random.default_rng(2)
    E = rng.standard_normal((k, k, k))
    E = sum(E.transpose(p) for p in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)])
    E *= eps / np.linalg.norm(E)  # Frobenius norm eps >= spectral norm
    _, err = _match(lam, V, *robust_tensor_power(T + E, random_state=0))
    assert err.max() < 8 * eps / lam.min()
    assert err.max() > 0  # the noise did move the answer


def test_same_seed_same_output():
    """(The k = 20 timing target is measured in evaluation/bench_tensor.py.)"""
    T, _, _ = _orthogonal_tensor(20, seed=3)
    T = T + 1e-3 * np.random.default_rng(4).standard_normal(T.shape)
    a = robust_tensor_power(T, random_state=7)
    b = robust_tensor_power(T, random_state=7)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_whitening_identity_and_inverse():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((8, 3))
    M2 = A @ np.diag([3.0, 2.0, 1.0]) @ A.T
    W, B = whitening(M2, 3)
    np.testing.assert_allclose(W.T @ M2 @ W, np.eye(3), atol=1e-10)
    x = A[:, 0]
    np.testing.assert_allclose(B @ (W.T @ x), x, atol=1e-10)  # x lies in the range of M2
    with pytest.raises(ValueError, match="rank"):
        whitening(M2, 4)


def _brute_projection(v):
    """The simplex projection by a generic solver (SLSQP), as an independent reference."""
    from scipy.optimize import minimize

    n = len(v)
    res = minimize(lambda x: np.sum((x - v) ** 2), np.full(n, 1 / n), jac=lambda x: 2 * (x - v),
                   bounds=[(0, None)] * n, constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}],
                   method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
    return res.x


def test_simplex_projection_matches_solver():
    rng = np.random.default_rng(0)
    V = rng.normal(size=(20, 6)) * 2
    P = project_simplex(V)
    assert np.all(P >= 0)
    np.testing.assert_allclose(P.sum(1), 1.0)
    for v, p in zip(V, P):
        np.testing.assert_allclose(p, _brute_projection(v), atol=1e-6)
    q = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(project_simplex(q), q)  # points of the simplex stay put
    np.testing.assert_allclose(project_simplex(np.array([5.0, 1.0]), total=2.0), [2.0, 0.0])


@pytest.mark.parametrize("shape,rank", [((40, 50), 7), ((300, 260), 10), ((300, 260), 120)])
def test_truncated_svd_matches_lapack(shape, rank):
    """Both paths (ARPACK for a small rank of a large matrix, LAPACK otherwise) give the
    leading singular values and the same subspaces as a full dense SVD."""
    rng = np.random.default_rng(rank)
    H = sp.random(*shape, density=0.05, random_state=rng, format="csr")
    U, d, Vt = truncated_svd(H, rank)
    U0, d0, Vt0 = np.linalg.svd(H.toarray(), full_matrices=False)
    np.testing.assert_allclose(d, d0[:rank], rtol=1e-10, atol=1e-12)
    assert U.shape == (shape[0], rank) and Vt.shape == (rank, shape[1])
    np.testing.assert_allclose(U @ np.diag(d) @ Vt, U0[:, :rank] @ np.diag(d0[:rank]) @ Vt0[:rank], atol=1e-10)
    again = truncated_svd(H, rank)
    np.testing.assert_array_equal(again[1], d)


def test_truncated_svd_of_a_zero_matrix_is_zero():
    """ARPACK breaks down on a zero matrix; the dense fallback answers (SpectralWA then reports
    an empty Hankel matrix clearly)."""
    U, d, Vt = truncated_svd(sp.csr_matrix((100, 120)), 5)
    assert U.shape == (100, 5) and Vt.shape == (5, 120)
    np.testing.assert_array_equal(d, np.zeros(5))
