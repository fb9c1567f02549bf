"""M2 completed to rank k, M3 regressed inside M2's column space: moments where the data leave a choice.

Where distinct monomials of x⊗x coincide (with the features (1, x2, x1, x1x2³, x1²x2², x1³x2):
x1x2³·x1³x2 = (x1²x2²)², x1·x1x2³ = x2·x1²x2², …) the regression of y² fixes M2 only up to the
null space of its Gram matrix G, and the nuclear norm picks the completion of smallest norm, which
need not be the rank-k M2 = Σ π_h β_h β_hᵀ. Here:

1. **M2**: alternating projections (Cadzow-style) between the rank-k positive semi-definite
   matrices and the least-squares solutions ``{m : G m = b}`` (moving only along null(G)), from
   the regularised estimate and from ``n_restarts`` random points of that null space: every
   rank-k completion the data allow, up to the restarts;
2. **M3**: by plain least squares among the tensors ``Σ T_abc q_a⊗q_b⊗q_c`` in the column space
   ``Q`` of each completed M2 (M3 = Σ π_h β_h^{⊗3} lies in span(B)^{⊗3}): k(k+1)(k+2)/6 unknowns,
   no regulariser; the tensor regressed is whitened already (``Q = (Wᵀ)⁺``, so T = M3(W, W, W));
3. the completion whose M3 fits y³ best (lowest root mean squared residual) is kept.

Everything runs on the regressions' sufficient statistics (:mod:`.monomials`), never on the rows.
"""

from __future__ import annotations

import numpy as np

from ...linalg import whitening
from .monomials import RegressionStatistics, SymmetricIndex

#: alternating projections per completion (each a d x d eigendecomposition)
PROJECTION_STEPS = 100
#: eigenvalues of G below this fraction of the largest span its null space
NULL_TOLERANCE = 1e-10


def rank_k_completions(stats: RegressionStatistics, start: np.ndarray, k: int, n_restarts: int,
                       rng: np.random.Generator) -> list[np.ndarray]:
    """Rank-k PSD matrices M2 fitting the order-2 regression, from ``start`` (free entries) and random restarts.

    Each restart adds a random point of null(G) (scaled as ‖start‖) before projecting."""
    index = stats.index
    values, vectors = np.linalg.eigh(stats.gram)
    null = vectors[:, values <= NULL_TOLERANCE * values.max()]
    fit = np.linalg.pinv(stats.gram, rcond=NULL_TOLERANCE, hermitian=True) @ stats.target  # least squares
    starts = [start] + [start + null @ rng.standard_normal(null.shape[1]) * np.linalg.norm(start)
                        for _ in range(n_restarts if null.shape[1] else 0)]
    completions = []
    for m in starts:
        for _ in range(PROJECTION_STEPS):
            w, V = np.linalg.eigh(index.to_tensor(m))
            top = np.argsort(w)[::-1][:k]
            low_rank = (V[:, top] * np.maximum(w[top], 0.0)) @ V[:, top].T
            free = index.from_tensor(low_rank)
            m = fit + null @ (null.T @ free)  # the least-squares solution nearest the rank-k matrix
        completions.append(low_rank)
    return completions


def subspace_regression(stats: RegressionStatistics, Q: np.ndarray) -> tuple[np.ndarray, float]:
    """``(T, rms)``: least squares of z on ``⟨T, (Qᵀx)^{⊗p}⟩`` over symmetric T (k^p), and its residual rms."""
    index = stats.index
    small = SymmetricIndex.build(Q.shape[1], index.order)
    lift = np.empty((index.size, small.size))  # free entries of T -> free entries of M = T(Qᵀ, …, Qᵀ)
    for j in range(small.size):
        M = small.to_tensor(np.eye(small.size)[j])
        for _ in range(index.order):
            M = np.tensordot(M, Q, axes=([0], [1]))
        lift[:, j] = index.from_tensor(M)
    t = np.linalg.lstsq(lift.T @ stats.gram @ lift, lift.T @ stats.target, rcond=None)[0]
    return small.to_tensor(t), stats.residual_rms(lift @ t)


def subspace_moments(second: RegressionStatistics, third: RegressionStatistics, start: np.ndarray, k: int,
                     n_restarts: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float]:
    """``(M2, M3, rms)`` of the rank-k completion whose column-space M3 fits y³ best (steps 1-3 above)."""
    best = None
    for M2 in rank_k_completions(second, start, k, n_restarts, rng):
        try:
            _, Q = whitening(M2, k)
        except ValueError:  # the completion has rank < k
            continue
        T, rms = subspace_regression(third, Q)
        if best is None or rms < best[2]:
            best = (M2, np.einsum("abc,ia,jb,kc->ijk", T, Q, Q, Q), rms)
    if best is None:
        raise ValueError(f"no rank-{k} completion of the second moment")
    return best
