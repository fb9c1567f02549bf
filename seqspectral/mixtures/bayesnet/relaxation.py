"""The joint objective of Viterbi EM in equivalence matrices, relaxed to a convex program.

Guo & Schuurmans (NIPS 2007, §4–5). For hidden values Y (t × k one-hot) only the
equivalence relation M = YYᵀ (M_il = 1 iff examples i and l share the value) matters: the
regularised log-linear objective of a table is invariant to renaming the values. Written in
M, each term below is *exact* at every equivalence matrix and *jointly convex*, so relaxing
the set of equivalence matrices of at most k classes to {diag M = 1, M ≥ 0, kM − 11ᵀ ⪰ 0}
(M ⪰ 0 and M ≤ 1 follow) gives a convex program with no local minima whose value
lower-bounds the objective of every assignment. The constraint kM − 11ᵀ ⪰ 0 holds at every
M = YYᵀ with k columns (kM − 11ᵀ = Y(kI − 11ᵀ)Yᵀ, and kI − 11ᵀ ⪰ 0): it is the set of Frieze
& Jerrum's max-k-cut relaxation, and it excludes M = I (t classes of one example each) and the
other matrices of rank far above k that plain M ⪰ 0 allows. (Ours: the paper's exact set was
not at hand; the earlier {M ⪰ 0, diag M = 1, M ≥ 0} is its loosest form.)

Observed child x with hidden parent(s) (the paper's Theorem 1 in primal form). With the
indicator features φ_i of the parent configuration, the kernel ΦΦᵀ is K = M ∘ E, E_il = 1
iff i and l agree on the observed parents. Writing the logits of every example as
Z = K A, the regulariser (β/2)‖W‖² becomes (β/2) tr(Zᵀ K⁺ Z), so the table's term is

    min_Z Σ_i logsumexp(z_i) − ⟨Z, X⟩ + (β/2) matrix_frac(Z, K),

matrix_frac(Z, K) = tr(Zᵀ K⁻¹ Z) being jointly convex in (Z, K) and SDP-representable (a
Schur complement; Z outside the range of a singular K costs +∞, which forces equal logits
within a class). Children with the same parents share one Z block (their terms add).

Several hidden parents (§5). The kernel is the Hadamard product M₁ ∘ M₂ ∘ E, bilinear in
the M's; an auxiliary equivalence matrix A stands for M₁ ∘ M₂ (the relation of the joint
value), relaxed with k₁k₂A − 11ᵀ ⪰ 0, diag A = 1, max(0, M₁ + M₂ − 1) ≤ A ≤ min(M₁, M₂), the linear
envelope of the product of 0/1 entries. At most two hidden parents per variable.

The hidden variable's own table (parents observed; only with ``hidden_tables=True``). Its
regularised log-linear term per parent configuration b is min_w N_b logsumexp(w) − n_bᵀw +
(β/2)‖w‖², a symmetric function of the class counts n_b. With one logit u_l per example
(u_l = w_{b, y_l}) and d_l = ((M ∘ E) 1)_l, the number of examples of block b in l's class,

    Σ_b [ N_b logsumexp_{l ∈ b}(u_l − log d_l) − Σ_{l ∈ b} u_l + (β/2) Σ_{l ∈ b} u_l² / d_l ],

exact when every value occurs in every block (an absent value would add its logit to the
normaliser: ignoring it keeps a lower bound), and jointly convex in (u, M): logsumexp of the
convex −log d, and quad-over-lin; the optimal u is constant within a class by symmetry. But
this term is at heart the entropy of the class sizes, concave in the partition: its convex
extension rewards fractional M (large row sums d) so strongly that even perfectly separable
data are not recovered (t = 60, 2 classes: off-class entries ≈ 0.53). By default the program
therefore holds the tables of observed variables with hidden parents (Theorem 1's form, where
M is the kernel), and the hidden variables' own tables are fitted after rounding (so a hidden
variable may then have hidden parents, though that link does not inform the program). With
``hidden_tables=True`` a hidden variable's parents must be observed.

Tables of observed variables with observed parents do not depend on the hidden values; they
enter as the constant ``constant``, so that ``problem.value + constant`` is a lower bound on
the joint objective of :func:`seqspectral.mixtures.bayesnet.tables.fit_tables` at every
assignment (the tables left out are nonnegative terms).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from seqspectral.mixtures._research import require
from seqspectral.mixtures.bayesnet.network import BayesNetStructure, StructureError
from seqspectral.mixtures.bayesnet.tables import log_linear_weights, row_objective, table_counts


@dataclass
class EquivalenceProgram:
    """The relaxed program: ``equivalence[h]`` is M of hidden variable h (its index)."""

    problem: object  # cvxpy.Problem
    equivalence: dict[int, object]
    auxiliary: dict[tuple[int, int], object]
    constant: float
    psd_sizes: list[int] = field(default_factory=list)


def check_relaxable(structure: BayesNetStructure, hidden_tables: bool = False) -> None:
    """Raise :class:`StructureError` unless the relaxation covers the network (see the module doc)."""
    hidden = set(structure.hidden_index.tolist())
    if not hidden:
        raise StructureError("the network has no hidden variable")
    for j, pa in enumerate(structure.parents):
        if hidden_tables and j in hidden and hidden & set(pa):
            raise StructureError(f"hidden variable {structure.names[j]!r} has a hidden parent: "
                                 "the relaxation needs the parents of hidden variables observed")
        if len(hidden & set(pa)) > 2:
            raise StructureError(f"variable {structure.names[j]!r} has more than two hidden parents")


def _observed_agreement(structure: BayesNetStructure, X: np.ndarray, j: int) -> np.ndarray | None:
    """E_il = 1 iff examples i, l agree on j's observed parents (None if it has none)."""
    observed = [p for p in structure.parents[j] if not structure.hidden[p]]
    if not observed:
        return None
    cols = [int(np.flatnonzero(structure.observed_index == p)[0]) for p in observed]
    config = np.ravel_multi_index(tuple(X[:, c] for c in cols), tuple(structure.cardinalities[p] for p in observed))
    return (config[:, None] == config[None, :]).astype(float)


