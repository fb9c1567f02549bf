"""FEATS re-decided from the relation after parsing (RelationFeatures): a planted rule recovered
and applied only under the relation it was learned with, the min_count threshold counted by
hand, the dev choice, the model file; and the build's FEATS dev figures against the CoNLL 2018
metrics."""

from __future__ import annotations

import pytest

from seqspectral import serialize
from seqspectral.corpus import read_conllu
from seqspectral.tagging.relation_features import RelationFeatures


def _sentences(tmp_path, rows: list[list[tuple]], name: str):
    """Sentences from rows of (form, UPOS, FEATS, head, DEPREL)."""
    text = "".join("".join(f"{i}\t{form}\t_\t{upos}\t_\t{feats}\t{head}\t{rel}\t_\t_\n"
                           for i, (form, upos, feats, head, rel) in enumerate(words, 1)) + "\n" for words in rows)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return read_conllu(path)


def _pair(subject: str, obj: str) -> list[tuple]:
    """A verb with a subject and an object noun (FEATS given for each noun)."""
    return [("kedi", "NOUN", subject, 3, "nsubj"), ("balık", "NOUN", obj, 3, "obj"),
            ("yedi", "VERB", "Polarity=Pos", 0, "root")]


def test_a_planted_relation_rule_is_learned_and_applied_only_under_its_relation(tmp_path):
    """Gold: subjects Case=Nom, objects Case=Bare; the tagger said Bare for both (and its
    number right): the subject's Case becomes Nom, the rest stays as the tagger said."""
    gold = _sentences(tmp_path, [_pair("Case=Nom|Number=Sing", "Case=Bare|Number=Sing")] * 12, "g.conllu")
    tagged = _sentences(tmp_path, [_pair("Case=Bare|Number=Sing", "Case=Bare|Number=Sing")] * 12, "t.conllu")
    model = RelationFeatures(min_count=3).fit(gold, tagged)
    assert model.rules_ == {("Case", "NOUN", "nsubj", "Bare"): "Nom"}
    parsed = _sentences(tmp_path, [_pair("Case=Bare|Number=Sing", "Case=Bare|Number=Sing"),
                                   [("balık", "NOUN", "Case=Bare|Number=Sing", 2, "obj"),
                                    ("yedi", "VERB", "_", 0, "root")]], "p.conllu")
    assert [s.feats for s in model.tag(parsed)] == [
        ["Case=Nom|Number=Sing", "Case=Bare|Number=Sing", "Polarity=Pos"], ["Case=Bare|Number=Sing", "_"]]


def test_a_rule_needs_min_count_gold_values_and_more_than_the_taggers_own(tmp_path):
    """Subjects tagged Bare: gold Nom 4 times and Bare 3 (rule at min_count 4, none at 5);
    objects tagged Bare: gold Acc 3 times, Bare 3 (a tie: the tagger's value kept); a feature
    the tagger left out is added (Polarity on verbs under root, 4 of 4)."""
    rows_gold = [_pair("Case=Nom", "Case=Acc")] * 3 + [_pair("Case=Nom", "Case=Bare")] + \
        [_pair("Case=Bare", "Case=Bare")] * 2 + [_pair("Case=Bare", "Case=Nom")]
    rows_tagged = [[(f, u, "Case=Bare" if u == "NOUN" else ("_" if i < 4 else "Polarity=Pos"), h, r)
                    for f, u, _, h, r in _pair("", "")] for i in range(7)]
    gold = _sentences(tmp_path, rows_gold, "g.conllu")
    tagged = _sentences(tmp_path, rows_tagged, "t.conllu")
    assert RelationFeatures(min_count=4).fit(gold, tagged).rules_ == {
        ("Case", "NOUN", "nsubj", "Bare"): "Nom", ("Polarity", "VERB", "root", ""): "Pos"}
    assert RelationFeatures(min_count=5).fit(gold, tagged).rules_ == {}
    assert RelationFeatures(min_count=0).fit(gold, tagged).rules_ == {}  # 0: no rule at all


def test_min_count_auto_is_chosen_on_dev_and_no_rule_when_none_gains(tmp_path):
    gold = _sentences(tmp_path, [_pair("Case=Nom", "Case=Bare")] * 12, "g.conllu")
    tagged = _sentences(tmp_path, [_pair("Case=Bare", "Case=Bare")] * 12, "t.conllu")
    dev_tagged = _sentences(tmp_path, [_pair("Case=Bare", "Case=Bare")] * 2, "dt.conllu")
    helps = RelationFeatures().fit(gold, tagged, dev=_sentences(tmp_path, [_pair("Case=Nom", "Case=Bare")] * 2,
                                                                 "d1.conllu"), dev_predicted=dev_tagged)
    assert helps.min_count_ == 3 and helps.dev_accuracy_[0] == pytest.approx(100 * 4 / 6)
    assert helps.dev_accuracy_[3] == helps.dev_accuracy_[10] == 100.0 and helps.dev_accuracy_[30] == \
        helps.dev_accuracy_[0]
    hurts = RelationFeatures().fit(gold, tagged, dev=_sentences(tmp_path, [_pair("Case=Bare", "Case=Bare")] * 2,
                                                                 "d2.conllu"), dev_predicted=dev_tagged)
    assert hurts.min_count_ == 0 and hurts.rules_ == {} and hurts.tag(dev_tagged) == dev_tagged


def test_the_model_file_gives_back_the_same_rules(tmp_path):
    gold = _sentences(tmp_path, [_pair("Case=Nom|Number=Sing", "Case=Bare")] * 12, "g.conllu")
    tagged = _sentences(tmp_path, [_pair("Case=Bare|Number=Sing", "_")] * 12, "t.conllu")
    model = RelationFeatures(min_count=3).fit(gold, tagged)
    serialize.save(tmp_path / "m.npz", model)
    back = serialize.load(tmp_path / "m.npz", "relation_features")
    assert back.rules_ == model.rules_ and back.order_ == model.order_ and back.min_count_ == 3
    assert [s.feats for s in back.tag(tagged)] == [s.feats for s in gold]
    with pytest.raises(ValueError, match="not the gold ones"):
        RelationFeatures().fit(gold, tagged[:-1] + _sentences(tmp_path, [[("a", "NOUN", "_", 0, "root")]], "s.conllu"))


def test_the_builds_feats_dev_figures_are_the_conll18_ufeats(corpora_dir):
    """rerank_build.feats_scores' UFeats against the CoNLL 2018 metrics' own (treebank_scores,
    itself checked against the shared task's script) on the sample with damaged FEATS."""
    from dataclasses import replace

    from seqspectral.treebank_scores import conll18_scores
    from seqspectral.workflows.rerank_build import feats_scores

    gold = read_conllu(corpora_dir / "ewt-sample-dev.conllu")[:40]
    damaged = [[(v.replace("_", "") + "|Typo=Yes" if i % 3 == 0 else "Number=Sing" if i % 5 == 0 else v)
                for i, v in enumerate(s.feats or ["_"] * len(s))] for s in gold]
    figures = feats_scores(damaged, gold)
    reference = conll18_scores(gold, [replace(s, feats=f) for s, f in zip(gold, damaged)])["UFeats"]
    assert figures["ufeats"] == pytest.approx(reference["f1"]) and figures["ufeats"] < 100
    assert figures["sets"] < figures["ufeats"]  # Typo=Yes is not universal: wrong as a set, right as UFeats
