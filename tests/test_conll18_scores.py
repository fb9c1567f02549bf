"""The CoNLL 2018 metrics (seqspectral.treebank_scores.conll18_scores) on a pair of sentences
whose counts are worked out by hand below; evaluation/conll18_metrics.py compares them with
the shared task's own script on EWT test."""

import pytest

from seqspectral.corpus.conllu_format import read_conllu
from seqspectral.treebank_scores import AlignmentError, conll18_scores, universal_features

GOLD = """\
1\tThe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t2\tdet\t_\t_
2\tdogs\tdog\tNOUN\tNNS\tNumber=Plur\t3\tnsubj\t_\t_
3\tbark\tbark\tVERB\tVBP\tMood=Ind|Tense=Pres|VerbForm=Fin\t0\troot\t_\t_
4\tloudly\t_\tADV\tRB\t_\t3\tadvmod\t_\t_
5\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_

"""
# word 1: a non-universal feature more (UFeats still right); 2: wrong lemma, a relation subtype
# (ignored); 3: wrong XPOS and features; 4: wrong head, lemma "x" where gold has "_" (right);
# 5: wrong relation, a content one (one more predicted content word)
PRED = """\
1\tThe\tthe\tDET\tDT\tDefinite=Def|PronType=Art|Typo=Yes\t2\tdet\t_\t_
2\tdogs\tdogs\tNOUN\tNNS\tNumber=Plur\t3\tnsubj:pass\t_\t_
3\tbark\tbark\tVERB\tVB\tVerbForm=Inf\t0\troot\t_\t_
4\tloudly\tx\tADV\tRB\t_\t2\tadvmod\t_\t_
5\t.\t.\tPUNCT\t.\t_\t3\tobj\t_\t_

"""


def _read(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return read_conllu(path, heads_required=False)


def test_counts_worked_out_by_hand(tmp_path):
    r = conll18_scores(_read(tmp_path, "g.conllu", GOLD), _read(tmp_path, "p.conllu", PRED))
    correct = {"Words": 5, "UPOS": 5, "XPOS": 4, "UFeats": 4, "AllTags": 4, "Lemmas": 4, "UAS": 4, "LAS": 3,
               "CLAS": 2, "MLAS": 1, "BLEX": 1}
    assert {m: v["correct"] for m, v in r.items()} == correct
    # content words: gold nsubj, root, advmod; predicted also the obj
    assert (r["CLAS"]["gold"], r["CLAS"]["system"], r["CLAS"]["aligned"]) == (3, 4, 3)
    assert r["CLAS"]["f1"] == pytest.approx(200 * 2 / 7)
    assert r["LAS"]["f1"] == pytest.approx(60.0) and r["Words"]["aligned_accuracy"] is None


def test_functional_children_enter_mlas(tmp_path):
    # the determiner of "dogs" re-attached to "bark": "dogs" loses a functional child, "bark"
    # gains one, so both are MLAS errors though their own heads and relations are right
    pred = GOLD.replace("1\tThe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t2", "1\tThe\tthe\tDET\tDT\t"
                        "Definite=Def|PronType=Art\t3")
    r = conll18_scores(_read(tmp_path, "g.conllu", GOLD), _read(tmp_path, "p.conllu", pred))
    assert r["CLAS"]["correct"] == 3 and r["MLAS"]["correct"] == 1 and r["LAS"]["correct"] == 4


def test_tags_only_without_heads_and_misaligned(tmp_path):
    unparsed = "\n".join("\t".join(c[:6] + ["_", "_"] + c[8:]) if len(c) == 10 else ""
                         for c in (line.split("\t") for line in PRED.split("\n")))
    r = conll18_scores(_read(tmp_path, "g.conllu", GOLD), _read(tmp_path, "p.conllu", unparsed))
    assert list(r) == ["Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas"]
    with pytest.raises(AlignmentError):
        conll18_scores(_read(tmp_path, "g.conllu", GOLD), _read(tmp_path, "q.conllu", PRED.replace("dogs", "cats")))


def test_universal_features():
    assert universal_features("Typo=Yes|Number=Plur|Case=Nom") == "Case=Nom|Number=Plur"
    assert universal_features("_") == "" and universal_features("Number[psor]=Sing") == ""
