"""The per-token averaged perceptron under the features tagger and the lemmatiser.

Both choose, for every word, one class among a few candidates (a feature bundle among those
seen with the word's UPOS; an edit script among those that apply to its form). The features
are the tagger's (:func:`.words.word_slots`: form, affixes, shape, context words, word
clusters) and the tags the sentence already has (:func:`._classifier_kernels.tag_slots`:
UPOS, XPOS, FEATS of the word and its neighbours, crossed with its form and suffixes). The
weights of a (feature, class) pair are hashed into one vector; training is the averaged
perceptron (Collins 2002), its number of epochs chosen on dev like the tagger's.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np

from seqspectral.perceptron import AveragedWeights, HeldOut, member_generators, train_epochs

from . import _classifier_kernels as kernels
from ._kernels import N_WORD_FEATURES
from .words import _hash, with_slots

#: the tag columns read as features, in the order of :func:`._classifier_kernels.tag_slots`
TAG_COLUMNS = ("upos", "xpos", "feats")


def column_of(sentence, name: str) -> list[str]:
    """The ``upos``, ``xpos``, ``feats`` or ``lemmas`` column of a sentence (``_`` for unset FEATS)."""
    values = getattr(sentence, name)
    return ["_"] * len(sentence) if values is None else values


class _TagHashes(dict):
    """Tag value -> its hash (0 for ``_``), each worked out the first time it is asked for."""

    def __missing__(self, value):
        h = self[value] = 0 if value == "_" else _hash(value)
        return h


def token_features(sentences, clusters, hash_bits: int, table=None, columns=TAG_COLUMNS) -> tuple:
    """Every token's feature rows (the tagger's and the tag-context ones, n_tokens × F int32)
    and the sentences' word table (``table``: that table, if made already;
    ``columns``: the tag columns read, the others taken as ``_`` — the features tagger must not
    read the FEATS it predicts)."""
    table = with_slots([s.forms for s in sentences], clusters, table)
    n, words = table.slots.shape
    tags = np.zeros((n, len(TAG_COLUMNS)), dtype=np.int64)
    for j, name in enumerate(TAG_COLUMNS):
        if name in columns:
            tags[:, j] = np.fromiter(map(_TagHashes().__getitem__, chain.from_iterable(
                map(column_of, sentences, repeat(name)))), dtype=np.int64, count=n)
    out = np.empty((n, words + kernels.N_TAG_FEATURES), dtype=np.int32)  # the word's rows, then the tags'
    np.bitwise_and(table.slots, np.int32((1 << hash_bits) - 1), out=out[:, :words])
    kernels.tag_slots(table.atoms, table.types, table.offsets, tags, (1 << hash_bits) - 1, out[:, words:])
    return out, table


def unambiguous(keys, values, min_count: int) -> dict:
    """key -> value for the keys seen ``min_count`` times or more, always with one value (the
    words whose class training settles; {} for ``min_count`` 0)."""
    if not min_count:
        return {}
    seen: dict = {}
    for k, v in zip(keys, values):
        first, n = seen.get(k, (v, 0))
        seen[k] = (first if first == v else None, n + 1)
    return {k: v for k, (v, n) in seen.items() if v is not None and n >= min_count}


@dataclass
class Candidates:
    """Each token's candidate classes: ``classes[offsets[t]:offsets[t+1]]`` (int32)."""

    offsets: np.ndarray
    classes: np.ndarray

    @classmethod
    def of(cls, per_token: list) -> "Candidates":
        """From one int32 array (or list) of class ids per token."""
        offsets = np.zeros(len(per_token) + 1, dtype=np.int64)
        np.cumsum([len(c) for c in per_token], out=offsets[1:])
        classes = np.concatenate([np.asarray(c, dtype=np.int32) for c in per_token]) if per_token else \
            np.zeros(0, dtype=np.int32)
        return cls(offsets, classes.astype(np.int32))

    def take(self, rows) -> "Candidates":
        """The candidates of the tokens ``rows`` (indices, repeats allowed), in that order."""
        rows = np.asarray(rows, dtype=np.int64)
        lengths = self.offsets[rows + 1] - self.offsets[rows]
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        at = np.repeat(self.offsets[rows] - offsets[:-1], lengths) + np.arange(offsets[-1])
        return Candidates(offsets, self.classes[at])


