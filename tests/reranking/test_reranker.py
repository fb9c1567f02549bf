"""The reranker: learns a planted preference, baseline tree features against a hand count,
malformed lists passed through, model files."""

import statistics
import warnings
from collections import Counter

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.corpus import NBestList, Sentence
from seqspectral.perceptron.hashing import feature, slot
from seqspectral.reranking import (
    CandidateFeatures,
    CorpusScorer,
    FeatureMismatchError,
    Reranker,
    head_losses,
    mean_loss,
    parse_features,
)
from seqspectral.parsing.tree_lists import TreeLists
from seqspectral.reranking.parses import _WIDE, compact_parse_features, rerank_parses
from seqspectral.reranking.reranker import ANCHOR_GRID


def planted_lists(n_lists, seed):
    """Lists of 8 candidates: a noisy base score, a planted real feature and binary features
    of which two are planted; the loss is the rank under the planted score."""
    rng = np.random.default_rng(seed)
    groups = np.arange(n_lists + 1) * 8
    n = 8 * n_lists
    truth = rng.normal(size=n)
    binary = rng.integers(0, 50, size=(n, 3))
    truth += 1.5 * (binary == 7).any(axis=1) - 1.5 * (binary == 11).any(axis=1)
    base = truth + rng.normal(scale=1.5, size=n)
    real = truth + rng.normal(scale=1.0, size=n)
    loss = np.concatenate([np.argsort(np.argsort(-truth[a:a + 8])) for a in groups[:-1]]).astype(float)
    features = CandidateFeatures(groups, np.arange(n + 1) * 3, binary.ravel(), np.column_stack([base, real]),
                                 ["parser", "planted"])
    return features, loss


def test_reranker_learns_the_planted_preference():
    train, train_loss = planted_lists(600, 0)
    test, test_loss = planted_lists(300, 1)
    reranker = Reranker(epochs=8, hash_bits=10).fit(train, train_loss, dev=(test, test_loss))
    first = mean_loss(np.zeros(len(test), dtype=np.int64), test, test_loss)
    by_base = mean_loss(np.array([np.argmax(test.dense[a:b, 0]) for a, b in zip(test.groups[:-1], test.groups[1:])]),
                        test, test_loss)
    learned = mean_loss(reranker.choose(test), test, test_loss)
    assert learned < 0.6 * by_base < first
    assert reranker.dense_weight("planted") > 0 and reranker.dense_weight("parser") > 0
    assert reranker.sparse_weights_[7] > 0 > reranker.sparse_weights_[11]
    # per feature set (without, with the planted column): epoch 0 (the parser's ranking) once,
    # then epochs 1..8 from every anchor weight of the grid
    assert len(reranker.history_) == 2 * (1 + 8 * len(ANCHOR_GRID)) and reranker.history_[0]["epoch"] == 0
    assert reranker.history_[0]["held_out_loss"] == pytest.approx(by_base * len(test))
    # the choice: the largest gain over the parser's ranking less 2 standard errors, paired over lists,
    # among the models with the planted column (kept: it beats the best model without it)
    best = max((r for r in reranker.history_ if r["feature_set"] == "scorers"), key=lambda r: r["held_out_gain_bound"])
    assert reranker.selection_.chosen == {"feature_set": "scorers", "anchor": best["anchor"], "epochs": best["epoch"]}
    assert reranker.dropped_names_ == []
    assert learned * len(test) == pytest.approx(best["held_out_loss"])
    base_choice = [np.argmax(test.dense[a:b, 0]) for a, b in zip(test.groups[:-1], test.groups[1:])]
    gain = test_loss[test.groups[:-1] + base_choice] - test_loss[test.groups[:-1] + reranker.choose(test)]
    assert best["held_out_gain_bound"] == pytest.approx(gain.sum() - 2 * len(gain) ** 0.5 * statistics.stdev(gain))
    assert reranker.held_out_["base_loss"] == pytest.approx(by_base * len(test))
    assert reranker.held_out_["reranked_loss"] == pytest.approx(learned * len(test))


