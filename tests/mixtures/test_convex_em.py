"""Convex EM (Guo & Schuurmans 2007), its baselines and the Bayesian-network layer under them."""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import logsumexp

from seqspectral.base import NotFittedError, ParameterError
from seqspectral.mixtures.bayesnet.network import BayesNetStructure, DiscreteBayesNet, StructureError
from seqspectral.mixtures.bayesnet.tables import fit_tables, log_linear_weights, row_objective, table_counts
from seqspectral.mixtures.bayesnet.learners import SupervisedBayesNet, ViterbiEM
from seqspectral.mixtures._research import MissingResearchDependency, require
from seqspectral.mixtures.datasets.bayesnets import DATASETS, random_network

if importlib.util.find_spec("cvxpy") is None:  # imported by the tests that use it: cvxpy is slow to import
    pytest.skip("cvxpy not installed", allow_module_level=True)

from seqspectral.mixtures.bayesnet.convex_em import ConvexEM, round_equivalence, rounding_candidates  # noqa: E402
from seqspectral.mixtures.bayesnet.relaxation import equivalence_program  # noqa: E402


def small_network():
    """Observed root R → hidden H (3 values) → children A, B; C has parents H and R."""
    s = BayesNetStructure.from_names({"R": 2, "H": 3, "A": 2, "B": 3, "C": 2},
                                     {"H": ("R",), "A": ("H",), "B": ("H",), "C": ("H", "R")}, hidden=("H",))
    return random_network(s, 5)


def two_hidden_network():
    """Hidden roots H1, H2; A child of H1, B child of H2, C child of both."""
    s = BayesNetStructure.from_names({"H1": 2, "H2": 2, "A": 2, "B": 2, "C": 3},
                                     {"A": ("H1",), "B": ("H2",), "C": ("H1", "H2")}, hidden=("H1", "H2"))
    return random_network(s, 6)


# -- the network layer ----------------------------------------------------------------------------
def brute_force_joint(net, full) -> float:
    """p(z) as the product of table entries, each row index worked out by hand."""
    s = net.structure
    p = 1.0
    for j in range(len(s.names)):
        row = 0
        for parent in s.parents[j]:
            row = row * s.cardinalities[parent] + int(full[parent])
        p *= np.exp(net.log_cpts[j][row, full[j]])
    return p


def test_log_marginal_and_most_probable_hidden_by_brute_force():
    net = small_network()
    s = net.structure
    X = net.sample(7, random_state=1)[:, s.observed_index]
    probs = np.array([[brute_force_joint(net, s.complete(x[None], np.array([[h]]))[0]) for h in range(3)] for x in X])
    np.testing.assert_allclose(net.log_marginal(X), np.log(probs.sum(axis=1)), atol=1e-12)
    np.testing.assert_array_equal(net.most_probable_hidden(X)[:, 0], probs.argmax(axis=1))


def test_sampling_matches_the_joint_distribution():
    s = BayesNetStructure.from_names({"a": 2, "b": 3}, {"b": ("a",)})
    net = DiscreteBayesNet.from_probabilities(s, [[[0.3, 0.7]], [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]])
    data = net.sample(40000, random_state=0)
    counts = np.zeros((2, 3))
    np.add.at(counts, (data[:, 0], data[:, 1]), 1)
    exact = np.exp(net.log_joint(np.array(list(itertools.product(range(2), range(3)))))).reshape(2, 3)
    np.testing.assert_allclose(counts / len(data), exact, atol=0.01)


def test_bad_structures_and_data_are_refused():
    with pytest.raises(StructureError, match="cycle"):
        BayesNetStructure.from_names({"a": 2, "b": 2}, {"a": ("b",), "b": ("a",)})
    with pytest.raises(StructureError, match="unknown"):
        BayesNetStructure.from_names({"a": 2}, {"a": ("z",)})
    s = small_network().structure
    with pytest.raises(StructureError, match="row 1, column 2"):
        s.check_observed([[0, 0, 0, 0], [0, 0, 5, 0]])
    with pytest.raises(StructureError, match="columns"):
        s.check_observed(np.zeros((3, 2)))


