"""Parse n-best lists as reranker input: validity checks, features and losses.

Features of a candidate tree: the baseline POS features of :func:`._kernels.tree_features`,
the parser's score (``parser``) and one column per scorer (:mod:`.scorers`). The loss of
a candidate is its number of words with the wrong head.
"""

from __future__ import annotations

import numpy as np

from seqspectral.corpus.trees import head_errors
from seqspectral.parsing.atoms import COLUMNS, encode
from seqspectral.parsing.tree_lists import TreeLists

from . import _kernels
from .candidates import CandidateFeatures

#: hashed features are kept at this width; the reranker masks them to its own size
_WIDE = (1 << 40) - 1


def list_problem(nbest) -> str | None:
    """Why an n-best list cannot be reranked (no candidates, candidates over other words,
    a candidate that is not a tree), or None."""
    if len(nbest) == 0:
        return "no candidates"
    first = nbest.candidates[0]
    for rank, c in enumerate(nbest.candidates, 1):
        if c.forms != first.forms:
            return f"candidate {rank} has other words than candidate 1"
        problem = head_errors(c.heads)
        if problem:
            return f"candidate {rank} is not a tree: {problem}"
    return None


#: the hashed feature sets of parse candidates: the paper's baseline features, and those plus
#: the grandparent, sibling and valency templates of :func:`._kernels.context_features`
TEMPLATES = ("baseline", "context")


def parse_features(candidates, scorers=(), templates: str = "baseline") -> CandidateFeatures:
    """Features of every candidate: ``candidates`` are n-best lists (all valid; see
    :func:`list_problem`) or :class:`~seqspectral.parsing.tree_lists.TreeLists`;
    ``templates`` one of :data:`TEMPLATES`."""
    if templates not in TEMPLATES:
        raise ValueError(f"templates must be one of {TEMPLATES}, not {templates!r}")
    trees = candidates if isinstance(candidates, TreeLists) else TreeLists.from_nbest(candidates)
    table = encode(trees.sentences)
    pos = np.ascontiguousarray(table.atoms[:, COLUMNS.index("upos")])
    args = (table.offsets, trees.owner, trees.heads, trees.tree_offsets, _WIDE)
    indptr, indices = _kernels.tree_features(pos, *args)
    if templates == "context":
        word = np.ascontiguousarray(table.atoms[:, COLUMNS.index("word")])
        indptr, indices = _joined(indptr, indices, *_kernels.context_features(word, pos, *args))
    features = CandidateFeatures(trees.groups, indptr, indices, trees.scores[:, None], ["parser"], templates)
    return features.with_dense([s.name for s in scorers], [s.tree_log_probs(trees) for s in scorers])


def _joined(indptr_a, indices_a, indptr_b, indices_b) -> tuple[np.ndarray, np.ndarray]:
    """Two CSR feature sets over the same candidates as one (each row: a's slots, then b's)."""
    len_a, len_b = np.diff(indptr_a), np.diff(indptr_b)
    indptr = np.zeros(len(len_a) + 1, dtype=np.int64)
    np.cumsum(len_a + len_b, out=indptr[1:])
    indices = np.empty(indptr[-1], dtype=np.int64)
    within_a = np.arange(indptr_a[-1]) - np.repeat(indptr_a[:-1], len_a)
    within_b = np.arange(indptr_b[-1]) - np.repeat(indptr_b[:-1], len_b)
    indices[np.repeat(indptr[:-1], len_a) + within_a] = indices_a
    indices[np.repeat(indptr[:-1] + len_a, len_b) + within_b] = indices_b
    return indptr, indices


def head_losses(candidates, gold) -> np.ndarray:
    """Wrong heads of every candidate against the ``gold`` sentence of its list."""
    trees = candidates if isinstance(candidates, TreeLists) else TreeLists.from_nbest(candidates)
    return trees.wrong_heads(gold)[0].astype(np.float64)


def aligned_valid(lists, gold=None) -> tuple[list[int], list[tuple[int, str]]]:
    """Indices of the lists that can be reranked, and ``(index, reason)`` of the others.

    With ``gold`` (sentences, one per list, in order) a list over other words than its gold
    sentence is an :class:`~seqspectral.parsing.AlignmentError`."""
    from seqspectral.parsing import AlignmentError

    if gold is not None and len(gold) != len(lists):
        raise AlignmentError(f"{len(lists)} n-best lists but {len(gold)} gold sentences")
    valid, problems = [], []
    for i, nbest in enumerate(lists):
        problem = list_problem(nbest)
        if problem:
            problems.append((i, problem))
            continue
        if gold is not None and nbest.candidates[0].forms != gold[i].forms:
            raise AlignmentError(f"n-best list {i + 1} (sent_id {nbest.sent_id}) is over other words than gold "
                                 f"sentence {i + 1}" + (f" (line {gold[i].line})" if gold[i].line else ""))
        valid.append(i)
    return valid, problems


def rerank_parses(reranker, lists, scorers=()) -> tuple[list, list[tuple[int, str]]]:
    """The reranker's choice from every list, in order, each exactly once; a list that
    cannot be reranked gives its rank-1 candidate and is reported in the second value."""
    from dataclasses import replace

    valid, problems = aligned_valid(lists)
    choice = dict(zip(valid, reranker.choose(parse_features([lists[i] for i in valid], scorers)).tolist())) \
        if valid else {}
    out = []
    for i, nbest in enumerate(lists):
        c = nbest.candidates[choice.get(i, 0)]
        out.append(replace(c, metadata={"sent_id": nbest.sent_id, **c.metadata}))
    return out, problems
