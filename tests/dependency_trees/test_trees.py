"""The latent dependency-tree models: exact belief propagation and EM's E-step against brute
force, the planted sampler against its parameters, the spectral estimator's consistency on
planted data, its scores against a plain recursion, exact with the true operators and a
proper distribution (summed over every word assignment), the shrinkage limit against the
counted bigram model, mergeable statistics, the floor rule, model files."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.corpus.sequences import Corpus
from seqspectral.corpus.vocabulary import Vocabulary
from seqspectral.dependency_trees import (EMTreeModel, SpectralTreeModel, TreeError, ValenceModel,
                               branching_topologies, planted_model, tree_layout)
from seqspectral.dependency_trees import _kernels
from seqspectral.dependency_trees.reattach import reattached_copies
from seqspectral.selection import TREE_FLOOR_GRID, TREE_RIDGE_GRID, TREE_SHRINKAGE_GRID
from seqspectral.dependency_trees.spectral import Operators, conditional_log_probs
from seqspectral.dependency_trees.statistics import spectral_tree_statistics

#: small trees (heads, 1-based, 0 = root): dependents on both sides, several per side, two roots
HEADS = [[0], [2, 0], [0, 1, 2], [2, 0, 2, 2, 4], [3, 3, 0, 3, 6, 4], [0, 1, 0]]


def _tiny(model, rng):
    words = [rng.integers(2, len(model.vocabulary), len(h)) for h in HEADS]
    offsets = np.cumsum([0] + [len(h) for h in HEADS])
    return Corpus(np.concatenate(words), offsets, model.vocabulary, np.concatenate(HEADS))


def _brute_force(model, corpus, j):
    """p(words | tree) of sentence j by summing over every assignment of hidden states."""
    a, b = corpus.offsets[j], corpus.offsets[j + 1]
    x, heads = corpus.symbols[a:b], corpus.heads[a:b]
    total = 0.0
    for h in itertools.product(range(model.n_states), repeat=b - a):
        p = 1.0
        for t in range(b - a):
            g = heads[t] - 1
            if g < 0:
                p *= model.pi[h[t]]
            else:
                p *= (model.left if t < g else model.right)[h[t], h[g]]
            p *= model.emission[x[t], h[t]]
        total += p
    return total


@pytest.fixture(scope="module")
def small_model():
    return planted_model(3, 5, random_state=3, emission_concentration=1.0)


def test_belief_propagation_equals_brute_force(small_model):
    corpus = _tiny(small_model, np.random.default_rng(0))
    exact = [np.log(_brute_force(small_model, corpus, j)) for j in range(len(corpus))]
    np.testing.assert_allclose(small_model.log_probs(corpus), exact, rtol=1e-12)


def test_em_expected_counts_equal_brute_force(small_model):
    corpus = _tiny(small_model, np.random.default_rng(1))
    m = small_model
    root, tl, tr, o, loglik = _kernels.latent_expected_counts(
        corpus.symbols, corpus.offsets, *tree_layout(corpus), m.pi, m.left, m.right, m.emission)
    want_tl, want_o, want_root = np.zeros((3, 3)), np.zeros_like(o), np.zeros(3)
    for j in range(len(corpus)):
        a, b = corpus.offsets[j], corpus.offsets[j + 1]
        x, heads = corpus.symbols[a:b], corpus.heads[a:b]
        z = _brute_force(m, corpus, j)
        for h in itertools.product(range(3), repeat=b - a):
            p = np.prod([(m.pi[h[t]] if heads[t] == 0 else
                          (m.left if t < heads[t] - 1 else m.right)[h[t], h[heads[t] - 1]]) * m.emission[x[t], h[t]]
                         for t in range(b - a)]) / z
            for t in range(b - a):
                want_o[x[t], h[t]] += p
                if heads[t] == 0:
                    want_root[h[t]] += p
                elif t < heads[t] - 1:
                    want_tl[h[t], h[heads[t] - 1]] += p
    np.testing.assert_allclose(o, want_o, atol=1e-12)
    np.testing.assert_allclose(root, want_root, atol=1e-12)
    np.testing.assert_allclose(tl, want_tl, atol=1e-12)
    np.testing.assert_allclose(loglik, m.log_probs(corpus).sum(), rtol=1e-12)


def test_layout_names_the_broken_sentence():
    corpus = Corpus([2, 2, 2, 2, 2], [0, 2, 5], Vocabulary(["a"]), [0, 1, 2, 3, 2])  # 2nd: 2 <-> 3 cycle
    with pytest.raises(TreeError, match="sentence 2: word"):
        tree_layout(corpus)


def test_sampler_follows_its_parameters():
    model = planted_model(4, 50, random_state=1)
    corpus, states = model.sample_states(branching_topologies(100_000, random_state=5), random_state=6)
    emitted = np.zeros_like(model.emission)
    np.add.at(emitted, (corpus.symbols, states), 1.0)
    np.testing.assert_allclose(emitted / emitted.sum(0), model.emission, atol=0.02)
    lay = tree_layout(corpus)
    left = np.flatnonzero((lay.parent >= 0) & (lay.is_left == 1))
    moves = np.zeros((4, 4))
    np.add.at(moves, (states[left], states[lay.parent[left]]), 1.0)
    np.testing.assert_allclose(moves / moves.sum(0), model.left, atol=0.03)


@pytest.fixture(scope="module")
def planted():
    model = planted_model(4, 50, random_state=1)
    test = model.sample(branching_topologies(3_000, random_state=99), random_state=98)
    train = {n: model.sample(branching_topologies(n, random_state=n), random_state=n + 1) for n in (20_000, 200_000)}
    return model, train, test


def test_spectral_estimate_is_consistent_on_planted_trees(planted):
    model, train, test = planted
    truth = model.log_probs(test)
    errors = {}
    for n, corpus in train.items():
        estimate = SpectralTreeModel(4, shrinkage=0.0).fit(corpus)
        errors[n] = np.median(np.abs(np.exp(estimate.log_probs(test) - truth) - 1))
    assert errors[200_000] < errors[20_000]
    assert errors[200_000] < 0.1
    G = estimate.U_.T @ model.emission  # the operators of step 2 in closed form
    G_inv = np.linalg.inv(G)
    scale = np.abs(G @ model.left @ G_inv).max()
    assert np.abs(estimate.EL_ - G @ model.left @ G_inv).max() < 0.1 * scale
    assert np.abs(estimate.c1_ - np.ones(4) @ G_inv).max() < 0.1 * np.abs(np.ones(4) @ G_inv).max()


def _plain_recursion(m, corpus):
    """The scores of the module docstring (steps 4-5), one node at a time in Python: per
    tree, the sum of log p(x_i | words before i's subtree, i's descendants)."""
    unit = m.floor_ * m.frequencies_
    c1 = m.c1_
    out = []
    for j in range(len(corpus)):
        a, b = corpus.offsets[j], corpus.offsets[j + 1]
        x, heads = corpus.symbols[a:b], corpus.heads[a:b]
        kids = [[c for c in range(b - a) if heads[c] == i + 1] for i in range(b - a)]
        side = lambda c, i: (m.EL_, m.KL_) if c < i else (m.ER_, m.KR_)  # noqa: E731
        w, inside, total = {}, {}, 0.0

        def down(i, wi):
            w[i] = wi
            for c in kids[i]:
                down(c, side(c, i)[0] @ wi)

        def up(i):
            v = m.emit_[x[i]]
            for c in kids[i]:
                v = np.einsum("a,e,aec->c", up(c), v, side(c, i)[1])
            rho = v @ w[i]
            inside[i] = v / rho if rho > 0 else c1
            return inside[i]

        def unit_mass(g):
            return g / (c1 @ g) if c1 @ g > 0 else None

        def predict(i, state):
            nonlocal total
            s = state
            for c in kids[i]:
                E, K = side(c, i)
                ac = unit_mass(E @ s)
                predict(c, ac if ac is not None else (unit_mass(w[c]) if unit_mass(w[c]) is not None else w[c]))
                t = unit_mass(np.einsum("a,aec,c->e", inside[c], K, s))
                s = s if t is None else t
            q = np.maximum(m.emit_ @ s, 0.0)
            q = q / q.sum() if q.sum() > 0 else q
            p = np.maximum(q, unit)
            total += np.log(p[x[i]] / p.sum())

        for r in (t for t in range(b - a) if heads[t] == 0):
            down(r, m.cinf_)
            up(r)
            predict(r, unit_mass(m.cinf_))
        out.append(total)
    return np.array(out)


def test_numba_recursion_equals_plain_recursion(planted):
    _, train, test = planted
    estimate = SpectralTreeModel(4, shrinkage=0.3, floor=0.1).fit(train[20_000])
    scores = estimate.tree_scores(test[:200])
    assert scores.n_floored > 0  # the floor rule is exercised
    np.testing.assert_allclose(scores.log_prob, _plain_recursion(estimate, test[:200]), rtol=1e-10)


def _true_operators(model, U):
    """The operators of the module docstring in closed form from the planted parameters."""
    G = U.T @ model.emission
    G_inv = np.linalg.inv(G)
    K = [np.einsum("ij,aj,jk->aik", G, G @ T, G_inv) for T in (model.left, model.right)]
    return Operators(np.ones(len(G)) @ G_inv, G @ model.pi, G @ model.left @ G_inv, G @ model.right @ G_inv,
                     K[0], K[1], model.emission @ G_inv)


def test_true_operators_give_the_exact_probabilities(small_model):
    """With the true operators every conditional is exact: the chain rule gives p(x | tree)."""
    rng = np.random.default_rng(4)
    corpus = _tiny(small_model, rng)
    ops = _true_operators(small_model, rng.standard_normal((len(small_model.vocabulary), 3)))
    frequencies = np.ones(len(small_model.vocabulary))
    (per_token,), (n_floored,), n_reset = conditional_log_probs(ops, corpus, frequencies, (1e-300,))
    assert n_floored == n_reset == 0
    np.testing.assert_allclose(np.add.reduceat(per_token, corpus.offsets[:-1]), small_model.log_probs(corpus),
                               rtol=1e-9)


@pytest.mark.parametrize("shrinkage, ridge", [(0.0, 0.0), (3.0, 0.03)])
def test_scores_are_a_distribution_over_the_words(small_model, shrinkage, ridge):
    """Summed over every assignment of words to a topology, p̂(words | tree) is one (a poorly
    estimated model from few trees, so that weights are floored and vectors reset)."""
    train = small_model.sample(branching_topologies(3_000, random_state=3), random_state=4)
    estimate = SpectralTreeModel(3, shrinkage=shrinkage, ridge=ridge).fit(train)
    words = [Vocabulary.UNK_ID, *range(Vocabulary.N_RESERVED, len(small_model.vocabulary))]  # no end marker
    floored = 0
    for heads in ([2, 0, 2, 2], [0, 1, 1, 3], [3, 3, 0, 3]):
        assignments = np.array(list(itertools.product(words, repeat=len(heads))), np.int32)
        corpus = Corpus(assignments.ravel(), np.arange(len(assignments) + 1) * len(heads), small_model.vocabulary,
                        np.tile(np.array(heads, np.int32), len(assignments)))
        scores = estimate.tree_scores(corpus)
        floored += scores.n_floored
        assert np.exp(scores.log_prob).sum() == pytest.approx(1.0, abs=1e-9)
    assert floored > 0


def test_full_shrinkage_is_the_observed_bigram_model():
    """With the identity U and a large λ, the operators are those of the fully observed
    head-dependent bigram model: the scores equal its likelihood, counted directly."""
    model = planted_model(3, 4, random_state=2, emission_concentration=1.0)
    corpus = model.sample(branching_topologies(20_000, random_state=1), random_state=2)
    estimate = SpectralTreeModel(representation="identity", shrinkage=1e4, ridge=1e-12,
                                 floor=1e-12).fit(corpus)
    lay = tree_layout(corpus)
    x = corpus.symbols
    n = len(model.vocabulary)
    log_p = np.zeros(len(x))
    root = np.bincount(x[lay.parent < 0], minlength=n)
    log_p[lay.parent < 0] = np.log(root[x[lay.parent < 0]] / root.sum())
    for side in (0, 1):
        arcs = np.flatnonzero((lay.parent >= 0) & (lay.is_left == side))
        pairs = np.zeros((n, n))
        np.add.at(pairs, (x[arcs], x[lay.parent[arcs]]), 1.0)
        log_p[arcs] = np.log((pairs / pairs.sum(axis=0).clip(1))[x[arcs], x[lay.parent[arcs]]])
    np.testing.assert_allclose(estimate.log_probs(corpus), np.add.reduceat(log_p, corpus.offsets[:-1]), rtol=1e-4)


def test_statistics_add_up_and_fit_alike(planted):
    _, train, test = planted
    corpus = train[20_000]
    half = len(corpus) // 2
    parts = spectral_tree_statistics(corpus[:half]) + spectral_tree_statistics(corpus[half:])
    whole = spectral_tree_statistics(corpus)
    for key, (codes, counts) in whole.contexts.items():
        np.testing.assert_array_equal(parts.contexts[key][0], codes)
        np.testing.assert_array_equal(parts.contexts[key][1], counts)
    np.testing.assert_array_equal(parts.valence, whole.valence)
    from_counts = SpectralTreeModel(4).fit_statistics(parts, corpus.vocabulary)
    np.testing.assert_allclose(from_counts.log_probs(test), SpectralTreeModel(4).fit(corpus).log_probs(test),
                               rtol=1e-9)
    np.testing.assert_array_equal(from_counts.topology_log_probs(test),
                                  ValenceModel().fit(corpus).log_probs(test))


def test_context_triples_equal_a_count_by_hand(planted):
    """Per arc (head i, dependent c on side d): the head of i, and every dependent of i on the
    other side, counted tree by tree with Python loops."""
    from collections import Counter

    _, train, _ = planted
    corpus = train[20_000][:300]
    stats = spectral_tree_statistics(corpus)
    expected = {(side, block): Counter() for side in ("left", "right") for block in ("head", "sibling")}
    for j in range(len(corpus)):
        a, b = corpus.offsets[j], corpus.offsets[j + 1]
        words, heads = corpus.symbols[a:b], corpus.heads[a:b] - 1  # -1: the root
        for c in range(b - a):
            i = heads[c]
            if i < 0:
                continue
            side = "left" if c < i else "right"
            if heads[i] >= 0:
                expected[(side, "head")][(words[i], words[c], words[heads[i]])] += 1
            for s in range(b - a):
                if heads[s] == i and (s < i) != (side == "left"):
                    expected[(side, "sibling")][(words[i], words[c], words[s])] += 1
    for (side, block), counter in expected.items():
        h, c, z, counts = stats.triples(side, block)
        assert dict(zip(zip(h.tolist(), c.tolist(), z.tolist()), counts.tolist())) == dict(counter)


def test_auto_values_are_chosen_on_held_out_trees(planted):
    _, train, test = planted
    auto = SpectralTreeModel(4, shrinkage="auto", floor="auto").fit(train[20_000])
    table = auto.selection_.table
    assert len(table) == len(TREE_SHRINKAGE_GRID) * len(TREE_FLOOR_GRID) and auto.selection_.on.startswith("held-out")
    best = max(table, key=lambda row: row["score"])
    assert (auto.shrinkage_, auto.floor_) == (best["shrinkage"], best["floor"])
    chosen = SpectralTreeModel(4, shrinkage=auto.shrinkage_, floor=auto.floor_).fit(train[20_000])
    np.testing.assert_array_equal(auto.log_probs(test), chosen.log_probs(test))  # refitted on every tree


def _one_word_reattachments(heads):
    """Every tree that differs from ``heads`` (1-based) in one non-root word's head, by brute force."""
    out = set()
    for t, g in enumerate(heads):
        for new in range(1, len(heads) + 1):
            if g == 0 or new in (g, t + 1):
                continue
            copy = list(heads)
            copy[t] = new
            u, seen = new, set()  # follow the heads up from the new head: a cycle returns to t
            while u != 0 and u not in seen:
                seen.add(u)
                u = copy[u - 1]
            if u == 0:
                out.add(tuple(copy))
    return out