# -- supervised tables against brute-force counting ---------------------------------------------------
def test_supervised_tables_equal_a_per_example_fit_of_hand_counted_data():
    net = small_network()
    s = net.structure
    data = net.sample(40, random_state=3)
    beta = 0.7
    est = SupervisedBayesNet(s, beta=beta).fit(data[:, s.observed_index], data[:, s.hidden_index])
    for j in range(len(s.names)):
        cards = [s.cardinalities[p] for p in s.parents[j]]
        n_rows, k = int(np.prod(cards)) if cards else 1, s.cardinalities[j]
        rows = []
        for example in data:  # the parent configuration counted by hand, first parent most significant
            r = 0
            for p, c in zip(s.parents[j], cards):
                r = r * c + int(example[p])
            rows.append(r)

        rows, values = np.array(rows), data[:, j]

        def loss(w_flat):
            W = w_flat.reshape(n_rows, k)
            logp = W[rows] - logsumexp(W[rows], axis=1, keepdims=True)
            grad = np.zeros_like(W)
            np.add.at(grad, rows, np.exp(logp))
            np.add.at(grad, (rows, values), -1.0)
            return -logp[np.arange(len(rows)), values].sum() + 0.5 * beta * np.sum(W * W), (grad + beta * W).ravel()

        W = minimize(loss, np.zeros(n_rows * k), jac=True, method="L-BFGS-B",
                     options={"gtol": 1e-10, "ftol": 1e-14}).x.reshape(n_rows, k)
        np.testing.assert_allclose(est.model_.log_cpts[j], W - logsumexp(W, axis=1, keepdims=True), atol=1e-5)


def test_fit_tables_objective_is_the_regularised_negative_log_likelihood():
    net = small_network()
    data = net.sample(30, random_state=4)
    model, objective = fit_tables(net.structure, data, beta=1.3)
    # at the optimum the weights are the centred log-probabilities plus a row constant c_b with
    # Σ_a w_ba = 0 (the gradient of (β/2)‖w‖² + N·logsumexp is zero along 1): recover W and recompute
    penalty = sum(np.sum((t - t.mean(axis=1, keepdims=True)) ** 2) for t in model.log_cpts)
    assert objective == pytest.approx(-model.log_joint(data).sum() + 0.5 * 1.3 * penalty, rel=1e-9)


# -- the relaxation ---------------------------------------------------------------------------------
def _value_at(structure, X, H, hidden_tables):
    """The program's value with every M fixed to the true equivalence matrix (and A to M1 ∘ M2)."""
    import cvxpy as cp

    program = equivalence_program(structure, X, 1.0, hidden_tables)
    fixed = []
    for c, h in enumerate(structure.hidden_index):
        Y = np.eye(structure.cardinalities[h])[H[:, c]]
        fixed.append(program.equivalence[int(h)] == Y @ Y.T)
    problem = cp.Problem(program.problem.objective, program.problem.constraints + fixed)
    problem.solve(solver=cp.SCS, eps_abs=1e-8, eps_rel=1e-8, max_iters=100000)
    return problem.value + program.constant


def test_program_is_exact_at_equivalence_matrices():
    net = small_network()
    s = net.structure
    data = net.sample(24, random_state=8)
    X, H = data[:, s.observed_index], data[:, s.hidden_index]
    joint = fit_tables(s, data, 1.0)[1]
    value = _value_at(s, X, H, hidden_tables=True)
    if all(np.bincount(H[X[:, 0] == r, 0], minlength=3).all() for r in (0, 1)):  # every value in every block
        assert value == pytest.approx(joint, rel=1e-4)
    assert value <= joint + 1e-3 * abs(joint)
    # without the hidden variable's own table, the program is the joint objective minus that table
    counts = table_counts(s, data, 1)
    own = row_objective(log_linear_weights(counts, 1.0), counts, 1.0).sum()
    assert _value_at(s, X, H, hidden_tables=False) == pytest.approx(joint - own, rel=1e-4)


