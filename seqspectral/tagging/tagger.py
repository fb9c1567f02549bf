"""The part-of-speech tagger: hashed word features, tag-bigram Viterbi, averaged perceptron.

A tag sequence scores the emission weights of its tokens' features plus the transition
weights of its tag bigrams (boundary included), see :mod:`._kernels`; decoding is exact
(Viterbi), k-best decoding returns the k best distinct sequences. Training is the
structured averaged perceptron (Collins 2002) in one Numba loop per epoch over features
built once for the whole corpus (:mod:`.words`, :func:`._kernels.token_slots`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from seqspectral.base import Estimator, integer, one_of, seed
from seqspectral.perceptron import (AveragedWeights, dense_from_state, epoch_selection, HeldOut, member_generators,
                                    sparse_schema, sparse_state, train_epochs, UsedRows)

from . import _kernels, model_files
from .words import per_sentence, word_slots


class PerceptronTagger(Estimator):
    """Tags the ``field`` column (``upos`` or ``xpos``) of CoNLL-U sentences.

    Parameters: ``field``; ``epochs`` of the perceptron; ``runs`` (perceptrons trained side
    by side, each visiting the sentences in its own random order, whose averaged weights are
    averaged: the tagger scores a sequence by the mean of their scores, which takes the luck
    of one order out of the weights; the epoch is chosen for all of them); ``hash_bits`` (2**hash_bits
    feature rows, one weight per row and tag); ``clusters`` (fitted
    :class:`~seqspectral.embeddings.clusters.WordClusters` whose ids become token features;
    saved inside the tagger's file; None: none); ``random_state`` (the order sentences are
    visited in each epoch).
    """

    kind = "tagger"
    _parameter_checks = {"field": one_of("upos", "xpos"), "epochs": integer(1), "runs": integer(1),
                         "hash_bits": integer(8, 26),
                         "clusters": lambda v: None if v is None or hasattr(v, "ids") else
                         "fitted word clusters or None",
                         "random_state": seed}

    def __init__(self, field="upos", *, epochs=10, runs=1, hash_bits=19, clusters=None, random_state=0):
        self.field = field
        self.epochs = epochs
        self.runs = runs
        self.hash_bits = hash_bits
        self.clusters = clusters
        self.random_state = random_state

    # -- features and gold tags ------------------------------------------------------------
    def _slots(self, sentences, table=None) -> tuple:
        """The tokens' feature rows, the sentence offsets, the tokens' type ids and how many types."""
        slots, table = word_slots([s.forms for s in sentences], self.clusters, self.hash_bits, table)
        return slots, table.offsets, table.types, len(table.forms)

    def _gold(self, sentences) -> np.ndarray:
        """The ``field`` column as tag ids (-1 for a tag the tagger does not know)."""
        index = {t: i for i, t in enumerate(self.tags_)}
        return np.fromiter((index.get(t, -1) for s in sentences for t in s.column(self.field)), dtype=np.int32,
                           count=sum(len(s) for s in sentences))

    # -- training --------------------------------------------------------------------------
    def fit(self, sentences, dev=None, on_epoch=None):
        """Train on ``sentences`` (their ``field`` column). With ``dev`` sentences the
        averaged weights of the epoch with the best dev accuracy are kept (the choice in
        ``selection_``); ``on_epoch(record)`` gets each record of ``history_``."""
        self._validate_params()
        sentences = list(sentences)
        if not sentences or not any(len(s) for s in sentences):
            raise ValueError("no training sentences")
        self.tags_ = sorted({t for s in sentences for t in s.column(self.field)})
        T = len(self.tags_)
        slots, offsets, _, _ = self._slots(sentences)
        used = UsedRows(slots, 1 << self.hash_bits)  # trained on the rows its features use (the rest stay 0)
        slots = used.renumbered(slots)
        gold = self._gold(sentences)
        members = [(rng, AveragedWeights((len(used.rows) + 1) * T), AveragedWeights((T + 1) * (T + 1)))
                   for rng in member_generators(self.random_state, self.runs)]

        def run_epoch(epoch):
            correct = 0
            for rng, emission, transition in members:
                order = rng.permutation(len(sentences)).astype(np.int64)
                step, right = _kernels.perceptron_epoch(
                    slots, offsets, gold, order, emission.current, emission.totals, transition.current.reshape(T + 1, T + 1),
                    transition.totals.reshape(T + 1, T + 1), emission.step)
                emission.step = transition.step = step
                correct += right
            return {"train_accuracy": 100.0 * correct / max(len(gold) * len(members), 1)}

        def average():  # the members' averaged weights, averaged: the mean of their scores
            emission = sum(e.average() for _, e, _ in members) / np.float32(len(members))
            transition = sum(t.average().astype(np.float64) for _, _, t in members) / len(members)
            return emission, transition.reshape(T + 1, T + 1)

        held_out = None
        if dev:
            (dev_slots, *dev_words), dev_gold = self._slots(dev), self._gold(dev)
            dev_slots = used.renumbered(dev_slots)
            held_out = HeldOut("dev_accuracy", lambda model: _accuracy(
                _kernels.tag_corpus(dev_slots, *dev_words, *model)[0], dev_gold), on="dev accuracy")
        run = train_epochs(self.epochs, run_epoch, average, held_out, on_epoch=on_epoch)
        self.history_, (weights, self.transitions_) = run.history, run.model
        self.weights_ = used.expanded(weights, T)
        self.selection_ = epoch_selection(run)
        return self

    # -- tagging ---------------------------------------------------------------------------
    def _decode(self, slots, offsets, types, n_types):
        return _kernels.tag_corpus(slots, offsets, types, n_types, self.weights_, self.transitions_)

    def predict(self, sentences, table=None) -> list[list[str]]:
        """The best tag sequence of every sentence (``table``: their word table, if made already)."""
        self._check_fitted()
        sentences = list(sentences)
        tags, _ = self._decode(*self._slots(sentences, table))
        return per_sentence(self.tags_, tags, sentences)

    def tag(self, sentences, table=None) -> list:
        """Copies of ``sentences`` with the ``field`` column predicted."""
        sentences = list(sentences)
        return [self.with_tags(s, t) for s, t in zip(sentences, self.predict(sentences, table))]

    def with_tags(self, sentence, tags: list[str]):
        """A copy of ``sentence`` whose ``field`` column is ``tags``."""
        return replace(sentence, **{self.field: list(tags)})

    def kbest(self, sentences, k: int) -> list:
        """The ``k`` best tag sequences of every sentence as
        :class:`~seqspectral.corpus.NBestList` (fewer when a sentence has fewer), with the
        tagger's scores."""
        from seqspectral.corpus.nbest import NBestList

        self._check_fitted()
        if int(k) < 1:
            raise ValueError(f"k must be at least 1, not {k}")
        sentences = list(sentences)
        tags, scores, counts = _kernels.kbest_corpus(*self._slots(sentences), self.weights_, self.transitions_, int(k))
        names = np.array(self.tags_, dtype=object)[tags].tolist()
        lists, at, first = [], 0, 0
        for i, (s, r) in enumerate(zip(sentences, counts.tolist())):
            n = len(s)
            candidates = [self.with_tags(s, names[at + c * n:at + (c + 1) * n]) for c in range(r)]
            at += r * n
            lists.append(NBestList(s.metadata.get("sent_id") or str(i + 1), candidates, scores[first:first + r]))
            first += r
        return lists

    def score(self, sentences) -> float:
        """Tag accuracy (%) of the 1-best sequences on ``sentences``."""
        self._check_fitted()
        sentences = list(sentences)
        return _accuracy(self._decode(*self._slots(sentences))[0], self._gold(sentences))

    # -- model files -----------------------------------------------------------------------
    def to_state(self):
        return model_files.state(self, {"tags": self.tags_}, {**sparse_state("emission", self.weights_),
                                                             "transitions": self.transitions_})

    @classmethod
    def schema(cls, header):
        from seqspectral.serialize import Member

        tags = header["tags"]
        if not isinstance(tags, list) or not tags or not all(isinstance(x, str) for x in tags):
            raise ValueError("the tags are not a non-empty list of strings")
        T = len(tags)
        return model_files.schema(header, {**sparse_schema("emission", model_files.hash_bits(header), T),
                                           "transitions": Member("f", (T + 1, T + 1))})

    @classmethod
    def from_state(cls, header, arrays):
        tagger = model_files.restore(cls, header, arrays)
        tagger.tags_ = list(header["tags"])
        T = len(tagger.tags_)
        tagger.weights_ = dense_from_state("emission", arrays, (1 << tagger.hash_bits) * T)
        tagger.transitions_ = np.asarray(arrays["transitions"], dtype=np.float64)
        if tagger.transitions_.shape != (T + 1, T + 1):
            raise ValueError(f"transitions have shape {tagger.transitions_.shape} for {T} tags")
        return tagger


def _accuracy(pred: np.ndarray, gold: np.ndarray) -> float:
    return 100.0 * float(np.mean(pred == gold)) if len(gold) else 0.0
