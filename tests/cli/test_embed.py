"""`seqspectral embed`: corpora in -> word2vec file out; `embed neighbours`; bad input."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.cli.main import main
from seqspectral.embeddings import read_word2vec, write_word2vec


def test_embed_two_treebanks_to_word2vec(tmp_path, corpora_dir, capsys):
    out, model = tmp_path / "emb.txt", tmp_path / "emb.npz"
    status = main(["embed", str(corpora_dir / "ewt-sample.conllu"), str(corpora_dir / "ewt-sample-dev.conllu"),
                   "-o", str(out), "--dim", "6", "--min-count", "2", "--lowercase", "--model", str(model)])
    assert status == 0
    words, vectors = read_word2vec(out)
    assert words[0] == "<unk>" and vectors.shape == (len(words), 6)
    assert all(w == w.lower() for w in words)
    est = serialize.load(model, kind="cca_embeddings")
    assert est.words_ == words
    np.testing.assert_array_equal(est.transform(words), vectors)
    assert "emb.txt" in capsys.readouterr().err
    gensim_models = pytest.importorskip("gensim.models")
    kv = gensim_models.KeyedVectors.load_word2vec_format(str(out), binary=False)
    assert list(kv.index_to_key) == words


def test_embed_plain_text_binary_two_step(tmp_path):
    text = tmp_path / "corpus.txt"
    rng = np.random.default_rng(0)
    text.write_text("\n".join(" ".join(f"w{x}" for x in rng.integers(0, 12, size=8)) for _ in range(200)) + "\n")
    out = tmp_path / "emb.bin"
    assert main(["embed", str(text), "-o", str(out), "--dim", "3", "--method", "two-step", "--binary", "--quiet"]) == 0
    words, vectors = read_word2vec(out)
    assert sorted(words) == sorted(["<unk>"] + [f"w{i}" for i in range(12)])
    assert vectors.shape == (13, 3)


def test_neighbours(tmp_path, capsys):
    path = tmp_path / "emb.txt"
    write_word2vec(path, ["cat", "dog", "car", "truck"], [[1, 0.1], [1, 0.2], [0.1, 1], [0.2, 1]])
    assert main(["embed", "neighbours", str(path), "cat", "Truck", "-n", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("cat: dog (") and " truck (" in lines[0]
    assert lines[1].startswith("truck: car (")
    assert main(["embed", "neighbours", str(path), "cat", "zebra"]) == 2
    assert "'zebra' is not in" in capsys.readouterr().err


def test_bad_input_exits_2_naming_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tThe\tthe\tDET\t_\t_\t2\tdet\t_\t_\n2\tdog\tdog\tNOUN\t_\t_\tx\troot\t_\t_\n\n")
    assert main(["embed", str(bad), "-o", str(tmp_path / "e.txt")]) == 2
    assert f"{bad}:2" in capsys.readouterr().err
    emb = tmp_path / "broken.txt"
    emb.write_text("2 3\nfoo 1 2 3\nbar 1 2\n")
    assert main(["embed", "neighbours", str(emb), "foo"]) == 2
    assert f"{emb}:3" in capsys.readouterr().err
    assert main(["embed", str(bad)]) == 2  # no -o
    assert not (tmp_path / "e.txt").exists()


def test_command_line_smoke(tmp_path):
    path = tmp_path / "emb.txt"
    write_word2vec(path, ["a", "b"], [[1.0, 0.0], [0.9, 0.1]])
    run = subprocess.run([sys.executable, "-m", "seqspectral.cli.main", "embed", "neighbours", str(path), "a"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.startswith("a: b (")