def _noise_lists(n_lists, seed):
    """Lists of 8 candidates sorted by the base score; the right one is rank 1 in 70% of
    them, another at random in the rest; the other features are noise."""
    rng = np.random.default_rng(seed)
    groups = np.arange(n_lists + 1) * 8
    n = 8 * n_lists
    base = np.concatenate([np.sort(rng.normal(size=8))[::-1] for _ in range(n_lists)])
    right = np.where(rng.random(n_lists) < 0.7, 0, rng.integers(1, 8, size=n_lists))
    loss = np.ones(n)
    loss[groups[:-1] + right] = 0
    features = CandidateFeatures(groups, np.arange(n + 1) * 3, rng.integers(0, 50, size=3 * n),
                                 np.column_stack([base, rng.normal(size=n)]), ["parser", "noise"])
    return features, loss


def test_the_parser_s_ranking_is_a_candidate_where_every_other_feature_is_noise():
    """Every other feature is noise and the right candidate is the base model's rank 1 in 70%
    of the lists, another at random in the rest: the perceptron moves (it is wrong on the
    30%) but what it learns is noise, so it loses on held-out lists, the chosen model is the
    untrained one, and its choice is rank 1 of every unseen list."""
    train, loss = _noise_lists(400, 5)
    test, _ = _noise_lists(200, 6)
    for dev in (None, _noise_lists(100, 7)):
        reranker = Reranker(epochs=5, hash_bits=10).fit(train, loss, dev=dev)
        assert reranker.selection_.chosen["epochs"] == 0
        base_loss = reranker.history_[0]["held_out_loss"]
        assert min(r["held_out_loss"] for r in reranker.history_ if r["epoch"]) > base_loss  # trained on noise: worse
        np.testing.assert_array_equal(reranker.choose(test), np.zeros(len(test)))
        assert reranker.held_out_["reranked_loss"] == reranker.held_out_["base_loss"] == base_loss


def test_a_chance_gain_on_a_few_held_out_lists_does_not_leave_the_parser_s_ranking():
    """Every other feature is noise (as above) and the held-out set is 12 lists: on some such
    sets a model trained on noise wins a few heads by chance, and the plain held-out argmax
    (``margin=0``) leaves the parser's ranking for it; the default choice needs a gain above
    two standard errors of the paired per-list gains, so it keeps rank 1 on every set."""
    train, loss = _noise_lists(400, 5)
    test, _ = _noise_lists(200, 6)
    plain = [Reranker(epochs=5, hash_bits=10, margin=0.0).fit(train, loss, dev=_noise_lists(12, 100 + seed))
             for seed in range(20)]
    assert any(r.selection_.chosen["epochs"] > 0 and r.held_out_["reranked_loss"] < r.held_out_["base_loss"]
               for r in plain)  # the hazard is there
    for seed in range(20):
        reranker = Reranker(epochs=5, hash_bits=10).fit(train, loss, dev=_noise_lists(12, 100 + seed))
        assert reranker.selection_.chosen["epochs"] == 0 and reranker.held_out_["gain_bound"] == 0.0
        np.testing.assert_array_equal(reranker.choose(test), np.zeros(len(test)))
    # 20 training lists, no dev: 4 held out by the seeded split, the same rule
    small = Reranker(epochs=5, hash_bits=10).fit(*_noise_lists(20, 8))
    assert small.held_out_["lists"] == 4 and small.selection_.chosen["epochs"] == 0
    np.testing.assert_array_equal(small.choose(test), np.zeros(len(test)))


def test_a_real_gain_on_a_few_held_out_lists_is_taken():
    """The planted preference judged on 80 held-out lists: its gain stands out of their noise."""
    train, train_loss = planted_lists(600, 0)
    test, test_loss = planted_lists(300, 1)
    reranker = Reranker(epochs=8, hash_bits=10).fit(train, train_loss, dev=planted_lists(80, 3))
    assert reranker.selection_.chosen["epochs"] > 0 and reranker.held_out_["gain_bound"] > 0
    base_choice = np.array([np.argmax(test.dense[a:b, 0]) for a, b in zip(test.groups[:-1], test.groups[1:])])
    assert mean_loss(reranker.choose(test), test, test_loss) < 0.7 * mean_loss(base_choice, test, test_loss)


