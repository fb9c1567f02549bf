"""The format registry (seqspectral.corpus.formats): the one list of formats, and a new
format is one entry — detected by name or content, read, offered by --format, sharded."""

from __future__ import annotations

import pytest

from seqspectral.corpus import Reading, detect, formats, read_corpus
from seqspectral.corpus.errors import CorpusOptionError
from seqspectral.corpus.text import read_text


def test_the_builtin_formats_and_their_kinds():
    assert formats.format_names() == ("conllu", "conllx", "malttab", "pautomac", "bracketed", "brown", "text")
    assert formats.format_names(treebank=True) == ("conllu", "conllx", "malttab")
    assert formats.format_names(sentences=True) == ("conllu", "conllx", "malttab", "text")
    assert set(formats.format_names(shardable=True)) == {"conllu", "conllx", "malttab", "pautomac", "text"}
    with pytest.raises(CorpusOptionError, match="unknown format 'penn'; expected auto or one of conllu"):
        formats.get_format("penn")
    with pytest.raises(ValueError, match="already registered"):
        formats.register(formats.get_format("conllu"))


@pytest.fixture
def registry(monkeypatch):
    """The registry, restored after the test."""
    monkeypatch.setattr(formats, "_REGISTRY", dict(formats._REGISTRY))
    return formats


def test_a_new_format_is_one_entry(registry, tmp_path):
    def read_words(path, field="upos", tagset=None, vocabulary=None, errors="raise", encoding="utf-8"):
        return read_text(path, vocabulary=vocabulary, encoding=encoding)  # one sequence a line, "|"-separated

    def sniff(lines):
        return "words between bars" if lines and all(line.startswith("|") for line in lines[:20]) else None

    registry.register(formats.Format("bars", read_words, sniff=sniff, extensions=(".bars",),
                                     shard=formats.SHARD_AT_LINE_END))
    by_name, by_content = tmp_path / "a.bars", tmp_path / "b.txt"
    by_name.write_text("x y\n")
    by_content.write_text("| a b\n| c\n")
    assert detect(by_name) == ("bars", "the extension .bars", False)
    assert detect(by_content).format == "bars" and detect(by_content).by_content
    assert registry.format_names(shardable=True)[-2:] == ("bars", "text")  # asked before the fallback
    assert read_corpus(by_content).n_tokens == 5 and Reading(format="bars").format == "bars"
    with pytest.raises(CorpusOptionError, match="b.txt: read as bars, which holds no sentences"):
        Reading().read_sentences(by_content)


def test_raw_text_is_refused_where_trees_are_needed(tmp_path):
    text = tmp_path / "plain.txt"
    text.write_text("Some words. More words.\n")
    with pytest.raises(CorpusOptionError, match="plain.txt: read as text, which holds no trees"):
        Reading().read_sentences(text)
    assert [s.forms for s in Reading().read_sentences(text, heads_required=False)] == [["Some", "words", "."],
                                                                                         ["More", "words", "."]]
