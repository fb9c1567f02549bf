"""Tag n-best lists as reranker input: losses by hand, an LM that knows the planted tag
grammar lets the reranker undo the tagger's planted mistakes, malformed lists pass through."""

from __future__ import annotations

import numpy as np
import pytest

from seqspectral.corpus import Corpus, NBestList, Sentence
from seqspectral.lm import train_lm
from seqspectral.reranking import CorpusScorer, Reranker
from seqspectral.reranking.tags import rerank_tags, tag_features, tag_losses

GOOD = ["DET", "NOUN", "VERB"]
BAD = ["DET", "VERB", "VERB"]


def _sentence(tags, words=("the", "dog", "barks")):
    n = len(words)
    return Sentence(list(words), list(words), list(tags), ["_"] * n, np.zeros(n, np.int32), ["dep"] * n)


@pytest.fixture(scope="module")
def lm():
    """A bigram LM of tag sequences in which NOUN always follows DET."""
    rng = np.random.default_rng(0)
    seqs = [GOOD if rng.random() < 0.6 else ["DET", "NOUN", "VERB", "ADV"] for _ in range(300)]
    return train_lm(Corpus.from_symbols(seqs), "ngram", order=2)


def _lists(n, seed):
    """n lists of two candidates; the tagger prefers the wrong one in about half of them."""
    rng = np.random.default_rng(seed)
    lists, gold = [], []
    for i in range(n):
        margin = rng.uniform(0.1, 1.0)
        first, second = (BAD, GOOD) if rng.random() < 0.5 else (GOOD, BAD)
        lists.append(NBestList(str(i), [_sentence(first), _sentence(second)], [1.0 + margin, 1.0]))
        gold.append(_sentence(GOOD))
    return lists, gold


def test_losses_by_hand():
    lists, gold = _lists(3, 0)
    losses = tag_losses(lists, gold, "upos")
    expected = [1.0 if c.upos == BAD else 0.0 for nb in lists for c in nb.candidates]
    assert losses.tolist() == expected


def test_lm_scorer_reads_tags_in_the_lm_vocabulary(lm):
    scorer = CorpusScorer(lm, "lm")
    good, bad = scorer.log_probs([_sentence(GOOD), _sentence(BAD)])
    assert good > bad + 3  # DET -> VERB never seen
    # a sentence whose tags appear in another order than the LM's vocabulary lists them
    reverse = scorer.log_probs([_sentence(["VERB", "NOUN", "DET"])])[0]
    assert reverse < good


def test_reranking_with_the_lm_undoes_planted_tagger_mistakes(lm):
    train, train_gold = _lists(200, 1)
    test, test_gold = _lists(100, 2)
    scorers = [CorpusScorer(lm, "lm")]
    base_errors = tag_losses(test, test_gold, "upos")[tag_features(test).groups[:-1]].sum()
    assert base_errors > 20  # rank 1 is often wrong
    features = tag_features(train, scorers)
    assert features.dense_names == ["tagger", "lm"]
    reranker = Reranker(epochs=5).fit(features, tag_losses(train, train_gold, "upos"))
    best, problems = rerank_tags(reranker, test, scorers)
    assert problems == []
    assert [s.upos for s in best] == [GOOD] * len(test)
    assert [s.metadata["sent_id"] for s in best] == [nb.sent_id for nb in test]


def test_malformed_lists_pass_through_with_rank_one(lm):
    lists, gold = _lists(4, 3)
    lists[1] = NBestList("odd", [_sentence(BAD), _sentence(GOOD, ("a", "cat", "sleeps"))], [2.0, 1.0])
    lists[2] = NBestList("empty", [], [])
    train, train_gold = _lists(50, 4)
    scorers = [CorpusScorer(lm, "lm")]
    reranker = Reranker(epochs=3).fit(tag_features(train, scorers), tag_losses(train, train_gold, "upos"))
    best, problems = rerank_tags(reranker, lists, scorers)
    assert [i for i, _ in problems] == [1, 2]
    assert "other words" in problems[0][1] and problems[1][1] == "no candidates"
    assert [s.metadata["sent_id"] for s in best] == ["0", "odd", "3"]
    assert best[1].upos == BAD
