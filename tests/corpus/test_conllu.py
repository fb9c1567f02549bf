"""CoNLL-U reading and writing, checked against the `conllu` package and the raw text."""

import re
import warnings

import conllu
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.references import brute_is_tree
from seqspectral.corpus import (
    CorpusFormatError,
    Sentence,
    SeveralRootsWarning,
    SkippedRecordsWarning,
    corpus_from_sentences,
    read_conllu,
    read_corpus,
    write_conllu,
)

WITH_SPECIAL_LINES = """# sent_id = s1
# text = I don't know
# a comment without a value
1\tI\tI\tPRON\tPRP\t_\t4\tnsubj\t_\t_
2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_
2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t_\t_
3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_
3.1\tgone\tgo\tVERB\tVBN\t_\t_\t_\t4:conj\t_
4\tknow\tknow\tVERB\tVB\t_\t0\troot\t_\t_

"""


def test_a_shallow_copy_shares_the_columns_and_is_a_sentence_of_its_own(tmp_path):
    import copy

    path = tmp_path / "s.conllu"
    path.write_text(WITH_SPECIAL_LINES, encoding="utf-8")
    (s,) = read_conllu(path)
    c = copy.copy(s)
    assert c == s and c is not s and type(c) is Sentence
    assert all(getattr(c, k) is getattr(s, k) for k in vars(s))
    c.upos = ["X"] * len(c)
    assert s.upos == ["PRON", "AUX", "PART", "VERB"] and c.upos == ["X"] * 4


def test_multiword_and_empty_nodes_are_skipped(tmp_path):
    path = tmp_path / "s.conllu"
    path.write_text(WITH_SPECIAL_LINES)
    (s,) = read_conllu(path)
    assert s.forms == ["I", "do", "n't", "know"]
    assert s.heads.tolist() == [4, 4, 4, 0]
    assert s.metadata["sent_id"] == "s1" and s.metadata["text"] == "I don't know"
    corpus = read_corpus(path)
    assert corpus.to_symbols() == [["PRON", "AUX", "PART", "VERB"]]
    assert corpus.heads.tolist() == [4, 4, 4, 0]


def test_bundled_sample_agrees_with_conllu_package(corpora_dir):
    path = corpora_dir / "ewt-sample.conllu"
    with open(path, encoding="utf-8") as f:
        reference = [[t for t in s if isinstance(t["id"], int)] for s in conllu.parse_incr(f)]
    for field, key in (("upos", "upos"), ("xpos", "xpos"), ("form", "form")):
        corpus = read_corpus(path, field=field)
        assert corpus.to_symbols() == [[t[key] for t in s] for s in reference]
    assert corpus.heads.tolist() == [t["head"] for s in reference for t in s]
    sentences = read_conllu(path)
    assert [s.deprels for s in sentences] == [[t["deprel"] for t in s] for s in reference]
    assert [s.lemmas for s in sentences] == [[t["lemma"] for t in s] for s in reference]


def test_round_trip_reproduces_the_file_byte_for_byte(corpora_dir, tmp_path):
    path = corpora_dir / "ewt-sample.conllu"
    sentences = read_conllu(path)
    out = tmp_path / "out.conllu"
    write_conllu(out, sentences)
    assert read_conllu(out) == sentences
    assert re.search(r"^\d+-\d+\t", path.read_text(encoding="utf-8"), re.M), "the sample has multiword tokens"
    assert out.read_bytes() == path.read_bytes()


def test_universal12_folds_upos(corpora_dir):
    path = corpora_dir / "ewt-sample.conllu"
    fine = read_corpus(path).to_symbols()
    coarse = read_corpus(path, tagset="universal12").to_symbols()
    fold = {"PROPN": "NOUN", "AUX": "VERB", "SCONJ": "CCONJ", "SYM": "PUNCT", "X": "INTJ"}
    assert coarse == [[fold.get(t, t) for t in s] for s in fine]
    assert len({t for s in coarse for t in s}) <= 12


def test_given_vocabulary_maps_unseen_to_unk(corpora_dir):
    from seqspectral.corpus import Vocabulary

    v = Vocabulary(["NOUN", "VERB"])
    corpus = read_corpus(corpora_dir / "ewt-sample.conllu", vocabulary=v)
    assert corpus.vocabulary is v
    full = read_corpus(corpora_dir / "ewt-sample.conllu").to_symbols()
    expected = [[v.id(t) for t in s] for s in full]
    assert [s.tolist() for s in corpus] == expected