def test_runs_average_one_perceptron_per_visiting_order(tmp_path):
    """``runs=3`` against three single perceptrons fitted on their own with ``random_state``
    0, 1, 2 (each its own held-out choice): the ensemble's scores are the mean of theirs, its
    held-out loss is recounted from its own choices on dev, and it round-trips."""
    train, loss = planted_lists(300, 0)
    dev, dev_loss = planted_lists(100, 3)
    singles = [Reranker(epochs=4, hash_bits=10, random_state=s).fit(train, loss, dev=(dev, dev_loss)) for s in range(3)]
    assert not np.allclose(singles[0].sparse_weights_, singles[1].sparse_weights_)  # the visiting orders differ
    ensemble = Reranker(epochs=4, hash_bits=10, runs=3).fit(train, loss, dev=(dev, dev_loss))
    mean = np.mean([r.scores(dev) for r in singles], axis=0)
    np.testing.assert_allclose(ensemble.scores(dev), mean, rtol=1e-5, atol=1e-5)
    picked = dev_loss[dev.groups[:-1] + ensemble.choose(dev)]
    assert ensemble.held_out_["reranked_loss"] == pytest.approx(picked.sum())
    assert ensemble.held_out_["base_loss"] == singles[0].held_out_["base_loss"]
    assert ensemble.held_out_["members"] == [{"chosen": r.selection_.chosen, "reranked_loss": r.held_out_["reranked_loss"]}
                                           for r in singles]
    assert ensemble.selection_.chosen == singles[0].selection_.chosen
    assert {r["member"] for r in ensemble.history_} == {0, 1, 2}
    serialize.save(tmp_path / "r.npz", ensemble)
    np.testing.assert_allclose(serialize.load(tmp_path / "r.npz", kind="reranker").scores(dev), ensemble.scores(dev))


def _with_noise_column(features, seed):
    """The same candidates with one more real-valued column of pure noise, ``noise``."""
    noise = np.random.default_rng(seed).normal(size=features.n_candidates)
    return features.with_dense(["noise"], [noise])


def test_a_scorer_column_of_noise_is_dropped_and_an_informative_one_kept():
    """The feature-set part of the held-out choice. A scorer column of pure noise beside the
    planted features: with ``margin=0`` the model with it wins on some seeds by chance (the
    hazard); by the default rule the best model with it never beats the best model without it
    by two standard errors, so it is dropped, and the reranker is the one without it. The
    planted real-valued column as the scorer: kept, with a positive weight."""
    train, train_loss = planted_lists(300, 0)
    dev, dev_loss = planted_lists(150, 3)
    test, _ = planted_lists(100, 1)
    informative = ["parser", "planted"]
    base_only = [CandidateFeatures(f.groups, f.indptr, f.indices, f.dense[:, :1], ["parser"])
                 for f in (train, dev, test)]
    without = Reranker(epochs=4, hash_bits=10).fit(base_only[0], train_loss, dev=(base_only[1], dev_loss))
    chance = [Reranker(epochs=4, hash_bits=10, margin=0.0).fit(
        _with_noise_column(base_only[0], 10 * seed), train_loss, dev=(_with_noise_column(base_only[1], 10 * seed + 1),
                                                                      dev_loss)).selection_.chosen["feature_set"]
              for seed in range(10)]
    assert "scorers" in chance
    for seed in range(10):
        noisy = [_with_noise_column(f, 10 * seed + i) for i, f in enumerate(base_only)]
        reranker = Reranker(epochs=4, hash_bits=10).fit(noisy[0], train_loss, dev=(noisy[1], dev_loss))
        assert reranker.selection_.chosen["feature_set"] == "base"
        assert reranker.dense_names_ == ["parser"] and reranker.dropped_names_ == ["noise"]
        sets = reranker.held_out_["feature_sets"]
        assert sets["base"]["gain_bound_over_base"] == 0.0 and sets["scorers"]["gain_bound_over_base"] <= 0.0
        # the kept model is the one trained without the column (same lists, same order)
        np.testing.assert_array_equal(reranker.choose(noisy[2]), without.choose(base_only[2]))
        np.testing.assert_array_equal(reranker.choose(base_only[2]), without.choose(base_only[2]))
    reranker = Reranker(epochs=4, hash_bits=10).fit(train, train_loss, dev=(dev, dev_loss))
    assert reranker.selection_.chosen["feature_set"] == "scorers" and reranker.dense_names_ == informative
    assert reranker.held_out_["feature_sets"]["scorers"]["gain_bound_over_base"] > 0
    assert reranker.dense_weight("planted") > 0
    # forced either way, the choice is not made
    forced = Reranker(epochs=4, hash_bits=10, feature_set="scorers").fit(noisy[0], train_loss, dev=(noisy[1], dev_loss))
    assert forced.dense_names_ == ["parser", "noise"] and {r["feature_set"] for r in forced.history_} == {"scorers"}


