"""How one analysis of a sentence differs from another (a candidate from the first of its
n-best list, a prediction from gold): the words whose head, relation or tag differ."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqspectral.corpus import Sentence


@dataclass(frozen=True)
class Difference:
    """Per word (0-based): ``head`` True where the heads differ, ``label`` True where the heads
    agree but the relations differ, ``tag`` True where UPOS or XPOS differ."""

    head: np.ndarray
    label: np.ndarray
    tag: np.ndarray

    @property
    def n_heads(self) -> int:
        return int(self.head.sum())

    @property
    def n_labels(self) -> int:
        return int(self.label.sum())

    @property
    def n_tags(self) -> int:
        return int(self.tag.sum())

    def summary(self) -> str:
        """``1 head, 0 tags``."""
        return f"{counted(self.n_heads, 'head')}, {counted(self.n_tags, 'tag')}"


def difference(sentence: Sentence, reference: Sentence) -> Difference:
    """Where ``sentence``'s analysis differs from ``reference``'s (the same words)."""
    if len(sentence) != len(reference):
        raise ValueError(f"the sentences have {len(sentence)} and {len(reference)} words")

    def differ(a, b):
        return np.array(a, dtype=object) != np.array(b, dtype=object)

    head = np.asarray(sentence.heads) != np.asarray(reference.heads)
    label = ~head & differ(sentence.deprels, reference.deprels)
    tag = differ(sentence.upos, reference.upos) | differ(sentence.xpos, reference.xpos)
    return Difference(head, label, tag.astype(bool))


def counted(n: int, noun: str) -> str:
    """``1 head``, ``2 heads``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
