"""k-best trees of many sentences as flat arrays (what the reranker and the oracle read).

``heads`` holds every candidate tree's heads (1-based, 0 = root), list by list, best first;
list ``i`` has ``n_trees[i]`` candidates over the words of ``sentences[i]`` with parser
``scores``. No Sentence object per candidate: 50-best lists of a treebank are millions of
words. :meth:`TreeLists.to_nbest` turns them into n-best lists to write.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class TreeLists:
    sentences: list
    heads: np.ndarray
    scores: np.ndarray
    n_trees: np.ndarray

    def __post_init__(self):
        self.heads = np.ascontiguousarray(self.heads, dtype=np.int32)
        self.scores = np.ascontiguousarray(self.scores, dtype=np.float64)
        self.n_trees = np.ascontiguousarray(self.n_trees, dtype=np.int64)
        if len(self.n_trees) != len(self.sentences) or self.n_trees.sum() != len(self.scores) \
                or int(np.dot(self.n_trees, self.lengths)) != len(self.heads):
            raise ValueError("TreeLists: sentences, heads, scores and n_trees do not agree")

    def __len__(self) -> int:
        return len(self.sentences)

    @property
    def lengths(self) -> np.ndarray:
        return np.array([len(s) for s in self.sentences], dtype=np.int64)

    @property
    def groups(self) -> np.ndarray:
        """Candidates of list ``i``: ``groups[i]:groups[i + 1]``."""
        out = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(self.n_trees, out=out[1:])
        return out

    @property
    def owner(self) -> np.ndarray:
        """The list (sentence) of every candidate."""
        return np.repeat(np.arange(len(self)), self.n_trees)

    @property
    def tree_offsets(self) -> np.ndarray:
        """Candidate ``c``'s heads: ``heads[tree_offsets[c]:tree_offsets[c + 1]]``."""
        out = np.zeros(len(self.scores) + 1, dtype=np.int64)
        np.cumsum(self.lengths[self.owner], out=out[1:])
        return out

    def tile(self, per_word: np.ndarray, sentence_offsets: np.ndarray) -> np.ndarray:
        """A per-word array of the sentences (``sentence_offsets``) repeated for every candidate."""
        owner = self.owner
        lengths = self.lengths[owner]
        offsets = self.tree_offsets
        within = np.arange(offsets[-1]) - np.repeat(offsets[:-1], lengths)
        index = np.repeat(sentence_offsets[owner], lengths) + within
        return per_word[index]

    def wrong_heads(self, gold, punct: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Per candidate: words with a wrong head against ``gold`` sentences (one per list),
        and the number of scored words (without ``punct``, words with gold UPOS PUNCT are not)."""
        gold_heads = np.concatenate([g.heads for g in gold]).astype(np.int32) if len(gold) else np.zeros(0, np.int32)
        scored = np.ones(len(gold_heads), dtype=bool) if punct else \
            np.array([u != "PUNCT" for g in gold for u in g.upos], dtype=bool)
        offsets = np.zeros(len(gold) + 1, dtype=np.int64)
        np.cumsum([len(g) for g in gold], out=offsets[1:])
        wrong = (self.heads != self.tile(gold_heads, offsets)) & self.tile(scored, offsets)
        starts = self.tree_offsets[:-1]
        per_candidate = np.add.reduceat(wrong.astype(np.int64), starts) if len(wrong) else np.zeros(len(starts), int)
        per_candidate[np.diff(self.tree_offsets) == 0] = 0
        n_scored = np.array([int(scored[a:b].sum()) for a, b in zip(offsets[:-1], offsets[1:])], dtype=np.int64)
        return per_candidate, n_scored[self.owner]

    def chosen(self, choice) -> list[np.ndarray]:
        """The heads of candidate ``choice[i]`` of every list ``i``."""
        offsets, groups = self.tree_offsets, self.groups
        return [self.heads[offsets[groups[i] + j]:offsets[groups[i] + j + 1]] for i, j in enumerate(choice)]

    def to_nbest(self, with_trees) -> list:
        """n-best lists; ``with_trees(sentences, heads)`` makes the candidate sentences."""
        from seqspectral.corpus.nbest import NBestList

        offsets, owner = self.tree_offsets, self.owner
        candidates = with_trees([self.sentences[i] for i in owner],
                                [self.heads[a:b] for a, b in zip(offsets[:-1], offsets[1:])])
        groups = self.groups
        return [NBestList(s.metadata.get("sent_id") or str(i + 1), candidates[groups[i]:groups[i + 1]],
                          self.scores[groups[i]:groups[i + 1]]) for i, s in enumerate(self.sentences)]

    def sliced(self, start: int, stop: int) -> "TreeLists":
        """Lists ``start:stop`` (views of the arrays, not copies)."""
        per_list = self.n_trees * self.lengths
        first, last = int(per_list[:start].sum()), int(per_list[:stop].sum())
        groups = self.groups
        return TreeLists(self.sentences[start:stop], self.heads[first:last],
                         self.scores[groups[start]:groups[stop]], self.n_trees[start:stop])

    @classmethod
    def from_nbest(cls, lists) -> "TreeLists":
        """From n-best lists (the first candidate of each stands for its words)."""
        heads = [c.heads for x in lists for c in x.candidates]
        return cls([x.candidates[0] for x in lists],
                   np.concatenate(heads) if heads else np.zeros(0, np.int32),
                   np.concatenate([x.scores for x in lists]) if lists else np.zeros(0),
                   np.array([len(x) for x in lists], dtype=np.int64))
