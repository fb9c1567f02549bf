"""EVALB's scores: hand-computed counts on small trees, and EVALB's own program when its source is here."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from seqspectral.corpus.bracketed import Tree  # nltk.Tree, without NLTK's package initialiser (scipy.stats, scikit-learn)

from seqspectral.constituency.evalb import COLLINS, EvalbParameters, evalb, read_parameter_file, report, sentence_score
from seqspectral.corpus.bracketed import parse_bracketed, write_bracketed

EVALB_SOURCE = Path(os.environ.get("EVALB_SOURCE", "/work/data/lpcfg-data/EVALB"))
AS_WRITTEN = dict(remove_empty=False, strip_functions=False, collapse_unary=False, root_label=None)
# (gold, test, top_root, expected counts: matched, gold brackets, test brackets, crossing, words, correct tags, length)
CASES = [
    # ADVP = PRT; NP[0,1] against NP[0,2] (no crossing); '.' deleted but counted in the length
    ("(TOP (S (NP (DT The) (NN dog)) (VP (VBD barked) (ADVP (RB loudly))) (. .)))",
     "(TOP (S (NP (DT The)) (NN dog) (VP (VBD barked) (PRT (RB loudly))) (. .)))", True, (3, 4, 4, 0, 4, 4, 5)),
    # a trace's empty NP-SBJ deleted, the function tag cut, the empty root kept (EVALB's own reading) or TOP
    ("( (S (NP-SBJ (-NONE- *)) (VP (VB Go) (NP (PRP home))) (. !)))",
     "( (S (VP (VB Go) (NP (NN home))) (. !)))", False, (4, 4, 4, 0, 2, 1, 3)),
    ("( (S (NP-SBJ (-NONE- *)) (VP (VB Go) (NP (PRP home))) (. !)))",
     "( (S (VP (VB Go) (NP (NN home))) (. !)))", True, (3, 3, 3, 0, 2, 1, 3)),
    # duplicate brackets match as multisets: recall 3/4, precision 3/3
    ("(TOP (S (NP (NP (NNS dogs))) (VP (VBP bark))))", "(TOP (S (NP (NNS dogs)) (VP (VBP bark))))", True,
     (3, 4, 3, 0, 2, 2, 2)),
    # X[1,3] crosses NP[0,2] and VP[2,4]: one crossing test bracket
    ("(TOP (S (NP (DT the) (NN dog)) (VP (VBZ eats) (NP (NNS bones)))))",
     "(TOP (S (DT the) (X (NN dog) (VBZ eats)) (NP (NNS bones))))", True, (2, 4, 3, 1, 4, 4, 4)),
]


def tree(text: str) -> Tree:
    return parse_bracketed(text, **AS_WRITTEN)[0]


@pytest.mark.parametrize("gold, test, top_root, counts", CASES)
def test_hand_computed_counts(gold, test, top_root, counts):
    s = sentence_score(tree(gold), tree(test), COLLINS, top_root)
    assert s.status == 0
    assert (s.matched, s.gold_brackets, s.test_brackets, s.crossing, s.words, s.correct_tags, s.length) == counts


def test_errors_skips_and_the_summaries():
    gold = [tree(g) for g, _, _, _ in CASES[:1] + CASES[3:]] + [tree("(TOP (S (NP (NN a)) (. .)))")] * 3
    test = [tree(t) for _, t, _, _ in CASES[:1] + CASES[3:]] + [
        tree("(TOP (S (NP (NN a)) (NN .)))"),  # punctuation tagged as a word: length mismatch
        tree("(TOP (S (NP (NN b)) (. .)))"),  # words mismatch
        tree("(TOP (S (. a) (. .)))"),  # no word left: skipped
    ]
    result = evalb(gold, test)
    assert [s.status for s in result.sentences] == [0, 0, 0, 1, 1, 2]
    a = result.all
    assert (a.n_sentences, a.n_error, a.n_skipped, a.n_valid) == (6, 2, 1, 3)
    assert (a.matched, a.gold_brackets, a.test_brackets, a.words, a.correct_tags) == (8, 12, 10, 10, 10)
    f = a.figures()
    assert f["recall"] == pytest.approx(800 / 12) and f["precision"] == pytest.approx(80.0)
    assert f["f1"] == pytest.approx(2 * 80 * (800 / 12) / (80 + 800 / 12))
    assert f["complete_match"] == pytest.approx(0.0) and f["average_crossing"] == pytest.approx(1 / 3)
    short = evalb(gold, test, EvalbParameters(cutoff=4)).cut
    assert short.n_sentences == 5  # the 5-word sentence is over the cut-off


def test_unlabelled_scoring_ignores_labels():
    gold, test = tree(CASES[0][0]), tree(CASES[0][1].replace("(VP", "(XP"))
    assert sentence_score(gold, test).matched == 2
    assert sentence_score(gold, test, EvalbParameters(labeled=False)).matched == 3


@pytest.fixture(scope="module")
def evalb_binary(tmp_path_factory):
    if not (EVALB_SOURCE / "evalb.c").is_file() or shutil.which("gcc") is None:
        pytest.skip(f"EVALB's source ({EVALB_SOURCE}/evalb.c, set EVALB_SOURCE) or gcc not found")
    binary = tmp_path_factory.mktemp("evalb") / "evalb"
    subprocess.run(["gcc", "-w", "-O2", "-o", str(binary), str(EVALB_SOURCE / "evalb.c")], check=True)
    return binary


def test_collins_prm_is_the_default(evalb_binary):
    assert read_parameter_file(EVALB_SOURCE / "COLLINS.prm") == COLLINS


@pytest.mark.parametrize("top_root", [False, True])
def test_the_report_is_evalbs_byte_for_byte(evalb_binary, tmp_path, top_root):
    gold = [tree(g) for g, _, _, _ in CASES] + [tree("(TOP (S (NP (NN a)) (. .)))")] * 3
    test = [tree(t) for _, t, _, _ in CASES] + [tree("(TOP (S (NP (NN a)) (NN .)))"),
                                                 tree("(TOP (S (NP (NN b)) (. .)))"), tree("(TOP (S (. a) (. .)))")]
    if top_root:  # what top_root does, done to the files EVALB reads
        for t in gold + test:
            t.set_label("TOP" if t.label() == "" else t.label())
    write_bracketed(tmp_path / "gold", gold)
    write_bracketed(tmp_path / "test", test)
    theirs = subprocess.run([str(evalb_binary), "-p", str(EVALB_SOURCE / "COLLINS.prm"), str(tmp_path / "gold"),
                             str(tmp_path / "test")], capture_output=True, text=True, check=True).stdout
    assert report(evalb(gold, test, top_root=top_root)) == theirs
