"""The n-best reranker: a structured averaged perceptron over each list's candidates
(Collins & Koo 2005; the reranking set-up of Dhillon et al. 2012, Sec. 5).

It sees :class:`~seqspectral.reranking.candidates.CandidateFeatures` only — hashed binary
features and named real-valued ones — so the same model reranks parses
(:mod:`.parses`) and tag sequences. Real-valued columns are centred and divided by their
root-mean-square deviation from their list's mean on the training lists (stored in the
model): only differences within a list matter, and this makes a parser score's and a
log-probability's differences of the size of the binary features' differences.

The real-valued columns after the first come from scorers (tree models, language models);
whether the reranker uses them at all is part of its held-out choice (``feature_set``).
"""

from __future__ import annotations

import numpy as np

from seqspectral.base import Estimator, either, integer, one_of, real, seed
from seqspectral.perceptron import (AveragedWeights, dense_from_state, member_generators, sparse_schema, sparse_state,
                                    train_epochs)
from seqspectral.selection import ANCHOR_GRID, HELD_OUT_FRACTION, SelectionResult, grid_search, select_and_refit

from . import _kernels
from .candidates import CandidateFeatures
from .held_out_gain import HeldOutGain, gain_bound

#: the feature sets of the held-out choice, the simpler first: "base", the base score and the
#: hashed features; "scorers", those and every scorer column (the real-valued columns after the first)
FEATURE_SETS = ("base", "scorers")


class FeatureMismatchError(ValueError):
    """Candidates described by other real-valued features than the reranker was trained on."""

    user_facing = True