def test_two_hidden_parents_are_exact_with_the_auxiliary_product():
    import cvxpy as cp

    net = two_hidden_network()
    s = net.structure
    data = net.sample(20, random_state=2)
    X, H = data[:, s.observed_index], data[:, s.hidden_index]
    program = equivalence_program(s, X, 1.0)
    Ys = [np.eye(2)[H[:, c]] for c in range(2)]
    fixed = [program.equivalence[int(h)] == Y @ Y.T for h, Y in zip(s.hidden_index, Ys)]
    problem = cp.Problem(program.problem.objective, program.problem.constraints + fixed)
    problem.solve(solver=cp.SCS, eps_abs=1e-8, eps_rel=1e-8, max_iters=100000)
    (a,) = program.auxiliary.values()
    np.testing.assert_allclose(a.value, (Ys[0] @ Ys[0].T) * (Ys[1] @ Ys[1].T), atol=1e-4)
    roots = sum(row_objective(log_linear_weights(c, 1.0), c, 1.0).sum()
                for c in (table_counts(s, data, int(h)) for h in s.hidden_index))
    assert problem.value + program.constant == pytest.approx(fit_tables(s, data, 1.0)[1] - roots, rel=1e-4)


@pytest.mark.parametrize("name,seed", [("random", 0), ("two_hidden", 2)])
def test_relaxed_matrix_is_feasible_on_any_data(name, seed):
    rng = np.random.default_rng(seed)
    net = two_hidden_network() if name == "two_hidden" else small_network()
    s = net.structure
    cards = np.array([s.cardinalities[j] for j in s.observed_index])
    X = rng.integers(0, cards, size=(20, len(cards)))  # arbitrary data, not from the network
    est = ConvexEM(s, tol=1e-5).fit(X)
    assert max(est.feasibility_correction_.values()) < 1e-3  # the solver's M was nearly feasible already
    for name, M in est.equivalence_.items():
        assert np.linalg.eigvalsh(M).min() >= -1e-6
        k = s.cardinalities[s.names.index(name)]
        assert np.linalg.eigvalsh(k * M - 1.0).min() >= -1e-3  # at most k classes (the solver's tolerance)
        np.testing.assert_allclose(np.diag(M), 1.0, atol=1e-5)
        assert M.min() >= -1e-5 and M.max() <= 1 + 1e-5
    assert est.hidden_.shape == (20, len(s.hidden_index))


@pytest.mark.parametrize("k", [2, 3])
def test_separable_planted_data_give_the_true_equivalence_matrix(k):
    t, n = 30, 3
    s = BayesNetStructure.from_names({"y": k, **{f"x{i}": k for i in range(n)}}, {f"x{i}": ("y",) for i in range(n)},
                                     hidden=("y",))
    y = np.random.default_rng(k).permutation(np.arange(t) % k)
    X = (y[:, None] + np.arange(n)[None, :]) % k  # every child a different relabelling of y
    est = ConvexEM(s, tol=1e-6).fit(X)
    Y = np.eye(k)[y]
    np.testing.assert_allclose(est.equivalence_["y"], Y @ Y.T, atol=1e-3)
    assert len(set(zip(est.hidden_[:, 0], y))) == k  # the classes, renamed
    sup = SupervisedBayesNet(s).fit(X, y[:, None])
    assert est.objective_ == pytest.approx(sup.objective_)
    assert est.relaxed_objective_ <= sup.objective_ + 1e-3


def test_relaxed_objective_bounds_every_assignment_and_em_restarts():
    net = small_network()
    s = net.structure
    data = net.sample(30, random_state=11)
    X = data[:, s.observed_index]
    est = ConvexEM(s, tol=1e-6).fit(X)
    em = ViterbiEM(s, n_restarts=3).fit(X)
    sup = SupervisedBayesNet(s).fit(X, data[:, s.hidden_index])
    assert est.objective_ == est.rounded_objective_  # no polish: the rounded assignment is the fit
    for bound_of in (em.objective_, sup.objective_, est.objective_, *em.restart_objectives_):
        assert est.relaxed_objective_ <= bound_of + 1e-3 * abs(bound_of)


