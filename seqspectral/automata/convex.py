"""Convex (nuclear-norm regularised) learning of a weighted automaton, solved by ADMM.

Balle, Quattoni & Carreras (2012), as compared in Balle, Hamilton & Pineau (2014, §3.3):
the states are the prefixes of the basis (a prefix w is the row h_w of H, written as a
combination c_wᵀ H of the basis rows, with c_ε = e_ε), and the stacked operator
A = [A_σ1; …; A_σm] ∈ R^{|Σ||P|×|P|} solves

    min_A  ||A H − H_Σ||_F² + τ ||A||_*,        H_Σ = [H_σ1; …; H_σm],

with α0 = e_ε and α∞ = h_P. ADMM on the split A = Z (Boyd et al. 2011, §3 and §6.5 with
residual balancing of ρ): A ← (2 H_Σ Hᵀ + ρ(Z − U))(2 H Hᵀ + ρ I)⁻¹, Z ← SVT_{τ/ρ}(A + U),
U ← U + A − Z, stopping when both the primal ||A − Z|| and dual ρ||Z − Z_prev||
residuals are small. A path of decreasing τ is solved with warm starts. The low-rank
solution Z = L R (rank r) becomes an automaton with r + 1 states.
"""

from __future__ import annotations

import numpy as np

from ..base import either, integer, one_of, real
from ..selection import TAU_GRID
from .hankel_learner import HANKEL_CHECKS, HankelEstimator, automaton_from_blocks, dense_blocks


