"""The dependency-label classifier: DEPREL of each arc of a given tree.

A multiclass averaged perceptron over hashed features of the arc in its tree (the words,
lemmas and tags of head and modifier, direction and distance, the grandparent's tag, the
modifier's neighbours and outermost children; :mod:`._label_kernels`). Trained on gold
trees, applied to the parser's trees.
"""

from __future__ import annotations

import numpy as np

from seqspectral.base import Estimator, integer, one_of, seed
from seqspectral.perceptron import AveragedWeights, dense_from_state, sparse_schema, sparse_state, train_epochs

from . import _label_kernels
from .atoms import encode, flat_heads


class DependencyLabeler(Estimator):
    """Labels for the arcs of dependency trees (``epochs`` perceptron passes,
    2**``hash_bits`` weights, ``use_lemma`` / ``use_xpos`` / ``use_feats``: whether the LEMMA /
    XPOS / FEATS column is read, ``random_state`` for the visiting order)."""

    kind = "dependency_labeler"
    _parameter_checks = {"epochs": integer(1), "hash_bits": integer(10, 30), "use_lemma": one_of(True, False),
                         "use_xpos": one_of(True, False), "use_feats": one_of(True, False),
                         "templates": one_of("arc", "tree"), "decoder": one_of("independent", "chain"),
                         "random_state": seed}

    def __init__(self, epochs=8, *, hash_bits=22, use_lemma=True, use_xpos=True, use_feats=False, templates="tree",
                 decoder="chain", random_state=0):
        self.epochs = epochs
        self.hash_bits = hash_bits
        self.use_lemma = use_lemma
        self.use_xpos = use_xpos
        self.use_feats = use_feats
        self.templates = templates
        self.decoder = decoder
        self.random_state = random_state

    def fit(self, sentences):
        """Learn DEPREL from the gold trees of ``sentences``."""
        self._validate_params()
        sentences = list(sentences)
        self.labels_ = sorted({d for s in sentences for d in s.deprels})
        index = {d: i for i, d in enumerate(self.labels_)}
        table = encode(sentences, self.use_lemma, self.use_xpos)
        heads = flat_heads(sentences)
        labels = np.concatenate([[0] + [index[d] for d in s.deprels] for s in sentences]).astype(np.int32)
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
