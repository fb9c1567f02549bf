"""Parse n-best lists as reranker input: validity checks, features and losses.

Features of a candidate tree: the baseline POS features of :func:`._kernels.tree_features`,
the parser's score (``parser``) and one column per scorer (:mod:`.scorers`). The loss of
a candidate is its number of words with the wrong head.
"""

from __future__ import annotations

import numpy as np

from seqspectral.corpus.dependency_trees import head_errors
from seqspectral.parsing.atoms import COLUMNS, encode
from seqspectral.parsing.tree_lists import TreeLists

from . import _kernels
from .candidates import CandidateFeatures, stacked
from .lists import rerank_lists

#: hashed features are kept at this width (int32 slots); the reranker masks them to its own size
_WIDE = (1 << 31) - 1


def list_problem(nbest) -> str | None:
    """Why an n-best list cannot be reranked (no candidates, candidates over other words,
    a candidate that is not a tree: a cycle, a head out of range), or None. Several words
    on the root are a tree like any other (CoNLL-X treebanks have them; so may the parser)."""
    if len(nbest) == 0:
        return "no candidates"
    first = nbest.candidates[0]
    for rank, c in enumerate(nbest.candidates, 1):
        if c.forms != first.forms:
            return f"candidate {rank} has other words than candidate 1"
        problem = head_errors(c.heads, several_roots=True)
        if problem:
            return f"candidate {rank} is not a tree: {problem}"
    return None


#: the hashed feature sets of parse candidates: the paper's baseline features; those plus
#: the grandparent, sibling and valency templates of :func:`._kernels.context_features`; and
#: those plus its word, XPOS and grandchild templates (``lexical``)
TEMPLATES = ("baseline", "context", "lexical")


def parse_features(candidates, scorers=(), templates: str = "context") -> CandidateFeatures:
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
    if templates in ("context", "lexical"):
        word, xpos = (np.ascontiguousarray(table.atoms[:, COLUMNS.index(c)]) for c in ("word", "xpos"))
        indptr, indices = _joined(indptr, indices, *_kernels.context_features(word, pos, xpos, *args,
                                                                              templates == "lexical"))
    features = CandidateFeatures(trees.groups, indptr, indices, trees.scores[:, None], ["parser"], templates, "parses")
    return features.with_dense([s.name for s in scorers], [s.tree_log_probs(trees) for s in scorers],
                               {s.name: s.source for s in scorers if s.source})


def compact_parse_features(trees: TreeLists, scorers=(), templates: str = "context",
                           chunk: int = 256) -> CandidateFeatures:
    """:func:`parse_features` of ``trees``, ``chunk`` lists at a time, each list without the
    hashed features all its candidates share (:meth:`.CandidateFeatures.without_common`):
    the same ranking problem in memory that grows with the compact features, not the full ones."""
    return stacked(parse_features(trees.sliced(a, min(a + chunk, len(trees))), scorers, templates).without_common()
                   for a in range(0, len(trees), chunk))


def _joined(indptr_a, indices_a, indptr_b, indices_b) -> tuple[np.ndarray, np.ndarray]:
    """Two CSR feature sets over the same candidates as one (each row: a's slots, then b's)."""
    len_a, len_b = np.diff(indptr_a), np.diff(indptr_b)
    indptr = np.zeros(len(len_a) + 1, dtype=np.int64)
    np.cumsum(len_a + len_b, out=indptr[1:])
    indices = np.empty(indptr[-1], dtype=np.int32)
    within_a = np.arange(indptr_a[-1]) - np.repeat(indptr_a[:-1], len_a)
    within_b = np.arange(indptr_b[-1]) - np.repeat(indptr_b[:-1], len_b)
    indices[np.repeat(indptr[:-1], len_a) + within_a] = indices_a
    indices[np.repeat(indptr[:-1] + len_a, len_b) + within_b] = indices_b
    return indptr, indices


def head_losses(candidates, gold) -> np.ndarray:
    """Wrong heads of every candidate against the ``gold`` sentence of its list."""
    trees = candidates if isinstance(candidates, TreeLists) else TreeLists.from_nbest(candidates)
    return trees.wrong_heads(gold)[0].astype(np.float64)


def rerank_parses(reranker, lists, scorers=()) -> tuple[list, list[tuple[int, str]]]:
    """The reranker's choice from every list (:func:`.lists.rerank_lists`), described by the
    templates it was trained on."""
    return rerank_lists(reranker, lists, lambda valid: parse_features(valid, scorers, reranker.templates_),
                        list_problem)
