"""Trees to look at (seqspectral.display, `seqspectral show`): the text drawing, the arc
levels of the SVG, how candidates differ, and the HTML page — structurally here, and in a
real headless browser (Debian's chromium) when one is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from seqspectral.cli.main import main
from seqspectral.corpus import NBestList, Sentence, read_conllu, write_nbest
from seqspectral.display import counted, difference, draw_tree, html_page, shown_items
from seqspectral.display.svg import arc_levels
from seqspectral.display.text import arc_lanes

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
DEV = CORPORA / "ewt-sample-dev.conllu"
FIRST = read_conllu(DEV)[0]  # "From the AP comes this story :"


def test_the_first_dev_sentence_is_drawn_as_checked_by_eye():
    assert draw_tree(FIRST) == "\n".join([
        " ┌──► 1 From   ADP    case (head 3)",
        " │ ┌► 2 the    DET    det (head 3)",
        " └┬┴► 3 AP     PROPN  obl (head 4)",
        "┌┬┴── 4 comes  VERB   root",
        "││ ┌► 5 this   DET    det (head 6)",
        "│└─┴► 6 story  NOUN   nsubj (head 4)",
        "└───► 7 :      PUNCT  punct (head 4)",
    ])


def sentence(heads, deprels=None) -> Sentence:
    n = len(heads)
    words = [f"w{i + 1}" for i in range(n)]
    return Sentence(words, words, ["X"] * n, ["X"] * n, np.array(heads), deprels or ["dep"] * n)


def test_crossing_arcs_cross_in_the_gutter():
    # 1 <- 3 and 2 <- 4 cross (non-projective): the arcs overlap, so they take two lanes
    lines = draw_tree(sentence([3, 4, 0, 3])).splitlines()
    assert sorted(lane for *_, lane in arc_lanes([3, 4, 0, 3])) == [0, 1, 2]
    assert "┼" in "".join(lines)
    assert [line.split()[-1] for line in lines] == ["3)", "4)", "dep", "3)"]


@pytest.mark.parametrize("seed", range(20))
def test_lanes_never_overlap_and_levels_nest(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 25))
    heads = np.array([rng.integers(0, n + 1) for _ in range(n)])
    heads[heads == np.arange(1, n + 1)] = 0  # no self-loops (a drawing does not need a tree)
    placed = arc_lanes(heads)
    assert len(placed) == int(np.sum(heads > 0))
    for a in placed:
        for b in placed:
            if a is not b and a[2] == b[2]:
                assert max(a[:2]) < min(b[:2]) or max(b[:2]) < min(a[:2])
    levels = arc_levels(heads)
    span = {d: (min(d, int(heads[d]) - 1), max(d, int(heads[d]) - 1)) for d in levels}
    for d, (low, high) in span.items():  # brute force: 1 + the highest arc strictly inside
        inside = [levels[e] for e, (a, b) in span.items() if low <= a and b <= high and (a, b) != (low, high)]
        assert levels[d] == 1 + max(inside, default=0)


def test_counts_are_said_in_words():
    assert counted(1, "head") == "1 head" and counted(0, "tag") == "0 tags"


def test_difference_separates_heads_from_labels():
    a = sentence([2, 0, 2], ["x", "root", "y"])
    b = sentence([2, 0, 1], ["z", "root", "y"])
    b.upos[1] = "Y"
    diff = difference(a, b)
    assert diff.head.tolist() == [False, False, True] and diff.label.tolist() == [True, False, False]
    assert diff.tag.tolist() == [False, True, False]
    assert (diff.n_heads, diff.n_labels, diff.n_tags) == (1, 1, 1) and diff.summary() == "1 head, 1 tag"
    with pytest.raises(ValueError):
        difference(a, sentence([0]))


def reattached(s: Sentence, word: int, head: int) -> Sentence:
    heads = s.heads.copy()
    heads[word] = head
    return replace(s, heads=heads)


@pytest.fixture
def nbest_file(tmp_path):
    """Two lists of the first two dev sentences: the gold tree second, a re-attached copy first."""
    gold = read_conllu(DEV)[:2]
    lists = [NBestList(g.metadata["sent_id"], [reattached(g, len(g) - 1, len(g) - 1), g], [2.0, 1.0]) for g in gold]
    write_nbest(tmp_path / "nbest.conllu", lists)
    return tmp_path / "nbest.conllu"


def test_nbest_lists_are_grouped_and_matched_with_gold(nbest_file):
    gold = read_conllu(DEV)
    items = shown_items(read_conllu(nbest_file), gold)
    assert [len(item.candidates) for item in items] == [2, 2] and items[0].scores == [2.0, 1.0]
    assert items[1].gold is gold[1]
    assert shown_items(read_conllu(DEV))[0].scores is None
    with pytest.raises(ValueError, match="not in the gold file"):
        shown_items(read_conllu(nbest_file), gold[1:])


class Page(HTMLParser):
    """The tags, classes and URLs of a page."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.classes, self.urls = [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name == "class":
                self.classes.append(value)
            if name in ("src", "href") or (value or "").startswith(("http:", "https:", "//")):
                self.urls.append(value)


