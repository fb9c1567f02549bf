"""The held-out sweep (``seqspectral.selection.floor_sweep``): every floor and mixture weight
from one compiled pass, against scoring each candidate on its own, and ``lm train``'s choices
against the straightforward selection they replace."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from seqspectral.automata import SpectralWA
from seqspectral.corpus import read_pautomac
from seqspectral.lm import Interpolated, NGramLM, train_lm
from seqspectral.lm.mixture import mix_log_probs
from seqspectral.lm.unknown import UnknownEscape
from seqspectral.metrics import perplexity
from seqspectral.selection import FLOOR_GRID, WEIGHT_GRID, floor_sweep, held_out_split

CORPORA = Path(__file__).resolve().parents[1] / "corpora"
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
    import seqspectral.selection

    _, test, wa, lower = data
    alone = floor_sweep(wa, test, FLOORS)
    assert alone.mix_weights == (1.0,)
    np.testing.assert_allclose(alone.alone, [wa.with_floor(f).event_log_probs(test).log_prob.sum() for f in FLOORS],
                               rtol=1e-12)

    class Plain:  # the generic interface only
        event_ids, n_symbols = wa.event_ids, wa.n_symbols
        with_floor, event_distributions = wa.with_floor, wa.event_distributions

    monkeypatch.setattr(seqspectral.selection, "_MAX_SWEEP_CELLS", 1000)  # many blocks
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

