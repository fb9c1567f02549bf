"""The authors' nuclear-norm regularised regression, solved by iteratively reweighted least squares.

Minimises the objective of Chaganty & Liang's CVX programs (eqs. 6-7), in the original
features, ``F(m) = ½ sqrt(E[(z − φᵀm)²]) + c R(M)`` over symmetric tensors ``M`` (free entries
``m``, :mod:`.monomials`). For a symmetric tensor the three unfoldings are the same matrix,
so ``R(M) = mean_j ‖M_(j)‖_* = ‖A(m)‖_*`` with ``A(m)`` the mode-1 unfolding (d x d^{p−1}).

Both terms are minima of quadratics (the majorisation-minimisation of IRLS for the nuclear
norm: Fornasier, Rauhut & Ward 2011; Mohan & Fazel 2012):

- ``sqrt(L) = min_{s>0} ½ (L/s + s)``, at ``s = sqrt(L)``;
- ``tr((A Aᵀ + ε² I)^{1/2}) = min_{W ≻ 0} ½ (tr(Aᵀ W⁻¹ A) + ε² tr W⁻¹ + tr W)``, at
  ``W = (A Aᵀ + ε² I)^{1/2}`` (the nuclear norm smoothed by ε).

At fixed (s, W) the m-step is one linear solve, ``(G + 2 s c H) m = b`` with
``mᵀ H m = tr(A(m)ᵀ W⁻¹ A(m))``: exact, so an ill-conditioned or singular Gram matrix G
(the paper's monomial features: t·t⁷ = t⁴·t⁴) costs nothing more, unlike a gradient method.
Each step decreases the smoothed objective; ε shrinks geometrically to ``ε_min`` (relative to
‖A‖), where the smoothing changes the objective by at most ``c · d · ε_min``.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from .fista import LowRankSolution
from .monomials import RegressionStatistics

#: the factor by which the smoothing ε shrinks per iteration, and its floor relative to ‖A‖_F
EPSILON_DECAY = 0.8
EPSILON_FLOOR = 1e-9


def _unfolding_map(stats: RegressionStatistics) -> np.ndarray:
    """``U`` (d, d^{p−1}, D): ``A(m) = U @ m`` is the mode-1 unfolding of the tensor of ``m``."""
    index = stats.index
    d = index.dim
    position = index.position.reshape(d, -1)
    U = np.zeros(position.shape + (index.size,))
    rows, cols = np.indices(position.shape)
    U[rows, cols, position] = 1.0
    return U


def solve_root_loss_regression_irls(stats: RegressionStatistics, regularization: float, *, max_iter: int = 500,
                                    tol: float = 1e-10) -> LowRankSolution:
    """Minimise ``½ sqrt(E[(z − φᵀm)²]) + c ‖A(m)‖_*`` by IRLS from the least-squares solution.

    Stops once ε has reached its floor and an iteration lowers the objective by less than ``tol``
    relative (``converged``), or after ``max_iter`` iterations; ``history``: the objective after each.
    """
    index = stats.index
    d = index.dim
    U = _unfolding_map(stats)
    flat = U.reshape(d, -1)                  # (d, d^{p−1} D)
    stacked = U.transpose(1, 0, 2).reshape(-1, index.size)  # rows (column j, row a) of A
    gram, target = stats.gram, stats.target
    scale = max(float(np.trace(gram)) / index.size, 1e-300)
    m = np.linalg.lstsq(gram + 1e-10 * scale * np.eye(index.size), target, rcond=None)[0]
    A = flat.reshape(d, -1, index.size) @ m
    epsilon = float(np.linalg.norm(A))
    if epsilon == 0.0:  # nothing to regress (z ⟂ φ): M = 0 is the solution
        return LowRankSolution(m, index.to_tensor(m), 0, True)
    floor = EPSILON_FLOOR * epsilon
    converged = False
    it, value, history = 0, np.inf, []
    for it in range(1, max_iter + 1):
        s = max(stats.residual_rms(m), 1e-300)
        w, V = np.linalg.eigh(A @ A.T)
        inverse_root = (V / np.sqrt(np.maximum(w, 0.0) + epsilon ** 2)) @ V.T   # W⁻¹
        weighted = (inverse_root @ flat).reshape(d, -1, index.size).transpose(1, 0, 2).reshape(-1, index.size)
        H = stacked.T @ weighted
        system = gram + 2.0 * s * regularization * (H + H.T) / 2
        try:
            new_m = cho_solve(cho_factor(system), target)
        except LinAlgError:
            new_m = np.linalg.lstsq(system, target, rcond=None)[0]
        m = new_m
        A = flat.reshape(d, -1, index.size) @ m
        previous, value = value, 0.5 * stats.residual_rms(m) + regularization * float(np.linalg.norm(A, "nuc"))
        history.append(value)
        if epsilon <= floor and previous - value <= tol * value:
            converged = True
            break
        epsilon = max(epsilon * EPSILON_DECAY, floor)
    return LowRankSolution(m, index.to_tensor(m), it, converged, np.array(history))
