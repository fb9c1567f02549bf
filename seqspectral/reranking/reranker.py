"""The n-best reranker: a structured averaged perceptron over each list's candidates
(Collins & Koo 2005; the reranking set-up of Dhillon et al. 2012, Sec. 5).

It sees :class:`~seqspectral.reranking.candidates.CandidateFeatures` only — hashed binary
features and named real-valued ones — so the same model reranks parses
(:mod:`.parses`) and tag sequences. Real-valued columns are centred and divided by their
root-mean-square deviation from their list's mean on the training lists (stored in the
model): only differences within a list matter, and this makes a parser score's and a
log-probability's differences of the size of the binary features' differences.
"""

from __future__ import annotations

import numpy as np

from seqspectral.base import Estimator, NotFittedError, integer, seed
from seqspectral.parsing.weights import AveragedWeights, dense_from_state, sparse_schema, sparse_state
from seqspectral.selection import SelectionResult, grid_search

from . import _kernels
from .candidates import CandidateFeatures


class FeatureMismatchError(ValueError):
    """Candidates described by other real-valued features than the reranker was trained on."""

    user_facing = True


class Reranker(Estimator):
    """Picks one candidate per n-best list (``epochs`` perceptron passes, 2**``hash_bits``
    binary-feature weights, ``random_state`` for the visiting order)."""

    kind = "reranker"
    _parameter_checks = {"epochs": integer(1), "hash_bits": integer(8, 30), "random_state": seed}

    def __init__(self, epochs=10, *, hash_bits=20, random_state=0):
        self.epochs = epochs
        self.hash_bits = hash_bits
        self.random_state = random_state

    def _check_fitted(self) -> None:
        if not hasattr(self, "sparse_weights_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit first")

    def fit(self, features: CandidateFeatures, loss, dev: tuple[CandidateFeatures, np.ndarray] | None = None):
        """Learn from ``features`` and each candidate's ``loss`` (say, wrong heads). With ``dev``
        (features, loss), the lists are reranked after every epoch (``history_``) and the
        averaged weights of the epoch with the lowest dev loss are kept (``selection_``)."""
        self._validate_params()
        loss = np.ascontiguousarray(loss, dtype=np.float64)
        if len(loss) != features.n_candidates:
            raise ValueError(f"{len(loss)} losses for {features.n_candidates} candidates")
        self.dense_names_ = list(features.dense_names)
        self.templates_ = features.templates
        self.dense_mean_, self.dense_scale_ = _within_list_scale(features)
        dense = self._standardised(features)
        mask = (1 << self.hash_bits) - 1
        indices = features.indices & mask
        rng = np.random.default_rng(self.random_state)
        sparse = AveragedWeights(1 << self.hash_bits)
        dense_w = AveragedWeights(len(self.dense_names_))
        self.history_ = []
        best = None
        for epoch in range(1, self.epochs + 1):
            order = rng.permutation(len(features)).astype(np.int64)
            step, good = _kernels.rerank_epoch(features.indptr, indices, dense, features.groups, loss, order,
                                               sparse.current, sparse.totals, dense_w.current, dense_w.totals,
                                               sparse.step)
            sparse.step = dense_w.step = step
            record = {"epoch": epoch, "train_oracle_picks": good / max(len(features), 1)}
            self.sparse_weights_, self.dense_weights_ = sparse.average(), dense_w.average().astype(np.float64)
            if dev is not None:
                record["dev_loss"] = float(mean_loss(self.choose(dev[0]), dev[0], dev[1]))
                if best is None or record["dev_loss"] < best[0]:
                    best = (record["dev_loss"], self.sparse_weights_, self.dense_weights_)
            self.history_.append(record)
        if dev is not None:
            by_epoch = {r["epoch"]: -r["dev_loss"] for r in self.history_}
            self.selection_ = grid_search({"epochs": tuple(by_epoch)}, lambda epochs: by_epoch[epochs],
                                          on="dev loss per list")
            _, self.sparse_weights_, self.dense_weights_ = best
        return self

    def _standardised(self, features: CandidateFeatures) -> np.ndarray:
        if features.templates != self.templates_:
            raise FeatureMismatchError(f"the reranker was trained on hashed features {self.templates_!r}, these "
                                       f"candidates have {features.templates!r}")
        if list(features.dense_names) != self.dense_names_:
            raise FeatureMismatchError(f"the reranker was trained with real-valued features {self.dense_names_}, "
                                       f"these candidates have {list(features.dense_names)}")
        return np.ascontiguousarray((features.dense - self.dense_mean_) / self.dense_scale_)

    def scores(self, features: CandidateFeatures) -> np.ndarray:
        """The model score of every candidate."""
        self._check_fitted()
        mask = len(self.sparse_weights_) - 1
        return _kernels.candidate_scores(features.indptr, features.indices & mask, self._standardised(features),
                                         self.sparse_weights_, self.dense_weights_)

    def choose(self, features: CandidateFeatures) -> np.ndarray:
        """The index, within its list, of the chosen candidate of every list (ties: the earlier)."""
        s = self.scores(features)
        return np.array([int(np.argmax(s[a:b])) if b > a else -1
                         for a, b in zip(features.groups[:-1], features.groups[1:])], dtype=np.int64)

    def dense_weight(self, name: str) -> float:
        """The weight of real-valued feature ``name`` in original units."""
        j = self.dense_names_.index(name)
        return float(self.dense_weights_[j] / self.dense_scale_[j])

    def to_state(self):
        self._check_fitted()
        header = {"params": self.json_params(), "dense_names": self.dense_names_, "templates": self.templates_,
                  "history": self.history_}
        if hasattr(self, "selection_"):
            header["selection"] = self.selection_.to_json()
        arrays = {**sparse_state("sparse", self.sparse_weights_), "dense_weights": self.dense_weights_,
                  "dense_mean": self.dense_mean_, "dense_scale": self.dense_scale_}
        return header, arrays

    @classmethod
    def schema(cls, header):
        from seqspectral.serialize import Member, Schema, size

        names = header["dense_names"]
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            raise ValueError("dense_names is not a list of strings")
        n = len(names)
        return Schema({**sparse_schema("sparse", size(header["params"]["hash_bits"], "hash_bits", 8, 30)),
                       **{name: Member("f", (n,)) for name in ("dense_weights", "dense_mean", "dense_scale")}})

    @classmethod
    def from_state(cls, header, arrays):
        model = cls(**header["params"])
        model.dense_names_ = list(header["dense_names"])
        model.templates_ = header.get("templates", "baseline" if "parser" in model.dense_names_ else "")
        model.history_ = header["history"]
        if "selection" in header:
            model.selection_ = SelectionResult.from_json(header["selection"])
        model.sparse_weights_ = dense_from_state("sparse", arrays, 1 << model.hash_bits)
        for name in ("dense_weights", "dense_mean", "dense_scale"):
            value = np.asarray(arrays[name], dtype=np.float64)
            if value.shape != (len(model.dense_names_),):
                raise ValueError(f"{name} has shape {value.shape} for {len(model.dense_names_)} features")
            setattr(model, name + "_", value)
        return model


def _within_list_scale(features: CandidateFeatures) -> tuple[np.ndarray, np.ndarray]:
    """Mean and within-list deviation of every real-valued feature: only differences between
    candidates of one list matter to a reranker, so each column is scaled to make those of
    unit size (comparable to the binary features' differences)."""
    d = len(features.dense_names)
    if features.n_candidates == 0:
        return np.zeros(d), np.ones(d)
    sizes = np.diff(features.groups)
    owner = np.repeat(np.arange(len(features)), sizes)
    list_mean = np.zeros((len(features), d))
    np.add.at(list_mean, owner, features.dense)
    list_mean /= np.maximum(sizes, 1)[:, None]
    spread = np.sqrt(np.mean((features.dense - list_mean[owner]) ** 2, axis=0))
    return features.dense.mean(axis=0), np.where(spread > 0, spread, 1.0)


def mean_loss(choice: np.ndarray, features: CandidateFeatures, loss: np.ndarray) -> float:
    """The total loss of the chosen candidates divided by the number of lists."""
    picked = features.groups[:-1] + choice
    return float(np.sum(np.asarray(loss)[picked]) / max(len(features), 1))
