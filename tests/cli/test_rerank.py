"""`seqspectral rerank train / apply` on tag n-best lists, in-process: an LM trained by `lm train`
on the planted tag grammar undoes the tagger's planted mistakes end to end; the real pipeline
(tag run -k → lm train → rerank) on the bundled sample; mismatched features and malformed
lists; every option in --help. (Parse lists: tests/test_cli_parse.py.)"""

from __future__ import annotations

import json

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.cli.main import main
from seqspectral.corpus import Corpus, NBestList, Sentence, read_conllu, read_nbest, write_conllu, write_nbest

GOOD = ["DET", "NOUN", "VERB"]
BAD = ["DET", "VERB", "VERB"]
WORDS = ("the", "dog", "barks")


def _sentence(tags, i, words=WORDS):
    n = len(words)
    return Sentence(list(words), list(words), list(tags), ["_"] * n, np.array([2, 3, 0, 3], np.int32)[:n],
                    ["dep"] * n, metadata={"sent_id": str(i)})


def _planted(path, gold_path, n, seed):
    """n two-candidate tag lists; the tagger's score prefers the wrong sequence in about half."""
    rng = np.random.default_rng(seed)
    lists = []
    for i in range(n):
        first, second = (BAD, GOOD) if rng.random() < 0.5 else (GOOD, BAD)
        lists.append(NBestList(str(i), [_sentence(first, i), _sentence(second, i)], [1.0 + rng.uniform(0.1, 1), 1.0]))
    write_nbest(path, lists)
    write_conllu(gold_path, [_sentence(GOOD, i) for i in range(n)])
    return lists


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    d = tmp_path_factory.mktemp("rerank")
    rng = np.random.default_rng(0)
    write_conllu(d / "lm-train.conllu", [_sentence(GOOD, i) if rng.random() < 0.6 else
                                         _sentence(GOOD + ["ADV"], i, WORDS + ("loudly",)) for i in range(300)])
    assert main(["lm", "train", str(d / "lm-train.conllu"), "--method", "ngram", "--order", "2",
                 "-o", str(d / "lm.npz"), "--quiet"]) == 0
    _planted(d / "train.nbest.conllu", d / "train.gold.conllu", 120, 1)
    _planted(d / "test.nbest.conllu", d / "test.gold.conllu", 60, 2)
    return d


def test_lm_reranking_of_tag_lists_undoes_the_planted_mistakes(planted, capsys):
    d = planted
    reranker, best = d / "tags.reranker.npz", d / "best.conllu"
    assert main(["rerank", "train", str(d / "train.nbest.conllu"), "--gold", str(d / "train.gold.conllu"),
                 "--candidates", "tags", "--lm", str(d / "lm.npz"), "--epochs", "4", "-o", str(reranker)]) == 0
    assert "lists of tags" in capsys.readouterr().err
    model = serialize.load(reranker, kind="reranker")
    assert model.dense_names_ == ["tagger", "lm:log_prob"] and model.dense_weight("lm:log_prob") > 0
    assert main(["rerank", "apply", str(reranker), str(d / "test.nbest.conllu"), "--lm", str(d / "lm.npz"),
                 "-o", str(best), "--quiet"]) == 0
    test_lists = read_nbest(d / "test.nbest.conllu")
    assert sum(nb.candidates[0].upos != GOOD for nb in test_lists) > 15  # the tagger's rank 1 is often wrong
    out = read_conllu(best)
    assert [s.upos for s in out] == [GOOD] * 60
    assert [s.metadata["sent_id"] for s in out] == [nb.sent_id for nb in test_lists]


def test_two_lms_and_mismatched_features(planted, capsys):
    d = planted
    reranker = d / "two.npz"
    lm = str(d / "lm.npz")
    assert main(["rerank", "train", str(d / "train.nbest.conllu"), "--gold", str(d / "train.gold.conllu"),
                 "--candidates", "tags", "--lm", lm, "--lm", lm, "--epochs", "2", "-o", str(reranker),
                 "--quiet"]) == 0
    assert serialize.load(reranker).dense_names_ == ["tagger", "lm:log_prob", "lm2:log_prob"]
    capsys.readouterr()
    # applied with one LM where it was trained with two: a one-line error, exit 2, no output
    out = d / "never.conllu"
    assert main(["rerank", "apply", str(reranker), str(d / "test.nbest.conllu"), "--lm", lm, "-o", str(out)]) == 2
    assert "lm2:log_prob" in capsys.readouterr().err and not out.exists()
    assert main(["rerank", "train", str(d / "train.nbest.conllu"), "--gold", str(d / "train.gold.conllu"),
                 "--candidates", "tags", "--tree-model", lm, "-o", str(out)]) == 2
    assert "--tree-model" in capsys.readouterr().err


