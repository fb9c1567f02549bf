"""Convex EM: Viterbi EM's joint objective relaxed over equivalence matrices (Guo & Schuurmans 2007).

``ConvexEM(structure).fit(X)``: build the convex program of
:mod:`seqspectral.mixtures.bayesnet.relaxation` (one relaxed equivalence matrix M per hidden
variable, an auxiliary one per pair of hidden co-parents), solve it with cvxpy and SCS
(named explicitly: on Synth2 at t = 60 the interior-point Clarabel reached the same optimum,
192.125, and the same rounding in 87 s against SCS's 1.5 s; the tests check SCS against it),
logging every SCS iteration (``history_``), round every M to hidden values, then fit the
tables to the completed data (the M-step of :mod:`seqspectral.mixtures.bayesnet.tables`, the
same β).

Rounding (the paper's recovery, §5, and ours after it). The top k − 1 eigenvectors of HMH
(H = I − 11ᵀ/t), scaled by the square roots of their eigenvalues, are the coordinates of the
examples (for M = YYᵀ the examples of a class share one point), and k-means on these rows
gives k classes. Besides that candidate, ``n_roundings`` randomised roundings of the same
factor (Frieze & Jerrum's rounding for max-k-cut: k Gaussian directions, each example to the
one it projects on most); the candidate of lowest joint objective is kept (per hidden
variable, the others fixed at their k-means rounding), the criterion by which Viterbi EM
keeps its best restart. With ``polish=True`` Viterbi EM then runs from that assignment to its
fixed point (a local step after the convex one, reported apart: ``rounded_objective_`` is
the objective before it).

The solver's M satisfies the constraints only to its tolerance; ``equivalence_`` holds it
after a few alternating projections (clip to [0, 1]; clip the eigenvalues at 0 and rescale to
unit diagonal, last), so it is exactly positive semidefinite with unit diagonal and its entries
are within the solver's tolerance of [0, 1].

There is no first-order fallback: without cvxpy ``fit`` raises ImportError (the program mixes
matrix-fractional, log-sum-exp and PSD terms; a hand-written solver for it would be a second
SCS).
"""

from __future__ import annotations

import contextlib
import csv
import io
import tempfile
import time
from pathlib import Path

import numpy as np

from seqspectral.base import integer, one_of, real, seed
from seqspectral.mixtures._research import require
from seqspectral.mixtures.bayesnet.tables import fit_tables
from seqspectral.mixtures.bayesnet.learners import BayesNetEstimator, _structure, hard_em
from seqspectral.mixtures.bayesnet.relaxation import equivalence_program


class ConvexEM(BayesNetEstimator):
    """Convex relaxation of Viterbi EM for a discrete Bayesian network with hidden variables.

    Parameters: ``structure`` (:class:`BayesNetStructure`, hidden variables flagged; their
    at most two hidden parents per variable), ``beta`` (the regulariser (β/2)‖W‖² of every
    log-linear table), ``tol`` (SCS's absolute and relative tolerance), ``max_iter`` (its
    iteration limit), ``hidden_tables`` (also relax the hidden
    variables' own tables, whose parents must then be observed; off by default, see
    :mod:`seqspectral.mixtures.bayesnet.relaxation`), ``n_roundings`` (randomised roundings tried
    besides k-means), ``polish`` (Viterbi EM from the rounded assignment), ``random_state``
    (k-means and the randomised roundings).

    Attributes after ``fit(X)``: ``model_`` (:class:`DiscreteBayesNet`), ``hidden_`` (the
    training assignments, n × n_hidden: rounded, then polished if asked), ``rounded_hidden_``
    and ``rounded_objective_`` (before the polish), ``equivalence_`` (hidden variable name → the
    relaxed M), ``relaxed_objective_`` (the program's value plus the tables it does not
    depend on: a lower bound on the joint objective of every assignment, up to the solver's
    tolerance), ``objective_`` (the joint
    objective of ``hidden_``), ``n_iter_``, ``converged_`` and ``history_`` (SCS's iterations,
    whether it reached ``tol``, and after each iteration its primal objective (of the
    canonicalised program, cvxpy's constant offset left out), primal and dual residual:
    n_iter_ × 3), ``solve_time_`` (seconds to build, canonicalise and solve the program), ``sdp_size_`` (t, the PSD block sizes, scalar variables and constraints),
    ``solver_status_``, ``feasibility_correction_`` (name → the largest entry change made by
    the projection onto the constraints: the solver's own infeasibility).
    """

    _parameter_checks = {"structure": _structure, "beta": real(0, open_low=True),
                         "tol": real(0, open_low=True),
                         "max_iter": integer(1), "hidden_tables": one_of(True, False), "n_roundings": integer(0),
                         "polish": one_of(True, False), "random_state": seed}

    def __init__(self, structure, *, beta: float = 1.0, tol: float = 1e-4,
                 max_iter: int = 20000, hidden_tables: bool = False, n_roundings: int = 20, polish: bool = False,
                 random_state=0):
        self.structure = structure
        self.n_roundings = n_roundings
        self.polish = polish
        self.hidden_tables = hidden_tables
        self.beta = beta
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X):
        cp = require("cvxpy", "ConvexEM (a semidefinite program)")
        X = self._checked_input(X)
        s = self.structure
        start = time.perf_counter()
        program = equivalence_program(s, X, self.beta, self.hidden_tables)
        self.history_ = solve_logged(program.problem, cp, eps_abs=self.tol, eps_rel=self.tol, max_iters=self.max_iter)
        self.solve_time_ = time.perf_counter() - start
        self.solver_status_ = program.problem.status
        self.n_iter_ = len(self.history_)  # capped by max_iter
        self.converged_ = self.solver_status_ == "optimal"
        if program.problem.status not in ("optimal", "optimal_inaccurate"):
            raise RuntimeError(f"ConvexEM: SCS stopped with status {program.problem.status!r}")
        metrics = program.problem.size_metrics
        self.sdp_size_ = {"t": len(X), "psd_blocks": list(program.psd_sizes),
                          "scalar_variables": int(metrics.num_scalar_variables),
                          "scalar_constraints": int(metrics.num_scalar_eq_constr + metrics.num_scalar_leq_constr)}
        self.relaxed_objective_ = float(program.problem.value) + program.constant
        rng = np.random.default_rng(self.random_state)
        self.equivalence_, self.feasibility_correction_, candidates = {}, {}, []
        for h, variable in program.equivalence.items():
            M = nearest_equivalence_relaxation(variable.value)
            self.equivalence_[s.names[h]] = M
            self.feasibility_correction_[s.names[h]] = float(np.abs(M - variable.value).max())
            candidates.append(rounding_candidates(M, s.cardinalities[h], self.n_roundings, rng))
        H = np.stack([c[0] for c in candidates], axis=1)  # k-means roundings first
        for c, column_candidates in enumerate(candidates):  # then each variable's best candidate, the others fixed
            H[:, c] = min(column_candidates, key=lambda y: fit_tables(s, s.complete(X, _with_column(H, c, y)), self.beta)[1])
        self.rounded_hidden_ = H
        self.model_, self.rounded_objective_ = fit_tables(s, s.complete(X, H), self.beta)
        self.hidden_, self.objective_ = H, self.rounded_objective_
        if self.polish:
            self.model_, self.objective_, self.hidden_, _, _ = hard_em(s, X, H, self.beta, max_iter=100)
        return self


