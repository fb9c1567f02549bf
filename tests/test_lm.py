"""seqspectral.lm: unknown symbols, mixtures and model files, against brute-force probing."""

from __future__ import annotations

import numpy as np
import pytest

from seqspectral.corpus import Corpus, Vocabulary
from seqspectral.lm import (
    Interpolated, TrainedLM, UnknownEscape, load_lm, save_lm, select_weight, unknown_probability,
)
from seqspectral.ngram import NGramLM

V = Vocabulary(["a", "b", "c"])  # ids 2, 3, 4


def _corpus(rng, n=80):
    return Corpus.from_ids([rng.integers(2, 5, size=rng.integers(0, 7)) for _ in range(n)], V)


def _conditional(model, history, event) -> float:
    """p(event | history) read off event_log_probs of the probe history + event."""
    probe = list(history) + ([event] if event != Vocabulary.EOS_ID else [])
    lp = model.event_log_probs(Corpus.from_ids([probe], V))[0]
    return float(np.exp(lp[len(history)]))


def test_unknown_escape_is_a_proper_distribution_over_unk_alphabet_and_stop():
    rng = np.random.default_rng(0)
    base = NGramLM(order=2, k=0.5).fit(_corpus(rng))
    model = UnknownEscape(base, 0.01)
    for history in ([], [2], [0], [3, 0], [0, 0, 4], [2, 0, 3]):
        total = sum(_conditional(model, history, e) for e in (0, 1, 2, 3, 4))
        assert total == pytest.approx(1.0, abs=1e-12)
        assert _conditional(model, history, 0) == pytest.approx(0.01)
        # the base model sees the history without unknown tokens
        known = [x for x in history if x != 0]
        for e in (1, 2, 3, 4):
            assert _conditional(model, history, e) == pytest.approx(0.99 * _conditional(base, known, e), rel=1e-12)


def test_unknown_escape_predictions_follow_the_base_model():
    rng = np.random.default_rng(1)
    base = NGramLM(order=2, k=0.5).fit(_corpus(rng))
    test = Corpus.from_ids([[2, 0, 3], [0], []], V)
    _, pred = UnknownEscape(base, 0.01).event_log_probs(test)
    _, base_pred = base.event_log_probs(Corpus.from_ids([[2, 3], [], []], V))
    # events: 2 UNK 3 stop | UNK stop | stop; UNK shares the history of the next known event
    assert pred.tolist() == [base_pred[0], base_pred[1], base_pred[1], base_pred[2],
                             base_pred[3], base_pred[3], base_pred[4]]


def test_interpolation_matches_the_mixed_conditionals(monkeypatch):
    rng = np.random.default_rng(2)
    train, test = _corpus(rng), _corpus(rng, 15)
    a, b = NGramLM(order=3, k=0.05).fit(train), NGramLM(order=1, k=1.0).fit(train)
    mix = Interpolated(a, b, 0.3)
    lp, pred = mix.event_log_probs(test)
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
    import seqspectral.lm

    monkeypatch.setattr(seqspectral.lm, "_MAX_DISTRIBUTION_CELLS", 40)
    np.testing.assert_array_equal(mix.event_log_probs(test)[1], pred)


def test_select_weight_maximises_held_out_likelihood():
    lp_a = np.log(np.array([0.9, 0.1, 0.5]))
    lp_b = np.log(np.array([0.2, 0.6, 0.5]))
    grid = np.linspace(0, 1, 101)
    best = grid[np.argmax([np.log(w * np.exp(lp_a) + (1 - w) * np.exp(lp_b)).sum() for w in grid])]
    assert select_weight(lp_a, lp_b, grid) == pytest.approx(best)


def test_unknown_probability_is_good_turing():
    c = Corpus.from_ids([[2, 2, 3], [4, 2]], V)  # singletons: 3 and 4, 5 tokens
    assert unknown_probability(c) == pytest.approx(2 / 6)
    c = Corpus.from_ids([[2, 2, 3, 3]], V)
    assert unknown_probability(c) == pytest.approx(1 / 5)


def _hmm_lm():
    from seqspectral.automata.hmm import HMM

    rng = np.random.default_rng(3)
    k = 3
    trans = rng.dirichlet(np.ones(k), size=k)
    emit = np.zeros((k, 5))
    full = rng.dirichlet(np.ones(4), size=k)  # ids 2, 3, 4 and stop
    emit[:, 2:] = full[:, :3]
    return HMM(rng.dirichlet(np.ones(k)), trans, emit, full[:, 3], V)


@pytest.mark.parametrize("mixed", [False, True])
def test_save_load_round_trip(tmp_path, mixed):
    rng = np.random.default_rng(4)
    train, test = _corpus(rng), Corpus.from_ids([[2, 0, 3], [], [4, 4, 2]], V)
    base = _hmm_lm()
    inner = Interpolated(base, NGramLM(order=2, k=0.2).fit(train), 0.6) if mixed else base
    lm = TrainedLM(UnknownEscape(inner, 0.02), "em", {"n_states": 3}, V, {"n_states": 3})
    save_lm(tmp_path / "m.npz", lm, {"file": "x"})
    loaded, header = load_lm(tmp_path / "m.npz")
    assert header["kind"] == "hmm" and loaded.method == "em" and loaded.vocabulary == V
    assert loaded.training["file"] == "x"
    for got, want in zip(loaded.model.event_log_probs(test), lm.model.event_log_probs(test)):
        np.testing.assert_array_equal(got, want)


def test_ngram_model_file_round_trip(tmp_path):
    rng = np.random.default_rng(5)
    train, test = _corpus(rng), _corpus(rng, 10)
    lm = TrainedLM(UnknownEscape(NGramLM(order=3, k=0.1).fit(train), 0.01), "ngram", {"order": 3, "k": 0.1}, V)
    save_lm(tmp_path / "n.npz", lm)
    loaded, header = load_lm(tmp_path / "n.npz")
    assert header["kind"] == "ngram"
    np.testing.assert_array_equal(loaded.model.event_log_probs(test)[0], lm.model.event_log_probs(test)[0])