def singular_value_threshold(M: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
    """SVT_t(M) = U max(S − t, 0) Vᵀ for a tall M, factored as (L, R) with R = V_keptᵀ.

    Computed from the eigendecomposition of the small Gram matrix MᵀM = V S² Vᵀ
    (values below t vanish, so the squared small values lose nothing that is kept).
    """
    eigval, V = np.linalg.eigh(M.T @ M)
    s = np.sqrt(np.maximum(eigval, 0.0))
    keep = s > t
    V = V[:, keep]
    return (M @ V) * ((s[keep] - t) / s[keep]), V.T


class ADMMSolver:
    """Holds H, H_Σ and the ADMM iterates, so a τ path warm-starts each solve from the last.

    The iterates are kept in the eigenbasis V of H Hᵀ (Ã = A V): the A-step's inverse
    (2 H Hᵀ + ρ I)⁻¹ is then a column scaling, and the thresholding is unchanged (the singular
    values of M V are those of M). Each τ's solution is kept, so a refit on more data starts
    from the solution at the chosen τ (``warm_tau``).
    """

    def __init__(self, stats, max_iter: int = 500, tol: float = 1e-4, previous: "ADMMSolver | None" = None,
                 warm_tau: float | None = None):
        H, H_sigma, h_P, _ = dense_blocks(stats)
        self.n_sigma, self.n_p = H_sigma.shape[0], H.shape[0]
        self.h_P = h_P
        cross = (H_sigma @ H.T).reshape(self.n_sigma * self.n_p, self.n_p)  # stacked H_σ Hᵀ
        self.eigval, self.eigvec = np.linalg.eigh(H @ H.T)
        self.cross = cross @ self.eigvec  # rotated
        self.tau_max = 2.0 * np.linalg.norm(cross, 2) if cross.size else 0.0
        self.max_iter, self.tol = max_iter, tol
        self.rho = 2.0 * max(float(np.mean(self.eigval)), 1e-12)
        shape = self.cross.shape
        self.A, self.Z, self.U = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        if previous is not None and previous.cross.shape == shape:
            A, Z, U, self.rho = previous.solutions.get(warm_tau, (previous.A, previous.Z, previous.U, previous.rho))
            turn = previous.eigvec.T @ self.eigvec  # from the previous eigenbasis to this one
            self.A, self.Z, self.U = A @ turn, Z @ turn, U @ turn
        self.iterations, self.solutions = {}, {}  # per tau: (ADMM iterations run, converged)
        self.residuals = {}  # per tau: (primal, dual) residual after each iteration

    def solve(self, tau: float):
        """Run ADMM at regularisation ``tau`` (a fraction of ``tau_max``) from the current
        iterates; returns (L, R) with Z = L R."""
        A, Z, U, rho = self.A, self.Z, self.U, self.rho
        n = np.sqrt(A.size)
        scale = max(np.linalg.norm(self.cross), 1e-300)
        threshold = tau * self.tau_max
        residuals = []
        for it in range(1, self.max_iter + 1):
            A = (2.0 * self.cross + rho * (Z - U)) / (2.0 * self.eigval + rho)
            L, R = singular_value_threshold(A + U, threshold / rho)
            Z_prev, Z = Z, L @ R
            U = U + A - Z
            primal = np.linalg.norm(A - Z)
            dual = rho * np.linalg.norm(Z - Z_prev)
            residuals.append((primal, dual))
            eps_primal = n * 1e-9 * scale + self.tol * max(np.linalg.norm(A), np.linalg.norm(Z))
            eps_dual = n * 1e-9 * scale + self.tol * rho * np.linalg.norm(U)
            converged = primal <= eps_primal and dual <= eps_dual
            if converged:
                break
            if primal > 10.0 * dual:
                rho *= 2.0
                U = U / 2.0
            elif dual > 10.0 * primal:
                rho /= 2.0
                U = U * 2.0
        self.A, self.Z, self.U, self.rho = A, Z, U, rho
        self.solutions[tau] = (A, Z, U, rho)
        self.iterations[tau] = (it, converged)
        self.residuals[tau] = np.array(residuals)
        return L, R @ self.eigvec.T

    def automaton(self, L, R, alphabet, n_symbols, statistic, vocabulary):
        """The (r + 1)-state automaton of Z = L R: state 0 starts, then r latent states.

        With Z_σ = L_σ R: f(x) = e_εᵀ L_{x1} (R L_{x2}) ⋯ (R L_{xn}) R h_P.
        """
        r = R.shape[0]
        L_sigma = L.reshape(self.n_sigma, self.n_p, r)
        blocks = np.zeros((self.n_sigma, r + 1, r + 1))
        blocks[:, 0, 1:] = L_sigma[:, 0, :]
        blocks[:, 1:, 1:] = np.einsum("ip,apj->aij", R, L_sigma)
        initial = np.zeros(r + 1)
        initial[0] = 1.0
        final = np.concatenate([[self.h_P[0]], R @ self.h_P])
        return automaton_from_blocks(initial, final, blocks, alphabet, n_symbols, statistic, vocabulary)


class ConvexWA(HankelEstimator):
    """Nuclear-norm regularised weighted-automaton learner (ADMM).

    Parameters
    ----------
    regularization : τ as a fraction of τ_max = ||2 H_Σ Hᵀ||₂ (the smallest τ with a zero
        solution), or "auto": the ``selection.TAU_GRID`` path with warm starts, chosen by
        held-out log-likelihood.
    basis, statistic, basis_size, basis_length, floor, random_state : as for ``SpectralWA``;
        the prefix ε must be the basis' first prefix.
    max_iter, tol : ADMM iteration cap and relative tolerance on the residuals.
    progress : progress over the swept values on stderr (:mod:`seqspectral.progress`; None: a bar on a
        terminal only).

    Attributes
    ----------
    n_iter_, converged_ : ADMM iterations at the chosen τ, and whether they converged.
    history_ : (n_iter_, 2) the primal and dual residuals after each of those iterations (what
        the convergence test compares with ``tol``).
    """

    _swept = "regularization"
    #: the τ path is swept from large to small (warm starts); held-out likelihood mostly rises
    #: then falls, and small τ cost the most iterations: stop three values after the best (two
    #: cut the path before its best τ on 3 of 24 PAutomaC problems, whose curves dip and rise again)
    _patience = 3
    method = "convex"
    _parameter_checks = {**HANKEL_CHECKS, "regularization": either(one_of("auto"), real(0.0, open_low=True)),
                         "max_iter": integer(1), "tol": real(0.0, open_low=True)}

    def __init__(self, regularization="auto", *, basis=None, statistic="substring", basis_size=100, basis_length=3,
                 floor="auto", max_iter=500, tol=1e-4, random_state=0, progress=None):
        self.regularization = regularization
        self.basis = basis
        self.statistic = statistic
        self.basis_size = basis_size
        self.basis_length = basis_length
        self.floor = floor
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.progress = progress

    def _grid(self, corpus):
        return list(TAU_GRID)

    def _prepare(self, stats, previous, largest):
        warm = getattr(self, "regularization_", None)  # the refit starts from the chosen τ's solution
        return ADMMSolver(stats, self.max_iter, self.tol, previous, warm)

    def _finish(self, value, floor) -> None:
        super()._finish(value, floor)
        self.n_iter_, self.converged_ = self.prepared_.iterations[float(value)]
        self.history_ = self.prepared_.residuals[float(value)]

    def _build(self, solver, regularization):
        L, R = solver.solve(float(regularization))
        return solver.automaton(L, R, self.alphabet_, self.n_symbols_, self.statistic, self.vocabulary_)
