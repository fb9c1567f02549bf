"""HMM: probabilities by brute force over hidden paths, sampling frequencies, conversion, files."""

import itertools

import numpy as np
import pytest

from seqspectral.automata.hmm import HMM
from seqspectral.serialize import load, save
from seqspectral.corpus import Corpus, Vocabulary

from tests.references import small_hmm


def brute_force(hmm, x):
    """Sum over every hidden path of the generative process's probability."""
    total = 0.0
    for path in itertools.product(range(hmm.n_states), repeat=len(x) + 1):
        p = hmm.initial[path[0]]
        for t, sym in enumerate(x):
            p *= hmm.emissions[path[t], sym] * hmm.transitions[path[t], path[t + 1]]
        total += p * hmm.stop[path[-1]]
    return total


def test_probabilities_match_brute_force_and_automaton():
    hmm = small_hmm()
    strings = [[], [2], [3, 4], [4, 4, 2], [2, 3, 4, 2]]
    corpus = Corpus.from_ids(strings, hmm.vocabulary)
    expected = np.array([brute_force(hmm, x) for x in strings])
    np.testing.assert_allclose(np.exp(hmm.sequence_log_probs(corpus)), expected, rtol=1e-12)
    np.testing.assert_allclose(np.exp(hmm.to_automaton().log_values(corpus)[1]), expected, rtol=1e-12)
    events = hmm.event_log_probs(corpus)
    assert len(events.log_prob) == corpus.n_tokens + len(corpus)
    via_automaton = hmm.to_automaton().event_log_probs(corpus)
    np.testing.assert_allclose(events.log_prob, via_automaton.log_prob, rtol=1e-12)
    np.testing.assert_array_equal(events.predicted, via_automaton.predicted)
    np.testing.assert_allclose(hmm.score(corpus), np.log(expected).mean(), rtol=1e-10)


def test_long_sequences_do_not_underflow():
    hmm = small_hmm(1)
    corpus = Corpus.from_ids([[2, 3, 4] * 400], hmm.vocabulary)
    lp = hmm.sequence_log_probs(corpus)[0]
    assert np.isfinite(lp) and lp < -1000


def test_sample_frequencies_match_probabilities():
    hmm = small_hmm(2)
    corpus = hmm.sample(40_000, random_state=0)
    counts = {}
    for x in corpus:
        counts[tuple(x)] = counts.get(tuple(x), 0) + 1
    for x in [(), (2,), (3,), (4,), (2, 3)]:
        p = brute_force(hmm, list(x))
        assert abs(counts.get(x, 0) / len(corpus) - p) < 4 * np.sqrt(p * (1 - p) / len(corpus)) + 1e-3
    again = hmm.sample(100, random_state=0)
    np.testing.assert_array_equal(again.symbols, hmm.sample(100, random_state=0).symbols)


def test_save_load_round_trip_and_validation(tmp_path):
    hmm = small_hmm(3)
    save(tmp_path / "m.npz", hmm)
    back = load(tmp_path / "m.npz", "hmm")
    np.testing.assert_array_equal(back.transitions, hmm.transitions)
    assert back.vocabulary == hmm.vocabulary
    with pytest.raises(ValueError, match="sum to 1"):
        HMM(hmm.initial, hmm.transitions, hmm.emissions, hmm.stop * 0.5)
    with pytest.raises(ValueError, match="EOS"):
        bad = hmm.emissions.copy()
        bad[:, 1] = 0.1
        HMM(hmm.initial, hmm.transitions, bad, hmm.stop)


def test_floor_keeps_unseen_symbols_finite():
    hmm = small_hmm(4)
    emit, stop = hmm.emissions.copy(), hmm.stop.copy()
    stop += emit[:, 4]
    emit[:, 4] = 0.0  # symbol id 4 is never emitted
    exact = HMM(hmm.initial, hmm.transitions, emit, stop, hmm.vocabulary)
    corpus = Corpus.from_ids([[2, 4], [3]], hmm.vocabulary)
    assert exact.sequence_log_probs(corpus)[0] == -np.inf
    floored = HMM(hmm.initial, hmm.transitions, emit, stop, hmm.vocabulary, floor=1e-3)
    lp = floored.sequence_log_probs(corpus)
    assert np.all(np.isfinite(lp))
    # a floor only moves a little mass: the seen string keeps nearly its exact probability
    assert lp[1] == pytest.approx(exact.sequence_log_probs(corpus)[1], abs=1e-2)
