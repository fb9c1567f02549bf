"""Numba kernel of a sparse (CSR) matrix times a dense one, a range of rows at a time."""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def csr_times_dense(indptr, indices, data, X, out, lo, hi):
    """Rows ``lo:hi`` of ``out += S @ X`` (S in CSR arrays): each row's terms added in
    stored order, ``out[i, k] += S[i, j] * X[j, k]``, as scipy's ``csr_matvecs`` does."""
    n_vecs = X.shape[1]
    for i in range(lo, hi):
        for jj in range(indptr[i], indptr[i + 1]):
            a = data[jj]
            j = indices[jj]
            for k in range(n_vecs):
                out[i, k] += a * X[j, k]