def test_the_feature_set_choice_is_the_margin_rule_between_the_models_with_and_without_the_scorers():
    """``feature_set="auto"`` equals: train with the scorer columns forced in, train without them
    (the base score alone), keep the columns iff the paired per-list gain on the dev lists is
    above 2 standard errors — and the kept model is that one (what the ablation table reads)."""
    from seqspectral.reranking.held_out_gain import gain_bound

    train, train_loss = planted_lists(300, 0)
    dev, dev_loss = planted_lists(150, 3)
    base_only = [CandidateFeatures(f.groups, f.indptr, f.indices, f.dense[:, :1], ["parser"]) for f in (train, dev)]
    without = Reranker(epochs=3, hash_bits=10).fit(base_only[0], train_loss, dev=(base_only[1], dev_loss))
    seen = set()
    for features in ((train, dev), tuple(_with_noise_column(f, 20 + i) for i, f in enumerate(base_only))):
        auto = Reranker(epochs=3, hash_bits=10).fit(features[0], train_loss, dev=(features[1], dev_loss))
        forced = Reranker(epochs=3, hash_bits=10, feature_set="scorers").fit(features[0], train_loss,
                                                                              dev=(features[1], dev_loss))
        first = dev.groups[:-1]
        gain = dev_loss[first + without.choose(base_only[1])] - dev_loss[first + forced.choose(features[1])]
        expected = "scorers" if gain_bound(gain, 2.0) > 0 else "base"
        assert auto.selection_.chosen["feature_set"] == expected
        np.testing.assert_array_equal(auto.choose(features[1]), (forced if expected == "scorers" else without).choose(
            features[1] if expected == "scorers" else base_only[1]))
        seen.add(expected)
    assert seen == {"base", "scorers"}


def test_a_reranker_that_dropped_its_scorers_round_trips_and_still_checks_names(tmp_path):
    train, loss = planted_lists(60, 2)
    base_only = CandidateFeatures(train.groups, train.indptr, train.indices, train.dense[:, :1], ["parser"])
    noisy = _with_noise_column(base_only, 1)
    reranker = Reranker(epochs=2, hash_bits=10, feature_set="base").fit(noisy, loss)  # no dev: a held-out 20%
    assert reranker.dropped_names_ == ["noise"] and reranker.selection_.chosen["feature_set"] == "base"
    serialize.save(tmp_path / "r.npz", reranker)
    loaded = serialize.load(tmp_path / "r.npz", kind="reranker")
    assert loaded.dropped_names_ == ["noise"] and loaded.dense_names_ == ["parser"]
    np.testing.assert_allclose(loaded.scores(noisy), reranker.scores(base_only))
    with pytest.raises(FeatureMismatchError, match="dropped"):
        loaded.choose(_with_noise_column(base_only, 1).with_dense(["other"], [np.zeros(noisy.n_candidates)]))


