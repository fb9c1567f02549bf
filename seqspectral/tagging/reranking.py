"""Tag n-best lists as input of the n-best reranker (:mod:`seqspectral.reranking`).

A candidate is a copy of the sentence with one tag sequence in the tagger's column. Its
real-valued features are the tagger's score (``tagger``) and, from each language model of
``seqspectral lm``, the log-probability of the candidate's tag sequence
(:class:`LanguageModelScorer`); it has no hashed features. Its loss is its number of wrong
tags. The reranker itself (:class:`~seqspectral.reranking.Reranker`) is the one that
reranks parses: it sees only :class:`~seqspectral.reranking.CandidateFeatures`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from seqspectral.corpus import Corpus
from seqspectral.corpus.tagsets import tag_mapping
from seqspectral.reranking import CandidateFeatures


class LanguageModelScorer:
    """The per-item scorer of a trained sequence LM (:class:`seqspectral.lm.TrainedLM`):
    natural-log probability of each sentence's tag column, read as the LM's training file
    was (its field and tagset) and encoded with the LM's own vocabulary."""

    def __init__(self, lm, name: str):
        self.lm = lm
        self.name = name
        reading = lm.training.get("reading") or {}
        self.field = reading.get("field") or "upos"
        self.mapping = tag_mapping(reading.get("tagset"))

    def log_probs(self, sentences) -> np.ndarray:
        columns = [s.column(self.field) for s in sentences]
        if self.mapping:
            columns = [[self.mapping.get(t, t) for t in col] for col in columns]
        corpus = Corpus.from_symbols(columns, vocabulary=self.lm.vocabulary)
        return np.asarray(self.lm.model.sequence_log_probs(corpus), dtype=np.float64)


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
    features = CandidateFeatures(groups, np.zeros(len(candidates) + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                                 tagger[:, None], ["tagger"])
    return features.with_dense([s.name for s in scorers], [s.log_probs(candidates) for s in scorers])


def tag_losses(lists, gold, field: str) -> np.ndarray:
    """Wrong tags (column ``field``) of every candidate against the gold sentence of its list."""
    return np.array([sum(a != b for a, b in zip(c.column(field), g.column(field)))
                     for nbest, g in zip(lists, gold) for c in nbest.candidates], dtype=np.float64)


def rerank_tags(reranker, lists, scorers=()) -> tuple[list, list[tuple[int, str]]]:
    """The reranker's choice from every list, in order, each exactly once; a list that
    cannot be reranked gives its rank-1 candidate (or is skipped if it has none) and is
    reported as ``(index, reason)`` in the second value."""
    problems = [(i, p) for i, p in ((i, list_problem(nbest)) for i, nbest in enumerate(lists)) if p]
    bad = {i for i, _ in problems}
    valid = [i for i in range(len(lists)) if i not in bad]
    choice = dict(zip(valid, reranker.choose(tag_features([lists[i] for i in valid], scorers)).tolist())) \
        if valid else {}
    out = []
    for i, nbest in enumerate(lists):
        if len(nbest) == 0:
            continue
        c = nbest.candidates[choice.get(i, 0)]
        out.append(replace(c, metadata={"sent_id": nbest.sent_id, **c.metadata}))
    return out, problems