def test_scs_reaches_the_optimum_clarabel_finds():
    import cvxpy as cp

    net = small_network()
    s = net.structure
    X = net.sample(16, random_state=3)[:, s.observed_index]
    scs = ConvexEM(s, tol=1e-6).fit(X)
    program = equivalence_program(s, X, 1.0, False)  # the same program, by an interior-point peer
    program.problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-7, tol_gap_rel=1e-7, tol_feas=1e-7)
    assert scs.relaxed_objective_ == pytest.approx(program.problem.value + program.constant, rel=1e-5)
    # the log: one row per iteration SCS counts itself in a solve without the log, and the same solution
    unlogged = equivalence_program(s, X, 1.0, False)
    unlogged.problem.solve(solver=cp.SCS, eps_abs=1e-6, eps_rel=1e-6, max_iters=20000)
    assert scs.history_.shape == (unlogged.problem.solver_stats.num_iters, 3) and scs.n_iter_ == len(scs.history_) > 1
    assert scs.relaxed_objective_ == pytest.approx(unlogged.problem.value + unlogged.constant, rel=1e-9)
    assert scs.history_[-1, 0] == pytest.approx(scs.history_[-2, 0], rel=1e-4)  # the objective settled
    assert max(scs.history_[-1, 1:]) < 1e-3 * min(scs.history_[0, 1:])  # and the residuals fell


def test_rounding_recovers_classes_from_an_exact_equivalence_matrix():
    y = np.random.default_rng(0).integers(0, 4, size=40)
    Y = np.eye(4)[y]
    labels = round_equivalence(Y @ Y.T, 4)
    assert len(set(zip(labels, y))) == len(set(y))


def test_randomised_roundings_never_split_a_class_of_an_exact_equivalence_matrix():
    y = np.random.default_rng(1).integers(0, 3, size=30)
    Y = np.eye(3)[y]
    candidates = rounding_candidates(Y @ Y.T, 3, 8, np.random.default_rng(0))
    assert len(candidates) == 9
    for labels in candidates:
        assert all(len(set(labels[y == c])) == 1 for c in range(3))  # classes may merge, never split


def test_roundings_are_chosen_by_objective_and_the_polish_reaches_a_hard_em_fixed_point():
    net = small_network()
    s = net.structure
    X = net.sample(30, random_state=8)[:, s.observed_index]  # a sample where both steps matter
    polished = ConvexEM(s, tol=1e-5, n_roundings=10, polish=True).fit(X)
    # the candidates again, from the same M and the same random stream (one hidden variable)
    candidates = rounding_candidates(polished.equivalence_["H"], 3, 10, np.random.default_rng(0))
    objectives = [fit_tables(s, s.complete(X, y[:, None]), 1.0)[1] for y in candidates]
    assert min(objectives) < objectives[0] - 1.0  # here a randomised rounding beats k-means
    assert polished.rounded_objective_ == min(objectives)
    np.testing.assert_array_equal(polished.rounded_hidden_[:, 0], candidates[int(np.argmin(objectives))])
    assert polished.objective_ < polished.rounded_objective_ - 0.5  # here the polish moves the assignment
    assert polished.objective_ == pytest.approx(fit_tables(s, s.complete(X, polished.hidden_), 1.0)[1])
    np.testing.assert_array_equal(polished.model_.most_probable_hidden(X), polished.hidden_)