def test_reranker_file_round_trip_and_feature_check(tmp_path):
    train, loss = planted_lists(50, 2)
    reranker = Reranker(epochs=2, hash_bits=10).fit(train, loss)
    serialize.save(tmp_path / "r.npz", reranker)
    loaded = serialize.load(tmp_path / "r.npz", kind="reranker")
    np.testing.assert_allclose(loaded.scores(train), reranker.scores(train))
    other = CandidateFeatures(train.groups, train.indptr, train.indices, train.dense, ["parser", "other"])
    with pytest.raises(FeatureMismatchError, match="planted"):
        loaded.choose(other)


def _sentence(heads, upos, forms=None):
    n = len(heads)
    forms = forms or [f"w{i}" for i in range(1, n + 1)]
    return Sentence(forms, forms, upos, upos, heads, ["dep"] * n)


def test_tree_features_are_the_paper_s_baseline_features_counted_by_hand():
    # root -> 2; 2 has left child 1 and right children 3, 4; 4 has right child 5
    s = _sentence([2, 0, 2, 2, 4], ["D", "N", "A", "V", "X"])
    features = parse_features([NBestList("1", [s], [0.0])], templates="baseline")
    NONE, ROOT = -7, -1
    import zlib

    tag = {t: zlib.crc32(t.encode()) for t in "DNAVX"}
    expected = Counter()
    # left x head x right triples, every head (the root row too), NONE for an empty side
    for left, head, right in [(NONE, ROOT, "N"), ("D", "N", "A"), ("D", "N", "V"), (NONE, "D", NONE),
                              (NONE, "A", NONE), (NONE, "V", "X"), (NONE, "X", NONE)]:
        ids = [tag.get(x, x) if isinstance(x, str) else x for x in (left, head, right)]
        expected[slot(feature(200, *ids, 0), _WIDE)] += 1
    # modifier x head x grandparent x side
    for mod, head, grand, side in [("D", "N", ROOT, 1), ("N", ROOT, NONE, 2), ("A", "N", ROOT, 2),
                                   ("V", "N", ROOT, 2), ("X", "V", "N", 2)]:
        ids = [tag.get(x, x) if isinstance(x, str) else x for x in (mod, head, grand)]
        expected[slot(feature(201, *ids, side), _WIDE)] += 1
    assert Counter(features.indices.tolist()) == expected
    assert features.dense_names == ["parser"]


def test_context_features_counted_by_hand():
    # the tree of the test above: root -> 2; 2 has left child 1 and right children 3, 4; 4 has right child 5
    s = _sentence([2, 0, 2, 2, 4], ["D", "N", "A", "V", "X"])
    nbest = [NBestList("1", [s], [0.0])]
    extra = Counter(parse_features(nbest, templates="context").indices.tolist())
    extra.subtract(Counter(parse_features(nbest, templates="baseline").indices.tolist()))
    import zlib

    atom = {t: zlib.crc32(t.encode()) for t in ["D", "N", "A", "V", "X", "w1", "w2", "w3", "w4", "w5"]}
    NONE, STOP, ROOT = -7, -8, -1
    L, R = 1, 2  # modifier left / right of its head; the grandparent code is 0 none, 1 head left of it, 2 right
    by_modifier = [  # g, h, m (POS or word of each), sibling s, direction codes, subtree-size bucket of m
        # (g, h, m, wg, wh, wm, s_pos, s_word, d, dg, size)
        (ROOT, "N", "D", ROOT, "w2", "w1", NONE, NONE, L, 2, 1),
        (NONE, ROOT, "N", NONE, ROOT, "w2", NONE, NONE, R, 0, 3),
        (ROOT, "N", "A", ROOT, "w2", "w3", NONE, NONE, R, 2, 1),
        (ROOT, "N", "V", ROOT, "w2", "w4", "A", "w3", R, 2, 2),
        ("N", "V", "X", "w2", "w4", "w5", NONE, NONE, R, 2, 1),
    ]
    expected = []
    for g, h, m, wg, wh, wm, sp, sw, d, dg, size in by_modifier:
        expected += [(300, g, h, m, d * 3 + dg), (301, wg, h, m, d), (302, g, wh, m, d), (303, g, h, wm, d),
                     (304, g, m, d * 3 + dg, 0), (310, h, sp, m, d), (311, sp, m, d, 0), (312, wh, sp, m, d),
                     (313, h, sw, m, d), (314, h, sp, wm, d), (320, h, m, size, d), (321, wm, h, g, d)]
    by_head = [  # h, its word, left and right dependents, outermost left and right dependent, last feature
        (ROOT, ROOT, 0, 1, NONE, "N", (340, 1, 0, 0, 0)), ("D", "w1", 0, 0, NONE, NONE, (341, "D", 1, 0, 0)),
        ("N", "w2", 1, 2, "D", "V", (341, "N", 3, 0, 0)), ("A", "w3", 0, 0, NONE, NONE, (341, "A", 1, 0, 0)),
        ("V", "w4", 0, 1, NONE, "X", (341, "V", 2, 0, 0)), ("X", "w5", 0, 0, NONE, NONE, (341, "X", 1, 0, 0)),
    ]
    for h, w, n_left, n_right, outer_left, outer_right, last in by_head:
        expected += [(330, h, n_left, n_right, 0), (331, w, n_left, n_right, 0), (332, h, outer_left, outer_right, 0),
                     (333, h, outer_left, STOP, 1), (333, h, outer_right, STOP, 2), last]
    want = Counter(slot(feature(t, *[atom.get(x, x) if isinstance(x, str) else x for x in rest]), _WIDE)
                   for t, *rest in expected)
    assert +extra == want and len(expected) == 12 * 5 + 6 * 6
    assert parse_features(nbest, templates="context").templates == "context"


