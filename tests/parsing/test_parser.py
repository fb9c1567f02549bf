"""The parser and the label classifier learn a planted arc-factored grammar; model files."""

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.base import NotFittedError
from seqspectral.corpus import Sentence
from seqspectral.corpus.dependency_trees import head_errors, is_projective
from seqspectral.parsing import DependencyLabeler, DependencyParser, attachment_scores
from seqspectral.parsing._arc_kernels import direction_distance
from seqspectral.parsing._eisner_kernels import eisner

TAGS = ["A", "B", "C", "D"]


def planted_sentences(n_sentences, seed, theta=None, decode=eisner):
    """Sentences whose trees are the ``decode`` trees (default Eisner's) of a planted score
    θ[head tag, modifier tag, direction] − 0.4 · (binned distance) (tag 0 = the root; a model
    in the parser's feature space) and whose labels are a function of the two tags."""
    rng = np.random.default_rng(seed)
    if theta is None:
        theta = np.random.default_rng(0).normal(size=(len(TAGS) + 1, len(TAGS) + 1, 2))
    out = []
    for _ in range(n_sentences):
        n = int(rng.integers(3, 11))
        tags = rng.integers(1, len(TAGS) + 1, size=n)
        ids = np.concatenate(([0], tags))
        S = np.full((n + 1, n + 1), -np.inf)
        for h in range(n + 1):
            for m in range(1, n + 1):
                if h != m:
                    S[h, m] = theta[ids[h], ids[m], int(h < m)] - 0.4 * (direction_distance(h, m) % 16)
        heads = decode(S, True)
        upos = [TAGS[t - 1] for t in tags]
        forms = [f"{u.lower()}{rng.integers(0, 3)}" for u in upos]
        labels = ["root" if h == 0 else f"{upos[h - 1]}>{u}" for h, u in zip(heads, upos)]
        out.append(Sentence(forms, forms, upos, upos, heads, labels, {"sent_id": str(len(out) + 1)}))
    return out, theta


@pytest.fixture(scope="module")
def planted():
    train, theta = planted_sentences(500, 1)
    test, _ = planted_sentences(100, 2, theta)
    parser = DependencyParser(epochs=6, hash_bits=18).fit(train, dev=test[:20])
    return parser, train, test


def test_parser_recovers_the_planted_trees(planted):
    parser, _, test = planted
    pred = parser.parse(test)
    scores = attachment_scores(test, pred)
    assert scores["uas"] > 93.0
    assert scores["las"] > 92.0
    # a baseline that attaches every word to its left neighbour is far worse
    left = [s.__class__(s.forms, s.lemmas, s.upos, s.xpos, np.arange(len(s)), s.deprels) for s in test]
    assert attachment_scores(test, left)["uas"] < 60.0
    for s in pred:
        assert head_errors(s.heads) is None and is_projective(s.heads)
    assert [r["epoch"] for r in parser.history_] == [1, 2, 3, 4, 5, 6]
    assert all("dev_uas" in r for r in parser.history_)


def test_kbest_lists_start_with_the_1best_tree_and_are_distinct(planted):
    parser, _, test = planted
    lists = parser.kbest(test[:10], 8)
    one_best = parser.predict(test[:10])
    for nbest, heads, sentence in zip(lists, one_best, test[:10]):
        assert nbest.sent_id == sentence.metadata["sent_id"]
        np.testing.assert_array_equal(nbest.candidates[0].heads, heads)
        assert len({tuple(c.heads) for c in nbest.candidates}) == len(nbest)
        assert np.all(np.diff(nbest.scores) <= 1e-9)
        assert all(c.deprels and len(c.deprels) == len(sentence) for c in nbest.candidates)


def test_model_file_round_trip(planted, tmp_path):
    parser, _, test = planted
    path = tmp_path / "parser.npz"
    serialize.save(path, parser)
    loaded = serialize.load(path, kind="dependency_parser")
    assert [s.heads.tolist() for s in loaded.parse(test)] == [s.heads.tolist() for s in parser.parse(test)]
    assert [s.deprels for s in loaded.parse(test)] == [s.deprels for s in parser.parse(test)]


def test_files_of_the_earlier_parser_still_load(planted):
    """Model files written before FEATS features, PA steps and single_root="auto" (their
    headers lack those) load as the parser they were trained as."""
    _, train, test = planted
    old = DependencyParser(epochs=2, hash_bits=16, use_feats=False, update="perceptron", single_root=True,
                           labels=False).fit(train[:100])
    header, arrays = old.to_state()
    for name in ("use_feats", "update"):
        del header["params"][name]
    del header["single_root"]
    loaded = DependencyParser.from_state(header, arrays)
    assert [h.tolist() for h in loaded.predict(test)] == [h.tolist() for h in old.predict(test)]


