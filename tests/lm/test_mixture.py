"""seqspectral.mixture: the mixed conditionals against brute-force probing, weight selection."""

from __future__ import annotations

import numpy as np
import pytest

import seqspectral.lm.mixture
from seqspectral.corpus import Corpus, Vocabulary
from seqspectral.lm import Interpolated, NGramLM
from seqspectral.lm.mixture import select_weight

from tests.references import conditional

V = Vocabulary(["a", "b", "c"])  # ids 2, 3, 4


def _corpus(rng, n=80):
    return Corpus.from_ids([rng.integers(2, 5, size=rng.integers(0, 7)) for _ in range(n)], V)


def _conditional(model, history, event) -> float:
    return conditional(model, history, event, V)


def test_interpolation_matches_the_mixed_conditionals(monkeypatch):
    rng = np.random.default_rng(2)
    train, test = _corpus(rng), _corpus(rng, 15)
    a, b = NGramLM(order=3, k=0.05).fit(train), NGramLM(order=1, k=1.0).fit(train)
    mix = Interpolated(a, b, 0.3)
    lp, pred = mix.event_log_probs(test)[:2]
    i = 0
    for seq in test:
        for t in range(len(seq) + 1):
            probs = {e: 0.3 * _conditional(a, seq[:t], e) + 0.7 * _conditional(b, seq[:t], e) for e in (2, 3, 4, 1)}
            actual = int(seq[t]) if t < len(seq) else 1
            assert lp[i] == pytest.approx(np.log(probs[actual]), rel=1e-12)
            assert probs[pred[i]] == pytest.approx(max(probs.values()), rel=1e-12)
            i += 1
    assert sum(probs.values()) == pytest.approx(1.0)
    # predictions taken block by block (bounded memory) are the same
    monkeypatch.setattr(seqspectral.lm.mixture, "_MAX_DISTRIBUTION_CELLS", 40)
    np.testing.assert_array_equal(mix.event_log_probs(test)[1], pred)


def test_select_weight_maximises_held_out_likelihood():
    lp_a = np.log(np.array([0.9, 0.1, 0.5]))
    lp_b = np.log(np.array([0.2, 0.6, 0.5]))
    grid = np.linspace(0, 1, 101)
    totals = {float(w): float(np.log(w * np.exp(lp_a) + (1 - w) * np.exp(lp_b)).sum()) for w in grid}
    best = grid[np.argmax(list(totals.values()))]
    result = select_weight(totals, 1, "test")
    assert result.chosen["model_weight"] == pytest.approx(best) and 0 < best < 1
    assert len(result.table) == len(grid) and result.on == "test"