def test_lexical_features_counted_by_hand():
    # the tree above (root -> 2; 2: left 1, right 3, 4; 4: right 5) and a PP shape: root -> 1, 1 -> 3, 3 -> 2
    upos, xpos = ["D", "N", "A", "V", "X"], ["d", "n", "a", "v", "x"]
    forms = ["w1", "w2", "w3", "w4", "w5"]
    trees = [Sentence(forms, forms, upos, xpos, [2, 0, 2, 2, 4], ["dep"] * 5),
             Sentence(forms[:3], forms[:3], upos[:3], xpos[:3], [0, 3, 1], ["dep"] * 3)]
    nbest = [NBestList(str(i), [t], [0.0]) for i, t in enumerate(trees)]
    extra = Counter(parse_features(nbest, templates="lexical").indices.tolist())
    extra.subtract(Counter(parse_features(nbest, templates="context").indices.tolist()))
    import zlib

    atom = {t: zlib.crc32(t.encode()) for t in upos + xpos + forms}
    NONE, ROOT = -7, -1
    L, R = 1, 2
    by_modifier = [  # g, h, m as (word, UPOS, XPOS); inner sibling s (word, XPOS); m's outermost dependent on
        # h's side c (word, UPOS); direction of h -> m; of g -> h (0 none, 1 h left of g, 2 right)
        (ROOT, ROOT, ROOT, "w2", "N", "n", "w1", "D", "d", NONE, NONE, NONE, NONE, L, 2),
        (NONE, NONE, NONE, ROOT, ROOT, ROOT, "w2", "N", "n", NONE, NONE, "w1", "D", R, 0),
        (ROOT, ROOT, ROOT, "w2", "N", "n", "w3", "A", "a", NONE, NONE, NONE, NONE, R, 2),
        (ROOT, ROOT, ROOT, "w2", "N", "n", "w4", "V", "v", "w3", "a", NONE, NONE, R, 2),
        ("w2", "N", "n", "w4", "V", "v", "w5", "X", "x", NONE, NONE, NONE, NONE, R, 2),
        # the second tree
        (NONE, NONE, NONE, ROOT, ROOT, ROOT, "w1", "D", "d", NONE, NONE, NONE, NONE, R, 0),
        ("w1", "D", "d", "w3", "A", "a", "w2", "N", "n", NONE, NONE, NONE, NONE, L, 2),
        (ROOT, ROOT, ROOT, "w1", "D", "d", "w3", "A", "a", NONE, NONE, "w2", "N", R, 2),
    ]
    code = {x: atom.get(x, x) if isinstance(x, str) else x for row in by_modifier for x in row}
    expected = []
    for wg, pg, xg, wh, ph, xh, wm, pm, xm, ws, xs, wc, pc, d, dg in by_modifier:
        expected += [(400, wg, ph, wm, d * 3 + dg), (401, wg, wh, pm, d), (402, xg, xh, xm, d * 3 + dg),
                     (403, xh, xs, xm, d), (404, ws, wm, ph, d), (405, wh, pm, wc, d), (406, ph, pm, wc, d),
                     (407, wh, wm, wc, d), (408, xh, wm, wc, d), (409, pg, ph, pm, code[pc] * 4 + d)]
    want = Counter(slot(feature(t, *[code.get(x, x) for x in rest]), _WIDE) for t, *rest in expected)
    assert +extra == want and len(expected) == 10 * 8
    assert parse_features(nbest, templates="lexical").templates == "lexical"


