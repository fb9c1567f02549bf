"""What real files bring: encodings, byte-order marks, line endings, several roots,
reserved names, detection that says why, absurd PAutomaC headers, linear statistics."""

import time
import warnings

import numpy as np
import pytest

from seqspectral.corpus import (
    CorpusFormatError,
    SeveralRootsWarning,
    Vocabulary,
    describe,
    detect,
    read_conllu,
    read_conllx,
    read_corpus,
    read_pautomac,
)
from seqspectral.corpus import pautomac

TOKENS = ["Año", "señor", "ŝ", "東京", "x"]


def _conll(sentences, comment: str | None = None) -> str:
    """10-column text from sentences given as lists of (form, tag, head)."""
    out = []
    for rows in sentences:
        if comment:
            out.append(f"# {comment}")
        out += [f"{i}\t{f}\t{f.lower()}\t{t}\t{t}\t_\t{h}\tdep\t_\t_" for i, (f, t, h) in enumerate(rows, 1)]
        out.append("")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1", "cp1252", "utf-16"])
def test_text_in_any_encoding(tmp_path, encoding):
    words = [w for w in TOKENS if _encodable(w, encoding)]
    path = tmp_path / "t.txt"
    path.write_bytes((" ".join(words) + "\n" + words[0] + "\n").encode(encoding))
    assert read_corpus(path, format="text", encoding=encoding).to_symbols() == [words, [words[0]]]


def _encodable(word, encoding):
    try:
        word.encode(encoding)
        return True
    except UnicodeEncodeError:
        return False


def test_undecodable_bytes_name_the_line_and_suggest_the_option(tmp_path):
    path = tmp_path / "t.conllx"
    path.write_bytes(_conll([[("The", "DT", 0)], [("Año", "NN", 0)]]).encode("latin-1"))
    with pytest.raises(CorpusFormatError) as info:
        read_conllx(path)
    assert info.value.line == 3 and "encoding" in str(info.value) and "latin-1" in str(info.value)
    assert read_conllx(path, encoding="latin-1")[1].forms == ["Año"]
    with pytest.raises(ValueError, match="unknown encoding"):
        read_corpus(path, encoding="klingon")


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_bom_and_every_line_ending(tmp_path, ending):
    bom = "\ufeff"
    conllu = tmp_path / "a.conllu"
    conllu.write_text(bom + _conll([[("Hi", "INTJ", 0)], [("A", "DET", 2), ("b", "NOUN", 0)]], "sent_id = x").replace("\n", ending),
                      encoding="utf-8", newline="")
    first, second = read_conllu(conllu)
    assert first.forms == ["Hi"] and first.metadata == {"sent_id": "x"} and second.heads.tolist() == [2, 0]
    pautomac = tmp_path / "a.pautomac.train"
    pautomac.write_bytes((bom + "3 4\n2 0 3\n0\n1 2\n").replace("\n", ending).encode("utf-8"))
    corpus = read_pautomac(pautomac)
    assert [s.tolist() for s in corpus] == [[2, 5], [], [4]]
    text = tmp_path / "a.txt"
    text.write_bytes((bom + "a b\n\nc\n").replace("\n", ending).encode("utf-8"))
    assert read_corpus(text).to_symbols() == [["a", "b"], [], ["c"]]


def test_cr_only_errors_name_the_right_line(tmp_path):
    path = tmp_path / "a.pautomac.train"
    path.write_bytes(b"3 4\r2 0 1\r3 1 1\r0\r")
    with pytest.raises(CorpusFormatError) as info:
        read_pautomac(path)
    assert info.value.line == 3


