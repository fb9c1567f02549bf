"""Randomized truncated SVD (Halko, Martinsson & Tropp 2011, Algorithms 4.4 and 5.1), as
scikit-learn's ``randomized_svd`` computes it, without importing scikit-learn.

The steps, the random draws and the LAPACK calls are scikit-learn's (1.x, its defaults:
``n_oversamples`` extra columns, LU-normalised power iterations when ``n_iter > 2``, the
wider side transposed, signs flipped so that the largest entry of each singular vector
of the longer side is positive), so the result is the same to the last bit; the tests
compare the two. What differs is the cost: importing scikit-learn takes about a second
(it imports ``scipy.stats``), and a sparse matrix times the sketch, scipy's one-thread
loop, runs here on every core (:func:`._sparse_kernels.csr_times_dense`, each output entry
summed in scipy's order).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def randomized_svd(M, n_components: int, *, n_oversamples: int = 10, n_iter: int = 4, random_state: int = 0):
    """``(U, s, Vt)``: the ``n_components`` leading singular triplets of ``M`` (dense or
    sparse: CSR or CSC), in decreasing order, from a sketch of ``n_components + n_oversamples``
    columns refined by ``n_iter`` power iterations; ``random_state`` seeds NumPy's ``RandomState``."""
    from scipy import linalg

    n_rows, n_cols = M.shape
    transpose = n_rows < n_cols  # sketch the shorter side
    A = M.T if transpose else M
    times, times_transposed = _products(A)
    # the range finder (Algorithm 4.4): a Gaussian sketch of the columns, power iterations
    sketch = np.random.RandomState(random_state).normal(size=(n_rows if transpose else n_cols,
                                                               n_components + n_oversamples))
    if M.dtype == np.float32:
        sketch = sketch.astype(np.float32, copy=False)
    for _ in range(n_iter):
        sketch = _lu_normalised(times(sketch), n_iter)
        sketch = _lu_normalised(times_transposed(sketch), n_iter)
    with _one_blas_thread():
        Q, _ = linalg.qr(times(sketch), mode="economic", check_finite=False)
    # the small SVD (Algorithm 5.1) of B = QᵀA (scipy computes a sparse A's as (AᵀQ)ᵀ)
    B = times_transposed(Q).T if sp.issparse(A) else Q.T @ A
    with _one_blas_thread():
        Uhat, s, Vt = linalg.svd(B, full_matrices=False, lapack_driver="gesdd")
    del B
    U = Q @ Uhat
    if transpose:  # the signs from the rows of Vt (the longer side, M's rows)
        signs = np.sign(Vt[np.arange(len(Vt)), np.argmax(np.abs(Vt), axis=1)])
        U *= signs[np.newaxis, :]
        Vt *= signs[:, np.newaxis]
        return Vt[:n_components].T, s[:n_components], U[:, :n_components].T
    signs = np.sign(U[np.argmax(np.abs(U), axis=0), np.arange(U.shape[1])])
    U *= signs[np.newaxis, :]
    Vt *= signs[:, np.newaxis]
    return U[:, :n_components], s[:n_components], Vt[:n_components]


def _lu_normalised(x, n_iter):
    """The power iterations' normaliser: L of x's LU factors (rows permuted) after more
    than two iterations, x itself otherwise."""
    if n_iter <= 2:
        return x
    from scipy import linalg

    with _one_blas_thread():
        return linalg.lu(x, permute_l=True, check_finite=False)[0]


def _one_blas_thread():
    """LAPACK's factorisations of the tall, thin sketch on one BLAS thread: with two,
    OpenBLAS's threads meet at every column and take 6–16 times the CPU (the QR of Brown's
    122,000 × 60 sketch: 1.36 s against 0.23 s) for the same bits (the tests check them
    against scikit-learn's on one thread and on all)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _products(A):
    """``(X -> A @ X, X -> Aᵀ @ X)``; for a sparse A on every core, each entry as scipy sums it."""
    if not sp.issparse(A):
        return (lambda X: A @ X), (lambda X: A.T @ X)
    if A.format not in ("csr", "csc"):
        raise ValueError(f"a sparse matrix in CSR or CSC format, not {A.format}")
    rows, rows_t = _gathering(A), _gathering(A.T)
    return (lambda X: _times(rows, X)), (lambda X: _times(rows_t, X))


def _gathering(S):
    """A CSR matrix whose row-by-row products add each output entry's terms in the order
    scipy's ``S @ X`` adds them: S itself if CSR; if CSC (scipy scatters column after
    column), the stable transpose of its layout (``tocsr`` keeps a row's entries in column order)."""
    return S if S.format == "csr" else S.tocsr()


def _times(S, X):
    """S @ X (S CSR, X dense), rows split between the CPUs."""
    from seqspectral.corpus.chunks import reading_threads, thread_map

    from ._sparse_kernels import csr_times_dense

    X = np.ascontiguousarray(X)
    out = np.zeros((S.shape[0], X.shape[1]), dtype=np.result_type(S.dtype, X.dtype))
    threads = reading_threads()
    bounds = np.searchsorted(S.indptr, np.linspace(0, S.nnz, threads + 1)).tolist()
    bounds[0], bounds[-1] = 0, S.shape[0]
    thread_map(lambda r: csr_times_dense(S.indptr, S.indices, S.data, X, out, r[0], r[1]),
               list(zip(bounds[:-1], bounds[1:])), threads)
    return out
