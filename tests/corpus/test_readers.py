"""Format detection and the read_corpus front door."""

import pytest

from seqspectral.corpus import CorpusFormatError, detect_format, read_corpus

SAMPLES = {
    "conllu": "# sent_id = 1\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n",
    "malttab": "Hi\tUH\t0\n\nYes\tUH\t0\tROOT\n",
    "pautomac": "2 3\n2 0 2\n0\n",
    "text": "DET NOUN VERB\nNOUN\n",
}


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_detection_by_content_and_override(tmp_path, fmt):
    path = tmp_path / "data.txt"
    path.write_text(SAMPLES[fmt])
    assert detect_format(path) == fmt
    corpus = read_corpus(path)
    assert len(corpus) == 2 if fmt != "conllu" else len(corpus) == 1
    assert read_corpus(path, format="text").heads is None  # forcing a format overrides detection


@pytest.mark.parametrize(
    "name, fmt",
    [("a.conllu", "conllu"), ("a.conll", "conllx"), ("a.conllx", "conllx"), ("wsj_0001.dp", "malttab"),
     ("3.pautomac.train", "pautomac"), ("3.pautomac.test", "pautomac"), ("brown.zip", "brown")],
)
def test_detection_by_name(tmp_path, name, fmt):
    path = tmp_path / name
    path.write_text("")
    assert detect_format(path) == fmt


def test_directory_means_brown(tmp_path):
    assert detect_format(tmp_path) == "brown"


@pytest.mark.parametrize("fmt, suffix", [("conllu", ".conllu"), ("conllx", ".conllx"), ("malttab", ".dp"),
                                          ("pautomac", ".pautomac.train"), ("text", ".txt")])
def test_empty_file_is_an_empty_corpus(tmp_path, fmt, suffix):
    path = tmp_path / f"empty{suffix}"
    path.write_bytes(b"")
    corpus = read_corpus(path)
    assert len(corpus) == 0 and corpus.n_tokens == 0
    assert len(read_corpus(path, format=fmt)) == 0


def test_bad_arguments(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("a b\n")
    with pytest.raises(ValueError, match="unknown format"):
        read_corpus(path, format="xml")
    with pytest.raises(ValueError, match="unknown tagset"):
        read_corpus(path, tagset="ptb")
    with pytest.raises(ValueError, match="errors"):
        read_corpus(path, format="conllu", errors="ignore")
    with pytest.raises(FileNotFoundError):
        read_corpus(tmp_path / "missing.conllu")


def test_wrong_format_forced_is_a_format_error(corpora_dir):
    with pytest.raises(CorpusFormatError, match=":1:"):
        read_corpus(corpora_dir / "ewt-sample.conllu", format="pautomac")
    with pytest.raises(CorpusFormatError, match=":1:"):
        read_corpus(corpora_dir / "toy.pautomac.train", format="conllu")
