"""Whitening of a second-moment matrix (Anandkumar et al. 2014, §4.3.1)."""

from __future__ import annotations

import numpy as np


def whitening(M2, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(W, B)`` with ``W.T @ M2 @ W = I_k`` on the top-``k`` singular subspace and ``B = pinv(W.T)``.

    ``M2`` (d x d, symmetric positive semi-definite up to estimation noise) is symmetrised,
    then ``W = U_k S_k^{-1/2}`` and ``B = U_k S_k^{1/2}`` from its rank-``k`` SVD, so a
    whitened vector ``W.T @ x`` is mapped back by ``B @ y``.
    """
    M2 = np.asarray(M2, dtype=np.float64)
    if M2.ndim != 2 or M2.shape[0] != M2.shape[1]:
        raise ValueError(f"whitening needs a square matrix, got shape {M2.shape}")
    if not 1 <= k <= M2.shape[0]:
        raise ValueError(f"cannot whiten to rank {k} a {M2.shape[0]}x{M2.shape[0]} matrix")
    U, s, _ = np.linalg.svd((M2 + M2.T) / 2)
    U, s = U[:, :k], s[:k]
    if s[-1] <= s[0] * 1e-14:
        raise ValueError(f"the second-moment matrix has rank < {k}: cannot whiten")
    return U / np.sqrt(s), U * np.sqrt(s)