def test_reattached_copies_are_every_one_word_move_that_keeps_a_tree(small_model):
    corpus = _tiny(small_model, np.random.default_rng(0))
    copies, index = reattached_copies(corpus, 400, random_state=1)
    tree_layout(copies)  # every copy is a tree
    eligible = [j for j, h in enumerate(HEADS) if len(h) >= 3]
    assert sorted(set(index.tolist())) == eligible and len(index) == 400 * len(eligible)
    for j in eligible:
        rows = np.flatnonzero(index == j)
        made = {tuple(copies.heads[copies.offsets[r]:copies.offsets[r + 1]].tolist()) for r in rows}
        assert made == _one_word_reattachments(HEADS[j])  # all of them, nothing else
        np.testing.assert_array_equal(copies.symbols[copies.offsets[rows[0]]:copies.offsets[rows[0] + 1]],
                                      corpus.symbols[corpus.offsets[j]:corpus.offsets[j + 1]])


def test_ranking_selection_chooses_the_best_held_out_ranking(planted):
    _, train, held = planted
    auto = SpectralTreeModel(4, ridge="auto", shrinkage=1.0, floor=0.01, selection="ranking").fit(
        train[20_000], dev=held)
    rivals, index = reattached_copies(held, 1, random_state=0)
    shares = []
    for row in auto.selection_.table:
        fixed = SpectralTreeModel(4, ridge=row["ridge"], shrinkage=1.0, floor=0.01).fit(train[20_000])
        shares.append(np.mean(fixed.log_probs(held)[index] > fixed.log_probs(rivals)))
        assert row["score"] == pytest.approx(shares[-1], abs=1e-12)
    assert [row["ridge"] for row in auto.selection_.table] == list(TREE_RIDGE_GRID)
    assert auto.ridge_ == TREE_RIDGE_GRID[int(np.argmax(shares))] and max(shares) > 0.5


