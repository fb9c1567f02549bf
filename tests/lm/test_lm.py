"""seqspectral.lm: unknown symbols and model files, against brute-force probing."""

from __future__ import annotations

import numpy as np
import pytest

from seqspectral.corpus import Corpus, Vocabulary
from seqspectral.lm import Interpolated, NGramLM, TrainedLM, UnknownEscape, load_lm, save_lm, unseen_mass
from seqspectral.selection import SelectionResult

from tests.references import conditional

V = Vocabulary(["a", "b", "c"])  # ids 2, 3, 4


def _corpus(rng, n=80):
    return Corpus.from_ids([rng.integers(2, 5, size=rng.integers(0, 7)) for _ in range(n)], V)


def _conditional(model, history, event) -> float:
    return conditional(model, history, event, V)


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
    _, pred = UnknownEscape(base, 0.01).event_log_probs(test)[:2]
    _, base_pred = base.event_log_probs(Corpus.from_ids([[2, 3], [], []], V))[:2]
    # events: 2 UNK 3 stop | UNK stop | stop; UNK shares the history of the next known event
    assert pred.tolist() == [base_pred[0], base_pred[1], base_pred[1], base_pred[2],
                             base_pred[3], base_pred[3], base_pred[4]]


def test_unseen_mass_is_good_turing():
    c = Corpus.from_ids([[2, 2, 3], [4, 2]], V)  # singletons: 3 and 4, 5 tokens
    assert unseen_mass(np.bincount(c.symbols)) == pytest.approx(2 / 6)
    c = Corpus.from_ids([[2, 2, 3, 3]], V)
    assert unseen_mass(np.bincount(c.symbols)) == pytest.approx(1 / 5)


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
    lm = TrainedLM(UnknownEscape(inner, 0.02), "em", {"n_states": 3}, V, SelectionResult("dev", {"n_states": 3}))
    save_lm(tmp_path / "m.npz", lm, {"file": "x"})
    loaded = load_lm(tmp_path / "m.npz")
    assert isinstance(loaded, TrainedLM) and loaded.method == "em" and loaded.vocabulary == V
    assert loaded.training["file"] == "x" and loaded.selection == lm.selection
    # nested models keep their arrays as arrays under prefixed names, never as JSON lists
    with np.load(tmp_path / "m.npz") as npz:
        assert "model/model/transitions" in npz.files or "model/model/model/transitions" in npz.files
        assert ("model/model/lower/keys" in npz.files) == mixed
    for got, want in zip(loaded.model.event_log_probs(test), lm.model.event_log_probs(test)):
        np.testing.assert_array_equal(got, want)


def test_ngram_model_file_round_trip(tmp_path):
    rng = np.random.default_rng(5)
    train, test = _corpus(rng), _corpus(rng, 10)
    lm = TrainedLM(UnknownEscape(NGramLM(order=3, k=0.1).fit(train), 0.01), "ngram", {"order": 3, "k": 0.1}, V)
    save_lm(tmp_path / "n.npz", lm)
    loaded = load_lm(tmp_path / "n.npz")
    assert isinstance(loaded, TrainedLM) and loaded.selection is None
    np.testing.assert_array_equal(loaded.model.event_log_probs(test)[0], lm.model.event_log_probs(test)[0])
