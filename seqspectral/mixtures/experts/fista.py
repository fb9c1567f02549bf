"""Nuclear-norm regularised regression onto a symmetric tensor by FISTA.

Solves ``min_M ½ mᵀ G m − bᵀ m + λ R(M)`` over symmetric tensors ``M`` (free entries ``m``,
see :mod:`.monomials`), where ``R`` is the nuclear norm for a matrix and, for an
order-3 tensor, the mean of the nuclear norms of its three unfoldings (the overlapped trace
norm of Tomioka, Hayashi & Kashima 2011) — Chaganty & Liang (2013), eqs. (6)-(7).

Accelerated proximal gradient (Beck & Teboulle 2009) with the adaptive restart of
O'Donoghue & Candès (2015), step 1/L with L the largest eigenvalue of the loss's Hessian on
symmetric tensors under the Frobenius metric. Proximal steps:

- matrix: singular value soft-thresholding, for a symmetric matrix the eigenvalues'
  magnitudes shrunk by τ;
- order 3: ``prox(Z) = Z − Σ_j fold_j(Y_j)`` with ``‖Y_j‖_op ≤ τ/3`` minimising
  ``‖Z − Σ_j fold_j(Y_j)‖`` (the dual of the overlapped norm). At a symmetric ``Z`` the three
  duals are mode permutations of one tensor Q, ``Σ_j fold_j(Y_j) = 3 sym(Q)``, and Q is found
  by accelerated projected gradient on the dual (projection: clip the singular values of
  Q's mode-1 unfolding at τ/3), warm-started from the previous outer step.

The authors' own programs use the root loss ``½ sqrt(E[(z − φᵀm)²]) + c R(M)`` instead
(:func:`solve_root_loss_regression`): at its minimiser M* the optimality conditions are
those of the squared problem with ``λ = 2c · rms(M*)`` (differentiate ``½ sqrt(L)``:
``∇L / (4 rms)``), so it is solved by FISTA on the squared problem with λ updated to
``2c · rms`` until λ stops moving (warm starts; rms grows slowly with λ, so few rounds).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .monomials import RegressionStatistics

_PERMUTATIONS3 = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
#: the relative change of λ = 2c · rms below which the root-loss rounds stop
LAMBDA_TOL = 1e-6


def symmetrize(T: np.ndarray) -> np.ndarray:
    """The mean of an order-3 tensor over the six orders of its modes."""
    return sum(T.transpose(p) for p in _PERMUTATIONS3) / 6.0


def unfolding_nuclear_norms(T: np.ndarray) -> list[float]:
    """The nuclear norms of the mode-j unfoldings of an order-``p`` tensor, j = 1..p."""
    d = T.shape[0]
    return [float(np.linalg.norm(np.moveaxis(T, j, 0).reshape(d, -1), "nuc")) for j in range(T.ndim)]


def regulariser(T: np.ndarray) -> float:
    """``R(M)``: the nuclear norm of a matrix, the mean of the unfoldings' norms of a tensor."""
    return float(np.mean(unfolding_nuclear_norms(T)))


def matrix_prox(Z: np.ndarray, tau: float) -> np.ndarray:
    """Singular value soft-thresholding of a symmetric matrix: its eigenvalues' magnitudes minus τ."""
    w, V = np.linalg.eigh((Z + Z.T) / 2)
    w = np.sign(w) * np.maximum(np.abs(w) - tau, 0.0)
    return (V * w) @ V.T


@dataclass
class OverlappedTensorProx:
    """The proximal operator of ``τ · (1/3) Σ_j ‖M_(j)‖_*`` at symmetric order-3 tensors.

    Keeps the dual tensor Q between calls (warm start); ``tol`` bounds the change of the
    result between two dual steps relative to its norm.
    """

    tol: float = 1e-12
    max_iter: int = 500
    dual: np.ndarray | None = field(default=None, repr=False)

    def __call__(self, Z: np.ndarray, tau: float) -> np.ndarray:
        d = Z.shape[0]
        radius = tau / 3.0
        Q = np.zeros_like(Z) if self.dual is None else self.dual
        point, momentum = Q, 1.0
        M = Z - 3.0 * symmetrize(Q)
        for _ in range(self.max_iter):
            # accelerated projected gradient on ½‖Z − 3 sym(Q)‖² (Lipschitz constant 9)
            step = point + (Z - 3.0 * symmetrize(point)) / 3.0
            U, s, Vt = np.linalg.svd(step.reshape(d, d * d), full_matrices=False)
            new_Q = ((U * np.minimum(s, radius)) @ Vt).reshape(d, d, d)
            new_M = Z - 3.0 * symmetrize(new_Q)
            change = np.linalg.norm(new_M - M)
            new_momentum = (1 + np.sqrt(1 + 4 * momentum ** 2)) / 2
            point = new_Q + (momentum - 1) / new_momentum * (new_Q - Q)
            Q, M, momentum = new_Q, new_M, new_momentum
            if change <= self.tol * max(np.linalg.norm(M), 1e-300):
                break
        self.dual = Q
        return M