def test_em_climbs_and_reaches_the_planted_likelihood(planted):
    model, train, test = planted
    em = EMTreeModel(4, init="spectral", tol=1e-6, max_iter=100).fit(train[20_000])
    assert np.all(np.diff(em.history_) > -1e-9)
    truth = model.log_probs(test).sum() / test.n_tokens
    assert em.score(test) > truth * 1.01  # per-word log-likelihoods are negative


def test_model_files_round_trip(planted, tmp_path):
    _, train, test = planted
    for model in (SpectralTreeModel(4).fit(train[20_000]), EMTreeModel(4, max_iter=3).fit(train[20_000])):
        path = tmp_path / f"{model.kind}.npz"
        serialize.save(path, model)
        loaded = serialize.load(path, kind=model.kind)
        np.testing.assert_array_equal(loaded.log_probs(test), model.log_probs(test))
        np.testing.assert_array_equal(loaded.topology_log_probs(test), model.topology_log_probs(test))


def test_estimators_clone_and_validate():
    from sklearn.base import clone

    model = SpectralTreeModel(6, representation="identity", floor=1e-4, ridge=0.0)
    assert clone(model).get_params() == model.get_params()
    assert clone(EMTreeModel(3, init="spectral")).get_params()["init"] == "spectral"
    corpus = Corpus([2, 2], [0, 2], Vocabulary(["a"]), [0, 1])
    with pytest.raises(ValueError, match="ridge"):
        SpectralTreeModel(ridge=-0.5).fit(corpus)


