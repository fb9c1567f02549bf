"""Phrase-structure trees drawn: which constituents differ from gold (multisets of labelled
spans, by hand), the ✗ marks in the terminal, the red ones in the SVG and the page."""

import re

from seqspectral.corpus.bracketed import Tree  # nltk.Tree, without NLTK's package initialiser (scipy.stats, scikit-learn)

from seqspectral.display.phrase_compare import bracket_difference, constituents
from seqspectral.display.phrase_html import phrase_html_page
from seqspectral.display.phrase_svg import phrase_tree_svg
from seqspectral.display.phrase_text import draw_phrase_tree

GOLD = Tree.fromstring("(ROOT (S (NP (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP (NN chairman))) (. .)))")
TEST = Tree.fromstring("(ROOT (S (NP (NNP Mr.)) (VP (NNP Vinken) (VBZ is) (NP (NN chairman))) (. .)))")


def test_constituents_and_their_difference():
    assert [span for _, span in constituents(GOLD)] == [("NP", 0, 2), ("NP", 3, 4), ("VP", 2, 4), ("S", 0, 5)]
    diff = bracket_difference(TEST, GOLD)
    assert diff.extra == {(0, 0), (0, 1)} and diff.missing == 2 and diff.n == 4  # NP[0,1], VP[1,4]
    assert bracket_difference(GOLD, GOLD).extra == set()
    doubled = Tree.fromstring("(ROOT (S (NP (NP (NNP Mr.) (NNP Vinken))) (VP (VBZ is) (NP (NN chairman))) (. .)))")
    assert bracket_difference(doubled, GOLD).extra == {(0, 0)}  # the outer NP[0,2]: the inner one took the gold one


def test_text_marks_the_constituents_gold_lacks():
    text = draw_phrase_tree(TEST, GOLD)
    assert text.count("✗") == 2 and "NP✗" in text and "VP✗" in text and "Vinken" in text
    assert "✗" not in draw_phrase_tree(GOLD, GOLD)


def test_svg_and_page():
    svg = phrase_tree_svg(TEST, {(0, 1): "wrong"})
    assert svg.startswith("<svg") and len(re.findall(r'class="phrase wrong"', svg)) == 1
    assert svg.count('class="word"') == 5 and svg.count('class="tag"') == 5
    page = phrase_html_page([TEST], "t", [GOLD])
    assert page.count('class="phrase wrong"') == 2
    assert "2 of 4 brackets not in gold, 2 of gold&#x27;s missing" in page  # escaped
