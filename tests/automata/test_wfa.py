"""WeightedAutomaton: values, rescaled logs, conversions f <-> f^p <-> f^s against brute-force
sums, the non-stochastic rule (never NaN/zero/negative, sums to at most 1), save/load."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqspectral.serialize import load, save
from seqspectral.automata.wfa import WeightedAutomaton
from seqspectral.corpus import Corpus, Vocabulary
from seqspectral.metrics import event_targets, sequence_log_probs

MAX_LEN = 14  # stop >= 0.6 per step: the mass beyond MAX_LEN is < 0.4^15 ≈ 1e-6


@pytest.fixture(scope="module")
def pfa():
    return WeightedAutomaton.random_stochastic(3, 2, stop=(0.6, 0.8), random_state=0)


@pytest.fixture(scope="module")
def all_strings(pfa):
    """Every string over the alphabet up to MAX_LEN, and its exact probability (batch kernel)."""
    strings = [x for n in range(MAX_LEN + 1) for x in itertools.product((2, 3), repeat=n)]
    corpus = Corpus.from_ids(strings)
    sign, logabs = pfa.log_values(corpus)
    assert np.all(sign == 1)
    return strings, np.exp(logabs)


def test_values_are_a_distribution(pfa, all_strings):
    strings, probs = all_strings
    assert probs.sum() == pytest.approx(1.0, abs=1e-5)
    for x, p in zip(strings[:40], probs[:40]):
        assert pfa.value(x) == pytest.approx(p, rel=1e-12)


def test_prefix_and_substring_conversions_match_brute_force(pfa, all_strings):
    strings, probs = all_strings
    prefix, substring = pfa.as_statistic("prefix"), pfa.as_statistic("substring")
    lengths = np.array([len(s) for s in strings])
    assert substring.value(()) == pytest.approx(np.sum(probs * (lengths + 1)), abs=1e-4)  # E|x| + 1
    for x in [(), (2,), (3,), (2, 3), (3, 3, 2)]:
        brute_p = sum(p for s, p in zip(strings, probs) if s[:len(x)] == x)
        occurrences = [sum(s[i:i + len(x)] == x for i in range(len(s) - len(x) + 1)) for s in strings]
        brute_s = float(np.dot(occurrences, probs))
        assert prefix.value(x) == pytest.approx(brute_p, abs=1e-5)
        assert substring.value(x) == pytest.approx(brute_s, abs=1e-4)


@pytest.mark.parametrize("statistic", ["string", "prefix", "substring"])
def test_from_statistic_inverts_as_statistic(pfa, statistic):
    back = pfa.as_statistic(statistic).from_statistic(statistic)
    for x in [(), (2,), (3, 2, 2), (2, 3, 3, 2)]:
        assert back.value(x) == pytest.approx(pfa.value(x), rel=1e-10)


def test_log_value_rescales_long_strings():
    ops = np.zeros((3, 1, 1))
    ops[2] = 0.5
    wa = WeightedAutomaton([1.0], [0.5], ops)
    x = [2] * 5000
    assert wa.value(x) == 0.0  # underflows
    sign, logabs = wa.log_value(x)
    assert sign == 1.0 and logabs == pytest.approx(5001 * np.log(0.5))


def test_event_log_probs_of_a_stochastic_automaton_are_exact(pfa):
    corpus = pfa.sample(300, random_state=1)
    log_prob, predicted = pfa.event_log_probs(corpus)[:2]
    exact = pfa.log_values(corpus)[1]
    np.testing.assert_allclose(sequence_log_probs(log_prob, corpus), exact, rtol=1e-10)
    prefix = pfa.as_statistic("prefix")
    # WER predictions: argmax of the brute-force conditionals f^p(wσ)/f^p(w) and f(w)/f^p(w)
    seq = corpus[int(np.argmax(corpus.lengths))]
    for t in range(len(seq) + 1):
        w = tuple(seq[:t])
        cond = [prefix.value(w + (a,)) for a in (2, 3)] + [pfa.value(w)]
        events, probs = pfa.next_symbol_distribution(w)
        np.testing.assert_allclose(probs, np.array(cond) / prefix.value(w), rtol=1e-10)
        assert predicted[corpus.offsets[int(np.argmax(corpus.lengths))] + int(np.argmax(corpus.lengths)) + t] == events[np.argmax(cond)]


def _random_automaton(seed, k, n_alpha, floor):
    rng = np.random.default_rng(seed)
    ops = np.zeros((n_alpha + 2, k, k))
    ops[2:] = rng.normal(scale=0.6 / np.sqrt(k * n_alpha), size=(n_alpha, k, k))
    return WeightedAutomaton(rng.normal(size=k), rng.normal(size=k), ops, floor=floor)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6), n_alpha=st.integers(1, 4),
       floor=st.sampled_from([1e-6, 1e-3, 0.01, 0.1]))
def test_non_stochastic_rule_gives_proper_positive_conditionals(seed, k, n_alpha, floor):
    wa = _random_automaton(seed, k, n_alpha, floor)
    rng = np.random.default_rng(seed + 1)
    corpus = Corpus.from_ids([rng.integers(2, n_alpha + 2, size=rng.integers(0, 30)) for _ in range(20)])
    log_prob, predicted, n_floored, n_weights = wa.event_log_probs(corpus)
    assert np.all(np.isfinite(log_prob)) and np.all(log_prob < 0)
    assert 0 <= n_floored <= n_weights == len(log_prob) * (n_alpha + 1)
    dist = wa.event_distributions(corpus)
    assert np.all(dist > 0) and np.all(np.isfinite(dist))
    np.testing.assert_allclose(dist.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(wa.event_ids[np.argmax(dist, axis=1)], predicted)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 5))
def test_non_stochastic_string_probabilities_sum_to_at_most_one(seed, k):
    wa = _random_automaton(seed, k, 2, 0.01)
    strings = [list(x) for n in range(9) for x in itertools.product((2, 3), repeat=n)]
    corpus = Corpus.from_ids(strings)
    total = np.exp(sequence_log_probs(wa.event_log_probs(corpus)[0], corpus)).sum()
    assert 0 < total <= 1.0 + 1e-12


def test_floor_counts_negative_weights():
    ops = np.zeros((4, 1, 1))
    ops[2], ops[3] = 0.5, -0.2  # symbol 3 always has a negative weight
    wa = WeightedAutomaton([1.0], [0.4], ops, floor=0.01)
    corpus = Corpus.from_ids([[2, 2], []])
    _, _, n_floored, n_weights = wa.event_log_probs(corpus)
    assert n_floored == 4 and n_weights == 12  # one per prefix: 3 + 1 prefixes
    # β∞ = 0.4 / (1 − 0.3): weights A_σβ∞/β∞ = 0.5, −0.2 and α∞/β∞ = 0.7; floor 0.01 × 1.2
    events, probs = wa.next_symbol_distribution([2])
    np.testing.assert_array_equal(events, [2, 3, 1])
    np.testing.assert_allclose(probs, np.array([0.5, 0.012, 0.7]) / 1.212, rtol=1e-12)


def test_out_of_alphabet_symbol_is_a_clear_error(pfa):
    corpus = Corpus.from_ids([[2, 0, 3]])
    with pytest.raises(ValueError, match="outside the model's alphabet"):
        pfa.event_log_probs(corpus)


def test_event_targets_layout():
    corpus = Corpus.from_ids([[4, 5], [], [6]])
    np.testing.assert_array_equal(event_targets(corpus), [4, 5, 1, 1, 6, 1])


def test_save_load_roundtrip(tmp_path, pfa):
    vocab = Vocabulary(["a", "b"])
    wa = WeightedAutomaton(pfa.initial, pfa.final, pfa.operators, vocab, floor=0.02)
    save(tmp_path / "m.npz", wa)
    back = load(tmp_path / "m.npz", "weighted_automaton")
    assert back.vocabulary == vocab and back.floor == 0.02
    np.testing.assert_array_equal(back.operators, wa.operators)
    assert back.value([2, 3]) == wa.value([2, 3])


def test_bad_shapes_are_rejected():
    with pytest.raises(ValueError):
        WeightedAutomaton(np.ones(2), np.ones(3), np.zeros((3, 2, 2)))
    ops = np.zeros((3, 1, 1))
    ops[1] = 1.0
    with pytest.raises(ValueError, match="EOS"):
        WeightedAutomaton([1.0], [1.0], ops)
