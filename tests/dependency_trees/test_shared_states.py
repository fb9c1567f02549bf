"""The selection's shortcuts change no number: the floored conditionals computed in one
compiled pass equal numpy's formula bit for bit, the copies' pass that reuses its
sentences' inside rows equals scoring the copies on their own, and `tree train` with
every value chosen writes the same model files as the code before the shortcuts (issue 43)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from seqspectral.corpus import read_corpus
from seqspectral.dependency_trees import SpectralTreeModel
from seqspectral.dependency_trees import _kernels
from seqspectral.dependency_trees.reattach import reattached_copies
from seqspectral.dependency_trees.spectral import (conditional_log_probs, conditional_log_probs_with_copies,
                                                   operators)
from seqspectral.dependency_trees.statistics import spectral_tree_statistics

SAMPLE = Path(__file__).resolve().parents[2] / "corpora" / "ewt-sample.conllu"
FLOORS = (1e-4, 1e-3, 1e-2, 0.03, 0.1, 0.3)


def _numpy_floored(q, symbols, units):
    """Step 5 of the spectral module as numpy computes it (the code before the kernel)."""
    q = q.copy()
    mass = q.sum(axis=1)
    q /= np.where(mass > 0, mass, 1.0)[:, None]
    own = q[np.arange(len(q)), symbols]
    return ([np.log(np.maximum(own, u[symbols])) - np.log(np.maximum(q, u).sum(axis=1)) for u in units],
            [int(np.sum(own < u[symbols])) for u in units])


@pytest.mark.parametrize("n_symbols", [3, 8, 19, 128, 129, 300, 5000])
def test_floored_conditionals_equal_numpy_bit_for_bit(n_symbols):
    rng = np.random.default_rng(n_symbols)
    q = rng.random((200, n_symbols)) ** 4 * 10.0 ** rng.integers(-6, 3, (200, n_symbols))
    q[rng.random(q.shape) < 0.2] = 0.0
    q[5] = 0.0  # a word with no positive weight
    symbols = rng.integers(0, n_symbols, 200).astype(np.int32)
    frequencies = rng.dirichlet(np.ones(n_symbols))
    units = np.array([fl * frequencies for fl in FLOORS])
    expected, expected_floored = _numpy_floored(q, symbols, units)
    own, total = np.empty((len(FLOORS), 200)), np.empty((len(FLOORS), 200))
    floored = np.zeros(len(FLOORS), np.int64)
    _kernels.floored_conditionals(q.copy(), symbols, units, own, total, floored)
    for j in range(len(FLOORS)):
        assert np.array_equal(np.log(own[j]) - np.log(total[j]), expected[j], equal_nan=True)
    assert floored.tolist() == expected_floored


@pytest.fixture(scope="module")
def sample():
    if not SAMPLE.exists():
        pytest.skip("corpora/ewt-sample.conllu is not in the checkout")
    return read_corpus(SAMPLE, field="upos")


@pytest.mark.parametrize("ridge, shrinkage", [(0.003, 0.0), (0.3, 3.0), (3.0, 30.0)])
def test_copies_pass_equals_scoring_the_copies_alone(sample, ridge, shrinkage):
    held, fit = sample[:100], sample[100:]
    stats = spectral_tree_statistics(fit, len(sample.vocabulary))
    U, info, moments = SpectralTreeModel()._moments(stats, sample.vocabulary)
    ops = operators(moments, U, stats, ridge, shrinkage, info["kind"] == "identity")
    frequencies = np.maximum(stats.trees.unigram, 1) / stats.trees.unigram.sum()
    copies, source = reattached_copies(held, 2, random_state=4)  # two copies per sentence: the reuse is per copy
    gold, per_copy = conditional_log_probs_with_copies(ops, held, copies, source, frequencies, FLOORS)
    alone_gold, _, _ = conditional_log_probs(ops, held, frequencies, FLOORS)
    alone_copies, _, _ = conditional_log_probs(ops, copies, frequencies, FLOORS)
    for a, b in zip(gold, alone_gold):
        assert np.array_equal(a, b)
    for a, b in zip(per_copy, alone_copies):
        assert np.array_equal(a, b)
    assert not np.array_equal(per_copy[0], gold[0][np.concatenate(
        [np.arange(held.offsets[j], held.offsets[j + 1]) for j in source])])  # the copies do score differently


#: SHA-256 of the model files `tree train corpora/ewt-sample.conllu --field F --selection S --ridge auto
#: --shrinkage auto --floor auto` wrote at 458ab67, before the selection shared its work (numpy 2, OpenBLAS;
#: word forms gave equal files too, 17 s: the kernel's larger vocabularies are in the first test)
BEFORE = {("upos", "ranking"): "c4832110496aacc0827cd2676829cd539f2069655ba17701d69d462fdcd6db6a",
          ("upos", "likelihood"): "257494ae5baeee9a8346fcdb78e46ea2eee452a03833e2cf9b8745ddb55d4602"}


@pytest.mark.parametrize("field, selection", list(BEFORE))
def test_tree_train_writes_the_same_model_file_as_before(sample, tmp_path, field, selection):
    from seqspectral.cli.main import main

    out = tmp_path / "tree.npz"
    assert main(["tree", "train", str(SAMPLE), "--field", field, "--selection", selection, "--ridge", "auto",
                 "--shrinkage", "auto", "--floor", "auto", "-o", str(out), "--quiet"]) == 0
    assert hashlib.sha256(out.read_bytes()).hexdigest() == BEFORE[field, selection]