def test_valence_term_matches_its_formula():
    corpus = Corpus([2, 3, 2, 2], [0, 4], Vocabulary(["a", "b"]), [2, 0, 2, 2])  # b: 1 left, 2 right
    valence = ValenceModel().fit(corpus)
    s_adj, s_non = valence.stop_adjacent_, valence.stop_further_
    b, a = 3, 2
    want = (np.log1p(-s_adj[b, 0]) + np.log(s_non[b, 0])  # b: one on the left
            + np.log1p(-s_adj[b, 1]) + np.log1p(-s_non[b, 1]) + np.log(s_non[b, 1])  # two on the right
            + 3 * (np.log(s_adj[a, 0]) + np.log(s_adj[a, 1])))  # the a's: none
    np.testing.assert_allclose(valence.log_probs(corpus), [want])
    assert s_adj[b, 1] == pytest.approx(1 / 3)  # add-one: 0 stops before a first right dependent of 1


def test_embedding_representation_with_unknown_words(planted):
    model, train, test = planted
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(40)]  # w40..w49 have no vector: the shared unknown vector
    vectors = model.emission[2:42] @ rng.standard_normal((4, 6)) + 0.01 * rng.standard_normal((40, 6))
    estimate = SpectralTreeModel(4, representation=(words, vectors), shrinkage=0.0).fit(train[200_000])
    assert estimate.representation_info_["n_covered"] == 40
    truth = model.log_probs(test)
    assert np.median(np.abs(np.exp(estimate.log_probs(test) - truth) - 1)) < 0.2


