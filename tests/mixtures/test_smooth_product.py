"""Mixtures of smooth product distributions: sinc recovery, coupled CP, missing values, the estimator."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.stats import norm

from seqspectral.base import NotFittedError, ParameterError
from seqspectral.mixtures.smooth.coupled_cp import fit_coupled_cp, model_histograms, random_start
from seqspectral.mixtures.smooth.histograms import (EqualWidthBins, MissingDataError, all_triples, balanced_triples,
                                                    triple_histograms)
from seqspectral.mixtures.smooth.product import SmoothProductMixture
from seqspectral.mixtures.smooth.sinc import SincDensities


# -- sinc / CDF recovery (Section 3) ---------------------------------------------------------
@pytest.mark.parametrize("width", [1.0, 0.8, 0.5])
def test_sinc_recovers_a_gaussian_from_exact_bin_probabilities(width):
    I, sigma = 15, 1.0
    low = -I * width / 2 + 0.3 * width  # the mean off the bin grid
    edges = low + width * np.arange(I + 1)
    p = np.diff(norm.cdf(edges, scale=sigma))
    p /= p.sum()
    d = SincDensities(p[None, :, None], np.array([low]), np.array([width]))
    x = np.linspace(low - 3, edges[-1] + 3, 100_001)
    l1 = np.trapezoid(np.abs(d.pdf(0, x)[:, 0] - norm.pdf(x, scale=sigma)), x)
    assert l1 <= 0.03
    assert abs(d.mass[0, 0] - 1.0) <= 0.01  # the floored interpolant before normalisation
    inside = (x >= low) & (x <= edges[-1])
    assert np.trapezoid(d.pdf(0, x[inside])[:, 0], x[inside]) == pytest.approx(1.0, abs=1e-6)


# -- histograms -------------------------------------------------------------------------------
def test_triple_histograms_match_histogramdd_on_complete_rows():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(500, 5))
    X[rng.random(X.shape) < 0.2] = np.nan
    bins = EqualWidthBins.from_data(X, 6)
    triples = all_triples(5)
    H, n_rows = triple_histograms(bins.transform(X), triples, 6)
    for t, (j, k, l) in enumerate(triples):
        rows = ~np.isnan(X[:, [j, k, l]]).any(axis=1)
        edges = [bins.edges[v].copy() for v in (j, k, l)]
        for e, v in zip(edges, (j, k, l)):  # the maximum lands in the last bin, as in ours
            e[-1] = max(e[-1], np.nanmax(X[:, v]))
        ref, _ = np.histogramdd(X[rows][:, [j, k, l]], bins=edges)
        assert n_rows[t] == rows.sum()
        np.testing.assert_allclose(H[t], ref / rows.sum(), atol=1e-15)


def test_a_triple_without_complete_rows_is_an_error():
    X = np.array([[1.0, np.nan, 2.0], [np.nan, 1.0, 3.0], [2.0, 2.0, np.nan]])
    bins = EqualWidthBins.from_data(X, 2)
    with pytest.raises(MissingDataError, match="triple"):
        triple_histograms(bins.transform(X), all_triples(3), 2)


def test_balanced_triples_are_distinct_and_cover_every_variable():
    triples = balanced_triples(10, 24, np.random.default_rng(0))
    assert len({tuple(t) for t in triples}) == 24
    usage = np.bincount(triples.ravel(), minlength=10)
    assert usage.min() >= 1 and usage.max() - usage.min() <= 2
    assert len(balanced_triples(5, 100, np.random.default_rng(0))) == 10  # all of them


# -- coupled CP on exact marginals (Section 4) -------------------------------------------------
def planted(F, N, I, seed):
    rng = np.random.default_rng(seed)
    weights = rng.dirichlet(5 * np.ones(F))
    factors = rng.dirichlet(np.ones(I), size=(N, F)).transpose(0, 2, 1)  # (N, I, F)
    triples = all_triples(N)
    marginals = np.stack([np.einsum("h,ah,bh,ch->abc", weights, factors[j], factors[k], factors[l])
                          for j, k, l in triples])
    return weights, factors, triples, marginals


def test_exact_low_rank_marginals_are_factored_exactly():
    F, N, I = 3, 5, 10
    weights, factors, triples, marginals = planted(F, N, I, seed=1)
    start = random_start(N, I, F, np.random.default_rng(10))
    fit = fit_coupled_cp(marginals, triples, *start, loss="kl", max_iter=200, tol=0.0)
    assert fit.cost <= 1e-6
    assert np.all(np.diff(fit.cost_history) <= 1e-15)  # never increases (to rounding)
    assert np.all(fit.factors >= 0) and np.all(fit.weights >= 0)
    np.testing.assert_allclose(fit.factors.sum(axis=1), 1.0, atol=1e-12)
    assert abs(fit.weights.sum() - 1.0) <= 1e-12
    distance = sum(((factors[n][:, :, None] - fit.factors[n][:, None, :]) ** 2).sum(axis=0) for n in range(N))
    true, found = linear_sum_assignment(distance)
    assert np.max(np.abs(fit.factors[:, :, found] - factors[:, :, true])) <= 1e-3
    assert np.max(np.abs(fit.weights[found] - weights[true])) <= 1e-3
    np.testing.assert_allclose(model_histograms(fit.weights, fit.factors, triples), marginals, atol=1e-6)


def test_frobenius_variant_lowers_its_cost_and_finds_the_factors():
    F, N, I = 3, 5, 10
    weights, factors, triples, marginals = planted(F, N, I, seed=1)
    start = random_start(N, I, F, np.random.default_rng(10))
    fit = fit_coupled_cp(marginals, triples, *start, loss="frobenius", max_iter=200, tol=0.0)
    assert np.all(np.diff(fit.cost_history) <= 1e-15)
    assert fit.cost <= 1e-3 * fit.cost_history[0]
    distance = sum(((factors[n][:, :, None] - fit.factors[n][:, None, :]) ** 2).sum(axis=0) for n in range(N))
    true, found = linear_sum_assignment(distance)
    assert np.max(np.abs(fit.factors[:, :, found] - factors[:, :, true])) <= 2e-2


# -- the estimator -----------------------------------------------------------------------------
def gaussian_mixture_sample(n, seed, means, scale=1.0):
    """Rows of a planted mixture of products of Gaussians (components of equal weight)."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, len(means), size=n)
    return means[z] + scale * rng.standard_normal((n, means.shape[1])), z


