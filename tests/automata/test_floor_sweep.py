"""The held-out sweep (``seqspectral.automata.floor_sweep``): every floor and mixture weight
from one compiled pass over the distinct events, against scoring each candidate on its own
event by event; the n-gram's k from its held-out counts against scoring every event; and
``lm train``'s choices against the straightforward selection they replace."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from seqspectral.automata import SpectralWA
from seqspectral.automata.floor_sweep import distinct_sequences, floor_sweep
from seqspectral.corpus import Corpus, read_pautomac
from seqspectral.lm import Interpolated, NGramLM, train_lm
from seqspectral.lm.mixture import mix_log_probs
from seqspectral.lm.unknown import UnknownEscape
from seqspectral.metrics import perplexity
from seqspectral.selection import FLOOR_GRID, NGRAM_K_GRID, WEIGHT_GRID, held_out_split

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
FLOORS = (0.0, 1e-3, 0.05, 0.3)


@pytest.fixture(scope="module")
def data():
    """The bundled toy PAutomaC problem: an automaton and a bigram that both matter on it."""
    train, test = (read_pautomac(CORPORA / f"toy.pautomac.{part}") for part in ("train", "test"))
    wa = SpectralWA(n_states=3, basis_length=2, floor=0.0).fit(train).model_
    lower = NGramLM(2, k=0.3).fit(train, n_ids=len(train.vocabulary))
    return train, test.with_vocabulary(train.vocabulary), wa, lower


def _reference(model, lower, corpus, floors, weights):
    """Every candidate scored on its own: each floored automaton's own pass, mixed in log space."""
    partner = lower.event_log_probs(corpus).log_prob
    return np.array([[mix_log_probs(model.with_floor(f).event_log_probs(corpus).log_prob, partner, w).sum()
                      for w in weights] for f in floors])


def test_sweep_equals_scoring_every_candidate(data):
    _, test, wa, lower = data
    sweep = floor_sweep(wa, test, FLOORS, lower.event_log_probs(test).log_prob, WEIGHT_GRID)
    reference = _reference(wa, lower, test, FLOORS, WEIGHT_GRID)
    assert sweep.totals.shape == (len(FLOORS), len(WEIGHT_GRID))
    np.testing.assert_allclose(sweep.totals, reference, rtol=1e-12)
    np.testing.assert_allclose(sweep.alone, reference[:, -1], rtol=1e-12)  # λ = 1: the automaton alone
    assert np.ptp(sweep.alone) > 1.0 and np.ptp(reference[1]) > 1.0  # the floors and the weights bite


def test_without_partner_and_by_distribution_blocks(data, monkeypatch):
    """No partner: the model alone. A model without a compiled pass (an HMM, here the automaton
    behind a wrapper) is swept from its floor-0 conditionals in blocks: the same totals."""
    import seqspectral.automata.floor_sweep

    _, test, wa, lower = data
    alone = floor_sweep(wa, test, FLOORS)
    assert alone.mix_weights == (1.0,)
    np.testing.assert_allclose(alone.alone, [wa.with_floor(f).event_log_probs(test).log_prob.sum() for f in FLOORS],
                               rtol=1e-12)

    class Plain:  # the generic interface only
        event_ids, n_symbols = wa.event_ids, wa.n_symbols
        with_floor, event_distributions = wa.with_floor, wa.event_distributions

    monkeypatch.setattr(seqspectral.automata.floor_sweep, "_MAX_SWEEP_CELLS", 1000)  # many blocks
    partner = lower.event_log_probs(test).log_prob
    np.testing.assert_allclose(floor_sweep(Plain(), test, FLOORS, partner).totals,
                               floor_sweep(wa, test, FLOORS, partner).totals, rtol=1e-12)


def test_long_sequences_do_not_underflow(data):
    """Products of ~10^5 probabilities are far below the smallest double: kept in range exactly."""
    train, _, wa, _ = data
    total = floor_sweep(wa, train, (1e-3,)).alone[0]
    assert np.isfinite(total) and total < -1e4
    assert total == pytest.approx(wa.with_floor(1e-3).event_log_probs(train).log_prob.sum(), rel=1e-12)