def test_long_trees_do_not_underflow(planted):
    model, train, _ = planted
    rng = np.random.default_rng(5)
    topology = branching_topologies(1_000, random_state=7, mean_left=0.49, mean_right=0.49, max_size=400)
    long = topology.subset(np.flatnonzero(topology.lengths >= 250)[:3])
    assert len(long) > 0
    long = model.sample(long, random_state=rng)
    exact = model.log_probs(long)
    # an independent upward pass in log space (logsumexp), one tree at a time
    for j in range(len(long)):
        a, b = long.offsets[j], long.offsets[j + 1]
        x, heads = long.symbols[a:b], long.heads[a:b]
        kids = [[c for c in range(b - a) if heads[c] == i + 1] for i in range(b - a)]

        def log_beta(i):
            out = np.log(model.emission[x[i]])
            for c in kids[i]:
                T = model.left if c < i else model.right
                out = out + np.logaddexp.reduce(np.log(T) + log_beta(c)[:, None], axis=0)
            return out

        root = int(np.flatnonzero(heads == 0)[0])
        assert exact[j] < -745  # exp() of it underflows to 0 in doubles
        np.testing.assert_allclose(exact[j], np.logaddexp.reduce(np.log(model.pi) + log_beta(root)), rtol=1e-10)
    estimate = SpectralTreeModel(4, shrinkage=0.0).fit(train[200_000])
    spectral = estimate.log_probs(long)
    assert np.all(np.isfinite(spectral))
    np.testing.assert_allclose(spectral, _plain_recursion(estimate, long), rtol=1e-10)


