"""Baum-Welch: expected counts by brute force, monotone likelihood, agreement with hmmlearn."""

import itertools

import numpy as np
import pytest

from seqspectral.automata import _hmm_kernels
from seqspectral.automata.baum_welch import BaumWelchHMM, em
from seqspectral.automata.hmm import EOS, HMM
from seqspectral.corpus import Corpus

from tests.references import small_hmm


def brute_counts(hmm, strings):
    """Expected start/transition/emission counts by enumerating every hidden path."""
    k, ext = hmm.n_states, hmm.extended_emissions()
    cs, ct, ce = np.zeros(k), np.zeros((k, k)), np.zeros_like(ext)
    for x in strings:
        obs = list(x) + [EOS]
        paths = list(itertools.product(range(k), repeat=len(obs)))
        weights = []
        for path in paths:
            p = hmm.initial[path[0]] * ext[path[0], obs[0]]
            for t in range(1, len(obs)):
                p *= hmm.transitions[path[t - 1], path[t]] * ext[path[t], obs[t]]
            weights.append(p)
        weights = np.array(weights) / sum(weights)
        for w, path in zip(weights, paths):
            cs[path[0]] += w
            for t in range(len(obs)):
                ce[path[t], obs[t]] += w
                if t:
                    ct[path[t - 1], path[t]] += w
    return cs, ct, ce


def test_expected_counts_match_brute_force():
    hmm = small_hmm(0, k=3)
    strings = [[], [2], [3, 4, 2], [4, 4], [2, 3, 4, 4]]
    corpus = Corpus.from_ids(strings, hmm.vocabulary)
    args = (corpus.symbols, corpus.offsets, EOS, hmm.initial, hmm.transitions, hmm.extended_emissions())
    ll, cs, ct, ce = _hmm_kernels.expected_counts(*args)
    bs, bt, be = brute_counts(hmm, strings)
    np.testing.assert_allclose(cs, bs, rtol=1e-10)
    np.testing.assert_allclose(ct, bt, rtol=1e-10)
    np.testing.assert_allclose(ce, be, rtol=1e-10, atol=1e-14)
    assert ll == pytest.approx(hmm.sequence_log_probs(corpus).sum(), rel=1e-12)


def test_log_likelihood_never_decreases_and_restarts_keep_the_best():
    corpus = small_hmm(4, k=3, n_symbols=5).sample(1_000, random_state=0)
    fit = BaumWelchHMM(4, max_iter=60, tol=0, n_init=3, random_state=0, progress=False, floor=0.0).fit(corpus)
    assert fit.n_iter_ == 60
    assert np.all(np.diff(fit.history_) >= -1e-8 * abs(fit.history_[-1]))
    assert fit.history_[-1] > fit.history_[0]
    first = BaumWelchHMM(4, max_iter=60, tol=0, random_state=0, progress=False, floor=0.0).fit(corpus)  # the first of the 3 starts
    assert fit.log_likelihood_ >= first.log_likelihood_
    assert fit.log_likelihood_ == pytest.approx(fit.score(corpus))


def test_same_iterates_as_hmmlearn_with_an_end_symbol():
    hmmlearn = pytest.importorskip("hmmlearn.hmm")
    true = small_hmm(5, k=3, n_symbols=4)
    corpus = true.sample(300, random_state=1)
    start = small_hmm(6, k=3, n_symbols=4)
    ours, history = em(corpus, start, n_iter=10, tol=-np.inf)
    # hmmlearn: symbols a -> a - 2, the end symbol -> 4 appended to every sequence
    X = np.concatenate([np.append(x - 2, 4) for x in corpus])[:, None]
    lengths = corpus.lengths + 1
    ref = hmmlearn.CategoricalHMM(3, n_iter=10, tol=-np.inf, init_params="", params="ste", implementation="scaling")
    ref.startprob_, ref.transmat_ = start.initial, start.transitions
    ref.emissionprob_ = np.column_stack([start.emissions[:, 2:], start.stop])
    ref.n_features = 5
    ref.fit(X, lengths)
    np.testing.assert_allclose(ours.transitions, ref.transmat_, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(np.column_stack([ours.emissions[:, 2:], ours.stop]), ref.emissionprob_, rtol=1e-8, atol=1e-12)
    assert ours.sequence_log_probs(corpus).sum() == pytest.approx(ref.score(X, lengths), rel=1e-10)


def test_tensor_initialisation_runs_and_beats_its_start():
    from seqspectral.automata.tensor_hmm import TensorHMM

    corpus = small_hmm(7, k=3, n_symbols=5).sample(3_000, random_state=0)
    fit = BaumWelchHMM(3, max_iter=20, init="tensor", random_state=0, progress=False, floor=0.0).fit(corpus)
    assert fit.log_likelihood_ >= TensorHMM(3, floor=0.0).fit(corpus).score(corpus) - 1e-6
    with pytest.raises(ValueError, match="init"):
        BaumWelchHMM(3, init="kmeans").fit(corpus)


def test_params_protocol():
    from sklearn.base import clone

    est = BaumWelchHMM(7, max_iter=3, init="tensor", random_state=1)
    assert clone(est).get_params() == est.get_params()
    assert est.set_params(n_states=2).n_states == 2


def test_auto_states_and_split_tensor_start():
    from seqspectral.automata.baum_welch import _split_states
    from seqspectral.selection import STATE_GRID

    true = small_hmm(8, k=3, n_symbols=2)
    corpus = true.sample(2_000, random_state=0)
    fit = BaumWelchHMM("auto", max_iter=15, max_states=4, init="tensor", random_state=0, progress=False).fit(corpus)
    assert {r["n_states"] for r in fit.selection_.table} == {k for k in STATE_GRID if k <= 4}  # 4 > |Σ| = 2: split
    best = max(fit.selection_.table, key=lambda r: r["score"])
    assert (fit.n_states_, fit.floor_) == (best["n_states"], best["floor"])
    assert fit.model_.n_states == fit.n_states_ and np.isfinite(fit.score(corpus))
    rng = np.random.default_rng(0)
    initial, trans, ext = _split_states(true.initial, true.transitions, true.extended_emissions(), 7, rng)
    HMM(initial, trans, ext * np.r_[1, 0, np.ones(ext.shape[1] - 2)], ext[:, EOS])  # a valid HMM
    assert trans.shape == (7, 7) and np.allclose(trans.sum(1), 1)
