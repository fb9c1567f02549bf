"""The features tagger, the lemmatiser and the every-column model: edit scripts worked out by
hand, a planted rule recovered on words never seen in training, model files, and the bundled
sample."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.corpus import read_conllu
from seqspectral.corpus.sentence import Sentence
from seqspectral.tagging import ColumnTaggers, FeaturesTagger, Lemmatiser
from seqspectral.tagging.lemmatiser import apply_script, edit_script


@pytest.mark.parametrize("form, lemma, script", [
    ("running", "run", ("lower", "", "", "ning", "")),
    ("The", "the", ("lower", "", "", "", "")),
    ("Apples", "apple", ("lower", "", "", "s", "")),
    ("IBM", "IBM", ("keep", "", "", "", "")),
    ("better", "good", ("lower", "", "", "better", "good")),
    ("unhappiest", "happy", ("lower", "un", "", "iest", "y")),
])
def test_edit_scripts_worked_out_by_hand(form, lemma, script):
    assert edit_script(form, lemma) == script
    assert apply_script(script, form) == lemma


def test_a_script_applies_only_to_forms_that_end_as_it_removes():
    assert apply_script(("lower", "", "", "ies", "y"), "Parties") == "party"
    assert apply_script(("lower", "", "", "ies", "y"), "cats") is None
    assert apply_script(("lower", "un", "", "", ""), "u") is None


def test_candidate_scripts_are_those_that_apply_seen_with_the_upos_or_else_all():
    """The lemmatiser's candidates (Numba, on code points) against :func:`apply_script` tried
    on every script, over forms with letters that change length or case when lower-cased."""
    rng = np.random.default_rng(0)
    alphabet = list("abAB") + ["İ", "ß", "Σ", "ς", "é", "-", "1"]
    forms = sorted({"".join(rng.choice(alphabet, size=rng.integers(0, 6))) for _ in range(300)})
    lemmas = ["".join(rng.choice(alphabet, size=rng.integers(0, 5))) for _ in forms]
    model = Lemmatiser()
    model.scripts_ = sorted({edit_script(f, l) for f, l in zip(forms, lemmas)} | {("keep", "", "", "", "x")})
    model.by_upos_ = {"NOUN": sorted(rng.choice(len(model.scripts_), size=40, replace=False).tolist()), "X": []}
    words = [(f, u) for f in forms for u in ("NOUN", "X", "VERB")]
    got = model._candidates(words)
    for t, (form, upos) in enumerate(words):
        applies = [i for i, sc in enumerate(model.scripts_) if apply_script(sc, form) is not None]
        mine = [i for i in applies if i in model.by_upos_.get(upos, ())]
        assert got.classes[got.offsets[t]:got.offsets[t + 1]].tolist() == (mine or applies), (form, upos)


def test_candidates_taken_by_row():
    from seqspectral.tagging.token_classifier import Candidates

    c = Candidates.of([[3, 1], [], [7], [0, 2, 4]])
    taken = c.take([3, 0, 3, 1, 2])
    assert [taken.classes[a:b].tolist() for a, b in zip(taken.offsets[:-1], taken.offsets[1:])] == \
        [[0, 2, 4], [3, 1], [0, 2, 4], [], [7]]


@pytest.mark.parametrize("integer_weights", [True, False])
def test_classify_sharing_word_feature_sums_is_each_tokens_own_sum(integer_weights):
    """Tokens of one key (word type × candidate list) share their word features' sums, the
    candidates given per token or by row: the best candidates are those of summing every token's
    features one by one, in order (first of the best on ties; integer weights make many)."""
    from seqspectral.tagging import token_classifier as tc
    from seqspectral.tagging._classifier_kernels import pair
    from seqspectral.tagging._kernels import N_WORD_FEATURES

    rng = np.random.default_rng(int(integer_weights))
    n, bits = 60, 10
    types, lists = rng.integers(0, 6, n), rng.integers(0, 3, n)
    word = rng.integers(0, 2 ** 31, size=(6, N_WORD_FEATURES))
    slots = np.hstack([word[types], rng.integers(0, 2 ** 31, size=(n, 5))]).astype(np.int32)
    choices = [rng.choice(40, size=k, replace=False) for k in (0, 3, 7)]
    candidates = tc.Candidates.of([choices[g] for g in lists])
    weights = rng.integers(-2, 3, size=2 ** bits) if integer_weights else rng.normal(size=2 ** bits)
    weights = weights.astype(np.float32)
    expected = []
    for t in range(n):
        scores = []
        for c in choices[lists[t]].tolist():
            s = 0.0
            for f in slots[t].tolist():
                s += float(weights[pair(f, c, 2 ** bits - 1)])
            scores.append(s)
        expected.append(int(choices[lists[t]][scores.index(max(scores))]) if scores else -1)
    keys = tc.word_keys(types, lists, 3)
    assert tc.classify(slots, candidates, weights, bits, keys=keys).tolist() == expected
    assert tc.classify(slots, tc.Candidates.of(choices), weights, bits, lists, keys).tolist() == expected  # by row
    assert tc.classify(slots, candidates, weights, bits).tolist() == expected


def test_the_collector_is_paused_while_tagging_and_left_as_it_was():
    import gc

    from seqspectral.tagging.columns import _collector_paused

    for enabled in (True, False):
        gc.enable() if enabled else gc.disable()
        with pytest.raises(KeyError):
            with _collector_paused():
                assert not gc.isenabled()
                raise KeyError
        assert gc.isenabled() == enabled
    gc.enable()


def _sentence(words):
    """Sentences of (form, lemma, upos, feats) words."""
    forms, lemmas, upos, feats = (list(x) for x in zip(*words))
    return Sentence(forms, lemmas, upos, ["_"] * len(forms), np.full(len(forms), -1), ["_"] * len(forms),
                    feats=feats)


# a planted morphology: nouns take -s in the plural, verbs -ed in the past; 80 made-up stems (so
# that no perceptron gets by on memorising forms)
STEMS = [a + b + c for a, b, c in itertools.product(["bl", "fr", "gl", "tr", "sn", "dr"], "aiou",
                                                     ["ck", "nd", "rp", "sk", "mp"])][:80]


def _planted(stems):
    out = []
    for i, stem in enumerate(stems):
        plural, past = (i % 2 == 0), (i % 3 == 0)
        out.append(_sentence([
            ("the", "the", "DET", "Definite=Def"),
            (stem + "s" if plural else stem, stem, "NOUN", "Number=Plur" if plural else "Number=Sing"),
            ("ked" + stem + "ed" if past else "ked" + stem, "ked" + stem, "VERB",
             "Tense=Past" if past else "Tense=Pres")]))
    return out


def test_the_planted_rules_reach_words_never_seen_in_training():
    train, test = _planted(STEMS), _planted(["florb", "wuzz", "grenk", "splat", "kribb", "nust"])
    lemmatiser = Lemmatiser(epochs=5, hash_bits=16).fit(train)
    assert lemmatiser.predict(test) == [s.lemmas for s in test]
    features = FeaturesTagger(epochs=5, hash_bits=16).fit(train)
    assert features.predict(test) == [s.feats for s in test]


def test_lemmatiser_runs_average_the_weights_of_members_trained_alone():
    train = _planted(STEMS)
    alone = [Lemmatiser(epochs=3, hash_bits=16, random_state=seed).fit(train).weights_ for seed in (4, 5, 6)]
    together = Lemmatiser(epochs=3, runs=3, hash_bits=16, random_state=4).fit(train)
    assert not np.array_equal(alone[0], alone[1])  # the members' orders differ, so do their weights
    np.testing.assert_allclose(together.weights_, (alone[0] + alone[1] + alone[2]) / 3, rtol=1e-6, atol=1e-6)


def test_features_one_at_a_time_reach_words_never_seen_in_training(tmp_path):
    train, test = _planted(STEMS), _planted(["florb", "wuzz", "grenk", "splat", "kribb", "nust"])
    for seed in range(4):  # 80 sentences: a seed may miss one word of 18 (the bundle tagger too)
        per_feature = FeaturesTagger(unit="feature", epochs=5, hash_bits=16, random_state=seed).fit(train)
        wrong = sum(a != b for s, p in zip(test, per_feature.predict(test)) for a, b in zip(s.feats, p))
        assert wrong <= 1
    assert per_feature.by_upos_["DET"] == [(per_feature.names_.index("Definite"),
                                            [per_feature.classes_.index(c) for c in [("Definite", ""),
                                                                                     ("Definite", "Def")]])]
    serialize.save(tmp_path / "f.npz", per_feature)
    assert serialize.load(tmp_path / "f.npz").predict(test) == per_feature.predict(test)


def test_a_feature_given_twice_is_one_decision_and_written_back_as_given():
    train = [_sentence([("evler", "ev", "NOUN", "Agr=A3pl|Case=Nom|Agr=V3sg")])] * 5
    model = FeaturesTagger(unit="feature", epochs=2, hash_bits=12).fit(train)
    assert ("Agr", "A3pl|V3sg") in model.classes_
    assert sorted(model.predict(train)[0][0].split("|")) == ["Agr=A3pl", "Agr=V3sg", "Case=Nom"]


def test_model_files_give_the_same_output(tmp_path, corpora_dir):
    train = read_conllu(corpora_dir / "ewt-sample.conllu")
    dev = read_conllu(corpora_dir / "ewt-sample-dev.conllu")
    model = ColumnTaggers(("upos", "xpos", "feats", "lemma"), epochs=2, hash_bits=14).fit(train, dev=dev)
    assert list(model.models_) == ["upos", "xpos", "feats", "lemma"] and model.skipped_ == {}
    serialize.save(tmp_path / "m.npz", model)
    again = serialize.load(tmp_path / "m.npz", kind="column_taggers")
    assert again.tag(dev) == model.tag(dev) and again.fields == model.fields
    # every column of a sample of 300 sentences is learnt well above chance
    scores = model.score(dev)
    assert scores["upos"] > 70 and scores["lemma"] > 80 and scores["feats"] > 70


def test_columns_the_treebank_lacks_are_named_and_skipped(corpora_dir):
    from dataclasses import replace

    train = [replace(s, lemmas=["_"] * len(s), feats=None) for s in read_conllu(corpora_dir / "ewt-sample.conllu")]
    model = ColumnTaggers(epochs=1, hash_bits=12).fit(train)
    assert list(model.models_) == ["upos", "xpos"] and set(model.skipped_) == {"feats", "lemma"}
    with pytest.raises(ValueError, match="no LEMMA"):
        Lemmatiser(epochs=1).fit(train)
    with pytest.raises(ValueError, match="no FEATS"):
        FeaturesTagger(epochs=1).fit(train)


def test_kbest_choices_against_every_combination():
    from seqspectral.tagging.token_classifier import kbest_choices

    rng = np.random.default_rng(3)
    scores = [rng.normal(size=n) for n in (3, 1, 4, 2)]
    every = sorted(((sum(s[i] for s, i in zip(scores, pick)), pick)
                    for pick in itertools.product(*(range(len(s)) for s in scores))), reverse=True)
    got = kbest_choices(scores, 10)
    assert [p for _, p in got] == [p for _, p in every[:10]]
    assert np.allclose([v for v, _ in got], [v for v, _ in every[:10]])
    assert len(kbest_choices(scores, 100)) == 24 and kbest_choices([], 3) == [(0.0, ())]


@pytest.mark.parametrize("unit", ["bundle", "feature"])
def test_kbest_feats_lists_start_with_the_1best_and_are_distinct(unit):
    train, test = _planted(STEMS), _planted(["florb", "wuzz"])
    model = FeaturesTagger(unit=unit, epochs=3, hash_bits=16).fit(train)
    lists = model.kbest(test, 4)
    assert [x.candidates[0].feats for x in lists] == model.predict(test)
    for x in lists:
        assert len(x) == 4 and len({tuple(c.feats) for c in x.candidates}) == 4
        assert np.all(np.diff(x.scores) <= 1e-9)
