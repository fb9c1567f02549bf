"""The compiled one-pass reader of CoNLL-U and CoNLL-X (``tabular._one_pass``) against the
line-by-line reader it stands in for: the same Corpus, or no result (the line-by-line reader
then reads the file and reports its defect)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from seqspectral.corpus import read_corpus, tabular
from seqspectral.corpus.conllu_format import CONLLU
from seqspectral.corpus.conllx import CONLLX
from seqspectral.corpus.errors import CorpusFormatError

CORPORA = Path(__file__).resolve().parents[2] / "corpora"


def _line_by_line(monkeypatch, *args, **kwargs):
    with monkeypatch.context() as m:
        m.setattr(tabular, "_one_pass", lambda *a: None)
        return read_corpus(*args, **kwargs)


def _same(a, b):
    assert a.vocabulary == b.vocabulary
    for name in ("symbols", "offsets", "heads"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("field", ["form", "lemma", "upos", "xpos", "deprel"])
def test_bundled_sample_as_line_by_line(monkeypatch, field):
    path = CORPORA / "ewt-sample.conllu"
    assert tabular._one_pass(path, CONLLU, field, "utf-8") is not None
    _same(read_corpus(path, format="conllu", field=field), _line_by_line(monkeypatch, path, format="conllu", field=field))


TRICKY = ("\ufeff# sent_id = 1\r\n# text = Ça va.\r\n1-2\tÇa\t_\t_\t_\t_\t_\t_\t_\t_\r\n"
          "1\tÇa\tça\tPRON\tPRP\t_\t2\tnsubj\t_\t_\r\n2\tva\taller\tVERB\tVB\t_\t0\troot\t_\t_\r\n"
          "2.1\tx\t_\t_\t_\t_\t_\t_\t_\t_\r\n3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\r\n \t\r\n\r\n"
          "# a sentence whose words both attach to the root\n1\tOui\toui\tINTJ\tUH\t_\t0\troot\t_\t_\n"
          "2\tnon\tnon\tINTJ\tUH\t_\t0\troot\t_\t_\n\n\n# only a comment\n\n"
          "1\tfin\tfin\tNOUN\tNN\t_\t0\troot\t_\t_")


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_tricky_layout_as_line_by_line(monkeypatch, tmp_path, encoding):
    """A byte-order mark, CR LF, comments, a multiword token, an empty node, a blank line of white
    space, several roots, a comment-only block, no final line break; UTF-8 and Latin-1."""
    path = tmp_path / "tricky.conllu"
    path.write_bytes(TRICKY.replace("\ufeff", "\ufeff" if encoding == "utf-8" else "").encode(encoding))
    assert tabular._one_pass(path, CONLLU, "form", encoding) is not None
    with pytest.warns(Warning):  # several roots, said by both
        ours = read_corpus(path, format="conllu", field="form", encoding=encoding)
    with pytest.warns(Warning):
        theirs = _line_by_line(monkeypatch, path, format="conllu", field="form", encoding=encoding)
    _same(ours, theirs)
    assert ours.to_symbols() == [["Ça", "va", "."], ["Oui", "non"], ["fin"]]


@pytest.mark.parametrize("defect, line", [
    ("3\tx\tx\tX\tX\t_\t2\tdep\t_\t_\n", 4),  # id 3 after 1: not its position
    ("2\tx\tx\tX\tX\t_\t2\tdep\n", 4),  # 9 columns
    ("2\tx\tx\tX\tX\t_\t_\tdep\t_\t_\n", 4),  # head _
    ("2\tx\tx\tX\tX\t_\t1\tdep\t_\t_\n# late comment\n", 5),  # a comment inside the sentence
    ("2\tx\tx\tX\tX\t_\t1\tdep\t_\t_\r", 4),  # a lone CR
    ("2-1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n", 4),  # a backward range
])
def test_defects_go_to_the_line_by_line_reader(tmp_path, defect, line):
    path = tmp_path / "bad.conllu"
    path.write_text("# s\n\n1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n" + defect + "3\tb\tb\tX\tX\t_\t1\tdep\t_\t_\n")
    unusual = tabular._one_pass(path, CONLLU, "form", "utf-8")
    assert unusual is None
    if "\r" in defect:  # a lone CR is a line break to the line-by-line reader: the file is fine there
        return
    with pytest.raises(CorpusFormatError, match=f":{line}: "):
        read_corpus(path, format="conllu")


def test_conllx_and_undecodable_bytes(monkeypatch, tmp_path):
    """CoNLL-X takes no multiword ids; bytes the encoding cannot decode are the line-by-line
    reader's to report."""
    path = tmp_path / "a.conll"
    path.write_text("1\tThe\tthe\tDT\tDT\t_\t2\tdet\t_\t_\n2\tdog\tdog\tNN\tNN\t_\t0\tROOT\t_\t_\n\n")
    assert tabular._one_pass(path, CONLLX, "upos", "utf-8") is not None
    _same(read_corpus(path, format="conllx"), _line_by_line(monkeypatch, path, format="conllx"))
    path.write_bytes(b"1-2\tx\t_\t_\t_\t_\t_\t_\t_\t_\n" + path.read_bytes())
    assert tabular._one_pass(path, CONLLX, "upos", "utf-8") is None
    path.write_bytes(b"1\t\xff\tthe\tDT\tDT\t_\t0\tdet\t_\t_\n")
    assert tabular._one_pass(path, CONLLX, "upos", "utf-8") is None
    with pytest.raises(CorpusFormatError, match=":1: "):
        read_corpus(path, format="conllx")


