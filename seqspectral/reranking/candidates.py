"""The reranker's input: feature vectors of the candidates of many n-best lists.

Candidates of list ``i`` are rows ``groups[i]:groups[i + 1]``. Each row has binary hashed
features (weight slots in [0, 2**31), CSR: ``indptr``, ``indices``; a slot repeated counts
twice; a slot every candidate of a list has may be left out, :meth:`without_common`) and
real-valued features (``dense``, one named column each: the base model's score, tree or
language-model log-probabilities); ``templates`` names the set of hashed features,
``ranks`` what the candidates are (``parses``, ``tags``) and ``sources`` the model file
(path, content hash) behind every real-valued column that comes from one: a reranker
applies only to candidates described as it was trained. What the candidates are — parses, tag sequences — is
the business of the code that builds this; the reranker sees only these arrays.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field, replace
from typing import Iterable

import numpy as np


@dataclass
class CandidateFeatures:
    groups: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    dense: np.ndarray
    dense_names: list[str]
    templates: str = ""
    ranks: str = ""
    sources: dict = field(default_factory=dict)

    def __post_init__(self):
        self.groups = np.ascontiguousarray(self.groups, dtype=np.int64)
        self.indptr = np.ascontiguousarray(self.indptr, dtype=np.int64)
        self.indices = np.ascontiguousarray(self.indices, dtype=np.int32)
        self.dense = np.ascontiguousarray(self.dense, dtype=np.float64).reshape(self.n_candidates, -1)
        if self.dense.shape[1] != len(self.dense_names):
            raise ValueError(f"{self.dense.shape[1]} dense columns but {len(self.dense_names)} names")
        if self.groups[-1] != self.n_candidates or self.indptr[-1] != len(self.indices):
            raise ValueError("groups / indptr do not cover the candidates / indices")

    @property
    def n_candidates(self) -> int:
        return len(self.indptr) - 1

    def __len__(self) -> int:
        return len(self.groups) - 1

    def first(self, k: int) -> "CandidateFeatures":
        """The features of the first ``k`` candidates of every list."""
        rank = np.arange(self.n_candidates) - np.repeat(self.groups[:-1], np.diff(self.groups))
        groups = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(np.minimum(np.diff(self.groups), k), out=groups[1:])
        return self._taken(np.flatnonzero(rank < k), groups)

    def _taken(self, keep: np.ndarray, groups: np.ndarray) -> "CandidateFeatures":
        lengths = np.diff(self.indptr)[keep]
        indptr = np.zeros(len(keep) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        starts = np.repeat(self.indptr[keep], lengths)
        within = np.arange(indptr[-1]) - np.repeat(indptr[:-1], lengths)
        return replace(self, groups=groups, indptr=indptr, indices=self.indices[starts + within],
                       dense=self.dense[keep])

    def without_common(self) -> "CandidateFeatures":
        """The same ranking problem with, in every list, the hashed features that every
        candidate of the list has (as a multiset) left out: they add the same to every
        candidate's score and cancel in every perceptron update, and n-best candidates
        share most of their features."""
        from ._kernels import without_common

        indptr, indices = without_common(self.groups, self.indptr, self.indices)
        return replace(self, indptr=indptr, indices=indices)

    def with_dense(self, names: list[str], columns: list[np.ndarray], sources: dict | None = None
                   ) -> "CandidateFeatures":
        """These features plus more real-valued columns (``sources``: name -> where it came from)."""
        if not columns:
            return self
        dense = np.column_stack([self.dense, *[np.asarray(c, dtype=np.float64) for c in columns]])
        return replace(self, dense=dense, dense_names=self.dense_names + list(names),
                       sources={**self.sources, **(sources or {})})


def stacked(parts: Iterable[CandidateFeatures]) -> CandidateFeatures | None:
    """The lists of ``parts`` one after another (None for no parts). The hashed features are
    copied into one buffer that grows in place (a large one is remapped, not copied) as each
    part arrives, so a generator of parts is held once, not twice."""
    slots = array("i")
    groups, indptr, dense, described, n_candidates = [np.zeros(1, np.int64)], [np.zeros(1, np.int64)], [], None, 0
    for part in parts:
        groups.append(part.groups[1:] + n_candidates)
        indptr.append(part.indptr[1:] + len(slots))
        dense.append(part.dense)
        slots.frombytes(np.ascontiguousarray(part.indices, dtype=np.int32).tobytes())
        n_candidates += part.n_candidates
        described = part if described is None else described  # names, templates, sources
    if described is None:
        return None
    return replace(described, groups=np.concatenate(groups), indptr=np.concatenate(indptr),
                   indices=np.frombuffer(slots, dtype=np.int32), dense=np.concatenate(dense))
