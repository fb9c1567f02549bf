"""The latent dependency-tree models: exact belief propagation and EM's E-step against brute
force, the planted sampler against its parameters, the spectral estimator's consistency on
planted data, its Numba recursion against a plain one, the floor rule, model files."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.corpus.sequences import Corpus
from seqspectral.corpus.vocabulary import Vocabulary
from seqspectral.trees import (EMTreeModel, SpectralTreeModel, TreeError, ValenceModel,
                               branching_topologies, planted_model, tree_layout)
from seqspectral.trees import _kernels

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
        estimate = SpectralTreeModel(4).fit(corpus)
        errors[n] = np.median(np.abs(np.exp(estimate.log_probs(test) - truth) - 1))
    assert errors[200_000] < errors[20_000]
    assert errors[200_000] < 0.1
    G = estimate.U_.T @ model.emission  # the operators of step 2 in closed form
    G_inv = np.linalg.inv(G)
    scale = np.abs(G @ model.left @ G_inv).max()
    assert np.abs(estimate.EL_ - G @ model.left @ G_inv).max() < 0.1 * scale
    assert np.abs(estimate.c1_ - np.ones(4) @ G_inv).max() < 0.1 * np.abs(np.ones(4) @ G_inv).max()


def _plain_recursion(m, corpus):
    """The scoring recursion of the module docstring, one node at a time in Python."""
    out = []
    for j in range(len(corpus)):
        a, b = corpus.offsets[j], corpus.offsets[j + 1]
        x, heads = corpus.symbols[a:b], corpus.heads[a:b]
        kids = [[c for c in range(b - a) if heads[c] == i + 1] for i in range(b - a)]
        w, total = {}, 0.0

        def down(i, wi):
            w[i] = wi
            for c in kids[i]:
                down(c, (m.EL_ if c < i else m.ER_) @ wi)

        def up(i):
            nonlocal total
            v = m.emit_[x[i]]
            for c in kids[i]:
                v = np.einsum("a,e,aec->c", up(c), v, m.KL_ if c < i else m.KR_)
            rho = v @ w[i]
            if not rho >= m.floor_[x[i]]:
                total += np.log(m.floor_[x[i]])
                return m.c1_
            total += np.log(rho)
            return v / rho

        for r in (t for t in range(b - a) if heads[t] == 0):
            down(r, m.cinf_)
            up(r)
        out.append(total)
    return np.array(out)


def test_numba_recursion_equals_plain_recursion(planted):
    _, train, test = planted
    estimate = SpectralTreeModel(4).fit(train[20_000])
    scores = estimate.tree_scores(test[:200])
    assert scores.n_floored > 0  # the floor rule is exercised
    np.testing.assert_allclose(scores.log_prob, _plain_recursion(estimate, test[:200]), rtol=1e-10)


def test_floor_rule_replaces_every_factor_below_it(planted):
    _, train, test = planted
    estimate = SpectralTreeModel(4, floor=1e9).fit(train[20_000])  # every node factor is below
    scores = estimate.tree_scores(test)
    assert scores.n_floored == scores.n_nodes == test.n_tokens
    per_token = np.log(estimate.floor_[test.symbols])
    np.testing.assert_allclose(scores.log_prob, np.add.reduceat(per_token, test.offsets[:-1]))


def test_em_climbs_and_reaches_the_planted_likelihood(planted):
    model, train, test = planted
    em = EMTreeModel(4, init="spectral", tol=1e-6, n_iter=100).fit(train[20_000])
    assert np.all(np.diff(em.log_likelihoods_) > -1e-9)
    truth = model.log_probs(test).sum() / test.n_tokens
    assert em.score(test) > truth * 1.01  # per-word log-likelihoods are negative


def test_model_files_round_trip(planted, tmp_path):
    _, train, test = planted
    for model in (SpectralTreeModel(4).fit(train[20_000]), EMTreeModel(4, n_iter=3).fit(train[20_000])):
        path = tmp_path / f"{model.kind}.npz"
        serialize.save(path, model)
        loaded = serialize.load(path, kind=model.kind)
        np.testing.assert_array_equal(loaded.log_probs(test), model.log_probs(test))
        np.testing.assert_array_equal(loaded.topology_log_probs(test), model.topology_log_probs(test))


def test_estimators_clone_and_validate():
    from sklearn.base import clone

    model = SpectralTreeModel(6, representation="identity", floor=1e-4, tolerance=0.0)
    assert clone(model).get_params() == model.get_params()
    assert clone(EMTreeModel(3, init="spectral")).get_params()["init"] == "spectral"
    corpus = Corpus([2, 2], [0, 2], Vocabulary(["a"]), [0, 1])
    with pytest.raises(ValueError, match="tolerance"):
        SpectralTreeModel(tolerance=1.5).fit(corpus)


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
    estimate = SpectralTreeModel(4, representation=(words, vectors)).fit(train[200_000])
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
    estimate = SpectralTreeModel(4).fit(train[200_000])
    spectral = estimate.log_probs(long)
    assert np.all(np.isfinite(spectral))
    np.testing.assert_allclose(spectral, _plain_recursion(estimate, long), rtol=1e-10)


def test_models_are_item_scorers(planted):
    from seqspectral.protocols import ItemScorer

    _, train, test = planted
    for model in (SpectralTreeModel(4).fit(train[20_000]), EMTreeModel(4, n_iter=2).fit(train[20_000])):
        assert isinstance(model, ItemScorer)
        scores = model.log_probs(test)
        assert scores.shape == (len(test),) and np.all(np.isfinite(scores))
        np.testing.assert_array_equal(model.log_probs(test[5:9]), scores[5:9])  # one number per tree, in order