# -- the baselines ----------------------------------------------------------------------------------
def test_viterbi_em_keeps_the_best_restart_and_recovers_separable_classes():
    s = BayesNetStructure.from_names({"y": 2, **{f"x{i}": 2 for i in range(4)}}, {f"x{i}": ("y",) for i in range(4)},
                                     hidden=("y",))
    y = np.arange(40) % 2
    X = np.repeat(y[:, None], 4, axis=1)
    em = ViterbiEM(s, n_restarts=4, random_state=1).fit(X)
    assert em.objective_ == pytest.approx(em.restart_objectives_.min())
    assert em.objective_ == pytest.approx(SupervisedBayesNet(s).fit(X, y[:, None]).objective_)
    assert len(set(zip(em.predict(X)[:, 0], y))) == 2


def test_viterbi_em_history_is_the_objective_before_each_e_step():
    net = small_network()
    s = net.structure
    X = net.sample(40, random_state=5)[:, s.observed_index]
    em = ViterbiEM(s, n_restarts=1, random_state=3).fit(X)
    assert em.converged_ and len(em.history_) == em.n_iter_ >= 3 and em.history_[-1] == em.objective_
    assert np.all(np.diff(em.history_) <= 1e-6)  # each E-step and M-step lowers the joint objective
    for t in range(1, em.n_iter_):  # stopped after t E-steps: the objective of the t-th step's assignments
        capped = ViterbiEM(s, n_restarts=1, max_iter=t, random_state=3).fit(X)
        assert not capped.converged_ and capped.objective_ == pytest.approx(em.history_[t], rel=1e-9)


def test_scores_are_mean_log_likelihoods_of_the_fitted_network():
    net = small_network()
    s = net.structure
    data = net.sample(50, random_state=0)
    X = data[:, s.observed_index]
    est = SupervisedBayesNet(s).fit(X, data[:, s.hidden_index])
    assert est.score(X) == pytest.approx(est.model_.log_marginal(X).mean())
    assert est.score(X) < 0


# -- estimator conventions ----------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [SupervisedBayesNet, ViterbiEM, ConvexEM])
def test_clone_parameters_and_not_fitted(cls):
    from sklearn.base import clone

    s = small_network().structure
    est = cls(s, beta=2.0)
    twin = clone(est)
    assert twin.get_params()["beta"] == 2.0 and twin.structure == s
    with pytest.raises(NotFittedError):
        est.predict(np.zeros((2, 4), dtype=int))
    with pytest.raises(ParameterError, match="beta"):
        bad = cls(s, beta=0.0)
        bad.fit(np.zeros((5, 4), dtype=int), *([np.zeros((5, 1), dtype=int)] if cls is SupervisedBayesNet else []))


def test_convex_em_refuses_a_hidden_child_of_a_hidden_parent_when_relaxing_its_table():
    s = BayesNetStructure.from_names({"h1": 2, "h2": 2, "x": 2}, {"h2": ("h1",), "x": ("h2",)}, hidden=("h1", "h2"))
    with pytest.raises(StructureError, match="hidden parent"):
        ConvexEM(s, hidden_tables=True).fit(np.zeros((6, 1), dtype=int))


def test_typed_in_asia_and_cancer_tables_equal_the_packaged_bif_files():
    from seqspectral.mixtures.bayesnet.bif import packaged_network
    from seqspectral.mixtures.datasets.bayesnets import asia, cancer

    for name, typed in (("asia", asia), ("cancer", cancer)):
        try:
            packaged = packaged_network(name)
        except MissingResearchDependency:
            pytest.skip("pgmpy-no-torch is not installed")
        net = typed().network
        assert net.structure.cardinalities == packaged.structure.cardinalities
        assert net.structure.parents == packaged.structure.parents
        for ours, theirs in zip(net.log_cpts, packaged.log_cpts):
            np.testing.assert_allclose(np.exp(ours), np.exp(theirs), atol=1e-12)


def test_a_missing_research_dependency_names_the_extra_and_the_caller():
    with pytest.raises(ImportError, match=r"ConvexEM needs no_such_solver_xyz.*pip install 'seqspectral\[research\]'"):
        require("no_such_solver_xyz", "ConvexEM")


