"""The Brown corpus through NLTK's readers, checked against its raw files."""

import zipfile

import numpy as np
import pytest

from seqspectral.corpus.nltk_corpora import read_brown


@pytest.fixture()
def nltk_path(nltk_data_dir, monkeypatch):
    import nltk.data

    monkeypatch.setattr(nltk.data, "path", [str(nltk_data_dir)])
    return nltk_data_dir


def raw_brown_file(data_dir, name):
    """(word, tag) sentences of one Brown file parsed by hand: one sentence per line."""
    text = zipfile.ZipFile(data_dir / "corpora" / "brown.zip").read(f"brown/{name}").decode("ascii")
    return [[tuple(tok.rsplit("/", 1)) for tok in line.split()] for line in text.split("\n") if line.strip()]


def test_brown_fields_match_raw_file(nltk_path):
    ca01 = raw_brown_file(nltk_path, "ca01")
    forms = read_brown(nltk_path, field="form", categories="news")
    assert forms.to_symbols()[: len(ca01)] == [[w for w, _ in s] for s in ca01]
    xpos = read_brown(nltk_path / "corpora" / "brown.zip", field="xpos", categories="news")
    assert xpos.to_symbols()[: len(ca01)] == [[t.upper() for _, t in s] for s in ca01]  # NLTK upper-cases tags
    upos = read_brown(nltk_path, categories="news")
    assert len(upos) == len(forms) == 4623 and upos.n_tokens == 100554
    assert set(upos.vocabulary.symbols[2:]) <= {"NOUN", "VERB", "ADJ", "ADV", "PRON", "DET", "ADP", "NUM", "CONJ", "PRT", ".", "X"}
    # 'The/AT' is a determiner, 'Fulton/NP-TL' a noun in the universal tagset
    assert upos.to_symbols()[0][:2] == ["DET", "NOUN"]


def test_brown_round_trip_through_text(nltk_path, tmp_path):
    from seqspectral.corpus import read_text, write_text

    upos = read_brown(nltk_path, categories="editorial")
    write_text(tmp_path / "brown.txt", upos)
    back = read_text(tmp_path / "brown.txt", vocabulary=upos.vocabulary)
    assert np.array_equal(back.symbols, upos.symbols) and np.array_equal(back.offsets, upos.offsets)


def test_missing_brown_is_a_file_error(tmp_path, monkeypatch):
    import nltk.data

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    with pytest.raises(FileNotFoundError):
        read_brown(None)
    with pytest.raises(FileNotFoundError):
        read_brown(tmp_path / "nothing.zip")
