"""SpectralWA: exact recovery from exact Hankel matrices (closed forms of f, f^p, f^s), one SVD
for every rank, learning from samples, selection, estimator protocol."""

import itertools

import numpy as np
import pytest

from seqspectral.automata.spectral import SpectralWA
from seqspectral.automata.wfa import WeightedAutomaton
from seqspectral.base import NotFittedError, ParameterError
from seqspectral.corpus import Corpus
from seqspectral.counting import HankelBasis
from seqspectral.serialize import load, save

from tests.references import exact_hankel

ALPHABET = (2, 3)


@pytest.fixture(scope="module")
def target():
    """A 3-state PFA with stop probabilities."""
    return WeightedAutomaton.random_stochastic(3, 2, stop=(0.2, 0.4), random_state=3)


def exact_statistics(wa, statistic):
    return exact_hankel(wa, statistic, ALPHABET)


TEST_STRINGS = [x for n in range(6) for x in itertools.product(ALPHABET, repeat=n)]


@pytest.mark.parametrize("statistic", ["string", "prefix", "substring"])
def test_exact_recovery_from_exact_hankel(target, statistic):
    est = SpectralWA(n_states=3, statistic=statistic, floor=0.0)
    est.fit_statistics(exact_statistics(target, statistic), ALPHABET, 4)
    wa = est.model_
    assert wa.n_states == 3
    for x in TEST_STRINGS:
        assert wa.value(x) == pytest.approx(target.value(x), rel=1e-9, abs=1e-14)
    corpus = target.sample(50, random_state=0)
    np.testing.assert_allclose(est.event_log_probs(corpus).log_prob, target.event_log_probs(corpus).log_prob, atol=1e-9)


def test_one_svd_serves_every_rank(target):
    stats = exact_statistics(target, "substring")
    big = SpectralWA(n_states=3, statistic="substring", floor=0.0).fit_statistics(stats, ALPHABET, 4)
    small = SpectralWA(n_states=2, statistic="substring", floor=0.0).fit_statistics(stats, ALPHABET, 4)
    swept = big.with_n_states(2)
    for x in TEST_STRINGS[:20]:
        assert swept.value(x) == pytest.approx(small.model_.value(x), rel=1e-9, abs=1e-14)
    # the exact Hankel has rank 3: the factorisation stops at the numerical rank
    assert big.prepared_.max_rank == 3
    with pytest.raises(ValueError, match="exceeds the rank"):
        big.with_n_states(4)


@pytest.fixture(scope="module")
def samples(target):
    return target.sample(30000, random_state=1), target.sample(3000, random_state=2)


@pytest.mark.parametrize("statistic", ["string", "substring"])
def test_learning_from_samples_approaches_the_truth(target, samples, statistic):
    train, test = samples
    est = SpectralWA(n_states=3, basis=HankelBasis.all_strings(ALPHABET, 2), statistic=statistic, floor=0.01).fit(train)
    for x in TEST_STRINGS[:7]:
        assert est.model_.value(x) == pytest.approx(target.value(x), abs=0.01)
    assert est.score(test) == pytest.approx(target.score(test), rel=0.01)


def test_auto_selection_on_held_out_data(target, samples):
    train, test = samples
    est = SpectralWA(n_states="auto", statistic="substring", floor="auto", max_states=8, basis_length=2).fit(train)
    assert 1 <= est.n_states_ <= 8  # this target is nearly memoryless: 1 to 4 states score within 0.02%
    best = max((r for r in est.selection_.table if r["score"] is not None), key=lambda r: r["score"])
    assert (best["n_states"], best["floor"]) == (est.n_states_, est.floor_)
    assert est.selection_.on == "held-out 20% of train"
    assert est.score(test) == pytest.approx(target.score(test), rel=0.01)
    # explicit dev: no split, and the result is a proper model too
    est_dev = SpectralWA(n_states="auto", floor=0.01, max_states=8, basis_length=2).fit(train, dev=test)
    assert est_dev.score(test) >= est.score(test) - 0.05


def test_extra_statistics_are_added_on_the_basis_they_were_counted_on(samples):
    """fit(a, extra=counts of b on choose_basis(a)) holds the counts of a and b on that basis
    (the basis is chosen once, by choose_basis; the fit takes it from extra)."""
    from seqspectral.counting import hankel_statistics

    train, _ = samples
    a, b = train[:2000], train[2000:]
    est = SpectralWA(n_states=3, basis_size=5, basis_length=2, floor=0.01)
    basis = est.choose_basis(a)
    est.fit(a, extra=hankel_statistics(b, basis, statistic="substring"))
    whole = hankel_statistics(train, basis, statistic="substring")
    assert est.basis_ == basis
    np.testing.assert_array_equal(est.statistics_.keys, whole.keys)
    np.testing.assert_array_equal(est.statistics_.counts, whole.counts)
    other = HankelBasis.all_strings(ALPHABET, 1)
    assert other != basis
    with pytest.raises(ValueError, match="same basis"):  # a given basis is kept: extra on another is refused
        SpectralWA(n_states=3, basis=other, floor=0.01).fit(a, extra=hankel_statistics(b, basis, statistic="substring"))


def test_estimator_protocol():
    from sklearn.base import clone

    est = SpectralWA(n_states=7, statistic="prefix", floor=0.02)
    copy = clone(est)
    assert copy.get_params() == est.get_params() and copy is not est
    assert est.set_params(n_states=4) is est and est.n_states == 4
    with pytest.raises(ValueError):
        est.set_params(bogus=1)
    with pytest.raises(ParameterError, match="statistic must be one of"):
        SpectralWA(statistic="suffix").fit(Corpus.from_ids([[2, 3]]))
    with pytest.raises(NotFittedError, match="not fitted"):
        SpectralWA().score(Corpus.from_ids([[2, 3]]))
    with pytest.raises(TypeError):
        SpectralWA(3, "substring")  # keyword-only after the first


def test_more_states_than_the_hankel_rank_is_an_error(target):
    stats = exact_statistics(target, "substring")
    with pytest.raises(ValueError, match="exceeds the rank of the Hankel matrix"):
        SpectralWA(n_states=10**12, floor=0.0).fit_statistics(stats, ALPHABET, 4)


def test_save_writes_a_loadable_automaton(tmp_path, samples):
    train, test = samples
    est = SpectralWA(n_states=3, basis_length=2).fit(train)
    save(tmp_path / "m.npz", est.model_)
    back = load(tmp_path / "m.npz", "weighted_automaton")
    assert isinstance(back, WeightedAutomaton) and back.floor == est.floor_
    np.testing.assert_allclose(back.event_log_probs(test).log_prob, est.event_log_probs(test).log_prob)