def test_a_reranker_refuses_candidates_described_by_other_templates(tmp_path):
    s = _sentence([2, 0, 2, 2, 4], ["D", "N", "A", "V", "X"])
    t = _sentence([0, 1, 2, 3, 4], ["D", "N", "A", "V", "X"])
    nbest = [NBestList("1", [s, t], [1.0, 0.0])]
    reranker = Reranker(epochs=1, hash_bits=10).fit(parse_features(nbest, templates="baseline"), np.array([0.0, 3.0]))
    serialize.save(tmp_path / "r.npz", reranker)
    loaded = serialize.load(tmp_path / "r.npz")
    assert loaded.templates_ == "baseline"
    with pytest.raises(FeatureMismatchError, match="context"):
        loaded.choose(parse_features(nbest))


class CountWords:
    """A stand-in scorer on the per-item protocol: log-score = −(number of words headed by word 1)."""

    reading_ = None  # read as the default Reading: UPOS

    def log_probs(self, corpus):
        bounds = zip(corpus.offsets[:-1], corpus.offsets[1:])
        return np.array([-float(np.sum(corpus.heads[a:b] == 1)) for a, b in bounds])


def test_scorer_encodes_in_the_model_s_vocabulary():
    from seqspectral.corpus import Vocabulary

    class TagIds:
        vocabulary = Vocabulary(["B", "A", "C"])

        def log_probs(self, corpus):
            assert corpus.vocabulary == self.vocabulary
            return np.array([float(corpus.symbols[a]) for a in corpus.offsets[:-1]])

    sentences = [_sentence([0, 1, 1], ["A", "B", "C"]), _sentence([0, 1], ["C", "A"])]
    expected = [TagIds.vocabulary.id("A"), TagIds.vocabulary.id("C")]
    np.testing.assert_array_equal(CorpusScorer(TagIds(), "ids").log_probs(sentences), expected)


def test_rerank_parses_passes_malformed_lists_through_in_order():
    upos = ["A", "B", "C"]
    good = [_sentence([0, 1, 1], upos), _sentence([0, 1, 2], upos), _sentence([2, 0, 2], upos)]
    lists = [
        NBestList("s1", good, [3.0, 2.0, 1.0]),
        NBestList("s2", [_sentence([0, 3, 2], upos), good[1]], [5.0, 1.0]),  # rank 1 has a cycle
        NBestList("s3", [good[0], good[2]], [1.0, 0.5]),
    ]
    gold = [good[2], good[1], good[2]]
    scorer = CorpusScorer(CountWords(), "count")
    valid = [lists[0], lists[2]]
    features = parse_features(valid, [scorer])
    np.testing.assert_array_equal(features.dense[:, 1], [-2, -1, 0, -2, 0])
    np.testing.assert_array_equal(head_losses(valid, [gold[0], gold[2]]), [3, 2, 0, 3, 0])
    reranker = Reranker(epochs=3, hash_bits=12).fit(features, head_losses(valid, [gold[0], gold[2]]))
    best, problems = rerank_parses(reranker, lists, [scorer])
    assert [s.metadata["sent_id"] for s in best] == ["s1", "s2", "s3"]
    assert problems[0][0] == 1 and "not a tree" in problems[0][1]
    np.testing.assert_array_equal(best[1].heads, [0, 3, 2])  # passed through: rank 1
    np.testing.assert_array_equal(best[0].heads, good[2].heads)
    np.testing.assert_array_equal(best[2].heads, good[2].heads)


