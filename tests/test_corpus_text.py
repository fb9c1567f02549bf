"""Plain text, one sequence per line."""

from hypothesis import given, settings
from hypothesis import strategies as st

from seqspectral.corpus import Corpus, CorpusFormatError, read_corpus, read_text, write_text

symbols = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp")), min_size=1, max_size=4)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(symbols, max_size=6), max_size=10))
def test_random_corpora_round_trip(tmp_path_factory, seqs):
    path = tmp_path_factory.mktemp("t") / "x.txt"
    write_text(path, Corpus.from_symbols(seqs))
    assert read_text(path).to_symbols() == seqs


def test_lines_blank_lines_and_crlf(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"DET NOUN  VERB\r\n\nNOUN\n")
    corpus = read_corpus(path)
    assert corpus.to_symbols() == [["DET", "NOUN", "VERB"], [], ["NOUN"]]
    assert corpus.heads is None
    assert read_text(path, tagset="universal12").to_symbols() == [["DET", "NOUN", "VERB"], [], ["NOUN"]]
    path.write_bytes(b"PROPN AUX\n")
    assert read_text(path, tagset="universal12").to_symbols() == [["NOUN", "VERB"]]


def test_empty_file_and_bad_bytes(tmp_path):
    path = tmp_path / "e.txt"
    path.write_bytes(b"")
    assert len(read_corpus(path)) == 0
    path.write_bytes(b"a b\nc \xe9 d\n")
    try:
        read_corpus(path)
    except CorpusFormatError as e:
        assert e.line == 2
    else:
        raise AssertionError("non-UTF-8 bytes were accepted")
