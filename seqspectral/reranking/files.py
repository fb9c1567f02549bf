"""n-best files in and out of the reranker, a chunk of lists at a time.

Memory grows with one chunk of lists and the compact features of the lists read so far
(hashed features every candidate of a list shares are left out:
:meth:`~.candidates.CandidateFeatures.without_common`), not with the file: 50-best lists of
a treebank are gigabytes as sentence objects. What the candidates are (parses, tag
sequences) is a :class:`Kind`; a file whose lists are of the other kind is refused.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from seqspectral.corpus.nbest import iter_nbest
from seqspectral.parsing import AlignmentError

from . import parses, tags
from .candidates import CandidateFeatures, stacked
from .lists import aligned_valid, rerank_lists


class ListKindError(ValueError):
    """n-best lists of the other kind of candidates (tag sequences for a parse reranker, or
    the reverse)."""

    user_facing = True


@dataclass(frozen=True)
class Kind:
    """How lists of one kind of candidate are checked, described and scored."""

    name: str
    varies: str  # what differs between the candidates of a list ("heads" or "tags")
    problem: Callable
    features: Callable  # (lists, scorers, templates) -> CandidateFeatures
    losses: Callable  # (lists, gold, field) -> loss of every candidate
    sizes: Callable  # (gold, field) -> scored items of every list


KINDS = {
    "parses": Kind("parses", "heads", parses.list_problem,
                   lambda lists, scorers, templates: parses.parse_features(lists, scorers, templates),
                   lambda lists, gold, field: parses.head_losses(lists, gold),
                   lambda gold, field: [len(g) for g in gold]),
    "tags": Kind("tags", "tags", tags.list_problem,
                 lambda lists, scorers, templates: tags.tag_features(lists, scorers),
                 tags.tag_losses, lambda gold, field: [len(g) for g in gold]),
}


def _what_varies(nbest) -> set[str]:
    first = nbest.candidates[0]
    out = set()
    for c in nbest.candidates[1:]:
        if len(c) != len(first):
            continue
        if not np.array_equal(c.heads, first.heads):
            out.add("heads")
        if c.upos != first.upos or c.xpos != first.xpos:
            out.add("tags")
    return out


def check_kind(kind: Kind, lists, path) -> None:
    """Refuse lists whose candidates differ only in what the other kind ranks."""
    other = "tags" if kind.varies == "heads" else "heads"
    for i, nbest in enumerate(lists):
        varies = _what_varies(nbest)
        if other in varies and kind.varies not in varies:
            what = "tag sequences" if other == "tags" else "parses"
            raise ListKindError(f"{path}: n-best list {nbest.sent_id} ranks {what} (its candidates differ in "
                                f"{other}, not {kind.varies}): this reranker ranks {kind.name}")
        if varies:
            return


@dataclass
class TrainingLists:
    """The rerankable lists of a file as reranker input: features, each candidate's loss,
    each list's scored items (words, tags), and ``(index, reason)`` of the lists left out."""

    features: CandidateFeatures
    loss: np.ndarray
    sizes: np.ndarray
    problems: list[tuple[int, str]]
    n_lists: int


def _chunks(path, chunk: int, progress, verb: str, encoding: str = "utf-8"):
    """Lists of ``path`` in chunks of ``chunk``, with ``progress(message)`` now and then."""
    start, last, n, lists = time.perf_counter(), time.perf_counter(), 0, []
    for nbest in iter_nbest(path, encoding=encoding):
        lists.append(nbest)
        if len(lists) == chunk:
            yield n, lists
            n += len(lists)
            lists = []
            if progress is not None and time.perf_counter() - last > 10:
                last = time.perf_counter()
                progress(f"{path}: {verb} {n} lists ({last - start:.0f} s)")
    if lists:
        yield n, lists


def read_training_lists(kind: Kind, path, gold, scorers=(), templates: str = "context", field: str = "upos",
                        chunk: int = 32, progress=None, encoding: str = "utf-8") -> TrainingLists:
    """The lists of ``path`` against ``gold`` (one sentence per list, in order): lists that
    cannot be reranked (:attr:`Kind.problem`: an error such as a cycle, never several
    roots) are left out and counted; a list over other words than its gold sentence is an
    :class:`~seqspectral.parsing.AlignmentError`."""
    losses, sizes, problems, n_lists = [], [], [], 0

    def featured():  # the compact features of every chunk of lists, losses and sizes on the side
        nonlocal n_lists
        for first, lists in _chunks(path, chunk, progress, "featured", encoding):
            if first == 0:
                check_kind(kind, lists, path)
            if first + len(lists) > len(gold):
                raise AlignmentError(f"{path} has more n-best lists than the {len(gold)} gold sentences")
            chunk_gold = gold[first:first + len(lists)]
            valid, bad = aligned_valid(lists, chunk_gold, kind.problem)
            problems.extend((first + i, reason) for i, reason in bad)
            lists, chunk_gold = [lists[i] for i in valid], [chunk_gold[i] for i in valid]
            n_lists = first + len(valid) + len(bad)
            if lists:
                losses.append(kind.losses(lists, chunk_gold, field))
                sizes.extend(kind.sizes(chunk_gold, field))
                yield kind.features(lists, scorers, templates).without_common()

    features = stacked(featured())
    if n_lists != len(gold):
        raise AlignmentError(f"{path} has {n_lists} n-best lists but there are {len(gold)} gold sentences")
    if features is None:
        raise ValueError(f"{path}: no n-best list can be reranked")
    return TrainingLists(features, np.concatenate(losses), np.asarray(sizes, dtype=np.float64), problems, n_lists)


def rerank_file(reranker, kind: Kind, path, scorers=(), chunk: int = 32, progress=None, encoding: str = "utf-8"):
    """The reranker's choice from every list of ``path``, in order, one sentence per list
    (a generator: write it as it comes), and ``problems``, filled as lists are read with
    ``(index, reason)`` of the lists passed through (their rank-1 candidate)."""
    problems: list[tuple[int, str]] = []

    def best():
        checked = False
        for first, lists in _chunks(path, chunk, progress, "reranked", encoding):
            if not checked:
                check_kind(kind, lists, path)
                checked = True
            out, bad = rerank_lists(reranker, lists, lambda valid: kind.features(valid, scorers, reranker.templates_),
                                    kind.problem)
            problems.extend((first + i, reason) for i, reason in bad)
            yield from out

    return best(), problems
