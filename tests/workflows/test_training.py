"""Training from files (issue 39 item 1): a model trained from Python through
seqspectral.workflows.training and one trained by the command line on the same file are the
same file, byte for byte, and record how the file was read."""

from __future__ import annotations

import pytest

from seqspectral import serialize
from seqspectral.cli.main import main
from seqspectral.corpus import Reading, read_conllu, write_conllu
from seqspectral.workflows import InputError
from seqspectral.workflows import training


@pytest.fixture(scope="module")
def treebank(tmp_path_factory, corpora_dir):
    root = tmp_path_factory.mktemp("training")
    write_conllu(root / "train.conllu", read_conllu(corpora_dir / "ewt-sample.conllu")[:40])
    write_conllu(root / "dev.conllu", read_conllu(corpora_dir / "ewt-sample-dev.conllu")[:10])
    return root


def _same_file(tmp_path, command, model, save=serialize.save):
    cli, python = tmp_path / "cli.npz", tmp_path / "python.npz"
    assert main([*command, "-o", str(cli), "--quiet"]) == 0
    save(python, model)
    assert python.read_bytes() == cli.read_bytes()
    return serialize.load(python)


def test_lm_from_python_and_from_the_command_line_are_the_same_file(treebank, tmp_path):
    from seqspectral.lm import save_lm

    train = str(treebank / "train.conllu")
    trained = training.train_lm(train, "ngram", reading=Reading())
    model = _same_file(tmp_path, ["lm", "train", train, "--method", "ngram"], trained.model, save_lm)
    assert model.reading_ == Reading(format="conllu") and trained.format == "conllu"


def test_tree_model_from_python_and_from_the_command_line_are_the_same_file(treebank, tmp_path):
    train = str(treebank / "train.conllu")
    trained = training.train_tree(train, "spectral", reading=Reading(), selection="likelihood", random_state=0,
                                  representation=None)
    model = _same_file(tmp_path, ["tree", "train", train], trained.model)
    assert model.reading_ == Reading(format="conllu")


def test_parser_from_python_and_from_the_command_line_are_the_same_file(treebank, tmp_path):
    train, dev = str(treebank / "train.conllu"), str(treebank / "dev.conllu")
    trained = training.train_parser(train, dev=dev, epochs=2, hash_bits=16)
    model = _same_file(tmp_path, ["parse", "train", train, "--dev", dev, "--epochs", "2", "--hash-bits", "16"],
                       trained.model)
    assert model.reading_ == Reading(format="conllu") and set(model.input_profile_.counts) == {"upos", "xpos",
                                                                                                  "feats", "lemma"}


def test_tagger_from_python_and_from_the_command_line_are_the_same_file(treebank, tmp_path):
    train = str(treebank / "train.conllu")
    trained = training.train_tagger(train, field="xpos", epochs=2, hash_bits=12)
    model = _same_file(tmp_path, ["tag", "train", train, "--field", "xpos", "--epochs", "2", "--hash-bits", "12"],
                       trained.model)
    assert model.reading_ == Reading(format="conllu", field="xpos")


def test_a_tagger_is_not_trained_on_an_empty_column(tmp_path, capsys):
    text = tmp_path / "plain.txt"
    text.write_text("Some raw text. Nothing tagged here.\n")
    with pytest.raises(InputError, match="UPOS column is empty"):
        training.train_tagger(str(text))
    assert main(["tag", "train", str(text), "-o", str(tmp_path / "t.npz")]) == 2
    assert "plain.txt: the UPOS column is empty" in capsys.readouterr().err and not (tmp_path / "t.npz").exists()