def test_labeler_alone_learns_the_planted_labels(planted):
    _, train, test = planted
    labeler = DependencyLabeler(epochs=3, hash_bits=16).fit(train)
    predicted = labeler.predict(test)
    gold = [s.deprels for s in test]
    accuracy = np.mean([a == b for p, g in zip(predicted, gold) for a, b in zip(p, g)])
    assert accuracy > 0.98


def test_estimator_conventions():
    from sklearn.base import clone

    parser = DependencyParser(epochs=3, use_xpos=True)
    assert clone(parser).get_params() == parser.get_params()
    with pytest.raises(NotFittedError):
        parser.predict([])
    with pytest.raises(ValueError, match="epochs"):
        DependencyParser(epochs=0).fit(planted_sentences(3, 0)[0])


def test_training_is_deterministic():
    train, _ = planted_sentences(60, 5)
    a = DependencyParser(epochs=2, hash_bits=14, labels=False).fit(train)
    b = DependencyParser(epochs=2, hash_bits=14, labels=False).fit(train)
    np.testing.assert_array_equal(a.weights_, b.weights_)


def test_second_order_parser_learns_the_planted_trees_too(planted):
    _, train, test = planted
    parser = DependencyParser(2, epochs=4, hash_bits=18, labels=False).fit(train, dev=test[:20])
    assert attachment_scores(test, parser.parse(test))["uas"] > 93.0
    assert parser.selection_.chosen["epochs"] in (1, 2, 3, 4)
    lists = parser.kbest(test[:10], 6)  # second-order k-best: best first, the 1-best tree on top
    for nbest, heads in zip(lists, parser.predict(test[:10])):
        np.testing.assert_array_equal(nbest.candidates[0].heads, heads)
        assert np.all(np.diff(nbest.scores) <= 1e-9) and len({tuple(c.heads) for c in nbest.candidates}) == len(nbest)


def test_dev_selection_keeps_the_best_epoch(planted):
    parser, _, test = planted
    best = max(parser.history_, key=lambda r: r["dev_uas"])
    assert parser.selection_.chosen["epochs"] == best["epoch"]
    dev_uas = attachment_scores(test[:20], parser.parse(test[:20]))["uas"]
    assert dev_uas == pytest.approx(best["dev_uas"])


def test_columns_a_parser_does_not_read_change_nothing():
    """``use_lemma=False`` / ``use_xpos=False``: the parser and its labeler are the ones trained
    on copies whose LEMMA and XPOS read ``_`` (the reference), whatever those columns hold, at
    training and at parsing time (before, the labeler read XPOS and both read LEMMA always)."""
    from dataclasses import replace

    train, theta = planted_sentences(150, 3)
    test, _ = planted_sentences(30, 4, theta)
    rng = np.random.default_rng(5)

    def noise(sentences):  # lemma and XPOS that mean nothing, different on every call
        return [replace(s, lemmas=[f"l{rng.integers(9)}" for _ in s.forms], xpos=[f"x{rng.integers(9)}" for _ in s.forms])
                for s in sentences]

    def blank(sentences):
        return [replace(s, lemmas=["_"] * len(s), xpos=["_"] * len(s)) for s in sentences]

    small = dict(epochs=2, hash_bits=16)
    parser = DependencyParser(use_lemma=False, use_xpos=False, **small).fit(noise(train))
    reference = DependencyParser(use_xpos=False, **small).fit(blank(train))  # no XPOS features: the tag bit
    assert not parser.labeler_.use_lemma and not parser.labeler_.use_xpos
    np.testing.assert_array_equal(parser.weights_, reference.weights_)
    np.testing.assert_array_equal(parser.labeler_.weights_, reference.labeler_.weights_)
    ours, theirs = parser.parse(noise(test)), reference.parse(blank(test))
    assert [s.deprels for s in ours] == [s.deprels for s in theirs]
    assert all(np.array_equal(a.heads, b.heads) for a, b in zip(ours, theirs))
    np.testing.assert_array_equal(parser.kbest_trees(noise(test), 3).scores, reference.kbest_trees(blank(test), 3).scores)
    # a parser that reads them is not blind to them
    reading = DependencyParser(**small).fit(noise(train))
    assert not np.array_equal(reading.weights_, reference.weights_)
