"""`seqspectral tree` as a user meets it, in-process through ``main([...])``."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from seqspectral.cli.main import main
from seqspectral.corpus import NBestList, read_conllu, read_corpus, write_conllu, write_nbest
from seqspectral.dependency_trees import SpectralTreeModel

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
TRAIN, DEV = CORPORA / "ewt-sample.conllu", CORPORA / "ewt-sample-dev.conllu"


def tree(capsys, *args, status=0):
    """Run ``seqspectral tree ARGS`` in-process; (stdout, stderr), the exit status checked."""
    code = main(["tree", *map(str, args)])
    out, err = capsys.readouterr()
    assert code == status, err
    return out, err


@pytest.fixture(scope="module", autouse=True)
def samples():
    if not (TRAIN.is_file() and DEV.is_file()):
        pytest.skip("bundled samples missing")


@pytest.fixture(scope="module")
def spectral_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("tree") / "upos.npz"
    assert main(["tree", "train", str(TRAIN), "-o", str(path), "--quiet"]) == 0
    return path


def test_score_gives_the_library_numbers_one_per_tree(spectral_file, capsys):
    out, _ = tree(capsys, "score", spectral_file, DEV, "--json")
    result = json.loads(out)
    train = read_corpus(TRAIN, field="upos")
    dev = read_corpus(DEV, field="upos", vocabulary=train.vocabulary)
    want = SpectralTreeModel(representation="identity").fit(train).tree_scores(dev)
    assert result["n_trees"] == len(dev) == len(result["log_probs"])
    np.testing.assert_allclose(result["log_probs"], want.log_prob)
    assert (result["n_floored"], result["n_reset"]) == (want.n_floored, want.n_reset)
    plain, _ = tree(capsys, "score", spectral_file, DEV, "--topology")
    rows = [line.split("\t") for line in plain.splitlines()]
    assert len(rows) == len(dev) and all(len(r) == 2 for r in rows)
    np.testing.assert_allclose([float(r[0]) for r in rows], want.log_prob)


def test_nbest_lists_are_scored_candidate_by_candidate(spectral_file, capsys, tmp_path):
    sentences = read_conllu(DEV)[:3]
    lists = []
    for i, s in enumerate(sentences):  # candidate 2: every word attached to the root word (a flat tree)
        root = int(np.flatnonzero(s.heads == 0)[0]) + 1
        flat = replace(s, heads=np.where(s.heads == 0, 0, root))
        lists.append(NBestList(f"s{i}", [s, flat], [0.0, -1.0]))
    path = tmp_path / "nbest.conllu"
    write_nbest(path, lists)
    out, _ = tree(capsys, "score", spectral_file, path)
    scores = [float(line) for line in out.splitlines()]
    single, _ = tree(capsys, "score", spectral_file, DEV)
    assert len(scores) == 6
    assert scores[0::2] == [float(x) for x in single.splitlines()[:3]]
    flat_trees = tmp_path / "flat.conllu"
    write_conllu(flat_trees, [group.candidates[1] for group in lists])
    flat, _ = tree(capsys, "score", spectral_file, flat_trees)
    assert scores[1::2] == [float(x) for x in flat.splitlines()]
    assert scores[0::2] != scores[1::2]


def test_em_and_word_forms_with_embeddings(capsys, tmp_path):
    from seqspectral.embeddings.word2vec_format import write_word2vec

    em = tmp_path / "em.npz"
    out, _ = tree(capsys, "train", TRAIN, "-o", em, "--method", "em", "--dim", "3", "--n-iter", "3", "--json")
    assert json.loads(out)["n_iter"] == 3
    out, _ = tree(capsys, "score", em, DEV, "--json")
    assert all(np.isfinite(json.loads(out)["log_probs"]))
    forms = sorted({w for s in read_conllu(TRAIN) for w in s.forms})[:500]
    emb = tmp_path / "emb.txt"
    write_word2vec(emb, forms, np.random.default_rng(0).standard_normal((len(forms), 5)))
    words = tmp_path / "forms.npz"
    out, _ = tree(capsys, "train", TRAIN, "-o", words, "--field", "form", "--embeddings", emb, "--json")
    summary = json.loads(out)
    assert summary["representation"] == "embeddings" and summary["dim"] == 5
    out, err = tree(capsys, "score", words, DEV, "--json")  # the field is inherited from the model file
    assert json.loads(out)["n_unknown"] > 0 and "unseen in training" in err


def test_several_files_and_worker_processes_count_what_one_process_counts(spectral_file, capsys, tmp_path):
    """TRAIN cut in two files, and TRAIN in shards counted on 2 local processes: the same
    statistics, counted exactly, and the same model as from the whole file in-process."""
    from functools import partial

    from seqspectral import serialize
    from seqspectral.counting.sharded import count_sharded, sharded_vocabulary
    from seqspectral.counting.shards import read_shard, shard_files
    from seqspectral.dependency_trees.statistics import spectral_tree_statistics

    shards = shard_files([str(TRAIN)], 20_000, "conllu", "utf-8", workers=2)
    assert len(shards) >= 2
    read = partial(read_shard, field="upos")
    vocabulary = sharded_vocabulary(shards, read=read)
    count = partial(spectral_tree_statistics, n_symbols=len(vocabulary))
    pooled = count_sharded(shards, count, read=partial(read, vocabulary=vocabulary), workers=2)
    whole = spectral_tree_statistics(read_corpus(TRAIN, field="upos", vocabulary=vocabulary))
    assert pooled.contexts.keys() == whole.contexts.keys()
    for key, (codes, counts) in whole.contexts.items():
        np.testing.assert_array_equal(pooled.contexts[key][0], codes)
        np.testing.assert_array_equal(pooled.contexts[key][1], counts)
    np.testing.assert_array_equal(pooled.valence, whole.valence)
    np.testing.assert_array_equal(pooled.trees.unigram, whole.trees.unigram)
    assert (pooled.trees.left != whole.trees.left).nnz == 0 and (pooled.trees.right != whole.trees.right).nnz == 0

    sentences = read_conllu(TRAIN)
    first, second = tmp_path / "a.conllu", tmp_path / "b.conllu"
    write_conllu(first, sentences[:len(sentences) // 2])
    write_conllu(second, sentences[len(sentences) // 2:])
    dev = read_corpus(DEV, field="upos")
    want = serialize.load(spectral_file).log_probs(dev)
    for how in ([first, second], [TRAIN, "--workers", "2", "--shard-mb", "0.02"]):
        path = tmp_path / "model.npz"
        tree(capsys, "train", *how, "-o", path, "--quiet")
        np.testing.assert_allclose(serialize.load(path).log_probs(dev), want, rtol=1e-9)
    out, _ = tree(capsys, "train", first, second, "-o", tmp_path / "em.npz", "--method", "em", "--n-iter", "1",
                  "--json")
    assert json.loads(out)["n_sentences"] == len(sentences)  # EM reads the trees of every file
    _, err = tree(capsys, "train", TRAIN, "-o", tmp_path / "m.npz", "--workers", "2", "--shrinkage", "auto", status=2)
    assert "--dev" in err
    out, _ = tree(capsys, "train", TRAIN, "-o", tmp_path / "m.npz", "--workers", "2", "--shrinkage", "auto",
                  "--dev", DEV, "--json")
    assert json.loads(out)["chosen_on"] == "dev"
    tree(capsys, "train", TRAIN, "-o", tmp_path / "ranked.npz", "--ridge", "auto", "--selection", "ranking",
         "--dev", DEV, "--quiet")
    train, dev_trees = read_corpus(TRAIN, field="upos"), read_corpus(DEV, field="upos")
    want = SpectralTreeModel(representation="identity", ridge="auto", selection="ranking").fit(train, dev=dev_trees)
    ranked = serialize.load(tmp_path / "ranked.npz")
    assert ranked.selection == "ranking" and ranked.ridge_ == want.ridge_


def test_bad_input_exits_with_2(spectral_file, capsys, tmp_path):
    text = tmp_path / "plain.txt"
    text.write_text("a b c\n")
    _, err = tree(capsys, "train", text, "-o", tmp_path / "m.npz", "--format", "text", status=2)
    assert "no trees" in err
    _, err = tree(capsys, "score", text, DEV, status=2)
    assert "not a seqspectral model" in err
    _, err = tree(capsys, "train", TRAIN, "-o", tmp_path / "m.npz", "--selection", "ranking", status=2)
    assert "auto" in err
    short = tmp_path / "short.conllu"
    write_conllu(short, [s for s in read_conllu(DEV) if len(s) < 3])  # two sentences of the sample
    _, err = tree(capsys, "train", TRAIN, "-o", tmp_path / "m.npz", "--ridge", "auto", "--selection", "ranking",
                  "--dev", short, status=2)
    assert str(short) in err and "3 words" in err
    _, err = tree(capsys, "train", TRAIN, "-o", tmp_path / "m.npz", "--method", "em", "--embeddings", text, status=2)
    assert "spectral only" in err


def test_installed_command_runs(spectral_file):
    done = subprocess.run([sys.executable, "-m", "seqspectral.cli.main", "tree", "score", str(spectral_file), str(DEV)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 100