MEANS = np.array([[0.0, 0.0, 0.0, 0.0, 0.0], [4.0, -4.0, 4.0, -4.0, 4.0]])


def clustering_accuracy(predicted, truth):
    k = max(predicted.max(), truth.max()) + 1
    counts = np.zeros((k, k))
    np.add.at(counts, (predicted, truth), 1)
    rows, cols = linear_sum_assignment(-counts)
    return counts[rows, cols].sum() / len(truth)


def test_missing_values_fit_predict_and_marginalise():
    X, z = gaussian_mixture_sample(3000, seed=0, means=MEANS)
    rng = np.random.default_rng(1)
    X[rng.random(X.shape) < 0.3] = np.nan  # 30% missing at random: only 34% of rows complete
    model = SmoothProductMixture(2, n_bins=10, n_init=2, max_iter=200).fit(X)
    np.testing.assert_array_less(model.n_rows_per_triple_, 3000)
    assert clustering_accuracy(model.predict(X), z) >= 0.97  # rows with missing entries included
    assert np.all(np.isfinite(model.score_samples(X)))
    # a NaN entry is integrated out: ∫ f(x1, x2, t, x4, x5) dt over the range = f(x1, x2, NaN, x4, x5)
    row = np.array([0.3, -0.2, 0.0, 0.1, 0.5])
    grid = np.linspace(*model.bins_.edges[2][[0, -1]], 20_001)
    rows = np.tile(row, (len(grid), 1))
    rows[:, 2] = grid
    integral = np.trapezoid(np.exp(model.score_samples(rows)), grid)
    marginal = np.exp(model.score_samples(np.where(np.arange(5) == 2, np.nan, row)[None]))[0]
    assert integral == pytest.approx(marginal, rel=1e-5)


def test_recovers_a_planted_mixture_from_samples():
    X, z = gaussian_mixture_sample(4000, seed=2, means=MEANS, scale=1.5)
    model = SmoothProductMixture(2, n_bins=12, n_init=2, max_iter=200).fit(X)
    assert clustering_accuracy(model.predict(X), z) >= 0.98
    order = np.argsort(model.densities_.pdf(0, np.array([0.0]))[0])[::-1]  # component 0 peaks at x = 0
    np.testing.assert_allclose(model.weights_[order], [0.5, 0.5], atol=0.03)
    x = np.linspace(-3, 3, 601)
    l1 = np.trapezoid(np.abs(model.densities_.pdf(1, x)[:, order[0]] - norm.pdf(x, scale=1.5)), x)
    assert l1 <= 0.15
    proba = model.predict_proba(X[:50])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(np.argmax(proba, axis=1), model.predict(X[:50]))


def test_bins_chosen_on_validation_rows():
    X, _ = gaussian_mixture_sample(1500, seed=4, means=MEANS)
    V, _ = gaussian_mixture_sample(500, seed=5, means=MEANS)
    model = SmoothProductMixture(2, n_bins="auto", bins_grid=(3, 8, 12), n_init=1, max_iter=100).fit(X, dev=V)
    table = model.selection_.table
    assert [row["n_bins"] for row in table] == [3, 8, 12]
    best = max(table, key=lambda row: row["score"])
    assert model.n_bins_ == best["n_bins"] == model.selection_.chosen["n_bins"]
    refit = SmoothProductMixture(2, n_bins=best["n_bins"], n_init=1, max_iter=100).fit(X)
    np.testing.assert_array_equal(refit.weights_, model.weights_)  # refitted on all of X


def test_estimator_conventions():
    from sklearn.base import clone

    model = SmoothProductMixture(2, n_bins=8, triples=3, n_init=1, max_iter=50, random_state=7)
    assert clone(model).get_params() == model.get_params()
    with pytest.raises(NotFittedError):
        model.predict(np.zeros((1, 5)))
    with pytest.raises(ParameterError, match="loss"):
        SmoothProductMixture(2, loss="l1").fit(np.zeros((10, 5)))
    with pytest.raises(ParameterError, match="triples"):
        SmoothProductMixture(2, triples="some").fit(np.zeros((10, 5)))
    with pytest.raises(ValueError, match="at least 3 variables"):
        SmoothProductMixture(2).fit(np.zeros((10, 2)))
    X, _ = gaussian_mixture_sample(600, seed=6, means=MEANS)
    a, b = clone(model).fit(X), clone(model).fit(X)
    assert len(a.triples_) == 3
    np.testing.assert_array_equal(a.weights_, b.weights_)
    np.testing.assert_array_equal(a.factors_, b.factors_)