class Reranker(Estimator):
    """Picks one candidate per n-best list.

    The first real-valued feature is the base model's score (the parser's, the tagger's):
    the anchor. Training starts from the weights that rank by it alone (weight ``anchor``
    on it, 0 elsewhere), so the untrained model is the base model's own 1-best ranking,
    and it is one of the candidates of the held-out choice of (``anchor``, number of
    epochs up to ``epochs``; epoch 0 is that ranking), made through
    :func:`~seqspectral.selection.select_and_refit`. A candidate scores its held-out gain
    over that ranking less ``margin`` standard errors of the gain, paired over lists
    (:mod:`.held_out_gain`): the ranking itself scores 0, so the reranker leaves it only
    for a gain larger than the held-out set's noise, and is never worse than the base
    model on the held-out lists. Held out: ``dev`` lists when given (the kept weights are
    those of the chosen epoch), else a seeded :data:`HELD_OUT_FRACTION` of the training
    lists (then refitted on all of them with the choice). ``anchor="auto"`` tries
    :data:`ANCHOR_GRID`. ``hash_bits``: 2**hash_bits binary-feature weights;
    ``random_state``: the held-out lists and the visiting order.

    ``runs``: that many perceptrons (members), each visiting the lists in its own seeded order
    (``random_state`` + 0, 1, ...; each with its own held-out choice as above), whose weights
    are averaged: the ranking of the sum of their scores, an ensemble that smooths the
    perceptron's dependence on the visiting order (EWT dev: 85.08 UAS for three against
    84.83-84.92 for each alone; docs/rerank-build.md).
    """

    kind = "reranker"
    _parameter_checks = {"epochs": integer(1), "anchor": either(one_of("auto"), real(0.0, open_low=True)),
                         "margin": real(0.0), "feature_set": one_of("auto", *FEATURE_SETS),
                         "hash_bits": integer(8, 30), "runs": integer(1), "random_state": seed}

    def __init__(self, epochs=10, *, anchor="auto", margin=2.0, feature_set="auto", hash_bits=20, runs=1,
                 random_state=0):
        self.epochs = epochs
        self.anchor = anchor
        self.margin = margin
        self.feature_set = feature_set
        self.hash_bits = hash_bits
        self.runs = runs
        self.random_state = random_state

    def fit(self, features: CandidateFeatures, loss, dev=None, *, sizes=None, on_epoch=None):
        """Learn from ``features`` and each candidate's ``loss`` (say, wrong heads).

        ``dev``: held-out ``(features, loss)`` or ``(features, loss, sizes)``; ``sizes``:
        the number of scored items of every list (words, tags), for held-out accuracies
        (``held_out_``). ``on_epoch(record)`` sees every record of ``history_``.
        """
        self._validate_params()
        loss = np.ascontiguousarray(loss, dtype=np.float64)
        if len(loss) != features.n_candidates:
            raise ValueError(f"{len(loss)} losses for {features.n_candidates} candidates")
        if not features.dense_names:
            raise ValueError("the candidates have no real-valued feature: the first must be the base model's score")
        self.dense_names_, self.dropped_names_ = list(features.dense_names), []
        self.templates_ = features.templates
        self.ranks_ = features.ranks
        self.sources_ = dict(features.sources)
        self.dense_mean_, self.dense_scale_ = _within_list_scale(features)
        sizes = np.ones(len(features)) if sizes is None else np.asarray(sizes, dtype=np.float64)
        fits = []
        for member in range(self.runs):
            self._fit_member(features, loss, dev, sizes, on_epoch, member)
            fits.append((self.sparse_weights_, self.dense_weights_, self.selection_, self.held_out_, self.history_))
        if self.runs > 1:
            self._average(fits, features, dev)
        kept = [fit[2].chosen["feature_set"] for fit in fits]
        self._drop_unused("scorers" if "scorers" in kept else FEATURE_SETS[0])
        return self

    def _fit_member(self, features, loss, dev, sizes, on_epoch, member):
        """One perceptron and its held-out choice, visiting the lists in the order of ``member``."""
        if dev is not None:  # fit on every training list, judge on the dev lists
            held_features, held_loss = dev[0], np.asarray(dev[1], dtype=np.float64)
            held_sizes = np.asarray(dev[2], np.float64) if len(dev) > 2 else np.ones(len(held_features))
            dev_lists = np.arange(len(held_features))
        else:  # fit on some training lists, judge on the others (no copies: lists are visited or judged)
            held_features, held_loss, held_sizes, dev_lists = features, loss, sizes, None
        anchors = ANCHOR_GRID if self.anchor == "auto" else (float(self.anchor),)
        sets = self.feature_sets(features)
        runs = {}

        def run_of(selection):
            return runs[selection.chosen["feature_set"], selection.chosen["anchor"]]

        def choose(visit, held, on):
            visit, held = np.sort(visit), np.sort(held)
            base = self._choose(held_features, self._anchor_only(1.0))
            gain = HeldOutGain(held_features, held_loss, held, base, self.margin, self._choose, on)
            within, picked = {}, {}
            for feature_set in sets:
                columns = self._columns(feature_set)
                for anchor in anchors:
                    shown = (lambda r, f=feature_set, a=anchor: on_epoch({"feature_set": f, "anchor": a, **r})
                             if on_epoch and (r["epoch"] or a == anchors[0]) else None)
                    runs[feature_set, anchor] = self._train(features, loss, visit, anchor, self.epochs, columns,
                                                            member, gain.held_out, gain.recording(shown))
                within[feature_set] = grid_search(
                    {"feature_set": (feature_set,), "anchor": anchors, "epochs": tuple(range(self.epochs + 1))},
                    lambda feature_set, anchor, epochs: runs[feature_set, anchor].scores[epochs],
                    on=gain.held_out.on)
                picked[feature_set] = gain.losses(self._choose(held_features, run_of(within[feature_set]).model))
            # the scorer columns: kept only for a gain over the best model without them above the margin
            by_set = grid_search({"feature_set": sets}, lambda feature_set: gain_bound(
                picked[sets[0]] - picked[feature_set], self.margin), on=f"{on}: gain over the best '{sets[0]}' "
                f"model less {self.margin:g} standard errors")
            chosen = within[by_set.chosen["feature_set"]]
            self.selection_ = SelectionResult(chosen.on, chosen.chosen, [r for f in sets for r in within[f].table]
                                              + by_set.table, chosen.at_edge)
            run = run_of(chosen)
            self.sparse_weights_, self.dense_weights_ = run.model
            self.held_out_ = gain.report(run.history[chosen.chosen["epochs"]], on, float(np.sum(held_sizes[held])))
            self.held_out_["feature_sets"] = {f: {"loss": float(np.sum(picked[f])), **within[f].chosen,
                                                  "gain_bound_over_" + sets[0]: r["score"]}
                                              for f, r in zip(sets, by_set.table)}
            return self.selection_

        def refit(every, held):
            c = self.selection_.chosen
            self.sparse_weights_, self.dense_weights_ = self._train(
                features, loss, every, c["anchor"], c["epochs"], self._columns(c["feature_set"]), member).model

        select_and_refit(np.arange(len(features)), dev_lists, self.random_state, choose, refit)
        self.history_ = [{**({"member": member} if self.runs > 1 else {}), "feature_set": f, "anchor": a, **r}
                         for f in sets for a in anchors for r in runs[f, a].history if r["epoch"] or a == anchors[0]]

    def _average(self, fits, features, dev):
        """The model of several members: their weights averaged; the first member's choice stands
        as ``selection_``, every member's in ``held_out_["members"]``; with ``dev`` the averaged
        model's own held-out figures replace the first member's."""
        self.sparse_weights_ = np.mean([fit[0] for fit in fits], axis=0, dtype=np.float64).astype(np.float32)
        self.dense_weights_ = np.mean([fit[1] for fit in fits], axis=0)
        self.selection_, self.history_ = fits[0][2], [r for fit in fits for r in fit[4]]
        held_out = dict(fits[0][3])
        if dev is not None:
            held_features, held_loss = dev[0], np.asarray(dev[1], dtype=np.float64)
            lists = np.arange(len(held_features))
            base = self._choose(held_features, self._anchor_only(1.0))
            gain = HeldOutGain(held_features, held_loss, lists, base, self.margin, self._choose, held_out["on"])
            bound = gain.evaluate((self.sparse_weights_, self.dense_weights_))
            held_out.update(gain.report({"held_out_loss": gain.last_loss, "held_out_gain_bound": bound},
                                        held_out["on"], held_out["items"]))
        held_out["members"] = [{"chosen": fit[2].chosen, "reranked_loss": fit[3]["reranked_loss"]} for fit in fits]
        self.held_out_ = held_out

    def feature_sets(self, features: CandidateFeatures) -> tuple[str, ...]:
        """The feature sets the held-out choice tries on ``features`` (:data:`FEATURE_SETS`;
        one when there is no scorer column or ``feature_set`` is forced)."""
        if len(features.dense_names) == 1:
            return FEATURE_SETS[:1]
        return FEATURE_SETS if self.feature_set == "auto" else (self.feature_set,)

    def _columns(self, feature_set: str) -> np.ndarray:
        """Which real-valued columns a feature set reads (1) and leaves at weight 0 (0)."""
        columns = np.ones(len(self.dense_names_))
        if feature_set == "base":
            columns[1:] = 0.0
        return columns

    def _drop_unused(self, feature_set: str) -> None:
        """Without the scorer columns, the model forgets them: it reads the base score alone,
        and records the dropped names (candidates may still carry them)."""
        self.dropped_names_ = self.dense_names_[1:] if feature_set == "base" else []
        if self.dropped_names_:
            self.dense_names_ = self.dense_names_[:1]
            self.dense_mean_, self.dense_scale_ = self.dense_mean_[:1], self.dense_scale_[:1]
            self.dense_weights_ = self.dense_weights_[:1]
            self.sources_ = {k: v for k, v in self.sources_.items() if k in self.dense_names_}

    def _train(self, features, loss, visit, anchor, epochs, columns, member=0, held_out=None, on_epoch=None):
        """Averaged-perceptron epochs over lists ``visit`` from the anchor-only weights
        (:func:`train_epochs`), reading the real-valued ``columns`` (:meth:`_columns`; a column
        at 0 never moves its weight), visiting them in the seeded order of ``member``."""
        dense = np.ascontiguousarray(self._standardised(features) * columns)
        mask = (1 << self.hash_bits) - 1
        rng = member_generators(self.random_state, member + 1)[member]
        sparse = AveragedWeights(1 << self.hash_bits)
        dense_w = AveragedWeights(len(self.dense_names_))
        dense_w.current[0] = anchor

        def run_epoch(epoch):
            order = rng.permutation(visit).astype(np.int64)
            step, good = _kernels.rerank_epoch(features.indptr, features.indices, mask, dense, features.groups, loss,
                                               order, sparse.current, sparse.totals, dense_w.current, dense_w.totals,
                                               sparse.step)
            sparse.step = dense_w.step = step
            return {"train_oracle_picks": good / max(len(visit), 1)}

        def average():
            return sparse.average(), dense_w.average().astype(np.float64)

        return train_epochs(epochs, run_epoch, average, held_out, start=average(), on_epoch=on_epoch)

    def _anchor_only(self, anchor: float):
        """The model before any epoch: weight ``anchor`` on the base score, 0 elsewhere."""
        dense = np.zeros(len(self.dense_names_))
        dense[0] = anchor
        return np.zeros(1 << self.hash_bits), dense

    def _standardised(self, features: CandidateFeatures) -> np.ndarray:
        if self.ranks_ and features.ranks and features.ranks != self.ranks_:
            raise FeatureMismatchError(f"the reranker ranks {self.ranks_}, these candidates are {features.ranks}")
        if features.templates != self.templates_:
            raise FeatureMismatchError(f"the reranker was trained on hashed features {self.templates_!r}, these "
                                       f"candidates have {features.templates!r}")
        names = list(features.dense_names)
        if names not in (self.dense_names_, self.dense_names_ + self.dropped_names_):
            raise FeatureMismatchError(f"the reranker was trained with real-valued features {self.dense_names_}"
                                       + (f" (and dropped {self.dropped_names_})" if self.dropped_names_ else "")
                                       + f", these candidates have {names}")
        for name, source in self.sources_.items():
            given = features.sources.get(name)
            if given is not None and given.get("sha256") != source.get("sha256"):
                raise FeatureMismatchError(
                    f"feature {name} comes from {given.get('path')} (sha256 {str(given.get('sha256'))[:12]}), "
                    f"the reranker was trained with {source.get('path')} (sha256 {str(source.get('sha256'))[:12]})")
        return np.ascontiguousarray((features.dense[:, :len(self.dense_names_)] - self.dense_mean_) / self.dense_scale_)

    def scores(self, features: CandidateFeatures) -> np.ndarray:
        """The model score of every candidate (up to a constant per list: features every
        candidate of a list has may be left out of its rows)."""
        self._check_fitted()
        return self._scores(features, (self.sparse_weights_, self.dense_weights_))

    def _scores(self, features, model) -> np.ndarray:
        sparse_weights, dense_weights = model
        return _kernels.candidate_scores(features.indptr, features.indices, len(sparse_weights) - 1,
                                         self._standardised(features), sparse_weights, dense_weights)

    def choose(self, features: CandidateFeatures) -> np.ndarray:
        """The index, within its list, of the chosen candidate of every list (ties: the earlier)."""
        self._check_fitted()
        return self._choose(features)

    def _choose(self, features, model=None) -> np.ndarray:
        model = model or (self.sparse_weights_, self.dense_weights_)
        return _kernels.best_in_groups(self._scores(features, model), features.groups)

    def dense_weight(self, name: str) -> float:
        """The weight of real-valued feature ``name`` in original units."""
        j = self.dense_names_.index(name)
        return float(self.dense_weights_[j] / self.dense_scale_[j])

    def to_state(self):
        self._check_fitted()
        header = {"params": self.json_params(), "dense_names": self.dense_names_,
                  "dropped_names": self.dropped_names_, "templates": self.templates_,
                  "ranks": self.ranks_, "sources": self.sources_, "history": self.history_,
                  "held_out": self.held_out_}
        if self.selection_ is not None:
            header["selection"] = self.selection_.to_json()
        arrays = {**sparse_state("sparse", self.sparse_weights_), "dense_weights": self.dense_weights_,
                  "dense_mean": self.dense_mean_, "dense_scale": self.dense_scale_}
        return header, arrays

    @classmethod
    def schema(cls, header):
        from seqspectral.serialize import Member, Schema, Value, size

        from .parses import TEMPLATES

        n = len(header["dense_names"])
        return Schema({**sparse_schema("sparse", size(header["params"]["hash_bits"], "hash_bits", 8, 30)),
                       **{name: Member("f", (n,)) for name in ("dense_weights", "dense_mean", "dense_scale")}},
                      values={"dense_names": Value("strings"), "dropped_names": Value("strings"),
                              "templates": Value("string", ("", *TEMPLATES)), "ranks": Value("string", ("", "parses", "tags"))})

    @classmethod
    def from_state(cls, header, arrays):
        # files of the reranker before the anchor started from weight 0 on the base score
        model = cls(**{"anchor": 1.0, **header["params"]})
        model.dense_names_ = list(header["dense_names"])
        model.dropped_names_ = list(header.get("dropped_names", []))  # files before the feature-set choice
        model.templates_ = header.get("templates", "baseline" if "parser" in model.dense_names_ else "")
        # files before the reranker recorded what it ranks: the base score's name says
        model.ranks_ = header.get("ranks", "tags" if model.dense_names_[:1] == ["tagger"] else "parses")
        model.sources_ = dict(header.get("sources", {}))
        model.history_ = header["history"]
        model.held_out_ = header.get("held_out")
        model.selection_ = SelectionResult.from_json(header["selection"]) if "selection" in header else None
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
