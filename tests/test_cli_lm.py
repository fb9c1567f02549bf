"""`seqspectral lm` as a user runs it: subprocesses on the bundled samples."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from seqspectral.lm import load_lm

CORPORA = Path(__file__).resolve().parents[1] / "corpora"
TRAIN, DEV = CORPORA / "ewt-sample.conllu", CORPORA / "ewt-sample-dev.conllu"
DEV_SENTENCES, DEV_WORDS = 100, 2319

# every method, kept small so the whole file runs in well under a minute
METHODS = {
    "unigram": [],
    "ngram": [],
    "spectral": ["--basis-length", "1"],
    "spectral-prefix": ["--basis-length", "1"],
    "spectral-substring": ["--basis-length", "1"],
    "convex": ["--basis-length", "1"],
    "tensor": ["--states", "4", "--basis-length", "1"],
    "em": ["--states", "4", "--n-iter", "5"],
    "em-tensor": ["--states", "4", "--n-iter", "5", "--basis-length", "1"],
}


def run(*args, check_status=0):
    proc = subprocess.run([sys.executable, "-m", "seqspectral.cli.main", *map(str, args)], capture_output=True, text=True)
    if check_status is not None:
        assert proc.returncode == check_status, proc.stderr
    return proc


@pytest.fixture(scope="module", autouse=True)
def samples():
    if not (TRAIN.is_file() and DEV.is_file()):
        pytest.skip("bundled EWT samples missing")


@pytest.mark.parametrize("method", list(METHODS))
def test_train_score_eval_round_trip(tmp_path, method):
    model = tmp_path / f"{method}.npz"
    run("lm", "train", TRAIN, "-o", model, "--method", method, "--dev", DEV, "--quiet", *METHODS[method])
    assert model.is_file()

    out = tmp_path / "scores.txt"
    run("lm", "score", model, DEV, "--log", "-o", out)
    log10 = np.array(out.read_text().split(), dtype=float)
    assert len(log10) == DEV_SENTENCES  # every sentence, in order
    assert np.all(np.isfinite(log10)) and np.all(log10 < 0)
    assert {p.name for p in tmp_path.iterdir()} == {model.name, out.name}  # no temporary file left behind

    result = json.loads(run("lm", "eval", model, DEV, "--json").stdout)
    assert result["n_sequences"] == DEV_SENTENCES and result["n_tokens"] == DEV_WORDS
    assert result["pautomac_score"] is None and result["n_unknown"] == 0
    # eval's perplexity is the one the per-sentence probabilities of `score` imply
    T = DEV_WORDS + DEV_SENTENCES
    assert result["perplexity"] == pytest.approx(10 ** (-log10.sum() / T), rel=1e-7)
    assert 1.0 < result["perplexity"] < 17 + 1 and 0.0 <= result["wer"] <= 1.0


@pytest.fixture(scope="module")
def good_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("good") / "m.npz"
    run("lm", "train", TRAIN, "-o", path, "--method", "ngram", "--dev", DEV, "--quiet")
    return path


def test_score_probabilities_and_info(good_model):
    probs = np.array(run("lm", "score", good_model, DEV).stdout.split(), dtype=float)
    log10 = np.array(run("lm", "score", good_model, DEV, "--log").stdout.split(), dtype=float)
    assert len(probs) == DEV_SENTENCES and np.all(probs > 0) and np.all(probs < 1)
    np.testing.assert_allclose(np.log10(probs), log10, rtol=1e-8)
    meta = json.loads(run("lm", "info", good_model, "--json").stdout)
    assert meta["kind"] == "ngram" and meta["method"] == "ngram" and meta["params"]["order"] == 3
    assert meta["vocabulary_size"] == 17 and "NOUN" in meta["vocabulary"]
    assert meta["selection"]["on"] == "dev" and meta["training"]["dev"] == str(DEV)
    text = run("lm", "info", good_model).stdout
    assert "method" in text and "ngram" in text


def test_pautomac_solution_gives_a_score_above_the_true_model(tmp_path):
    train, test, sol = (CORPORA / f"toy.pautomac{s}" for s in (".train", ".test", "_solution.txt"))
    if not train.is_file():
        pytest.skip("toy PAutomaC problem missing")
    run("lm", "train", train, "-o", tmp_path / "m.npz", "--method", "ngram", "--quiet")
    result = json.loads(run("lm", "eval", tmp_path / "m.npz", test, "--solution", sol, "--json").stdout)
    true = np.loadtxt(sol, skiprows=1)
    true = true / true.sum()
    floor = 2 ** -(true * np.log2(true)).sum()
    assert floor <= result["pautomac_score"] < 1.5 * floor
    assert result["n_sequences"] == len(true)
    bad = tmp_path / "short_solution.txt"
    bad.write_text("2\n0.5\n0.5\n")
    proc = run("lm", "eval", tmp_path / "m.npz", test, "--solution", bad, check_status=2)
    assert "solution" in proc.stderr


def test_unknown_symbols_are_counted_and_get_probability(tmp_path):
    train = tmp_path / "train.txt"
    train.write_text("a b c\nb c\na a b c\nc\n\nb a c\n" * 5)
    test = tmp_path / "test.txt"
    test.write_text("a z b\n\nz z\nc\n")
    model = tmp_path / "m.npz"
    for method, extra in (("ngram", []), ("spectral-substring", ["--basis-length", "1"])):
        run("lm", "train", train, "--format", "text", "-o", model, "--method", method, "--quiet", *extra)
        proc = run("lm", "score", model, test, "--log")
        values = np.array(proc.stdout.split(), dtype=float)
        assert len(values) == 4 and np.all(np.isfinite(values))
        assert "3 token(s)" in proc.stderr
        result = json.loads(run("lm", "eval", model, test, "--json").stdout)
        assert result["n_unknown"] == 3 and result["n_tokens"] == 6
        eps = load_lm(model)[0].model.unknown_probability
        assert 0 < eps < 0.1
        # "z z": two unknown tokens at ε each, then the stop of the empty known history
        assert values[2] == pytest.approx(values[1] + 2 * np.log10(eps), rel=1e-9)


def test_bad_model_files_exit_2(tmp_path, good_model):
    from seqspectral.serialize import save_model

    truncated = tmp_path / "truncated.npz"
    data = good_model.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    wrong_kind = tmp_path / "tree.npz"
    save_model(wrong_kind, "tree_model", {"dim": 3}, {"w": np.zeros(3)})
    pickled_array = tmp_path / "pickled.npz"
    np.savez(pickled_array, __header__=np.array([{"kind": "ngram"}], dtype=object))
    raw_pickle = tmp_path / "raw.npz"
    raw_pickle.write_bytes(pickle.dumps({"kind": "ngram"}))
    for cmd in (("score", truncated, DEV), ("eval", wrong_kind, DEV), ("info", pickled_array), ("score", raw_pickle, DEV),
                ("eval", tmp_path / "missing.npz", DEV)):
        proc = run("lm", *cmd, check_status=2)
        assert str(cmd[1]) in proc.stderr and "Traceback" not in proc.stderr


def test_bad_usage_exit_2(tmp_path, good_model):
    model = tmp_path / "m.npz"
    assert "regularisation" in run("lm", "train", TRAIN, "-o", model, "--method", "convex", "--states", "5",
                                   check_status=2).stderr
    run("lm", "train", TRAIN, "-o", model, "--method", "em", "--states", "0", check_status=2)
    run("lm", "train", TRAIN, "-o", model, "--method", "nope", check_status=2)
    proc = run("lm", "train", tmp_path / "missing.conllu", "-o", model, "--method", "ngram", check_status=2)
    assert "missing.conllu" in proc.stderr
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    run("lm", "train", empty, "--format", "text", "-o", model, "--method", "ngram", check_status=2)
    assert not model.exists()
    run("lm", "eval", good_model, empty, "--format", "text", check_status=2)