def test_several_roots_accepted_conllu_warns_cycles_still_refused(tmp_path):
    two_roots = [("A", "X", 0), ("b", "X", 1), ("c", "X", 0)]
    one_root = [("d", "X", 0)]
    path = tmp_path / "a.conllx"
    path.write_text(_conll([two_roots, one_root, two_roots]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # CoNLL-X: no warning
        assert [s.heads.tolist() for s in read_conllx(path)] == [[0, 1, 0], [0], [0, 1, 0]]
    conllu = tmp_path / "a.conllu"
    conllu.write_text(_conll([two_roots, one_root, two_roots]))
    with pytest.warns(SeveralRootsWarning, match="2 sentence") as caught:
        corpus = read_corpus(conllu)
    assert caught[0].message.n_sentences == 2 and len(corpus) == 3
    cycle = tmp_path / "c.conllx"
    cycle.write_text(_conll([[("A", "X", 0), ("b", "X", 3), ("c", "X", 2)]]))
    with pytest.raises(CorpusFormatError, match="cycle"):
        read_conllx(cycle)


def test_detection_says_what_and_why(tmp_path):
    ten = tmp_path / "basque.train"
    ten.write_text(_conll([[("A", "X", 0)]]))
    found = detect(ten)
    assert found.format == "conllx" and found.by_content and "10 tab-separated columns" in found.reason
    ten.write_text(_conll([[("A", "X", 0)]], "sent_id = 1"))
    assert detect(ten).format == "conllu"
    ten.write_text("1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n" + _conll([[("do", "X", 0), ("n't", "X", 1)]]))
    assert detect(ten).format == "conllu"
    named = tmp_path / "a.conllu"
    named.write_text("")
    assert detect(named) == ("conllu", "the extension .conllu", False)
    latin = tmp_path / "latin.train"
    latin.write_bytes(_conll([[("Año", "X", 0)]]).encode("latin-1"))
    assert detect(latin, "latin-1").format == "conllx"


def test_reserved_names_are_ordinary_symbols(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("a </s> b\n<unk> </s>\n")
    corpus = read_corpus(path)
    assert corpus.symbols.min() >= Vocabulary.N_RESERVED
    assert corpus.to_symbols() == [["a", "</s>", "b"], ["<unk>", "</s>"]]
    other = read_corpus(path, vocabulary=Vocabulary(["a"]))
    assert other.symbols.tolist() == [2, 0, 0, 0, 0]  # unknown, never the end marker's id


def test_huge_alphabet_header_is_refused_at_once(tmp_path, monkeypatch):
    path = tmp_path / "h.pautomac.train"
    path.write_bytes(b"1 99999999999999\n1 0\n")
    t0 = time.perf_counter()
    with pytest.raises(CorpusFormatError, match="alphabet of 99999999999999") as info:
        read_pautomac(path)
    assert info.value.line == 1 and time.perf_counter() - t0 < 1.0
    monkeypatch.setattr(pautomac, "MAX_ALPHABET", 1000)
    path.write_bytes(b"1 1000\n2 0 7\n")
    assert len(read_pautomac(path).vocabulary) == 1000 + 2  # the largest accepted
    path.write_bytes(b"1 1001\n2 0 7\n")
    with pytest.raises(CorpusFormatError, match="at most 1000"):
        read_pautomac(path)
    test = tmp_path / "h.pautomac.test"
    test.write_bytes(b"1 1000\n2 7 900\n")
    small = Vocabulary(["0", "7"])  # the encoding table covers the symbols present, not the header's alphabet
    assert read_pautomac(test, vocabulary=small).symbols.tolist() == [small.id("7"), 0]


def brute_nonprojective(heads) -> bool:
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads, 1)]
    return any(a < c < b < d for a, b in arcs for c, d in arcs)


def test_describe_against_brute_force():
    rng = np.random.default_rng(0)
    trees = []
    for _ in range(300):
        n = int(rng.integers(1, 9))
        order = rng.permutation(np.arange(1, n + 1))
        heads = np.zeros(n, dtype=np.int32)
        for i, w in enumerate(order):
            heads[w - 1] = 0 if i == 0 or rng.random() < 0.15 else order[rng.integers(0, i)]
        trees.append(heads)
    offsets = np.concatenate([[0], np.cumsum([len(h) for h in trees])])
    from seqspectral.corpus import Corpus

    symbols = rng.integers(2, 7, size=int(offsets[-1]))
    corpus = Corpus(symbols, offsets, None, np.concatenate(trees))
    result = describe(corpus)
    assert result["n_nonprojective"] == sum(brute_nonprojective(h.tolist()) for h in trees)
    assert result["n_several_roots"] == sum(int((h == 0).sum() > 1) for h in trees)
    assert result["vocabulary_size"] == len(set(symbols.tolist()))
    lengths = [len(h) for h in trees]
    assert (result["length_min"], result["length_max"], result["length_median"]) == (min(lengths), max(lengths),
                                                                                      float(np.median(lengths)))


def test_describe_is_linear_on_one_huge_sentence():
    """A 200,000-word chain and a 200,000-word star: seconds, not gigabytes."""
    from seqspectral.corpus import Corpus

    n = 200_000
    chain = np.arange(0, n, dtype=np.int32)  # word i+1 headed by word i; word 1 is the root
    star = np.zeros(n, dtype=np.int32) + 1
    star[0] = 0
    for heads, expected in ((chain, 0), (star, 0)):
        t0 = time.perf_counter()
        corpus = Corpus(np.full(n, 2), [0, n], None, heads)
        assert describe(corpus)["n_nonprojective"] == expected
        assert time.perf_counter() - t0 < 5.0
    short = np.array([3, 4, 0, 3], dtype=np.int32)  # arcs 1<-3 and 2<-4 cross
    assert describe(Corpus(np.full(4, 2), [0, 4], None, short))["n_nonprojective"] == 1


def test_mapped_bytes_are_the_file_read_only(tmp_path):
    """The mapped file equals its bytes, cannot be written through, and an empty file (which
    cannot be mapped) is an empty array."""
    from seqspectral.corpus.textfile import mapped_bytes

    path = tmp_path / "f.txt"
    path.write_bytes(b"\xef\xbb\xbfa b\r\nc\n" * 1000)
    buf = mapped_bytes(path)
    assert buf.dtype == np.uint8 and buf.tobytes() == path.read_bytes() and not buf.flags.writeable
    (tmp_path / "empty.txt").write_bytes(b"")
    assert mapped_bytes(tmp_path / "empty.txt").shape == (0,)
