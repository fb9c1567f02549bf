"""Language models trained on shards counted where they lie (seqspectral.lm.sharded, lm train --workers)."""

import numpy as np
import pytest

from seqspectral.automata.planted import planted_hmm
from seqspectral.cli.main import main
from seqspectral.corpus import read_corpus, write_pautomac, write_text
from seqspectral.counting.sharded import sharded_vocabulary
from seqspectral.counting.shards import read_shard, split_file
from seqspectral.lm import LanguageModelError, NGramLM, load_lm, train_lm, train_lm_sharded
from seqspectral.lm.ngram import ngram_counts


@pytest.fixture(scope="module")
def planted_files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sharded-lm")
    hmm = planted_hmm(3, 4, seed=1)
    train, dev = tmp / "p.pautomac.train", tmp / "p.pautomac.dev"
    write_pautomac(train, hmm.sample(3000, random_state=0), alphabet_size=4)
    write_pautomac(dev, hmm.sample(400, random_state=1), alphabet_size=4)
    return train, dev


def test_ngram_counts_of_parts_add_up_to_the_counts_of_the_whole(planted_files):
    corpus = read_corpus(planted_files[0])
    a, b = corpus[:1234], corpus[1234:]
    n_ids = len(corpus.vocabulary)
    for order in (1, 2, 3):
        whole, parts = ngram_counts(corpus, order, n_ids), ngram_counts(a, order, n_ids) + ngram_counts(b, order, n_ids)
        np.testing.assert_array_equal(whole.keys, parts.keys)
        np.testing.assert_array_equal(whole.counts, parts.counts)
        assert whole.counts.sum() == corpus.n_tokens + len(corpus)  # every token and every stop
    # a refit adds the part it lacked: the same tables as counting everything
    added = NGramLM(2, k=0.5).fit(a).refit(corpus, b)
    fresh = NGramLM(2, k=0.5).fit(corpus)
    for name in ("keys_", "counts_", "context_keys_", "context_counts_", "context_best_"):
        np.testing.assert_array_equal(getattr(added, name), getattr(fresh, name))
    assert added.unigram_best_ == fresh.unigram_best_


@pytest.mark.parametrize("method", ["spectral-substring", "ngram"])
def test_one_shard_is_the_model_train_lm_fits_on_the_whole_file(planted_files, method):
    train, dev = planted_files
    corpus, test = read_corpus(train), read_corpus(dev)
    options = dict(n_states=3 if method != "ngram" else "auto", basis_length=2)
    whole = train_lm(corpus, method, **options)
    sharded = train_lm_sharded(split_file(train, 1), method, **options)
    np.testing.assert_array_equal(whole.model.sequence_log_probs(test), sharded.model.sequence_log_probs(test))
    assert sharded.selection.chosen == whole.selection.chosen


@pytest.mark.parametrize("workers", [None, 2])
def test_shards_with_a_dev_set_give_the_model_of_the_whole_corpus(planted_files, workers):
    """With --dev the choices do not depend on the split; the basis (all substrings up to
    length 2 over 4 symbols, each frequent) is the same from the first shard as from the
    whole file, so the model is the whole file's up to the order of the basis."""
    train, dev = planted_files
    corpus, held = read_corpus(train), read_corpus(dev)
    shards = split_file(train, 4)
    assert len(shards) == 4
    whole = train_lm(corpus, "spectral-substring", n_states="auto", dev=held, basis_length=2)
    sharded = train_lm_sharded(shards, "spectral-substring", dev=held, n_states="auto", basis_length=2, workers=workers)
    assert sharded.selection.chosen == whole.selection.chosen
    spectra = [np.array(lm.training.pop("hankel_singular_values")) for lm in (sharded, whole)]
    np.testing.assert_allclose(*spectra, rtol=1e-9)  # the Hankel matrix's, whatever the order of its basis
    assert sharded.training == whole.training == {"n_sequences": 3000, "n_tokens": corpus.n_tokens}
    assert sharded.model.unknown_probability == whole.model.unknown_probability
    np.testing.assert_allclose(sharded.model.sequence_log_probs(held), whole.model.sequence_log_probs(held), rtol=1e-9)


def test_text_shards_share_one_vocabulary_and_hold_out_part_of_the_whole(tmp_path, planted_files):
    corpus = read_corpus(planted_files[0])
    path = tmp_path / "tags.txt"
    write_text(path, corpus)
    shards = split_file(path, 3, format="text")
    vocabulary = sharded_vocabulary(shards, read=read_shard)
    assert vocabulary == read_corpus(path, format="text").vocabulary

    def read(shard):
        return read_shard(shard, vocabulary=vocabulary)

    lm = train_lm_sharded(shards, "spectral-substring", read=read, n_states=3, basis_length=2)
    assert lm.selection.on == "held-out 20% of train"
    assert lm.training["n_sequences"] == len(corpus)
    probs = np.exp(lm.model.sequence_log_probs(read_corpus(path, format="text", vocabulary=vocabulary)))
    assert np.all(probs > 0)


def test_methods_fitted_on_sequences_refuse_shards(planted_files):
    with pytest.raises(LanguageModelError, match="cannot be counted in shards"):
        train_lm_sharded(split_file(planted_files[0], 2), "tensor", n_states=3)


def test_lm_train_counts_several_files_on_workers(tmp_path, planted_files, capsys):
    train, dev = planted_files
    out = tmp_path / "m.npz"
    assert main(["lm", "train", str(train), str(dev), "-o", str(out), "--method", "spectral-substring",
                 "--states", "3", "--basis-length", "2", "--workers", "2", "--shard-mb", "0.01", "--quiet"]) == 0
    lm = load_lm(out)
    assert lm.training["n_sequences"] == 3400
    assert lm.training["file"] == [str(train), str(dev)]
    assert main(["lm", "train", str(train), "-o", str(out), "--method", "em", "--workers", "2", "--quiet"]) == 2
    assert "cannot be counted in shards" in capsys.readouterr().err