def test_utf8_check_is_pythons():
    """The compiled pass's UTF-8 check takes exactly the sequences Python's strict decoder
    takes: every lead byte beyond ASCII, followed by bytes at the edges of the ranges."""
    from seqspectral.corpus._kernels import _utf8_length

    edges = (0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF)
    for lead in range(0x80, 0x100):
        for size in (1, 2, 3, 4):  # every distinct sequence of `size` bytes: the lead, then edges
            for rest in itertools.product(edges, repeat=size - 1):
                seq = bytes((lead, *rest))
                expected = 0
                for k in range(1, size + 1):
                    try:
                        seq[:k].decode("utf-8")
                    except UnicodeDecodeError:
                        continue
                    expected = k
                    break
                assert _utf8_length(np.frombuffer(seq, dtype=np.uint8), 0) == expected, seq


@pytest.mark.parametrize("where", ["comment", "word"])
def test_bad_utf8_anywhere_is_reported_at_its_line(tmp_path, where):
    bad = b"\xed\xa0\x80"  # a surrogate: not UTF-8 to Python
    lines = [b"# ok \xc3\xa7", b"1\ta\ta\tX\tX\t_\t0\troot\t_\t_", b"", b"# text", b"1\tb\tb\tX\tX\t_\t0\troot\t_\t_"]
    lines[3 if where == "comment" else 4] += bad if where == "comment" else b""
    if where == "word":
        lines[4] = lines[4].replace(b"\tb\tb", b"\tb" + bad + b"\tb")
    path = tmp_path / "bad.conllu"
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert tabular._one_pass(path, CONLLU, "form", "utf-8") is None
    with pytest.raises(CorpusFormatError, match=f":{4 if where == 'comment' else 5}: "):
        read_corpus(path, format="conllu")


MALTTAB_TRICKY = ("It\tPRP\t2\r\nwas\tVBD\t0\r\n\r\n#\tNN\t0\tROOT\n\tXX\t1\tdep\n \t\n\n"
                  "a\tDT\t2\nb\tNN\t0\tROOT")


@pytest.mark.parametrize("field", ["form", "upos", "xpos", "deprel", "lemma"])
def test_malttab_as_line_by_line(monkeypatch, tmp_path, field):
    """Malt-TAB in the compiled pass: CR LF, 3 and 4 columns, a word "#" (no comments), an empty
    word, a blank line of white space, no final line break. A missing relation column, the
    lemma (always "_"), and a line split at spaces go to the line-by-line reader."""
    from seqspectral.corpus.conllx import MALTTAB

    path = tmp_path / "t.malttab"
    path.write_bytes(MALTTAB_TRICKY.encode())
    taken = tabular._one_pass(path, MALTTAB, field, "utf-8") is not None
    assert taken == (field in ("form", "upos", "xpos"))
    _same(read_corpus(path, format="malttab", field=field), _line_by_line(monkeypatch, path, format="malttab", field=field))
    assert read_corpus(path, format="malttab", field="form").to_symbols() == [["It", "was"], ["#", ""], ["a", "b"]]
    path.write_bytes(MALTTAB_TRICKY.replace("a\tDT\t2", "a DT 2").encode())
    assert tabular._one_pass(path, MALTTAB, "form", "utf-8") is None
    _same(read_corpus(path, format="malttab", field=field), _line_by_line(monkeypatch, path, format="malttab", field=field))


def test_wsj_dependency_sample_as_line_by_line(monkeypatch, tmp_path, nltk_data_dir):
    """The Penn Treebank WSJ dependency sample (NLTK's dependency_treebank, Malt-TAB): the compiled
    pass and the line-by-line reader agree on its 3,914 sentences."""
    import zipfile

    from seqspectral.corpus.conllx import MALTTAB

    with zipfile.ZipFile(nltk_data_dir / "corpora" / "dependency_treebank.zip") as z:
        files = sorted(n for n in z.namelist() if n.endswith(".dp"))
        path = tmp_path / "wsj.malttab"
        path.write_bytes(b"".join(z.read(n).rstrip(b"\n") + b"\n\n" for n in files))
    for field in ("form", "upos"):
        assert tabular._one_pass(path, MALTTAB, field, "utf-8") is not None
        ours = read_corpus(path, format="malttab", field=field)
        _same(ours, _line_by_line(monkeypatch, path, format="malttab", field=field))
    assert (len(ours), ours.n_tokens) == (3914, 94084)


def test_single_byte_encodings(monkeypatch, tmp_path):
    """Latin-1 decodes every byte: its file goes through the pass undecoded, every byte value in
    a word; cp1252 leaves 0x81 undefined: that file is the line-by-line reader's to report."""
    from seqspectral.corpus.textfile import every_byte_decodes

    assert every_byte_decodes("latin_1") and not every_byte_decodes("cp1252") and not every_byte_decodes("utf-8")
    word = bytes(b for b in range(128, 256))
    path = tmp_path / "a.conll"
    path.write_bytes(b"1\t" + word + b"\tx\tX\tX\t_\t0\troot\t_\t_\n2\tb\tb\tX\tX\t_\t1\tdep\t_\t_\n")
    assert tabular._one_pass(path, CONLLX, "form", "latin-1") is not None
    ours = read_corpus(path, format="conllx", field="form", encoding="latin-1")
    _same(ours, _line_by_line(monkeypatch, path, format="conllx", field="form", encoding="latin-1"))
    assert ours.to_symbols() == [[word.decode("latin-1"), "b"]]
    assert tabular._one_pass(path, CONLLX, "form", "cp1252") is None
    with pytest.raises(CorpusFormatError, match=":1: "):
        read_corpus(path, format="conllx", encoding="cp1252")
