"""Leading singular triplets of a (sparse) Hankel matrix."""

from __future__ import annotations

import numpy as np

#: a dense LAPACK SVD is used when the wanted rank is at least this fraction of min(shape)
#: (or the matrix is this small); otherwise ARPACK's Lanczos iterations on the sparse matrix
DENSE_FRACTION = 0.25
DENSE_SIZE = 64


def truncated_svd(H, rank: int):
    """``(U, d, Vt)`` of the ``rank`` largest singular values of H, in decreasing order.

    A full dense SVD costs O(m n min(m, n)) whatever the rank; ARPACK (``scipy.sparse.linalg.svds``)
    costs a few sparse products per wanted vector, which is what a rank-10 model of a
    1,000 × 1,000 Hankel matrix needs. Both are exact to machine precision (no sketching);
    ARPACK starts from a fixed vector, so the result is deterministic.
    """
    m, n = H.shape
    small = min(m, n)
    rank = min(int(rank), small)
    if rank <= 0:
        raise ValueError(f"rank must be positive, got {rank}")
    if small > DENSE_SIZE and rank < DENSE_FRACTION * small:
        from scipy.sparse.linalg import ArpackError, svds

        v0 = np.full(small, 1.0 / np.sqrt(small))
        try:
            U, d, Vt = svds(H.tocsr() if hasattr(H, "tocsr") else np.asarray(H, dtype=np.float64), k=rank, v0=v0,
                            solver="arpack")
        except ArpackError:  # e.g. H (nearly) zero: Lanczos breaks down; LAPACK below always answers
            pass
        else:
            order = np.argsort(d)[::-1]
            return U[:, order], d[order], Vt[order]
    dense = H.toarray() if hasattr(H, "toarray") else np.asarray(H, dtype=np.float64)
    U, d, Vt = np.linalg.svd(dense, full_matrices=False)
    return U[:, :rank], d[:rank], Vt[:rank]
