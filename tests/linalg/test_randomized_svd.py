"""The randomized SVD against scikit-learn's (the same bits) and against the exact SVD."""

import numpy as np
import pytest
import scipy.sparse as sp

from seqspectral.linalg.randomized_svd import randomized_svd


def _matrices():
    for shape in [(60, 200), (200, 60)]:
        for dtype in (np.float32, np.float64):
            S = sp.random(*shape, density=0.1, random_state=3, format="csr", dtype=dtype)
            yield S
            yield S.tocsc()
            yield S.toarray()


@pytest.mark.parametrize("n_iter,n_oversamples", [(4, 10), (2, 20)])
def test_the_same_bits_as_scikit_learn(n_iter, n_oversamples):
    sklearn_extmath = pytest.importorskip("sklearn.utils.extmath")  # here, not at collection: scikit-learn's import
    from threadpoolctl import threadpool_limits

    for M in _matrices():
        for limit in (None, 1):  # BLAS on every core, on one (their dense products' bits depend on it)
            with threadpool_limits(limits=limit, user_api="blas"):
                ours = randomized_svd(M, 12, n_iter=n_iter, n_oversamples=n_oversamples, random_state=7)
                theirs = sklearn_extmath.randomized_svd(M, 12, n_iter=n_iter, n_oversamples=n_oversamples,
                                                        random_state=7)
            for a, b in zip(ours, theirs):
                assert a.dtype == b.dtype and a.shape == b.shape
                assert a.tobytes() == b.tobytes(), (type(M).__name__, M.shape, M.dtype, limit)


def test_planted_low_rank_recovered():
    rng = np.random.default_rng(0)
    left, _ = np.linalg.qr(rng.standard_normal((300, 5)))
    right, _ = np.linalg.qr(rng.standard_normal((900, 5)))
    values = np.array([50.0, 20.0, 10.0, 5.0, 2.0])
    M = sp.csr_matrix((left * values) @ right.T + 1e-6 * rng.standard_normal((300, 900)))
    U, s, Vt = randomized_svd(M, 5)
    np.testing.assert_allclose(s, values, rtol=1e-6)
    np.testing.assert_allclose(np.abs(U.T @ left), np.eye(5), atol=1e-6)  # the same vectors up to sign
    np.testing.assert_allclose(np.abs(Vt @ right), np.eye(5), atol=1e-6)
    assert np.allclose(U @ np.diag(s) @ Vt, M.toarray(), atol=1e-4)