def equivalence_program(structure: BayesNetStructure, X: np.ndarray, beta: float,
                        hidden_tables: bool = False) -> EquivalenceProgram:
    """Build the convex program for observed data ``X`` (t × n_observed) and regularisation β."""
    cp = require("cvxpy", "the convex relaxation of Viterbi EM")
    check_relaxable(structure, hidden_tables)
    t = len(X)
    hidden = [int(h) for h in structure.hidden_index]
    observed_col = {int(j): c for c, j in enumerate(structure.observed_index)}
    M = {h: cp.Variable((t, t), symmetric=True, name=f"M_{structure.names[h]}") for h in hidden}
    constraints = []
    relations: list[tuple[object, int]] = []  # every (auxiliary) equivalence matrix and its number of values
    for h, m in M.items():
        constraints += [cp.diag(m) == 1, m >= 0]
        relations.append((m, structure.cardinalities[h]))
    auxiliary: dict[tuple[int, int], object] = {}
    psd_sizes: list[int] = []
    objective = 0
    constant = 0.0

    # observed children, grouped by their parents (same kernel, one Z block)
    groups: dict[tuple[int, ...], list[int]] = {}
    for j in range(len(structure.names)):
        if structure.hidden[j]:
            continue
        if not set(structure.parents[j]) & set(hidden):
            data = np.zeros((t, len(structure.names)), dtype=np.int64)
            data[:, structure.observed_index] = X
            counts = table_counts(structure, data, j)
            constant += float(row_objective(log_linear_weights(counts, beta), counts, beta).sum())
            continue
        groups.setdefault(tuple(sorted(structure.parents[j])), []).append(j)
    for parents, children in groups.items():
        hidden_parents = tuple(p for p in parents if structure.hidden[p])
        if len(hidden_parents) == 1:
            relation = M[hidden_parents[0]]
        else:
            if hidden_parents not in auxiliary:
                a = cp.Variable((t, t), symmetric=True, name="A_" + "_".join(structure.names[h] for h in hidden_parents))
                m1, m2 = (M[h] for h in hidden_parents)
                constraints += [cp.diag(a) == 1, a >= 0, a <= m1, a <= m2, a >= m1 + m2 - 1]
                relations.append((a, structure.cardinalities[hidden_parents[0]] * structure.cardinalities[hidden_parents[1]]))
                auxiliary[hidden_parents] = a
            relation = auxiliary[hidden_parents]
        agreement = _observed_agreement(structure, X, children[0])
        kernel = relation if agreement is None else cp.multiply(agreement, relation)
        cards = [structure.cardinalities[j] for j in children]
        Z = cp.Variable((t, sum(cards)))
        S = cp.Variable((sum(cards), sum(cards)), symmetric=True)
        onehot = np.concatenate([np.eye(k)[X[:, observed_col[j]]] for j, k in zip(children, cards)], axis=1)
        edges = np.concatenate([[0], np.cumsum(cards)])
        objective += sum(cp.sum(cp.log_sum_exp(Z[:, a:b], axis=1)) for a, b in zip(edges[:-1], edges[1:]))
        # tr(S) ≥ matrix_frac(Z, K) = tr(Zᵀ K⁺ Z) by the Schur complement
        objective += -cp.sum(cp.multiply(onehot, Z)) + 0.5 * beta * cp.trace(S)
        constraints.append(cp.bmat([[kernel, Z], [Z.T, S]]) >> 0)
        psd_sizes.append(t + sum(cards))
    for m, k in relations:  # k M − 11ᵀ ⪰ 0: at most k classes (implies M ⪰ 0)
        constraints.append(k * m - np.ones((t, t)) >> 0)
        psd_sizes.append(t)

    # the hidden variables' own tables
    for h in (hidden if hidden_tables else ()):
        agreement = _observed_agreement(structure, X, h)
        sizes = cp.sum(M[h] if agreement is None else cp.multiply(agreement, M[h]), axis=1)
        u = cp.Variable(t)
        if agreement is None:
            blocks = [np.arange(t)]
        else:
            blocks = [np.flatnonzero(row) for row in np.unique(agreement, axis=0)]
        for idx in blocks:
            objective += len(idx) * cp.log_sum_exp(u[idx] - cp.log(sizes[idx])) - cp.sum(u[idx])
        objective += 0.5 * beta * cp.sum(cp.hstack([cp.quad_over_lin(u[l], sizes[l]) for l in range(t)]))

    problem = cp.Problem(cp.Minimize(objective), constraints)
    return EquivalenceProgram(problem, M, auxiliary, constant, psd_sizes)
