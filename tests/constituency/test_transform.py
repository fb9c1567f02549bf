"""Binarisation and its inverse on every tree of the WSJ sample; the Berkeley signatures."""

from __future__ import annotations

import pytest
from seqspectral.corpus.bracketed import Tree  # nltk.Tree, without NLTK's package initialiser (scipy.stats, scikit-learn)

from seqspectral.constituency.transform import binarise, debinarise, signature, tag_of


def _sample_trees():
    from evaluation._constituency_data import TREEBANK_ZIP, wsj_sample_split

    if not TREEBANK_ZIP.exists():
        pytest.skip(f"no WSJ sample at {TREEBANK_ZIP}")
    train, dev, test = wsj_sample_split()
    return train + dev + test


def test_binarise_then_debinarise_is_exact_on_the_whole_sample():
    trees = _sample_trees()
    assert len(trees) == 3914
    for tree in trees:
        binary = binarise(tree, vertical=2, horizontal=1)  # parent annotation and horizontal context both
        assert all(len(n) == 2 or isinstance(n[0], str) for n in binary.subtrees())
        assert debinarise(binary) == tree


def test_markovisation_keeps_what_v_and_h_say():
    tree = Tree.fromstring("(S (NP (DT the) (JJ big) (JJ red) (NN dog)) (VP (VBZ barks)))")
    b = binarise(tree, vertical=2, horizontal=1)
    labels = [t.label() for t in b.subtrees()]
    assert "NP^<S>" in labels and "NP@<JJ>^<S>" in labels and "VP^<S>+VBZ" in labels
    flat = binarise(tree, vertical=1, horizontal=0)
    assert {t.label() for t in flat.subtrees()} >= {"NP@<>", "NP"} and "NP@<JJ>" not in str(flat)


def test_labels_with_binarisation_marks_are_refused():
    with pytest.raises(ValueError, match="contains"):
        binarise(Tree.fromstring("(S (A+B (NN x)) (NN y))"))


@pytest.mark.parametrize("word, first, known_lower, expected", [
    ("Pierre", True, False, "UNK-INITC"), ("Pierre", True, True, "UNK-INITC-KNOWNLC"),
    ("Vinken", False, False, "UNK-CAPS"), ("IBM", True, False, "UNK-CAPS"), ("walked", False, False, "UNK-LC-ed"),
    ("running", False, False, "UNK-LC-ing"), ("cats", False, False, "UNK-LC-s"), ("glass", False, False, "UNK-LC"),
    ("1989", False, False, "UNK-NUM"), ("3-for-2", False, False, "UNK-LC-NUM-DASH"), ("quickly", False, False,
                                                                                        "UNK-LC-ly"),
    ("'", False, False, "UNK"), ("B-52s", False, False, "UNK-CAPS-NUM-DASH-s")])
def test_signatures_are_the_berkeley_parsers(word, first, known_lower, expected):
    assert signature(word, first, known_lower) == expected


def test_tag_of_a_collapsed_preterminal():
    assert tag_of("S+NP+NNP") == "NNP" and tag_of("NN") == "NN"