def test_corpus_from_sentences_equals_direct_encoding(corpora_dir):
    path = corpora_dir / "ewt-sample.conllu"
    a = corpus_from_sentences(read_conllu(path), field="xpos")
    b = read_corpus(path, field="xpos")
    assert a.vocabulary == b.vocabulary
    assert np.array_equal(a.symbols, b.symbols) and np.array_equal(a.offsets, b.offsets)
    assert np.array_equal(a.heads, b.heads)


@pytest.mark.parametrize(
    "case",
    ["conllu-columns", "conllu-id", "conllu-head", "conllu-head-range", "conllu-cycle", "conllu-no-root", "conllu-utf8"],
)
def test_malformed_input_names_file_and_line(malformed_files, case):
    _, path, line = malformed_files[case]
    for read in (read_corpus, read_conllu):
        with pytest.raises(CorpusFormatError) as info:
            read(path)
        assert info.value.line == line and info.value.path == str(path)
        assert f"{path}:{line}:" in str(info.value)


@pytest.mark.parametrize(
    "case", ["conllu-columns", "conllu-id", "conllu-head", "conllu-head-range", "conllu-cycle", "conllu-no-root"]
)
def test_skip_drops_the_bad_sentence_and_counts_it(malformed_files, case):
    _, path, _ = malformed_files[case]
    with pytest.warns(SkippedRecordsWarning) as caught:
        corpus = read_corpus(path, errors="skip")
    assert caught[0].message.n_skipped == 1
    assert corpus.to_symbols() == [["DET", "NOUN", "VERB"]]
    assert corpus.heads.tolist() == [2, 3, 0]
    with pytest.warns(SkippedRecordsWarning):
        assert len(read_conllu(path, errors="skip")) == 1


def test_empty_file_is_an_empty_corpus(tmp_path):
    path = tmp_path / "empty.conllu"
    path.write_bytes(b"")
    corpus = read_corpus(path)
    assert len(corpus) == 0 and corpus.n_tokens == 0 and corpus.heads is not None
    assert read_conllu(path) == []


words = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp")), min_size=1, max_size=5)


@st.composite
def sentences(draw):
    n = draw(st.integers(1, 6))
    order = draw(st.permutations(range(1, n + 1)))
    heads = [0] * n
    for i, w in enumerate(order):
        heads[w - 1] = 0 if i == 0 else order[draw(st.integers(0, i - 1))]
    col = lambda: draw(st.lists(words, min_size=n, max_size=n))  # noqa: E731
    return Sentence(col(), col(), col(), col(), heads, col(), metadata={"sent_id": draw(words)})


@settings(max_examples=40, deadline=None)
@given(st.lists(sentences(), max_size=5))
def test_random_treebanks_round_trip(tmp_path_factory, treebank):
    path = tmp_path_factory.mktemp("rt") / "t.conllu"
    write_conllu(path, treebank)
    assert read_conllu(path) == treebank
    corpus = read_corpus(path, field="form")
    assert corpus.to_symbols() == [s.forms for s in treebank]


def test_double_spaces_inside_a_form_stay_in_the_form(tmp_path):
    path = tmp_path / "s.conllu"
    path.write_text("1\tNew  York\tNew  York\tPROPN\tNNP\t_\t0\troot\t_\t_\n\n")
    (s,) = read_conllu(path)
    assert s.forms == ["New  York"] and s.upos == ["PROPN"] and s.heads.tolist() == [0]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 5).flatmap(lambda n: st.lists(st.integers(0, n), min_size=n, max_size=n)), max_size=8))
def test_skip_keeps_exactly_the_trees(tmp_path_factory, head_lists):
    path = tmp_path_factory.mktemp("skip") / "t.conllu"
    blocks = []
    for heads in head_lists:
        rows = [f"{i}\tw{i}\tw\tX\t_\t_\t{h}\tdep\t_\t_" for i, h in enumerate(heads, 1)]
        blocks.append("\n".join(rows) + "\n\n")
    path.write_text("".join(blocks))
    good = [h for h in head_lists if brute_is_tree(h, several_roots=True)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corpus = read_corpus(path, field="form", errors="skip")
    skipped = [w.message.n_skipped for w in caught if isinstance(w.message, SkippedRecordsWarning)]
    assert skipped == ([len(head_lists) - len(good)] if len(good) < len(head_lists) else [])
    several = [w.message.n_sentences for w in caught if isinstance(w.message, SeveralRootsWarning)]
    n_several = sum(h.count(0) > 1 for h in good)
    assert several == ([n_several] if n_several else [])
    assert corpus.heads.tolist() == [h for heads in good for h in heads]
    assert corpus.lengths.tolist() == [len(h) for h in good]
