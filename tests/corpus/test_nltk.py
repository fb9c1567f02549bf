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


@pytest.mark.parametrize("field", ["upos", "xpos", "form"])
def test_brown_equals_nltks_own_reader(nltk_path, field):
    """The compiled reader against NLTK's CategorizedTaggedCorpusReader, two categories."""
    import nltk.data
    from nltk.corpus.reader import CategorizedTaggedCorpusReader

    root = nltk.data.ZipFilePathPointer(str(nltk_path / "corpora" / "brown.zip"), "brown/")
    reader = CategorizedTaggedCorpusReader(root, r"c[a-z]\d\d", cat_file="cats.txt", tagset="brown", encoding="ascii")
    categories = ["news", "humor"]
    if field == "form":
        expected = [list(s) for s in reader.sents(categories=categories)]
    else:
        tagged = reader.tagged_sents(categories=categories, tagset="universal" if field == "upos" else None)
        expected = [[t for _, t in s] for s in tagged]
    ours = read_brown(nltk_path, field=field, categories=categories)
    assert ours.to_symbols() == expected and len(expected) > 5000


def test_brown_directory_and_bad_bytes(nltk_path, tmp_path):
    """A brown/ directory reads like the zip; a non-ASCII byte is an error naming its offset."""
    brown = tmp_path / "brown"
    brown.mkdir()
    zipfile.ZipFile(nltk_path / "corpora" / "brown.zip").extract("brown/ca01", tmp_path)
    (brown / "cb01").write_bytes(b"The/at caf\xc3\xa9/nn ./.\n")
    (brown / "cats.txt").write_text("ca01 news\ncb01 editorial\n")
    news = read_brown(brown, field="xpos", categories="news")
    assert news.to_symbols() == read_brown(nltk_path, field="xpos", categories="news").to_symbols()[:len(news)]
    from seqspectral.corpus.errors import CorpusFormatError

    with pytest.raises(CorpusFormatError, match="not ASCII"):
        read_brown(brown, field="xpos")


def test_brown_is_the_same_on_any_number_of_threads(nltk_path, monkeypatch):
    """Members inflated and tokens read on 1, 2 or 3 threads (small runs and chunks, so that
    two categories are cut): the same Corpus byte for byte."""
    from seqspectral.corpus import chunks, zipmembers

    monkeypatch.setattr(zipmembers, "MIN_THREAD_BYTES", 1 << 14)
    monkeypatch.setattr(chunks, "MIN_CHUNK_BYTES", 1 << 14)
    read = {}
    for threads in (1, 2, 3):
        monkeypatch.setattr(chunks, "reading_threads", lambda: threads)
        read[threads] = [read_brown(nltk_path, field=f, categories=["news", "humor"]) for f in ("form", "upos")]
    for threads in (2, 3):
        for ours, one in zip(read[threads], read[1]):
            assert ours.vocabulary == one.vocabulary
            assert np.array_equal(ours.symbols, one.symbols) and np.array_equal(ours.offsets, one.offsets)
