"""Regularised log-linear tables of a Bayesian network from complete data (the M-step).

Guo & Schuurmans (NIPS 2007, §2) write every conditional as a log-linear model with the
indicator features of the child value and the parent configuration,
p(z_j = a | pa_j = b) = exp(W_j[b, a]) / Σ_a' exp(W_j[b, a']), and train it by minimising the
regularised negative log-likelihood Σ_i −log p(z_ij | pa_ij) + (β/2)‖W_j‖²_F. That objective
splits over the rows b of the table and depends on the data only through the counts
n_b(a): each row solves min_w N_b·logsumexp(w) − n_bᵀw + (β/2)‖w‖² (strictly convex for
β > 0; a row with no data is uniform). We solve all rows of a table at once by damped Newton
steps (k ≤ a few values: the Hessians N_b(diag p − ppᵀ) + βI are tiny and batched), which is
exact to 1e-10 in the gradient and needs no optimiser library.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp, softmax

from seqspectral.mixtures.bayesnet.network import BayesNetStructure, DiscreteBayesNet


def table_counts(structure: BayesNetStructure, data: np.ndarray, j: int) -> np.ndarray:
    """n_b(a): how often variable j takes value a under parent configuration b (rows b)."""
    rows = structure.parent_configs(data, j)
    card = structure.cardinalities[j]
    flat = np.bincount(rows * card + data[:, j], minlength=structure.n_parent_configs(j) * card)
    return flat.reshape(-1, card).astype(float)


def row_objective(weights: np.ndarray, counts: np.ndarray, beta: float) -> np.ndarray:
    """N_b·logsumexp(w_b) − n_bᵀw_b + (β/2)‖w_b‖² of every row b."""
    return (counts.sum(axis=1) * logsumexp(weights, axis=1) - (counts * weights).sum(axis=1)
            + 0.5 * beta * (weights ** 2).sum(axis=1))


def log_linear_weights(counts: np.ndarray, beta: float, *, tol: float = 1e-10, max_steps: int = 100) -> np.ndarray:
    """The minimiser W (rows × values) of Σ_b row_objective(w_b) for counts (rows × values), β > 0."""
    if beta <= 0:
        raise ValueError(f"beta must be positive, got {beta}")
    counts = np.asarray(counts, dtype=float)
    n_rows, k = counts.shape
    totals = counts.sum(axis=1)
    w = np.zeros((n_rows, k))
    value = row_objective(w, counts, beta)
    eye = np.eye(k)
    for _ in range(max_steps):
        p = softmax(w, axis=1)
        grad = totals[:, None] * p - counts + beta * w
        active = np.abs(grad).max(axis=1) > tol
        if not active.any():
            break
        hess = totals[active, None, None] * (p[active, :, None] * eye - p[active, :, None] * p[active, None, :]) + beta * eye
        step = np.linalg.solve(hess, grad[active][..., None])[..., 0]
        rows = np.flatnonzero(active)
        size = np.ones(len(rows))
        for _ in range(60):  # halve the step of every row that did not decrease
            trial = w[rows] - size[:, None] * step
            trial_value = row_objective(trial, counts[rows], beta)
            worse = trial_value > value[rows] + 1e-12 * np.abs(value[rows])
            if not worse.any():
                break
            size[worse] *= 0.5
        w[rows], value[rows] = trial, trial_value
    return w


def fit_tables(structure: BayesNetStructure, data: np.ndarray, beta: float) -> tuple[DiscreteBayesNet, float]:
    """The regularised log-linear network of complete ``data`` and its objective.

    The objective is Σ_i −log p(z_i) + (β/2) Σ_j ‖W_j‖²_F, the quantity Viterbi EM and the
    convex relaxation minimise over the hidden values too (the paper's joint objective).
    """
    tables, objective = [], 0.0
    for j in range(len(structure.names)):
        counts = table_counts(structure, data, j)
        w = log_linear_weights(counts, beta)
        objective += float(row_objective(w, counts, beta).sum())
        tables.append(w - logsumexp(w, axis=1, keepdims=True))
    return DiscreteBayesNet(structure, tables), objective
