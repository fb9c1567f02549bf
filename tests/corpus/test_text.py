"""Plain text, one sequence per line."""

import numpy as np
import pytest
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


TRICKY = ["", "\n", "a b\n\nc", "a  b \n\n", "x\n  ", "é ü\tá\n\x0bq\x1cr\n", "a\nb\n", " \n \n", "w/T v/t x\nA/b/c"]


@pytest.mark.parametrize("text", TRICKY)
def test_compiled_tokens_equal_python_split(text):
    """One compiled pass numbers the tokens as splitting each line in Python does."""
    from seqspectral.corpus.text import _by_lines
    from seqspectral.corpus.tokens import numbered_tokens

    distinct, codes, lengths = _by_lines(text)
    ours, our_codes, our_lengths, bad = numbered_tokens(text.encode("utf-8"))
    assert bad == -1 and ours == distinct
    np.testing.assert_array_equal(our_codes, codes)
    np.testing.assert_array_equal(our_lengths, lengths)


def test_shared_hashes_never_merge_strings(monkeypatch):
    """Every token given one hash (each lookup then probes past the other strings, through
    the table's growths): the byte check keeps the strings apart, the numbering is the same."""
    from seqspectral.corpus import chunks
    from seqspectral.corpus.tokens import TAG, WORD, numbered_tokens

    rng = np.random.default_rng(0)
    # about 1,000 distinct: the table grows; short parts (one word each) and long ones (bytes compared)
    words = [f"w{i}" if i % 2 else f"w{i:07d}"[:4 + i % 8] for i in rng.integers(0, 1500, 6000)]
    data = ("a/x b/Y a/X\nc/y " + " ".join(f"{w}/{w[:2]}" for w in words)).encode()
    numbered = {}
    for part, parts in ((WORD, ["a", "b", "a", "c", *words]), (TAG, ["X", "Y", "X", "Y", *(w[:2].upper() for w in words)])):
        first = list(dict.fromkeys(parts))
        numbered[part] = first, [first.index(p) for p in parts]
    for part, (distinct, codes) in numbered.items():
        assert numbered_tokens(data, part)[0] == distinct
        monkeypatch.setattr(chunks, "HASH_MASK", np.uint64(0))
        found, found_codes, lengths, _ = numbered_tokens(data, part)
        assert found == distinct and found_codes.tolist() == codes and lengths.tolist() == [3, 1 + len(words)]
        monkeypatch.undo()


def test_wide_white_space_splits_like_python(tmp_path):
    path = tmp_path / "wide.txt"
    path.write_text("a\u00a0b c\nd\u3000e\n", encoding="utf-8")
    assert read_text(path).to_symbols() == [["a", "b", "c"], ["d", "e"]]


def test_one_huge_symbol_among_many(tmp_path):
    """A 2 MB token beside 20,000 short ones: read as Python splits it (a fixed-width string
    array of them all would take 160 GB)."""
    words = [f"w{i}" for i in range(20_000)]
    path = tmp_path / "huge.txt"
    path.write_text(" ".join(words) + "\n" + "x" * 2_000_000 + " w7\n")
    corpus = read_text(path)
    assert corpus.to_symbols() == [words, ["x" * 2_000_000, "w7"]]
    assert corpus.vocabulary.symbols[2:4] == ["w7", "w0"]  # the most frequent first, then by name


def test_compiled_white_space_is_pythons():
    """The compiled pass stops at exactly the characters beyond ASCII that ``str.split`` splits
    at: every code point of the Basic Multilingual Plane, and a sample of the others."""
    from seqspectral.corpus._kernels import _utf8_length, _wide_space

    for code in [*range(0x80, 0xD800), *range(0xE000, 0x10000), *range(0x10000, 0x110000, 997)]:
        b = np.frombuffer(chr(code).encode("utf-8"), dtype=np.uint8)
        assert _utf8_length(b, 0) == len(b) and _wide_space(b, 0, len(b)) == chr(code).isspace(), hex(code)


def test_utf8_text_in_one_pass_as_python_splits(tmp_path):
    """Words beyond ASCII, a byte-order mark, CR LF: the compiled pass (no fallback) reads
    them as Python splits the decoded lines."""
    from seqspectral.corpus.tokens import numbered_tokens

    text = "\ufeffÇa va\r\nnaïve café\t😀 x\u200by\n\nend"
    path = tmp_path / "u.txt"
    path.write_bytes(text.encode("utf-8"))
    assert numbered_tokens(text.encode("utf-8")[3:])[3] == -1  # no fallback
    assert read_text(path).to_symbols() == [line.split() for line in text[1:].replace("\r\n", "\n").split("\n")]


def test_token_stops_are_pythons_white_space():
    """The bytes the token pass stops at: ``str.isspace`` among ASCII, every byte beyond it and,
    for ``word/tag`` tokens, the slash."""
    from seqspectral.corpus._kernels import _TOKEN_STOPS, _TOKEN_STOPS_SLASH

    for c in range(256):
        assert _TOKEN_STOPS[c] == (c >= 128 or chr(c).isspace())
        assert _TOKEN_STOPS_SLASH[c] == (_TOKEN_STOPS[c] or c == ord("/"))


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(list("ab/Z /\t\n\r\x0b\x1cé\u00a0")), max_size=60), st.sampled_from([0, 1, 2]))
def test_compiled_parts_equal_python(text, part):
    """Words, tags and whole tokens of random text against Python: plain text lines (LF, CR LF,
    a lone CR; white space beyond ASCII sends the file to Python) and NLTK's tagged sentences
    (only LF ends one, lines without a token skipped, bytes beyond ASCII refused)."""
    from seqspectral.corpus.tokens import numbered_tokens

    def piece(token):
        if part == 0 or "/" not in token:
            return token if part != 2 else ""
        word, tag = token.rsplit("/", 1)
        return word if part == 1 else tag.upper()

    data = text.encode("utf-8")
    for text_lines in (True, False):
        distinct, codes, lengths, bad = numbered_tokens(data, part, text_lines)
        if not text_lines and not text.isascii():
            assert bad == min(i for i, b in enumerate(data) if b >= 128)
            continue
        if text_lines and "\u00a0" in text:
            assert bad == data.index("\u00a0".encode())
            continue
        lines = text.replace("\r\n", "\n").replace("\r", "\n") if text_lines else text
        lines = lines.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        sentences = [[piece(t) for t in line.split()] for line in lines]
        if not text_lines:
            sentences = [s for s in sentences if s]
        first = {}
        expected = [first.setdefault(p, len(first)) for s in sentences for p in s]
        assert bad == -1 and distinct == list(first) and codes.tolist() == expected
        assert lengths.tolist() == [len(s) for s in sentences]