@dataclass(frozen=True)
class LowRankSolution:
    """The solution's free entries ``m``, the full symmetric tensor, iterations and convergence; ``history``:
    the objective after each of the ``n_iter`` iterations (empty where there were none to log)."""

    coef: np.ndarray
    tensor: np.ndarray
    n_iter: int
    converged: bool
    history: np.ndarray = field(default_factory=lambda: np.zeros(0))


def objective(stats: RegressionStatistics, m: np.ndarray, regularization: float) -> float:
    """``½ mᵀ G m − bᵀ m + λ R(M)`` (the loss up to the constant ½ E[z²])."""
    return float(0.5 * m @ stats.gram @ m - stats.target @ m
                 + regularization * regulariser(stats.index.to_tensor(m)))


def root_objective(stats: RegressionStatistics, m: np.ndarray, regularization: float) -> float:
    """``½ sqrt(E[(z − φᵀm)²]) + c R(M)``: the objective of the authors' CVX programs divided by √n."""
    return 0.5 * stats.residual_rms(m) + regularization * regulariser(stats.index.to_tensor(m))


def solve_root_loss_regression(stats: RegressionStatistics, regularization: float, *, max_iter: int = 20000,
                               tol: float = 1e-10, max_rounds: int = 30) -> LowRankSolution:
    """Minimise :func:`root_objective` by FISTA on the squared loss with ``λ = 2c · rms``, λ refreshed each round.

    Stops once λ changes by less than :data:`LAMBDA_TOL` relative (or after ``max_rounds``); ``n_iter``
    adds up every round's FISTA iterations, ``history`` the root objective after each of them,
    ``converged`` needs both λ and the last FISTA run to have converged.
    """
    m = np.zeros(stats.index.size)
    lam = 2 * regularization * stats.residual_rms(m)
    histories = []
    for _ in range(max_rounds):
        solution = solve_low_rank_regression(stats, lam, max_iter=max_iter, tol=tol, start=m,
                                             track=lambda m: root_objective(stats, m, regularization))
        m = solution.coef
        histories.append(solution.history)
        new_lam = 2 * regularization * stats.residual_rms(m)
        settled = abs(new_lam - lam) <= LAMBDA_TOL * max(lam, 1e-300)
        lam = new_lam
        if settled:
            break
    history = np.concatenate(histories)
    return LowRankSolution(m, stats.index.to_tensor(m), len(history), settled and solution.converged, history)


def solve_low_rank_regression(stats: RegressionStatistics, regularization: float, *, max_iter: int = 20000,
                              tol: float = 1e-10, start: np.ndarray | None = None, track=None) -> LowRankSolution:
    """FISTA for the nuclear-norm regularised regression of one order (2 or 3), from ``start`` (default M = 0).

    Stops when an iterate moves less than ``tol`` relative to its Frobenius norm. ``history``: after
    each iteration :func:`objective`, or ``track(m)`` when given.
    """
    track = track or (lambda m: objective(stats, m, regularization))
    index = stats.index
    if index.order == 2:
        prox = matrix_prox
    elif index.order == 3:
        prox = OverlappedTensorProx()
    else:
        raise ValueError(f"low-rank regression onto order {index.order} tensors is not supported (2 or 3)")
    c = index.counts
    scaled = stats.gram / np.sqrt(np.outer(c, c))  # the Hessian under ⟨m, m'⟩ = Σ c_α m_α m'_α
    lipschitz = float(np.linalg.eigvalsh(scaled)[-1])
    if lipschitz <= 0:
        raise ValueError("the regression has no data (zero Gram matrix)")
    step = 1.0 / lipschitz
    m = np.zeros(index.size) if start is None else np.asarray(start, dtype=np.float64).copy()
    y, momentum = m, 1.0
    converged = False
    history = []
    for it in range(1, max_iter + 1):
        gradient = (stats.gram @ y - stats.target) / c  # entries of the full tensor's gradient
        new_m = index.from_tensor(prox(index.to_tensor(y - step * gradient), step * regularization))
        move = new_m - m
        size = np.sqrt(np.sum(c * new_m ** 2))
        if np.sum(c * (y - new_m) * move) > 0:  # adaptive restart: momentum points uphill
            y, momentum = new_m, 1.0
        else:
            new_momentum = (1 + np.sqrt(1 + 4 * momentum ** 2)) / 2
            y = new_m + (momentum - 1) / new_momentum * move
            momentum = new_momentum
        m = new_m
        history.append(track(m))
        if np.sqrt(np.sum(c * move ** 2)) <= tol * max(size, 1e-300):
            converged = True
            break
    return LowRankSolution(m, index.to_tensor(m), it, converged, np.array(history))