def test_bif_reader_reads_values_parents_and_rows():
    from seqspectral.mixtures.bayesnet.bif import read_bif

    text = """network x { }
    variable A { type discrete [ 2 ] { yes, no }; }
    variable B { type discrete [ 3 ] { lo, mid, hi }; }
    probability ( A ) { table 0.25, 0.75; }
    probability ( B | A ) { (no) 0.1, 0.2, 0.7; (yes) 0.5, 0.25, 0.25; }"""
    net = read_bif(text, hidden=("A",))
    assert net.structure.hidden == (True, False) and net.structure.parents == ((), (0,))
    np.testing.assert_allclose(np.exp(net.log_cpts[1]), [[0.5, 0.25, 0.25], [0.1, 0.2, 0.7]])
    with pytest.raises(StructureError, match="no probability block"):
        read_bif(text.split("probability ( B")[0], source="x.bif")


def test_every_dataset_draws_valid_splits():
    for name, make in DATASETS.items():
        try:
            dataset = make()
        except MissingResearchDependency:  # alarm without pgmpy-no-torch
            continue
        X, H, X_test, H_test = dataset.draw(20, 15, random_state=0)
        assert dataset.structure.check_observed(X).shape[0] == 20 and len(H) == 20
        assert len(X_test) == len(H_test) == 15
        dataset.structure.check_hidden(H_test)


# -- Table 1's measure: the joint log-loss, hidden values named as the truth's ---------------------------
def _relabelled_copy(net, perm):
    """The same distribution with the hidden variable's values renamed: value v of net is perm[v] here."""
    s = net.structure
    h = s.hidden_index[0]
    inverse = np.argsort(perm)
    tables = []
    for j, table in enumerate(net.log_cpts):
        table = table.copy()
        if j == h:
            table = table[:, inverse]
        if h in s.parents[j]:
            pa = s.parents[j]
            shape = tuple(s.cardinalities[p] for p in pa)
            table = np.take(table.reshape(*shape, -1), inverse, axis=pa.index(h)).reshape(table.shape)
        tables.append(table)
    return DiscreteBayesNet(s, tables)


def test_joint_log_loss_is_the_mean_of_brute_force_joint_probabilities():
    from seqspectral.mixtures.bayesnet.joint_loss import joint_log_loss

    net = small_network()
    s = net.structure
    data = net.sample(9, random_state=3)
    expected = -np.mean([np.log(brute_force_joint(net, z)) for z in data])
    assert joint_log_loss(net, data[:, s.observed_index], data[:, s.hidden_index]) == pytest.approx(expected, abs=1e-12)


def test_best_relabelling_undoes_a_renaming_of_the_hidden_values():
    from seqspectral.mixtures.bayesnet.joint_loss import best_relabelling, joint_log_loss

    net = small_network()
    s = net.structure
    perm = np.array([2, 0, 1])
    renamed = _relabelled_copy(net, perm)
    data = net.sample(300, random_state=4)
    X, H = data[:, s.observed_index], data[:, s.hidden_index]
    # the renamed model gives (x, perm[h]) the probability the original gives (x, h)
    np.testing.assert_allclose(renamed.log_joint(s.complete(X, perm[H])), net.log_joint(data), atol=1e-12)
    pi = best_relabelling(renamed, X, H)
    np.testing.assert_array_equal(pi[0], perm)
    assert joint_log_loss(renamed, X, H, pi) == pytest.approx(joint_log_loss(net, X, H), abs=1e-12)


def test_causal_network_puts_the_strength_on_distinct_values_per_parent_configuration():
    from seqspectral.mixtures.datasets.bayesnets import causal_network

    s = BayesNetStructure.from_names({"a": 3, "b": 3}, {"b": ("a",)})
    table = np.exp(causal_network(s, 0, 0.7).log_cpts[1])
    assert np.all(table.max(axis=1) >= 0.7 - 1e-9)
    assert len(set(table.argmax(axis=1))) == 3  # each value of the parent pushes the child to its own value
