"""Tag n-best lists as input of the n-best reranker (:mod:`seqspectral.reranking`).

A candidate is a copy of the sentence with one tag sequence in the tagger's column. Its
real-valued features are the tagger's score (``tagger``) and one column per scorer: a
sequence language model of ``seqspectral lm`` read through
:class:`~seqspectral.reranking.CorpusScorer` gives the log-probability of the candidate's
tag sequence (the column it was trained on, its tagset, its vocabulary). It has no hashed
features. Its loss is its number of wrong tags. The reranker itself
(:class:`~seqspectral.reranking.Reranker`) is the one that reranks parses (:mod:`.parses`):
it sees only :class:`~seqspectral.reranking.CandidateFeatures`.
"""

from __future__ import annotations

import numpy as np

from .candidates import CandidateFeatures
from .lists import rerank_lists

#: the base score's name among the real-valued features: what marks a reranker of tag lists
BASE = "tagger"


def list_problem(nbest) -> str | None:
    """Why a tag n-best list cannot be reranked (no candidates, candidates over other
    words than the first), or None."""
    if len(nbest) == 0:
        return "no candidates"
    forms = nbest.candidates[0].forms
    for rank, c in enumerate(nbest.candidates[1:], 2):
        if c.forms != forms:
            return f"candidate {rank} has other words than candidate 1"
    return None


def tag_features(lists, scorers=()) -> CandidateFeatures:
    """Reranker features of every candidate of ``lists`` (all valid: :func:`list_problem`)."""
    candidates = [c for nbest in lists for c in nbest.candidates]
    groups = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(nbest) for nbest in lists], out=groups[1:])
    tagger = np.concatenate([nbest.scores for nbest in lists]) if lists else np.zeros(0)
    features = CandidateFeatures(groups, np.zeros(len(candidates) + 1, dtype=np.int64), np.zeros(0, dtype=np.int32),
                                 tagger[:, None], [BASE], ranks="tags")
    return features.with_dense([s.name for s in scorers], [s.log_probs(candidates) for s in scorers],
                               {s.name: s.source for s in scorers if s.source})


def tag_losses(lists, gold, field: str) -> np.ndarray:
    """Wrong tags (column ``field``) of every candidate against the gold sentence of its list."""
    return np.array([sum(a != b for a, b in zip(c.column(field), g.column(field)))
                     for nbest, g in zip(lists, gold) for c in nbest.candidates], dtype=np.float64)


def rerank_tags(reranker, lists, scorers=()) -> tuple[list, list[tuple[int, str]]]:
    """The reranker's choice from every list (:func:`seqspectral.reranking.lists.rerank_lists`)."""
    return rerank_lists(reranker, lists, lambda valid: tag_features(valid, scorers), list_problem)
