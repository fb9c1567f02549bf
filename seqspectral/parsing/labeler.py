"""The dependency-label classifier: DEPREL of each arc of a given tree.

A multiclass averaged perceptron over hashed features of the arc in its tree (the words,
lemmas and tags of head and modifier, direction and distance, the grandparent's tag, the
modifier's neighbours and outermost children; with ``templates="tree"`` also the modifier's
children, the head's other children and the head's own attachment; :mod:`._label_kernels`),
each arc labelled alone or (``decoder="chain"``) the labels of a head's children together, a
first-order Markov chain (McDonald, Lerman & Pereira 2006). Trained on gold trees and, given
them, on a parser's jackknifed trees; applied to the parser's trees.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from seqspectral.base import Estimator, integer, one_of, seed
from seqspectral.perceptron import AveragedWeights, dense_from_state, sparse_schema, sparse_state, train_epochs

from . import _label_kernels
from .atoms import encode, flat_heads


class DependencyLabeler(Estimator):
    """Labels for the arcs of dependency trees (``epochs`` perceptron passes,
    2**``hash_bits`` weights, ``use_lemma`` / ``use_xpos`` / ``use_feats``: whether the LEMMA /
    XPOS / FEATS column is read, ``templates``: ``"arc"`` (the arc and its surroundings) or
    ``"tree"`` (also the siblings and children), ``decoder``: ``"independent"`` or ``"chain"``,
    ``random_state`` for the visiting order). Model files from before ``templates`` and
    ``decoder`` load as ``"arc"``, ``"independent"``."""

    kind = "dependency_labeler"
    _parameter_checks = {"epochs": integer(1), "hash_bits": integer(10, 30), "use_lemma": one_of(True, False),
                         "use_xpos": one_of(True, False), "use_feats": one_of(True, False),
                         "templates": one_of("arc", "tree"), "decoder": one_of("independent", "chain"),
                         "random_state": seed}

    def __init__(self, epochs=8, *, hash_bits=22, use_lemma=True, use_xpos=True, use_feats=False, templates="tree",
                 decoder="independent", random_state=0):
        self.epochs = epochs
        self.hash_bits = hash_bits
        self.use_lemma = use_lemma
        self.use_xpos = use_xpos
        self.use_feats = use_feats
        self.templates = templates
        self.decoder = decoder
        self.random_state = random_state

    def fit(self, sentences, trees=None):
        """Learn DEPREL from the gold trees of ``sentences`` and, given ``trees`` (other heads
        of the same sentences, a parser's jackknifed trees), from each word of those trees
        that has its gold head, in the predicted tree's context."""
        self._validate_params()
        sentences = list(sentences)
        self.labels_ = sorted({d for s in sentences for d in s.deprels})
        index = {d: i for i, d in enumerate(self.labels_)}
        gold = [np.array([index[d] for d in s.deprels], dtype=np.int32) for s in sentences]
        labels = [np.concatenate(([0], g)) for g in gold]
        if trees is not None:
            trees = [np.asarray(t) for t in trees]
            if len(trees) != len(sentences) or any(len(t) != len(s) for t, s in zip(trees, sentences)):
                raise ValueError("trees: not one tree of each sentence's length")
            labels += [np.concatenate(([0], np.where(t == s.heads, g, -1))) for t, s, g in zip(trees, sentences, gold)]
            sentences = sentences + [replace(s, heads=t) for s, t in zip(sentences, trees)]
        table = encode(sentences, self.use_lemma, self.use_xpos)
        heads = flat_heads(sentences)
        labels = np.concatenate(labels).astype(np.int32)
        rng = np.random.default_rng(self.random_state)
        weights = AveragedWeights(1 << self.hash_bits)

        def run_epoch(epoch):
            order = rng.permutation(len(table)).astype(np.int64)
            weights.step, correct, total = _label_kernels.labeler_epoch(
                table.atoms, table.offsets, heads, labels, order, len(self.labels_),
                weights.current, weights.totals, weights.step, self.use_feats,
                self.templates == "tree", self.decoder == "chain")
            return {"train_accuracy": 100.0 * correct / max(total, 1)}

        self.weights_ = train_epochs(self.epochs, run_epoch, weights.average).model
        self.selection_ = None
        return self

    def predict(self, sentences) -> list[list[str]]:
        """DEPREL of every word of ``sentences`` for the trees in their ``heads``."""
        self._check_fitted()
        sentences = list(sentences)
        table = encode(sentences, self.use_lemma, self.use_xpos)
        ids = _label_kernels.predict_labels(table.atoms, table.offsets, flat_heads(sentences),
                                            len(self.labels_), self.weights_, self.use_feats,
                                            self.templates == "tree", self.decoder == "chain")
        names = np.array(self.labels_, dtype=object)
        return [names[ids[a + 1:b]].tolist() for a, b in zip(table.offsets[:-1], table.offsets[1:])]

    def to_state(self):
        self._check_fitted()
        return {"params": self.json_params(), "labels": self.labels_}, sparse_state("label", self.weights_)

    @classmethod
    def schema(cls, header):
        from seqspectral.serialize import Schema, size

        labels = header["labels"]
        if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
            raise ValueError("the labels are not a non-empty list of strings")
        return Schema(sparse_schema("label", size(header["params"]["hash_bits"], "hash_bits", 1, 30)))

    @classmethod
    def from_state(cls, header, arrays):
        labeler = cls(**{"use_feats": False, "templates": "arc", "decoder": "independent", **header["params"]})  # older files: without
        labeler.labels_ = list(header["labels"])
        labeler.weights_ = dense_from_state("label", arrays, 1 << labeler.hash_bits)
        labeler.selection_ = None
        return labeler