def test_lm_train_chooses_as_the_straightforward_selection(data):
    """Floor, then mixture weight, chosen by scoring every candidate on its own; refitted on
    all of train: the same choices and perplexities equal to 1e-9 relative."""
    train, test, _, _ = data
    lm = train_lm(train, "spectral-substring", n_states=3, basis_length=2)
    n_ids = len(train.vocabulary)
    fit_part, held, _ = held_out_split(train)
    lower = NGramLM(2).fit(fit_part, dev=held, n_ids=n_ids)
    unfloored = SpectralWA(n_states=3, basis_length=2, floor=0.0).fit(fit_part).model_
    alone = [unfloored.with_floor(f).event_log_probs(held).log_prob.sum() / len(held) for f in FLOOR_GRID]
    floor = FLOOR_GRID[int(np.argmax(alone))]
    partner = lower.event_log_probs(held).log_prob
    own = unfloored.with_floor(floor).event_log_probs(held).log_prob
    mixed = [mix_log_probs(own, partner, w).sum() / len(held) for w in WEIGHT_GRID]
    weight = WEIGHT_GRID[int(np.argmax(mixed))]
    assert (lm.selection.chosen["floor"], lm.selection.chosen["model_weight"]) == (floor, weight)
    assert 0.0 < weight < 1.0 and np.ptp(alone) > 0.01  # both choices have something to choose

    refitted = SpectralWA(n_states=3, basis_length=2, floor=floor).fit(fit_part).refit(train, held).model_
    lower.refit(train, held)
    theirs = UnknownEscape(Interpolated(refitted, lower, weight), lm.model.unknown_probability)
    assert perplexity(lm.model.event_log_probs(test).log_prob) == pytest.approx(
        perplexity(theirs.event_log_probs(test).log_prob), rel=1e-9)



@pytest.mark.parametrize("n_ids", [5, 40, 70_000])
def test_distinct_sequences_are_the_sorted_set_with_counts(n_ids):
    """Against Python's sorted set and Counter: duplicates, proper prefixes, the empty sequence,
    and vocabularies whose packed keys hold many ids (5) or few (70,000)."""
    rng = np.random.default_rng(n_ids)
    seqs = [list(rng.integers(2, n_ids, size=rng.integers(0, 40))) for _ in range(200)]
    seqs += [s[:rng.integers(0, len(s) + 1)] for s in seqs] + seqs[:80] + [[]]
    seqs = [seqs[i] for i in rng.permutation(len(seqs))]
    representatives, counts = distinct_sequences(Corpus.from_ids(seqs))
    tuples = [tuple(int(x) for x in s) for s in seqs]
    occurrences = Counter(tuples)
    assert [tuples[r] for r in representatives] == sorted(occurrences)
    assert counts.tolist() == [occurrences[tuples[r]] for r in representatives]
    assert all(tuples.index(tuples[r]) == r for r in representatives)  # each one's first occurrence


def test_distinct_sequences_of_long_shared_prefixes_and_empty_corpora():
    """Sequences tied over many packed chunks (a 500-id common prefix, ids differing only at the
    end, copies of long ones) sort by their last ids; a corpus of empty sequences is one of them."""
    prefix = list(range(2, 9)) * 70 + [3] * 10
    seqs = [prefix + [4], prefix, prefix + [3, 2], prefix + [3], prefix + [4], [], prefix[:250], prefix]
    representatives, counts = distinct_sequences(Corpus.from_ids(seqs))
    tuples = [tuple(s) for s in seqs]
    assert [tuples[r] for r in representatives] == sorted(set(tuples))
    assert counts.tolist() == [tuples.count(tuples[r]) for r in representatives]
    for empty in ([], [[], [], []]):
        representatives, counts = distinct_sequences(Corpus.from_ids(empty))
        assert (representatives.tolist(), counts.tolist()) == (([], []) if not empty else ([0], [3]))


def test_sweep_over_repeated_sequences(data):
    """Held-out data that repeats (every sequence 1, 3 or 70 times, shuffled: events scored once
    and added by their count, in both accumulations) gives every candidate's total event by event."""
    _, test, wa, lower = data
    rng = np.random.default_rng(0)
    picks = np.concatenate([np.repeat(np.arange(len(test)), rng.choice([1, 3], size=len(test))), np.full(70, 5)])
    repeated = test.subset(rng.permutation(picks))
    partner = lower.event_log_probs(repeated).log_prob
    sweep = floor_sweep(wa, repeated, FLOORS, partner, WEIGHT_GRID)
    np.testing.assert_allclose(sweep.totals, _reference(wa, lower, repeated, FLOORS, WEIGHT_GRID), rtol=1e-12)


def test_ngram_k_from_held_out_counts(data):
    """The bigram's k: every k's held-out score from the distinct held-out bigrams times their
    counts equals scoring every held-out event; the refit reuses the held-out counts and equals
    counting all of train anew."""
    train, _, _, _ = data
    n_ids = len(train.vocabulary)
    fit_part, held, _ = held_out_split(train)
    model = NGramLM(2).fit(fit_part, dev=held, n_ids=n_ids)
    per_event = {k: model.with_k(k).event_log_probs(held).log_prob.sum() / len(held) for k in NGRAM_K_GRID}
    scores = {row["k"]: row["score"] for row in model.selection_.table}
    assert scores == pytest.approx(per_event, rel=1e-12)
    assert model.k_ == max(per_event, key=per_event.get)
    refitted = model.refit(train, held)
    anew = NGramLM(2, k=model.k_).fit(train, n_ids=n_ids)
    np.testing.assert_array_equal(refitted.keys_, anew.keys_)
    np.testing.assert_array_equal(refitted.counts_, anew.counts_)
