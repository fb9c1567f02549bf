"""Add-k n-gram models against brute-force counting with Python dicts."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from seqspectral.corpus import Corpus, Vocabulary
from seqspectral.lm import NGramLM


def _random_corpus(rng, n=60, n_symbols=5, max_len=7):
    vocab = Vocabulary([f"s{i}" for i in range(n_symbols)])
    seqs = [rng.integers(2, 2 + n_symbols, size=rng.integers(0, max_len + 1)) for _ in range(n)]
    return Corpus.from_ids(seqs, vocab)


def _brute_force(train, test, order, k):
    """Per-event log p by explicit histories: tuples padded with a start marker."""
    V = len(train.vocabulary)
    start = "<s>"
    grams, hist = Counter(), Counter()
    for seq in train:
        padded = [start] * (order - 1) + [int(x) for x in seq] + [1]
        for t in range(order - 1, len(padded)):
            h = tuple(padded[t - order + 1:t])
            grams[h, padded[t]] += 1
            hist[h] += 1
    out = []
    for seq in test:
        padded = [start] * (order - 1) + [int(x) for x in seq] + [1]
        for t in range(order - 1, len(padded)):
            h = tuple(padded[t - order + 1:t])
            out.append(np.log((grams[h, padded[t]] + k) / (hist[h] + k * (V - 1))))
    return np.array(out), grams, hist


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_event_log_probs_match_brute_force(order):
    rng = np.random.default_rng(order)
    train, test = _random_corpus(rng), _random_corpus(rng, n=30)
    model = NGramLM(order=order, k=0.3).fit(train)
    log_prob, predicted = model.event_log_probs(test)[:2]
    expected, grams, hist = _brute_force(train, test, order, 0.3)
    np.testing.assert_allclose(log_prob, expected, rtol=1e-12)
    assert len(predicted) == test.n_tokens + len(test) and predicted.dtype == np.int32
    # the prediction maximises the count after the history (smallest id among ties)
    V = len(train.vocabulary)
    i = 0
    for seq in test:
        padded = ["<s>"] * (order - 1) + [int(x) for x in seq] + [1]
        for t in range(order - 1, len(padded)):
            h = tuple(padded[t - order + 1:t])
            if hist[h]:
                best = max(range(1, V), key=lambda w: (grams[h, w], -w))
                assert predicted[i] == best
            i += 1


def test_conditionals_are_proper_distributions():
    """Summing p(w | h) over the alphabet and stop gives 1 after every history seen in test."""
    rng = np.random.default_rng(7)
    train = _random_corpus(rng, n_symbols=4)
    model = NGramLM(order=3, k=0.05).fit(train)
    V = len(train.vocabulary)
    test = _random_corpus(rng, n=10, n_symbols=4)
    for seq in test:
        for t in range(len(seq) + 1):
            total = 0.0
            for w in range(1, V):
                cont = list(seq[:t]) + ([w] if w != 1 else [])
                probe = Corpus.from_ids([cont], train.vocabulary)
                lp, _ = model.event_log_probs(probe)[:2]
                total += np.exp(lp[t])
            assert total == pytest.approx(1.0, abs=1e-12)


def test_string_probabilities_sum_to_one_by_enumeration():
    """A unigram/bigram with stop defines a distribution over all strings: the mass of
    strings up to length L approaches 1 (computed exactly by enumeration)."""
    import itertools

    vocab = Vocabulary(["a", "b"])
    train = Corpus.from_symbols([["a", "b"], ["a"], ["b", "b", "a"], []], vocab)
    for order in (1, 2):
        model = NGramLM(order=order, k=0.5).fit(train)
        seqs = [list(x) for L in range(0, 13) for x in itertools.product([2, 3], repeat=L)]
        lp, _ = model.event_log_probs(Corpus.from_ids(seqs, vocab))[:2]
        corpus = Corpus.from_ids(seqs, vocab)
        per_seq = np.add.reduceat(lp, corpus.offsets[:-1] + np.arange(len(corpus)))
        mass = np.exp(per_seq).sum()
        assert 0.97 < mass <= 1.0 + 1e-12


def test_unknown_ids_rejected_and_k_selected():
    rng = np.random.default_rng(3)
    train, held = _random_corpus(rng), _random_corpus(rng, n=20)
    model = NGramLM(order=2, k=0.1).fit(train)
    with pytest.raises(ValueError, match="unknown"):
        model.event_log_probs(Corpus.from_ids([[0, 2]], train.vocabulary))
    chosen = NGramLM(order=2, k="auto").fit(train, dev=held)
    # the k chosen from one set of count tables is the one refitting each k would choose
    from seqspectral.selection import NGRAM_K_GRID

    best = max(NGRAM_K_GRID, key=lambda k: NGramLM(2, k=k).fit(train).score(held))
    assert chosen.k_ == best and chosen.selection_.chosen == {"k": best}
    for row in chosen.selection_.table:
        assert row["score"] == pytest.approx(NGramLM(2, k=row["k"]).fit(train).score(held), rel=1e-12)


def test_params_protocol():
    sklearn_base = pytest.importorskip("sklearn.base")
    m = NGramLM(order=2, k=0.5)
    c = sklearn_base.clone(m)
    assert c.get_params() == {"k": 0.5, "order": 2, "random_state": 0}


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_dense_counting_gives_the_sorted_codes_counts(order, monkeypatch):
    """The one-pass dense table (small alphabets) and the sorted codes of every event
    (``np.unique``, large ones) give the same keys and counts, and both the brute force's."""
    from seqspectral.lm import ngram

    corpus = _random_corpus(np.random.default_rng(order), n=200, max_len=9)
    corpus = Corpus.from_ids([*corpus, np.array([], dtype=np.int32)], corpus.vocabulary)  # an empty sequence too
    n_ids = len(corpus.vocabulary)
    dense = ngram.ngram_counts(corpus, order, n_ids)
    monkeypatch.setattr(ngram, "DENSE_NGRAMS", 0)
    assert n_ids ** order > ngram.DENSE_NGRAMS
    by_sorting = ngram.ngram_counts(corpus, order, n_ids)
    assert dense.keys.dtype == by_sorting.keys.dtype == np.int64 and dense.counts.dtype == by_sorting.counts.dtype
    np.testing.assert_array_equal(dense.keys, by_sorting.keys)
    np.testing.assert_array_equal(dense.counts, by_sorting.counts)
    _, grams, _ = _brute_force(corpus, corpus, order, 1.0)
    start = ngram._START
    brute = Counter()
    for (h, w), c in grams.items():
        key = 0
        for x in reversed(h):  # the nearest symbol is the most significant digit
            key = key * n_ids + (start if x == "<s>" else x)
        brute[key * n_ids + w] += c
    assert dict(zip(dense.keys.tolist(), dense.counts.tolist())) == dict(brute)


@pytest.mark.parametrize("order", [1, 2, 3])
def test_dense_lookups_give_the_sorted_keys_numbers(order, monkeypatch):
    """Scoring a small alphabet (every event's key in one pass, its counts read from dense
    tables) gives the sorted path's c(h, w), c(h) and predicted event array for array, unseen
    histories and n-grams included; so do the log-probabilities (the same floats)."""
    from seqspectral.lm import ngram

    corpus = _random_corpus(np.random.default_rng(10 + order), n=300, max_len=9)
    last = len(corpus.vocabulary) - 1  # a symbol never seen in training: unseen n-grams and histories
    train, held = corpus.subset(np.array([last not in s for s in corpus])), corpus
    model = NGramLM(order, k=0.5).fit(train, n_ids=len(corpus.vocabulary))
    dense, log_probs = model._lookups(held), model.event_log_probs(held)
    monkeypatch.setattr(ngram, "DENSE_NGRAMS", 0)
    by_sorting = model._lookups(held)
    assert any((c == 0).any() for c in by_sorting[:2])  # the check covers the absent keys
    for a, b in zip(dense, by_sorting):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    assert np.array_equal(log_probs.log_prob, model.event_log_probs(held).log_prob)
