"""TensorHMM: exact recovery from population moments, planted recovery from samples."""

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from seqspectral.automata.tensor_hmm import TensorHMM
from seqspectral.counting import HankelBasis

from seqspectral.automata.planted import matched_errors, planted_hmm

from tests.references import exact_hankel


def population_statistics(hmm, basis, statistic):
    """Prefix or substring Hankel blocks computed exactly from the model (no sampling)."""
    return exact_hankel(hmm.to_automaton(), statistic, None, basis=basis)


@pytest.mark.parametrize("statistic", ["prefix", "substring"])
@pytest.mark.parametrize("k,n_symbols", [(3, 4), (5, 7)])
def test_exact_moments_recover_the_model(k, n_symbols, statistic):
    true = planted_hmm(k, n_symbols, seed=k)
    basis = HankelBasis.all_strings(np.arange(2, n_symbols + 2), 2)
    stats = population_statistics(true, basis, statistic)
    est = TensorHMM(k, random_state=0, floor=0.0).fit_statistics(stats, true.vocabulary).model_
    rows, cols = linear_sum_assignment(-true.emissions @ est.emissions.T)
    np.testing.assert_allclose(est.emissions[cols], true.emissions[rows], atol=1e-9)
    np.testing.assert_allclose(est.stop[cols], true.stop[rows], atol=1e-9)
    np.testing.assert_allclose(est.initial[cols], true.initial[rows], atol=1e-9)
    np.testing.assert_allclose(est.transitions[np.ix_(cols, cols)], true.transitions[np.ix_(rows, rows)], atol=1e-9)


def test_planted_recovery_improves_with_data():
    true = planted_hmm(3, 5, seed=3)
    errors = [matched_errors(true, TensorHMM(3, random_state=0).fit(true.sample(n, random_state=1)).model_)
              for n in (3_000, 100_000)]
    assert errors[1][0] < 0.05 and errors[1][1] < 0.1
    assert errors[1][0] < errors[0][0] and errors[1][1] < errors[0][1]


@pytest.mark.parametrize("k", [5, 8])
def test_planted_recovery_with_as_many_states_as_symbols(k):
    """The issue's target: |Σ| = k, 10^5 strings, O within 0.05 and T within 0.1 (max row L1)."""
    true = planted_hmm(k, k, seed=k)
    err_o, err_t = matched_errors(true, TensorHMM(k, random_state=0).fit(true.sample(100_000, random_state=1)).model_)
    assert err_o < 0.05 and err_t < 0.1


def test_more_states_than_symbols_is_a_clear_error():
    corpus = planted_hmm(3, 3, seed=0).sample(500, random_state=0)
    with pytest.raises(ValueError, match="n_states <= alphabet size"):
        TensorHMM(4).fit(corpus)


def test_estimator_protocol_and_scoring():
    from sklearn.base import clone

    est = TensorHMM(3, basis_length=2, random_state=5)
    assert clone(est).get_params() == est.get_params()
    corpus = planted_hmm(3, 4, seed=1).sample(2_000, random_state=0)
    a, b = TensorHMM(3, random_state=5).fit(corpus), TensorHMM(3, random_state=5).fit(corpus)
    np.testing.assert_array_equal(a.model_.transitions, b.model_.transitions)
    assert np.isfinite(a.score(corpus))


def test_auto_selects_the_planted_number_of_states():
    corpus = planted_hmm(3, 5, seed=3).sample(20_000, random_state=0)
    fit = TensorHMM("auto", max_states=5, random_state=0).fit(corpus)
    assert {r["n_states"] for r in fit.selection_.table} == {1, 2, 3, 4}  # the grid, capped by max_states and |Σ|
    assert fit.n_states_ == 3 and fit.model_.n_states == 3