def solve_logged(problem, cp, **options) -> np.ndarray:
    """Solve ``problem`` with SCS logging every iteration (``log_csv_filename``): per iteration its
    primal objective, primal and dual residual (iterations × 3). SCS's note that it logs (printed
    through Python's standard output) is dropped."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "scs.csv"
        with contextlib.redirect_stdout(io.StringIO()):
            problem.solve(solver=cp.SCS, log_csv_filename=str(path), **options)
        with path.open(newline="") as f:
            rows = list(csv.DictReader(f))  # the header has more names than the rows have values: read by name
    return np.array([[float(r[name]) for name in ("pobj", "res_pri", "res_dual")] for r in rows if int(r["iter"]) >= 1],
                    dtype=np.float64).reshape(-1, 3)  # row 0 is the starting point


def _with_column(H: np.ndarray, c: int, y: np.ndarray) -> np.ndarray:
    H = H.copy()
    H[:, c] = y
    return H


def nearest_equivalence_relaxation(M: np.ndarray, n_rounds: int = 20) -> np.ndarray:
    """Alternating projections of a solver's M onto {0 ≤ M ≤ 1} and {M ⪰ 0, diag M = 1}, ending in the latter."""
    M = 0.5 * (np.asarray(M, dtype=float) + np.asarray(M, dtype=float).T)
    for _ in range(n_rounds):
        M = np.clip(M, 0.0, 1.0)
        values, vectors = np.linalg.eigh(M)
        M = (vectors * np.maximum(values, 0.0)) @ vectors.T
        scale = 1.0 / np.sqrt(np.maximum(np.diag(M), 1e-300))
        M = 0.5 * ((M * scale[:, None] * scale[None, :]) + (M * scale[:, None] * scale[None, :]).T)
    return M


def _embedding(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (descending, clipped at 0) and eigenvectors of H M H, H = I − 11ᵀ/t."""
    centred = M - M.mean(axis=0, keepdims=True)
    centred = centred - centred.mean(axis=1, keepdims=True)
    values, vectors = np.linalg.eigh(0.5 * (centred + centred.T))
    order = np.argsort(values)[::-1]
    return np.maximum(values[order], 0.0), vectors[:, order]


def round_equivalence(M: np.ndarray, k: int, random_state=0) -> np.ndarray:
    """k classes from a relaxed equivalence matrix: k-means on the scaled top k − 1 eigenvectors of HMH."""
    from sklearn.cluster import KMeans

    t = len(M)
    if t <= k:
        return np.arange(t) % k
    values, vectors = _embedding(M)
    points = vectors[:, : max(k - 1, 1)] * np.sqrt(values[: max(k - 1, 1)])
    return KMeans(n_clusters=k, n_init=10, random_state=random_state).fit_predict(points).astype(np.int64)


def rounding_candidates(M: np.ndarray, k: int, n_random: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The k-means rounding, then ``n_random`` randomised ones (Frieze & Jerrum's max-k-cut rounding).

    With HMH = VVᵀ (the centred Gram factor of M), a randomised rounding draws k Gaussian
    directions g_1..g_k and puts example i in argmax_c ⟨v_i, g_c⟩: examples with close rows of V
    (M_il near 1) tend to fall together. :class:`ConvexEM` keeps the candidate of lowest joint
    objective, the criterion Viterbi EM picks its restarts by.
    """
    candidates = [round_equivalence(M, k, random_state=int(rng.integers(2**31)))]
    values, vectors = _embedding(M)
    V = vectors * np.sqrt(values)
    for _ in range(n_random):
        candidates.append(np.argmax(V @ rng.standard_normal((len(M), k)), axis=1).astype(np.int64))
    return candidates