def test_first_k_candidates_of_every_list():
    features, loss = planted_lists(5, 3)
    short = features.first(3)
    assert len(short) == 5 and short.n_candidates == 15
    for i in range(5):
        for r in range(3):
            row, old = short.groups[i] + r, features.groups[i] + r
            np.testing.assert_array_equal(short.indices[short.indptr[row]:short.indptr[row + 1]],
                                          features.indices[features.indptr[old]:features.indptr[old + 1]])
            np.testing.assert_array_equal(short.dense[row], features.dense[old])


def test_features_every_candidate_shares_are_left_out_without_changing_the_reranker():
    features, loss = planted_lists(60, 4)
    rng = np.random.default_rng(4)
    # every candidate of a list also gets its list's own shared slots (one of them twice)
    rows = []
    for g in range(len(features)):
        shared = rng.integers(0, 1 << 20, size=5).tolist()
        shared.append(shared[0])
        for c in range(features.groups[g], features.groups[g + 1]):
            rows.append(features.indices[features.indptr[c]:features.indptr[c + 1]].tolist() + shared)
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
    full = CandidateFeatures(features.groups, indptr, np.concatenate(rows), features.dense, features.dense_names)
    compact = full.without_common()
    assert len(compact.indices) <= len(features.indices)
    for c in range(full.n_candidates):  # what is left of a row is the row minus the list's common multiset
        g = np.searchsorted(full.groups, c, side="right") - 1
        common = Counter(full.indices[full.indptr[full.groups[g]]:full.indptr[full.groups[g] + 1]].tolist())
        for d in range(full.groups[g] + 1, full.groups[g + 1]):
            common &= Counter(full.indices[full.indptr[d]:full.indptr[d + 1]].tolist())
        row = Counter(full.indices[full.indptr[c]:full.indptr[c + 1]].tolist())
        assert Counter(compact.indices[compact.indptr[c]:compact.indptr[c + 1]].tolist()) == row - common
    a = Reranker(epochs=3, hash_bits=12).fit(full, loss)
    b = Reranker(epochs=3, hash_bits=12).fit(compact, loss)
    assert a.selection_.chosen == b.selection_.chosen
    np.testing.assert_array_equal(a.choose(full), b.choose(compact))


def test_lists_read_a_chunk_at_a_time_give_the_features_of_the_whole_file(tmp_path):
    from seqspectral.corpus import write_nbest
    from seqspectral.reranking.files import KINDS, read_training_lists

    upos = ["A", "B", "C", "A"]
    trees = [[0, 1, 1, 3], [2, 0, 2, 3], [0, 1, 2, 3], [4, 4, 4, 0], [0, 0, 2, 2]]  # the last: two roots
    lists = [NBestList(str(i), [_sentence(trees[(i + r) % 5], upos) for r in range(1 + i % 3)],
                       np.arange(1 + i % 3, 0, -1.0)) for i in range(7)]
    gold = [_sentence(trees[i % 5], upos) for i in range(7)]
    write_nbest(tmp_path / "l.conllu", lists)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # several roots in candidates are no news
        read = read_training_lists(KINDS["parses"], tmp_path / "l.conllu", gold, chunk=2)
    whole = parse_features(lists).without_common()
    sliced = compact_parse_features(TreeLists.from_nbest(lists), chunk=3)  # lists 0:3, 3:6, 6:7 of them in memory
    for name in ("groups", "indptr", "indices", "dense"):
        np.testing.assert_array_equal(getattr(read.features, name), getattr(whole, name))
        np.testing.assert_array_equal(getattr(sliced, name), getattr(whole, name))
    np.testing.assert_array_equal(read.loss, head_losses(lists, gold))
    assert read.problems == [] and read.n_lists == 7 and read.sizes.tolist() == [4.0] * 7
