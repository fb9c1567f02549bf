"""train_lm: choices on one held-out set, refit without recounting, plain warnings, bad requests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from seqspectral.automata.planted import planted_hmm
from seqspectral.corpus import read_pautomac
from seqspectral.lm import LanguageModelError, evaluate_lm, train_lm
from seqspectral.selection import held_out_split

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def toy():
    return read_pautomac(ROOT / "corpora" / "toy.pautomac.train"), read_pautomac(ROOT / "corpora" / "toy.pautomac.test")


def test_the_refit_adds_the_held_out_counts_instead_of_recounting(toy):
    train, _ = toy
    lm = train_lm(train, "spectral-substring", n_states=4, mix_order=None)
    from seqspectral.lm import make_estimator

    fit_part, held, _ = held_out_split(train, None, 0)
    est = make_estimator("spectral-substring", 4).fit(fit_part, dev=held)
    total = est._count(train)  # the whole training set counted on the same basis, as a reference
    est.refit(train, held)
    np.testing.assert_allclose(est.statistics_.H.toarray(), total.H.toarray())
    for a, b in zip(est.statistics_.H_sigma, total.H_sigma):
        np.testing.assert_allclose(a.toarray(), b.toarray())
    probe = train.subset(np.arange(50))
    np.testing.assert_allclose(lm.model.model.sequence_log_probs(probe), est.model_.sequence_log_probs(probe))


def test_a_model_with_mixture_weight_zero_says_so():
    hmm = planted_hmm(3, 5, seed=2)
    train, dev = hmm.sample(3000, random_state=0), hmm.sample(300, random_state=1)
    lm = train_lm(train, "unigram")
    assert lm.summary()["warnings"] == [] and lm.summary()["k"] > 0
    lm = train_lm(train, "tensor", n_states=1, dev=dev)  # one state cannot beat the bigram on Markov data
    summary = lm.summary()
    assert summary["model_weight"] == 0.0 and summary["n_states"] == 1
    assert any("weight 0" in w for w in summary["warnings"])
    assert evaluate_lm(lm, dev)["perplexity"] == pytest.approx(evaluate_lm(train_lm(train, "ngram", order=2, dev=dev), dev)["perplexity"], rel=1e-9)


def test_impossible_requests_are_clear_errors(toy):
    train, test = toy
    with pytest.raises(LanguageModelError, match="exceeds the rank"):
        train_lm(train, "spectral-substring", n_states=10**12)
    with pytest.raises(ValueError, match="n_states must be"):
        train_lm(train, "em", n_states=10**12)
    with pytest.raises(LanguageModelError, match="alphabet"):
        train_lm(train, "tensor", n_states=40)
    with pytest.raises(LanguageModelError, match="empty"):
        train_lm(train, "spectral", dev=test.subset([]))
    with pytest.raises(LanguageModelError, match="unknown method"):
        train_lm(train, "hmm")


def test_a_trained_lm_is_a_per_item_scorer_in_its_own_vocabulary(toy):
    from seqspectral.corpus import Corpus
    from seqspectral.protocols import ItemScorer
    from seqspectral.reranking import CorpusScorer

    train, test = toy
    lm = train_lm(train, "ngram", order=2)
    assert isinstance(lm, ItemScorer)
    symbols = test.subset(np.arange(20)).to_symbols()
    other = Corpus.from_symbols(symbols)  # a vocabulary of its own: other ids for the same symbols
    expected = lm.model.sequence_log_probs(Corpus.from_symbols(symbols, vocabulary=lm.vocabulary))
    np.testing.assert_allclose(lm.log_probs(other), expected)
    np.testing.assert_allclose(CorpusScorer(lm, "lm")._score(other), expected)
