"""Coupled CP factorisation of 3-way histograms on the simplex by alternating mirror descent.

Kargas & Sidiropoulos (AISTATS 2019), Section 4, problem (9) and Algorithm 1: the
histograms X_t of the triples t = (j, k, l) are fitted jointly by one rank-F model with
shared factors,

    M_t = [[λ, A_j, A_k, A_l]] = Σ_h λ_h a_jh ∘ a_kh ∘ a_lh,

every column of every A_n (a conditional PMF, I bins) and λ (the mixing weights) on the
probability simplex, minimising Σ_t D(X_t, M_t) with D the Kullback-Leibler divergence
Σ X log(X / M) (the paper's choice) or the squared Frobenius distance (the alternative).
The blocks A_1, ..., A_N, λ are updated in turn (Gauss-Seidel); each block problem is
min_x D(Y, linear(x)) over column-stochastic x, solved by a few exponentiated-gradient
(mirror descent) steps x ← x ⊙ exp(−η ∇) / column sums, with Armijo backtracking (β = 0.5,
σ = 1e-3: accept η once D decreases by at least σ ⟨∇, x − x_new⟩). Safeguards of ours,
beyond the paper: the first trial step of a block scales with its gradient (the
exponents spread over one nat, so the KL and Frobenius objectives need no tuning) and
each later trial starts at twice the last accepted step; entries are kept above 1e-12,
so a bin pushed to zero early can come back (a zero is a fixed point of the
multiplicative update). The decrease is computed as Σ Y log(M_new / M), not as a
difference of two costs, so the test stays exact near convergence. The outer loop
stops when the relative change of the total cost falls below ``tol``. Every accepted step
lowers the cost, so the cost history never increases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

LOSSES = ("kl", "frobenius")
ARMIJO_BETA = 0.5
ARMIJO_SIGMA = 1e-3
MAX_BACKTRACKS = 60
MAX_STEP = 1e12
FLOOR = 1e-12


@dataclass
class CoupledCP:
    """A fitted coupled CP model and the record of its fit."""

    weights: np.ndarray       # (F,) mixing weights λ
    factors: np.ndarray       # (N, I, F) conditional PMFs, columns on the simplex
    cost: float               # Σ_t D(X_t, M_t) at the end
    cost_history: np.ndarray  # the cost after every outer iteration
    converged: bool


def random_start(n_variables: int, n_bins: int, n_components: int, rng: np.random.Generator):
    """Uniform random factor columns normalised to the simplex, and uniform weights (the authors' start)."""
    factors = rng.random((n_variables, n_bins, n_components))
    factors /= factors.sum(axis=1, keepdims=True)
    return np.full(n_components, 1.0 / n_components), factors


def model_histograms(weights: np.ndarray, factors: np.ndarray, triples: np.ndarray) -> np.ndarray:
    """(T, I, I, I) the model's 3-way marginals [[λ, A_j, A_k, A_l]] of every triple."""
    I = factors.shape[1]
    return (_weights_design(factors, triples) @ weights).reshape(len(triples), I, I, I)


def fit_coupled_cp(histograms: np.ndarray, triples: np.ndarray, weights: np.ndarray, factors: np.ndarray, *,
                   loss: str = "kl", max_iter: int = 500, tol: float = 1e-5, inner_max_iter: int = 10,
                   inner_tol: float = 1e-4) -> CoupledCP:
    """Algorithm 1 from the start (``weights``, ``factors``); ``histograms`` is (T, I, I, I) for ``triples`` (T, 3)."""
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    weights = np.array(weights, dtype=np.float64).reshape(-1, 1)
    factors = np.array(factors, dtype=np.float64)
    n_variables, n_bins, _ = factors.shape
    unfoldings = [_unfolding(histograms, triples, n) for n in range(n_variables)]
    flat = histograms.reshape(-1, 1)
    history, converged = [], False
    for _ in range(max_iter):
        for n, (Y, others) in enumerate(unfoldings):
            if Y is None:
                continue
            Q = _factor_design(factors, others, weights[:, 0])
            block = _Block(Y, loss, forward=lambda x, Q=Q: x @ Q.T, adjoint=lambda R, Q=Q: R @ Q)
            factors[n], _ = _mirror_descent(factors[n], block, inner_max_iter, inner_tol)
        Q = _weights_design(factors, triples)
        block = _Block(flat, loss, forward=lambda x: Q @ x, adjoint=lambda R: Q.T @ R)
        weights, M = _mirror_descent(weights, block, inner_max_iter, inner_tol)
        history.append(block.cost(M))
        if len(history) > 1 and abs(history[-2] - history[-1]) <= tol * abs(history[-2]):
            converged = True
            break
    return CoupledCP(weights[:, 0], factors, history[-1], np.array(history), converged)


# -- the block problems ----------------------------------------------------------------------
class _Block:
    """min over column-stochastic x of D(Y, forward(x)), with ∇ = adjoint(∂D/∂M).

    Reductions use ``np.sum`` of products, not BLAS dot products: a threaded ``ddot`` on a
    busy machine costs milliseconds per call where the sum costs microseconds."""

    def __init__(self, Y: np.ndarray, loss: str, forward: Callable, adjoint: Callable):
        self.Y, self.loss, self.forward, self.adjoint = Y, loss, forward, adjoint
        if loss == "kl":
            self.support = None if np.all(Y) else np.flatnonzero(Y)  # None: every entry (no gather)
            self.Y_support = self.on_support(Y)

    def on_support(self, M: np.ndarray) -> np.ndarray:
        """The entries of M where Y > 0, flat."""
        return M.ravel() if self.support is None else M.ravel()[self.support]

    def cost(self, M: np.ndarray) -> float:
        if self.loss == "kl":
            with np.errstate(divide="ignore"):
                return float(np.sum(self.Y_support * np.log(self.Y_support / self.on_support(M))))
        return float(np.sum((M - self.Y) ** 2))

    def decrease(self, M: np.ndarray, M_new: np.ndarray) -> float:
        """cost(M) − cost(M_new), computed without the cancellation of subtracting two costs."""
        if self.loss == "kl":
            with np.errstate(divide="ignore"):
                return float(np.sum(self.Y_support * np.log(self.on_support(M_new) / self.on_support(M))))
        return -float(np.sum((M_new - M) * (M_new + M - 2.0 * self.Y)))

    def gradient(self, M: np.ndarray) -> np.ndarray:
        if self.loss == "kl":
            if self.support is None:
                return self.adjoint(-self.Y / M)
            R = np.zeros(M.size)
            R[self.support] = -self.Y_support / self.on_support(M)
            return self.adjoint(R.reshape(M.shape))
        return self.adjoint(2.0 * (M - self.Y))


def _mirror_descent(x: np.ndarray, block: _Block, max_iter: int, tol: float):
    """Exponentiated-gradient steps with Armijo backtracking until x moves less than ``tol``
    (relative); returns (x, forward(x)). The first trial step spreads the exponents over one
    nat (η = 1 / max column range of ∇, so both losses need no tuning); each later trial
    starts at twice the last accepted step."""
    M = block.forward(x)
    step = None
    for _ in range(max_iter):
        grad = block.gradient(M)
        if step is None:
            spread = float(np.max(grad.max(axis=0) - grad.min(axis=0)))
            if spread == 0.0:
                break
            trial = 1.0 / spread
        else:
            trial = min(step / ARMIJO_BETA, MAX_STEP)
        for _ in range(MAX_BACKTRACKS):
            shifted = -trial * grad
            candidate = np.maximum(x * np.exp(shifted - shifted.max(axis=0)), FLOOR)
            candidate /= candidate.sum(axis=0)
            M_new = block.forward(candidate)
            if block.decrease(M, M_new) >= max(ARMIJO_SIGMA * float(np.sum(grad * (x - candidate))), 0.0):
                break
            trial *= ARMIJO_BETA
        else:
            break  # no step lowers the cost: stationary to working precision
        change = np.linalg.norm(candidate - x) / np.linalg.norm(x)
        x, M, step = candidate, M_new, trial
        if change < tol:
            break
    return x, M


def _unfolding(histograms: np.ndarray, triples: np.ndarray, n: int):
    """(Y, others): the mode-n unfoldings (I × I²) of the triples holding n, side by side,
    and those triples' other two variables in order (None if n is in no triple)."""
    rows, positions = np.nonzero(triples == n)
    if rows.size == 0:
        return None, None
    I = histograms.shape[1]
    Y = np.concatenate([np.moveaxis(histograms[t], p, 0).reshape(I, I * I) for t, p in zip(rows, positions)], axis=1)
    others = np.array([np.delete(triples[t], p) for t, p in zip(rows, positions)], dtype=np.int64)
    return Y, others


def _factor_design(factors: np.ndarray, others: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(T_n I², F) the stacked Khatri-Rao products (A_k ⊙ A_l) diag(λ), so that Y ≈ A_n Qᵀ."""
    B, C = factors[others[:, 0]], factors[others[:, 1]]  # (T_n, I, F)
    return (B[:, :, None, :] * C[:, None, :, :] * weights).reshape(-1, factors.shape[2])


def _weights_design(factors: np.ndarray, triples: np.ndarray) -> np.ndarray:
    """(T I³, F) the stacked Khatri-Rao products A_j ⊙ A_k ⊙ A_l, so that vec(X) ≈ Q λ."""
    A, B, C = factors[triples[:, 0]], factors[triples[:, 1]], factors[triples[:, 2]]
    I, F = factors.shape[1:]
    return (A[:, :, None, None, :] * B[:, None, :, None, :] * C[:, None, None, :, :]).reshape(-1, F)
