"""The reranker's input: feature vectors of the candidates of many n-best lists.

Candidates of list ``i`` are rows ``groups[i]:groups[i + 1]``. Each row has binary hashed
features (weight slots, CSR: ``indptr``, ``indices``; a slot repeated counts twice) and
real-valued features (``dense``, one named column each: the base model's score, tree or
language-model log-probabilities); ``templates`` names the set of hashed features (a
reranker applies only to candidates described as it was trained). What the candidates are — parses, tag sequences — is
the business of the code that builds this; the reranker sees only these arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class CandidateFeatures:
    groups: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    dense: np.ndarray
    dense_names: list[str]
    templates: str = ""

    def __post_init__(self):
        self.groups = np.ascontiguousarray(self.groups, dtype=np.int64)
        self.indptr = np.ascontiguousarray(self.indptr, dtype=np.int64)
        self.indices = np.ascontiguousarray(self.indices, dtype=np.int64)
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
        sizes = np.minimum(np.diff(self.groups), k)
        rank = np.arange(self.n_candidates) - np.repeat(self.groups[:-1], np.diff(self.groups))
        keep = np.flatnonzero(rank < k)
        lengths = np.diff(self.indptr)[keep]
        indptr = np.zeros(len(keep) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        starts = np.repeat(self.indptr[keep], lengths)
        within = np.arange(indptr[-1]) - np.repeat(indptr[:-1], lengths)
        groups = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(sizes, out=groups[1:])
        return CandidateFeatures(groups, indptr, self.indices[starts + within], self.dense[keep],
                                 list(self.dense_names), self.templates)

    def with_dense(self, names: list[str], columns: list[np.ndarray]) -> "CandidateFeatures":
        """These features plus more real-valued columns."""
        if not columns:
            return self
        dense = np.column_stack([self.dense, *[np.asarray(c, dtype=np.float64) for c in columns]])
        return CandidateFeatures(self.groups, self.indptr, self.indices, dense, self.dense_names + list(names),
                                 self.templates)
