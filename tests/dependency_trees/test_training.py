"""train_tree_model: one training path for both tree methods; EM's "auto" states chosen on
held-out trees by the select–refit path; model files of the older names still load."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pytest

from seqspectral.corpus import read_corpus
from seqspectral.counting.sharded import sharded_vocabulary
from seqspectral.counting.shards import read_shard, split_file
from seqspectral.embeddings import CCAEmbeddings
from seqspectral.dependency_trees import EMTreeModel, SpectralTreeModel, train_tree_model, train_tree_model_sharded

CORPORA = Path(__file__).resolve().parents[2] / "corpora"


@pytest.fixture(scope="module")
def sample():
    train = read_corpus(CORPORA / "ewt-sample.conllu", field="upos")
    dev = read_corpus(CORPORA / "ewt-sample-dev.conllu", field="upos", vocabulary=train.vocabulary)
    return train, dev


def test_em_chooses_its_states_on_dev_as_fitting_each_candidate_apart_would(sample):
    train, dev = sample
    auto = train_tree_model(train, "em", dev=dev, n_states="auto", max_states=4, max_iter=4)
    per_word = {k: EMTreeModel(k, max_iter=4).fit(train).score(dev) for k in (1, 2, 3, 4)}
    assert [row["n_states"] for row in auto.selection_.table] == [1, 2, 3, 4]
    for row in auto.selection_.table:
        assert row["score"] == pytest.approx(per_word[row["n_states"]], rel=1e-12)
    best = max(per_word, key=per_word.get)
    assert auto.n_states_ == best and auto.selection_.on == "dev"
    np.testing.assert_allclose(auto.log_probs(dev), EMTreeModel(best, max_iter=4).fit(train).log_probs(dev), rtol=1e-12)


def test_em_without_dev_refits_the_choice_on_every_training_tree(sample):
    train, _ = sample
    auto = EMTreeModel("auto", max_states=2, max_iter=3).fit(train)
    assert auto.selection_.on.startswith("held-out") and auto.n_states_ in (1, 2)
    assert auto.topology_ is not None and len(auto.history_) == auto.n_iter_ <= 3  # the refit's run, on all trees


def test_the_spectral_default_representation_follows_the_vocabulary(sample):
    train, dev = sample
    model = train_tree_model(train, "spectral")
    assert model.representation_info_["kind"] == "identity"  # 19 UPOS ids: one dimension per tag
    np.testing.assert_array_equal(model.log_probs(dev),
                                  SpectralTreeModel(representation="identity").fit(train).log_probs(dev))
    with pytest.raises(ValueError, match="unknown tree method"):
        train_tree_model(train, "gibbs")


@pytest.mark.parametrize("method", ["spectral", "em"])
def test_sharded_training_is_the_one_process_model(sample, method):
    path = CORPORA / "ewt-sample.conllu"
    shards = split_file(path, 3)
    read = partial(read_shard, field="upos")
    vocabulary = sharded_vocabulary(shards, read=read)
    train = read_corpus(path, field="upos", vocabulary=vocabulary)
    options = {"max_iter": 3} if method == "em" else {}
    sharded, n_sentences, n_tokens = train_tree_model_sharded(shards, vocabulary, method, read=read, **options)
    single = train_tree_model(train, method, **options)
    assert (n_sentences, n_tokens) == (len(train), train.n_tokens)
    np.testing.assert_allclose(sharded.log_probs(train), single.log_probs(train), rtol=1e-10)


def test_model_files_with_the_older_names_still_load(sample):
    train, dev = sample
    spectral = SpectralTreeModel(4, representation="svd").fit(train)
    header, arrays = spectral.to_state()
    header["params"]["dim"] = header["params"].pop("n_states")
    assert SpectralTreeModel.from_state(header, arrays).n_states == 4
    em = EMTreeModel(2, max_iter=2).fit(train)
    header, arrays = em.to_state()
    header["params"]["n_iter"] = header["params"].pop("max_iter")
    del header["params"]["max_states"], header["selection"]
    old = EMTreeModel.from_state(header, arrays)
    assert old.max_iter == 2 and old.selection_ is None
    np.testing.assert_array_equal(old.log_probs(dev), em.log_probs(dev))
    words = read_corpus(CORPORA / "ewt-sample.conllu", field="form")
    cca = CCAEmbeddings(3, min_count=1).fit(words)
    header, arrays = cca.to_state()
    header["params"]["dim"] = header["params"].pop("n_components")
    assert CCAEmbeddings.from_state(header, arrays).n_components == 3