def classify(slots, candidates: Candidates, weights, hash_bits: int, rows=None, keys=None) -> np.ndarray:
    """The best candidate class of every token (``rows``: each token's row of ``candidates``,
    None: its own; ``keys``: int64 ids, the same for tokens of one word type with the same row,
    e.g. :func:`word_keys`: those share the sums over the word's own features,
    :data:`._kernels.N_WORD_FEATURES`)."""
    n = len(slots)
    rows = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    if keys is None:
        keys, n_keys, shared = np.arange(n), n, 0
    else:
        n_keys, shared = int(keys.max()) + 1 if n else 0, N_WORD_FEATURES
    return kernels.classify(slots, candidates.offsets, candidates.classes, weights, (1 << hash_bits) - 1, rows,
                            keys, n_keys, shared)


def word_keys(types, lists, n_lists: int) -> np.ndarray:
    """Each token's key for :func:`classify`: its word type (``types``) and which candidate list
    it has (``lists``, of ``n_lists``)."""
    return np.asarray(types, dtype=np.int64) * n_lists + lists


def candidate_scores(slots, candidates: Candidates, weights, hash_bits: int) -> np.ndarray:
    """The score of every candidate of every token (aligned with ``candidates.classes``)."""
    return kernels.candidate_scores(slots, candidates.offsets, candidates.classes, weights, (1 << hash_bits) - 1)


def kbest_choices(scores: list, k: int) -> list[tuple[float, tuple]]:
    """The ``k`` best ways (fewer when there are fewer) to choose one candidate for each of
    several independent decisions, best first: ``(total score, index chosen in each
    decision's array)``. The decisions being independent, the best is every decision's best,
    and each next one differs from one already taken by one decision moved one place down its
    own ranking (a lazy best-first walk over the product, each combination pushed once); ties
    keep the candidates' order, as 1-best classification does."""
    import heapq

    orders = [np.argsort(-np.asarray(s), kind="stable") for s in scores]
    ranked = [np.asarray(s)[o] for s, o in zip(scores, orders)]
    if any(len(r) == 0 for r in ranked):
        raise ValueError("a decision has no candidate")
    start = (0,) * len(ranked)
    heap = [(-float(sum(r[0] for r in ranked)), start)]
    seen, out = {start}, []
    while heap and len(out) < k:
        negative, ranks = heapq.heappop(heap)
        out.append((-negative, tuple(int(o[r]) for o, r in zip(orders, ranks))))
        for i, r in enumerate(ranks):
            if r + 1 < len(ranked[i]):
                nxt = ranks[:i] + (r + 1,) + ranks[i + 1:]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (negative + float(ranked[i][r] - ranked[i][r + 1]), nxt))
    return out


def train(slots, candidates: Candidates, gold, *, epochs: int, hash_bits: int, random_state, dev=None,
          on_epoch=None, runs: int = 1):
    """The :class:`~seqspectral.perceptron.EpochRun` of training the classifier on ``gold``
    (one class id per token, always among its candidates); ``dev`` = ``(slots, candidates,
    score)`` with ``score(predicted classes)`` a dev accuracy: the best epoch's weights are kept.
    ``runs`` perceptrons are trained side by side, member ``r`` visiting the tokens in the order
    of seed ``random_state + r`` (an integer seed; else all draw in turn from one generator),
    and their averaged weights averaged (the mean of their scores), as the tagger's ``runs``."""
    mask = (1 << hash_bits) - 1
    members = [(rng, AveragedWeights(1 << hash_bits)) for rng in member_generators(random_state, runs)]
    gold = np.asarray(gold, dtype=np.int32)

    def run_epoch(epoch):
        correct = 0
        for rng, weights in members:
            order = rng.permutation(len(gold)).astype(np.int64)
            weights.step, right = kernels.classifier_epoch(slots, candidates.offsets, candidates.classes, gold, order,
                                                           weights.current, weights.totals, mask, weights.step)
            correct += right
        return {"train_accuracy": 100.0 * correct / max(len(gold) * len(members), 1)}

    def average():
        return sum(w.average() for _, w in members) / np.float32(len(members))

    held_out = None
    if dev is not None:
        dev_slots, dev_candidates, score = dev
        held_out = HeldOut("dev_accuracy", lambda w: score(classify(dev_slots, dev_candidates, w, hash_bits)),
                           on="dev accuracy")
    return train_epochs(epochs, run_epoch, average, held_out, on_epoch=on_epoch)
