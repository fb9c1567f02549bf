"""Metrics against hand computations: perplexity, WER, PAutomaC score, per-sequence sums."""

import numpy as np
import pytest

from seqspectral.corpus import Corpus
from seqspectral.metrics import (evaluate, event_targets, pautomac_score, perplexity, sequence_log_probs,
                                 token_event_index, wer)


class Uniform:
    """p(e | h) = 1/n over n events (ids 2..n, then stop); predicts id 2."""

    def __init__(self, n_events):
        self.n = n_events

    def event_log_probs(self, corpus):
        n_ev = corpus.n_tokens + len(corpus)
        return np.full(n_ev, -np.log(self.n)), np.full(n_ev, 2, dtype=np.int32)


def test_perplexity_of_a_uniform_model_is_the_number_of_events():
    corpus = Corpus.from_ids([[2, 3, 4], [3], []])
    lp, _ = Uniform(4).event_log_probs(corpus)[:2]
    assert perplexity(lp) == pytest.approx(4.0)
    # DESIGN.md: 2^(-(1/T) Σ log2 p), T = tokens + stops
    assert perplexity(lp) == pytest.approx(2 ** (-np.mean(lp / np.log(2))))


def test_wer_counts_every_prefix_including_the_empty_one():
    corpus = Corpus.from_ids([[2, 3], []])  # events: 2, 3, stop | stop
    assert wer(np.array([2, 2, 1, 1]), corpus) == pytest.approx(0.25)
    assert wer(np.array([2, 3, 1, 1]), corpus) == 0.0
    with pytest.raises(ValueError):
        wer(np.array([2, 3]), corpus)


def test_sequence_log_probs_sums_each_sequences_events():
    corpus = Corpus.from_ids([[2, 3], [], [4]])
    lp = np.log([0.5, 0.25, 0.5, 0.1, 0.2, 0.3])
    np.testing.assert_allclose(sequence_log_probs(lp, corpus), np.log([0.0625, 0.1, 0.06]))
    np.testing.assert_array_equal(token_event_index(corpus), [0, 1, 4])
    np.testing.assert_array_equal(event_targets(corpus), [2, 3, 1, 1, 4, 1])


def test_pautomac_score_by_hand():
    true = np.array([0.5, 0.25, 0.25])
    model = np.array([0.2, 0.2, 0.1])  # normalised: 0.4, 0.4, 0.2
    expected = 2 ** -(0.5 * np.log2(0.4) + 0.25 * np.log2(0.4) + 0.25 * np.log2(0.2))
    assert pautomac_score(model, true) == pytest.approx(expected)
    assert pautomac_score(np.log(model), true, log=True) == pytest.approx(expected)
    assert pautomac_score(true, true) == pytest.approx(2 ** -(np.sum(true * np.log2(true))))
    assert pautomac_score(true * 1e-300, true) == pytest.approx(pautomac_score(true, true))  # scale-free
    with pytest.raises(ValueError):
        pautomac_score(np.array([0.1, -0.1, 0.2]), true)


def test_evaluate_reports_every_figure():
    corpus = Corpus.from_ids([[2, 3], [3]])
    out = evaluate(Uniform(3), corpus, solution=np.array([0.3, 0.1]))
    assert out["perplexity"] == pytest.approx(3.0)
    assert out["wer"] == pytest.approx(4 / 5)
    # both strings get 3^-3 and 3^-2: normalised 0.25, 0.75
    assert out["pautomac_score"] == pytest.approx(2 ** -(0.75 * np.log2(0.25) + 0.25 * np.log2(0.75)))
    assert (out["n_sequences"], out["n_tokens"]) == (2, 3)
