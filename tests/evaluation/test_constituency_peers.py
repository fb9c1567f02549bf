"""The constituency benchmark's NLTK peer on the bundled toy treebank: every sentence parsed
within its time box, trees aligned with the test sentences, scored by EVALB's rules; a spent
time box leaves the rest untried, said in the notes."""

from pathlib import Path

from seqspectral.corpus.bracketed import read_bracketed

CORPORA = Path(__file__).resolve().parents[2] / "corpora"


def test_nltk_viterbi_parses_the_toy_test_sentences():
    from evaluation._constituency_peers import nltk_viterbi, scored  # the whole of NLTK: in this test's worker only

    train = read_bracketed(CORPORA / "toy-treebank.mrg")
    test = read_bracketed(CORPORA / "toy-treebank-test.mrg")[:8]
    run = nltk_viterbi(train, test, seconds_per_sentence=60, total_seconds=300)
    assert run.parsed == list(range(8)) and "parsed 8 of 8" in run.notes[-1]
    assert all(t.leaves() == g.leaves() and t.label() == "ROOT" for t, g in zip(run.trees, test))
    result = scored(test, run)
    assert result.all.n_valid == 8 and result.all.figures()["f1"] > 80  # a PCFG of the generating grammar's rules
    untried = nltk_viterbi(train, test[:2], total_seconds=0)
    assert untried.parsed == [] and "2 not tried" in untried.notes[-1]
