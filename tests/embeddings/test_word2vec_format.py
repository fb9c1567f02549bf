"""word2vec text/binary files: exact round trips, autodetection, malformed files, gensim."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from seqspectral.embeddings import EmbeddingsFormatError, read_word2vec, write_word2vec


def _sample(n=7, dim=5, seed=0):
    rng = np.random.default_rng(seed)
    words = ["the", "Dog", "ünïcode", "3.5", "<unk>", "a-b", "x"][:n]
    return words, rng.normal(size=(n, dim)) * 10.0 ** rng.integers(-8, 8, size=(n, 1))


def test_text_round_trip_is_exact(tmp_path):
    words, vectors = _sample()
    path = tmp_path / "emb.txt"
    write_word2vec(path, words, vectors)
    got_words, got = read_word2vec(path)
    assert got_words == words
    assert got.dtype == np.float64
    assert np.array_equal(got, vectors)  # bit for bit


def test_binary_round_trip_keeps_float32(tmp_path):
    words, vectors = _sample()
    path = tmp_path / "emb.bin"
    write_word2vec(path, words, vectors, binary=True)
    got_words, got = read_word2vec(path)  # autodetected
    assert got_words == words
    assert np.array_equal(got, vectors.astype(np.float32).astype(np.float64))
    assert read_word2vec(path, binary=True)[0] == words


def test_binary_without_newlines_as_gensim_writes_it(tmp_path):
    # gensim writes "word " + float32 bytes with no newline between records
    words, vectors = ["a", "bb"], np.array([[1.0, -2.5], [0.125, 3.0]])
    blob = b"2 2\n" + b"".join(w.encode() + b" " + struct.pack("<2f", *v) for w, v in zip(words, vectors))
    path = tmp_path / "g.bin"
    path.write_bytes(blob)
    got_words, got = read_word2vec(path)
    assert got_words == words and np.array_equal(got, vectors)


def test_text_with_trailing_space_as_the_c_tool_writes_it(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("2 3\nfoo 1 2 3 \nbar -1e-3 0.5 7 \n", encoding="utf-8")
    words, vectors = read_word2vec(path)
    assert words == ["foo", "bar"]
    assert np.array_equal(vectors, [[1, 2, 3], [-1e-3, 0.5, 7]])


@pytest.mark.parametrize("content, line", [
    ("2 3\nfoo 1 2 3\nbar 1 2\n", 3),            # too few numbers
    ("2 3\nfoo 1 2 3\nbar 1 x 3\n", 3),          # not a number
    ("3 3\nfoo 1 2 3\nbar 1 2 3\n", 4),          # fewer words than declared
    ("1 3\nfoo 1 2 3\nbar 1 2 3\n", 3),          # more words than declared
    ("2 3\nfoo 1 2 3\nfoo 4 5 6\n", 3),          # a repeated word
    ("2 3\nfoo 1 2 3\nbar 1 nan 3\n", 3),        # NaN
    ("two 3\nfoo 1 2 3\n", 1),                   # bad header
    ("9999999 3\nfoo 1 2 3\n", 1),               # header larger than the file
])
def test_malformed_text_names_file_and_line(tmp_path, content, line):
    path = tmp_path / "bad.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(EmbeddingsFormatError) as err:
        read_word2vec(path, binary=False)
    assert err.value.user_facing
    assert str(err.value).startswith(f"{path}:{line}:")


def test_truncated_binary_names_the_record(tmp_path):
    words, vectors = _sample(3, 4)
    path = tmp_path / "emb.bin"
    write_word2vec(path, words, vectors, binary=True)
    path.write_bytes(path.read_bytes()[:-6])
    with pytest.raises(EmbeddingsFormatError, match=rf"^{path}:4: record 3"):
        read_word2vec(path, binary=True)


def test_writer_refuses_what_the_format_cannot_hold(tmp_path):
    with pytest.raises(ValueError, match="whitespace"):
        write_word2vec(tmp_path / "e.txt", ["a b"], np.zeros((1, 2)))
    with pytest.raises(ValueError, match="repeat"):
        write_word2vec(tmp_path / "e.txt", ["a", "a"], np.zeros((2, 2)))
    with pytest.raises(ValueError, match="shape"):
        write_word2vec(tmp_path / "e.txt", ["a"], np.zeros((2, 2)))
    assert not (tmp_path / "e.txt").exists()


@pytest.mark.parametrize("binary", [False, True])
def test_gensim_reads_the_file(tmp_path, binary):
    gensim_models = pytest.importorskip("gensim.models")
    words, vectors = _sample()
    path = tmp_path / "emb.out"
    write_word2vec(path, words, vectors, binary=binary)
    kv = gensim_models.KeyedVectors.load_word2vec_format(str(path), binary=binary)
    assert list(kv.index_to_key) == words
    np.testing.assert_allclose(kv.vectors, vectors, rtol=1e-6)  # gensim holds float32
    # and what gensim writes, we read
    back = tmp_path / "back.out"
    kv.save_word2vec_format(str(back), binary=binary)
    got_words, got = read_word2vec(back)
    assert got_words == words
    np.testing.assert_allclose(got, vectors, rtol=1e-6)