def test_models_are_item_scorers(planted):
    from seqspectral.protocols import ItemScorer

    _, train, test = planted
    for model in (SpectralTreeModel(4).fit(train[20_000]), EMTreeModel(4, max_iter=2).fit(train[20_000])):
        assert isinstance(model, ItemScorer)
        scores = model.log_probs(test)
        assert scores.shape == (len(test),) and np.all(np.isfinite(scores))
        np.testing.assert_array_equal(model.log_probs(test[5:9]), scores[5:9])  # one number per tree, in order


def test_ridge_inverse_is_the_pseudo_inverse_at_zero_and_the_tikhonov_solution_otherwise():
    from seqspectral.dependency_trees.spectral import _ridge_inverse

    rng = np.random.default_rng(0)
    M = rng.normal(size=(5, 3)) @ rng.normal(size=(3, 8))  # rank 3
    np.testing.assert_allclose(_ridge_inverse(M, 0.0), np.linalg.pinv(M), atol=1e-10)
    ridge = 0.2
    s_max = np.linalg.norm(M, 2)
    tikhonov = M.T @ np.linalg.inv(M @ M.T + (ridge * s_max) ** 2 * np.eye(5))
    np.testing.assert_allclose(_ridge_inverse(M, ridge), tikhonov, atol=1e-12)


def test_model_file_of_the_truncated_estimator_asks_for_retraining(planted, tmp_path):
    from seqspectral.serialize import ModelFileError

    _, train, _ = planted
    model = SpectralTreeModel(4).fit(train[20_000])
    header, arrays = model.to_state()
    header = {("tolerance_" if k == "ridge_" else k): v for k, v in header.items()}
    with pytest.raises(ModelFileError, match="earlier version .truncated pseudo-inverses.: train it again"):
        SpectralTreeModel.from_state(header, arrays)
