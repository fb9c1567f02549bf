"""The nuclear-norm regularised symmetric-tensor regression as a cvxpy program (Clarabel).

The problem of :mod:`.fista` stated directly: free entries ``m`` of the symmetric tensor,
penalty ``λ · mean_j ‖M_(j)‖_*`` over the mode-j unfoldings, and either the squared loss
``½ mᵀ G m − bᵀ m`` (G factored as RᵀR) or, with ``root_loss=True``, the loss of the authors'
CVX programs, ``½ sqrt(E[(z − φᵀm)²])`` — their ``(0.5/n) ‖y − X vec(M)‖₂`` divided by √n —
written as ``½ ‖S^{1/2} (m, −1)‖₂`` with ``S = E[(φ, z)(φ, z)ᵀ]``. An interior-point solution,
used as the reference for FISTA and, in the original (unwhitened) features, by
``SpectralExperts(solver="cvxpy")``; cvxpy is imported here only.
"""

from __future__ import annotations

import numpy as np

from .._research import require
from .fista import LowRankSolution
from .monomials import RegressionStatistics


def _psd_root(S: np.ndarray) -> np.ndarray:
    """``R`` with ``RᵀR = S`` for a symmetric positive semi-definite ``S`` (negative rounding clipped)."""
    w, V = np.linalg.eigh((S + S.T) / 2)
    return (V * np.sqrt(np.clip(w, 0.0, None))).T


def solve_low_rank_regression_cvxpy(stats: RegressionStatistics, regularization: float, *,
                                    root_loss: bool = False) -> LowRankSolution:
    """Solve one order's regression with cvxpy and Clarabel; ``n_iter`` is the solver's iteration count."""
    cp = require("cvxpy", 'SpectralExperts(solver="cvxpy")')
    import scipy.sparse as sp

    index, d = stats.index, stats.index.dim
    m = cp.Variable(index.size)
    norms = []
    for j in range(index.order):
        entries = np.moveaxis(index.position, j, 0).reshape(-1)  # the mode-j unfolding, row-major
        pick = sp.csr_matrix((np.ones(entries.size), (np.arange(entries.size), entries)),
                             shape=(entries.size, index.size))
        norms.append(cp.normNuc(cp.reshape(pick @ m, (d, entries.size // d), order="C")))
    if root_loss:
        moments = np.block([[stats.gram, stats.target[:, None]], [stats.target[None, :], np.array([[stats.mean_square]])]])
        loss = 0.5 * cp.norm(_psd_root(moments) @ cp.hstack([m, np.array([-1.0])]))
    else:
        loss = 0.5 * cp.sum_squares(_psd_root(stats.gram) @ m) - stats.target @ m
    problem = cp.Problem(cp.Minimize(loss + regularization * sum(norms) / index.order))
    problem.solve(solver=cp.CLARABEL)
    if m.value is None:
        raise ValueError(f"cvxpy could not solve the order-{index.order} regression: {problem.status}")
    coef = np.asarray(m.value, dtype=np.float64)
    return LowRankSolution(coef, index.to_tensor(coef), int(problem.solver_stats.num_iters or 0),
                           problem.status == cp.OPTIMAL, np.array([problem.value]))  # Clarabel logs no iterates
