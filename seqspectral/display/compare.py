"""How one analysis of a sentence differs from another (a candidate from the first of its
n-best list, a prediction from gold): the words whose head or relation differ."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqspectral.corpus import Sentence


@dataclass(frozen=True)
class Difference:
    """Per word (0-based): ``head`` True where the heads differ, ``label`` True where the heads
    agree but the relations differ."""

    head: np.ndarray
    label: np.ndarray

    @property
    def n_heads(self) -> int:
        return int(self.head.sum())

    @property
    def n_labels(self) -> int:
        return int(self.label.sum())


def difference(sentence: Sentence, reference: Sentence) -> Difference:
    """Where ``sentence``'s tree differs from ``reference``'s (the same words)."""
    if len(sentence) != len(reference):
        raise ValueError(f"the sentences have {len(sentence)} and {len(reference)} words")
    head = np.asarray(sentence.heads) != np.asarray(reference.heads)
    label = ~head & (np.array(sentence.deprels, dtype=object) != np.array(reference.deprels, dtype=object))
    return Difference(head, label)


def heads_phrase(n: int, what: str, before: bool = False) -> str:
    """``2 heads differ from 1`` / ``1 head differs from 1``; ``before``: ``1 wrong head``."""
    noun = "head" if n == 1 else "heads"
    if before:
        return f"{n} {what} {noun}"
    verb, rest = what.split(" ", 1)
    return f"{n} {noun} {verb + 's' if n == 1 else verb} {rest}"