def test_malformed_tag_list_passes_through_with_rank_one(planted, capsys, tmp_path):
    d = planted
    reranker = tmp_path / "r.npz"
    assert main(["rerank", "train", str(d / "train.nbest.conllu"), "--gold", str(d / "train.gold.conllu"),
                 "--candidates", "tags", "--lm", str(d / "lm.npz"), "--epochs", "2", "-o", str(reranker),
                 "--quiet"]) == 0
    lists = [NBestList("a", [_sentence(BAD, 0), _sentence(GOOD, 0)], [2.0, 1.0]),
             NBestList("odd", [_sentence(BAD, 1), _sentence(GOOD, 1, ("a", "cat", "sleeps"))], [2.0, 1.0])]
    write_nbest(tmp_path / "in.conllu", lists)
    capsys.readouterr()
    assert main(["rerank", "apply", str(reranker), str(tmp_path / "in.conllu"), "--lm", str(d / "lm.npz"),
                 "-o", str(tmp_path / "out.conllu"), "--json"]) == 0
    captured = capsys.readouterr()
    assert "1 n-best list(s) cannot be reranked and are passed through (first: list 2: candidate 2 has other " \
           "words" in captured.err
    assert json.loads(captured.out) == {"lists": 2, "passed_through": 1, "ranks": "tags",
                                        "reasons": {"candidate 2 has other words than candidate 1": 1}}
    out = read_conllu(tmp_path / "out.conllu")
    assert [s.metadata["sent_id"] for s in out] == ["a", "odd"]
    assert out[0].upos == GOOD and out[1].upos == BAD


def test_sample_pipeline_tag_run_lm_train_rerank(corpora_dir, tmp_path):
    train, dev = corpora_dir / "ewt-sample.conllu", corpora_dir / "ewt-sample-dev.conllu"
    tagger, lm, lists = tmp_path / "tagger.npz", tmp_path / "lm.npz", tmp_path / "dev.nbest.conllu"
    assert main(["tag", "train", str(train), "--epochs", "2", "--hash-bits", "14", "-o", str(tagger), "--quiet"]) == 0
    assert main(["tag", "run", str(tagger), str(dev), "-k", "5", "-o", str(lists), "--quiet"]) == 0
    assert main(["lm", "train", str(train), "--method", "ngram", "-o", str(lm), "--quiet"]) == 0
    reranker, best = tmp_path / "r.npz", tmp_path / "best.conllu"
    assert main(["rerank", "train", str(lists), "--gold", str(dev), "--candidates", "tags", "--lm", str(lm),
                 "--dev", str(lists), "--dev-gold", str(dev), "--epochs", "3", "--feature-set", "scorers",
                 "-o", str(reranker), "--quiet"]) == 0  # the LM's column kept whatever the held-out choice
    assert main(["rerank", "apply", str(reranker), str(lists), "--lm", str(lm), "-o", str(best), "--quiet"]) == 0
    nbest, chosen = read_nbest(lists), read_conllu(best)
    assert [s.metadata["sent_id"] for s in chosen] == [nb.sent_id for nb in nbest]
    assert all(s.upos in [c.upos for c in nb.candidates] for s, nb in zip(chosen, nbest))
    # the choice is the argmax of the saved weights over the standardised tagger score and the LM's
    # log-probability of each candidate's tags, computed here from the files
    model, language_model = serialize.load(reranker), serialize.load(lm)
    for s, nb in zip(chosen, nbest):
        tags = Corpus.from_symbols([c.upos for c in nb.candidates], vocabulary=language_model.vocabulary)
        raw = np.column_stack([nb.scores, language_model.log_probs(tags)])
        score = ((raw - model.dense_mean_) / model.dense_scale_) @ model.dense_weights_
        assert s.upos == nb.candidates[int(np.argmax(score))].upos


@pytest.mark.parametrize("command", ["train", "apply"])
def test_help_describes_every_option(command, capsys):
    with pytest.raises(SystemExit):
        main(["rerank", command, "--help"])
    text = capsys.readouterr().out
    options = ["--tree-model", "--no-topology", "--lm", "--quiet", "--output"]
    if command == "train":
        options += ["--gold", "--candidates", "--field", "--templates", "--epochs", "--dev", "--dev-gold",
                    "--random-state", "--feature-set"]
    for option in options:
        assert option in text
    assert text.count("repeatable") >= 2 and "tag" in text