def test_the_page_is_self_contained_and_colours_what_differs(nbest_file):
    items = shown_items(read_conllu(nbest_file), read_conllu(DEV))
    text = html_page(items, "t")
    page = Page(text)
    assert "script" not in page.tags and "link" not in page.tags and "img" not in page.tags
    assert [u for u in page.urls if "w3.org/2000/svg" not in u] == []  # the SVG namespace is a name, not a fetch
    n_arcs = sum(int(np.sum(c.heads > 0)) for item in items for c in [*item.candidates, item.gold])
    assert page.classes.count("tree") == 6  # 2 candidates + gold per list
    assert sum(c.startswith("arc") for c in page.classes) == n_arcs
    # candidate 1 re-attaches the last word: its arc is wrong against gold; candidate 2 (gold)
    # differs from candidate 1 at that word
    assert page.classes.count("arc wrong") == 2 and page.classes.count("arc changed") == 2
    assert text.count("best in list") == 2


def test_the_table_counts_what_the_list_varies_in(nbest_file, tmp_path):
    parse_page = html_page(shown_items(read_conllu(nbest_file), read_conllu(DEV)), "t")
    assert "<th>heads differing from 1</th>" in parse_page and "<th>wrong heads (gold)</th>" in parse_page
    assert re.findall(r'<td class="num">(\d[^<]*)</td><td>', parse_page) == ["0", "1", "0", "1"]
    gold = FIRST
    retagged = replace(gold, upos=[*gold.upos[:3], "NOUN", *gold.upos[4:]])
    write_nbest(tmp_path / "tags.conllu", [NBestList("s", [retagged, gold], [3.0, 2.0])])
    tag_page = html_page(shown_items(read_conllu(tmp_path / "tags.conllu")), "tags")
    assert "<th>tags differing from 1</th>" in tag_page and ", 0<" not in tag_page
    assert re.findall(r'<td class="num">(\d[^<]*)</td><td>', tag_page) == ["0", "1"]


def test_tag_lists_show_the_tags_that_differ(tmp_path, capsys):
    gold = FIRST
    retagged = replace(gold, upos=[*gold.upos[:3], "NOUN", *gold.upos[4:]])  # "comes" as a noun
    write_nbest(tmp_path / "tags.conllu", [NBestList("s", [retagged, gold], [3.0, 2.0])])
    items = shown_items(read_conllu(tmp_path / "tags.conllu"), [replace(gold, metadata={"sent_id": "s"})])
    page = Page(html_page(items, "tags"))
    assert page.classes.count("word root retagged") == 1 and page.classes.count("word root tagwrong") == 1
    assert main(["show", str(tmp_path / "tags.conllu")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "differs from 1 (*^): 0 heads, 1 tag" in lines[9]
    assert [line for line in lines[10:] if "^" in line] == [line for line in lines[10:] if " comes " in line]


def test_show_draws_text_and_writes_the_page(nbest_file, tmp_path, capsys):
    assert main(["show", str(nbest_file), "--gold", str(DEV)]) == 0
    out = capsys.readouterr().out
    assert out.count("# rank 1, score 2") == 2 and "differs from 1 (*^): 1 head, 0 tags, wrong (✗): 0 heads, 0 tags" in out
    sent_id = FIRST.metadata["sent_id"]
    assert main(["show", str(DEV), "--sent-id", sent_id]) == 0
    assert capsys.readouterr().out == f"# sent_id = {sent_id}\n{draw_tree(FIRST)}\n\n"
    assert main(["show", str(DEV), "--sent-id", "nowhere"]) == 2
    assert "no sentence with sent_id nowhere" in capsys.readouterr().err
    assert main(["show", str(nbest_file), "--html", str(tmp_path / "p.html"), "--quiet"]) == 0
    assert (tmp_path / "p.html").read_text().count('class="tree"') == 4
    assert main(["show", str(nbest_file), "--gold", str(CORPORA / "ewt-sample.conllu")]) == 2


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium to render the page in")
def test_a_headless_browser_draws_the_arcs_in_their_colours(nbest_file, tmp_path):
    image = pytest.importorskip("PIL.Image")
    assert main(["show", str(nbest_file), "--gold", str(DEV), "--html", str(tmp_path / "p.html"), "--quiet"]) == 0
    shot = tmp_path / "p.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=900,900", f"--screenshot={shot}", (tmp_path / "p.html").as_uri()],
                   check=True, capture_output=True, timeout=120)
    pixels = np.asarray(image.open(shot).convert("RGB")).reshape(-1, 3).astype(int)

    def near(rgb):
        return int(np.sum(np.abs(pixels - rgb).sum(axis=1) < 60))

    assert near((0xd9, 0x77, 0x06)) > 50  # orange: a head that differs from candidate 1
    assert near((0xdc, 0x26, 0x26)) > 50  # red: a head that differs from gold
    assert near((0x66, 0x66, 0x66)) > 200  # grey: the other arcs


def test_a_latin1_conllx_file_is_shown_in_its_words(tmp_path, capsys):
    rows = ["1\tSeñor\tseñor\tN\tNC\t_\t2\tsuj\t_\t_", "2\tcantó\tcantar\tV\tVM\t_\t0\troot\t_\t_"]
    (tmp_path / "es.conll").write_bytes(("\n".join(rows) + "\n\n").encode("latin-1"))
    assert main(["show", str(tmp_path / "es.conll"), "--encoding", "latin-1"]) == 0
    out = capsys.readouterr().out
    assert "1 Señor  N  suj (head 2)" in out and "2 cantó  V  root" in out
    assert main(["show", str(tmp_path / "es.conll"), "--encoding", "latin-1", "--html", str(tmp_path / "es.html")]) == 0
    assert "Señor" in (tmp_path / "es.html").read_text(encoding="utf-8")


def test_crossing_arcs_are_marked_and_drawn_over_halos():
    from seqspectral.display.html import html_page
    from seqspectral.display.items import Shown
    from seqspectral.display.svg import crossing_arcs, tree_svg

    assert crossing_arcs([3, 4, 0, 3]) == {0, 1}  # 1 <- 3 and 2 <- 4 overlap without nesting
    assert crossing_arcs([2, 0, 4, 2]) == set()  # the same tree with words 2 and 3 swapped: nested
    svg = tree_svg(sentence([3, 4, 0, 3]))
    assert svg.count('class="arc crossing"') == 2 and svg.count('class="arc"') == 1
    assert svg.count('class="halo"') == 3  # one white halo under each drawn arc
    assert "crosses another" in html_page([Shown("1", [sentence([3, 4, 0, 3])], None, None)], "t")
    assert "crosses another" not in html_page([Shown("1", [sentence([2, 0, 4, 2])], None, None)], "t")
