"""``rerank build``: from a treebank to reranked parses, as a plan of stages
(:mod:`seqspectral.workflows.stages`), each kept in the build directory.

The plan (:func:`plan`): with ``clusters_from`` (unlabelled corpora), word clusters (k-means
of CCA word vectors of those corpora and the training treebank's words) that the taggers and
the parser read as features; the taggers (UPOS, and XPOS when the treebank has it); for a
build meant for untagged input (``tags="predicted"``) the training treebank's tags jackknifed
(``tag_folds``) by taggers trained on the other folds (and dev tagged by the full taggers),
then the lemmatiser of new text trained again on the gold and the jackknifed tags;
the parser (epochs chosen on dev); the jackknifed k-best lists of train, fold by fold (each
fold parsed by a parser with the full parser's settings and chosen epochs trained on the
other folds); the label classifier trained again on the gold trees and those jackknifed
1-best trees; dev's k-best lists; the spectral tree models, one per fold trained without
that fold (so a fold's lists are scored by a model that never saw its trees, as the parser
never did) and one on all of train (for dev and new input), hyper-parameters chosen by
ranking (``selection="ranking"``); the reranker; ``report.json`` with every held-out figure
and each stage's seconds.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, replace
from pathlib import Path

from seqspectral.corpus.columns import has_column
from seqspectral.io import atomic_open

from .folds import fold_blocks, load_trees, parallel_map, parse_fold, save_trees, tag_fold
from .manifest import write_manifest
from .nbest_features import candidate_features, concatenated, jackknifed_features, oracle_uas
from .options import BuildOptions
from .stages import BuildState, ModelStage, Runner, Stage, check_plan, file_digest, key_of

REPORT = "report.json"

#: whether the parser of a ``tags="predicted"`` build reads the predicted XPOS beside UPOS (chosen
#: on EWT dev, docs/rerank-build.md); the predicted FEATS and LEMMA are chosen on each build's dev
PREDICTED_XPOS = True
#: perceptrons averaged in each of the build's UPOS and XPOS taggers and its lemmatiser (``runs=``; 3
#: against 1: dev accuracy up in all 8 comparisons, EWT and Turkish, UPOS and XPOS, two seeds:
#: docs/tagging.md)
TAGGER_RUNS = 3

#: the FEATS units a build with dev tries (:class:`~seqspectral.tagging.FeaturesTagger`'s ``unit``),
#: the better by UFeats on dev (its UPOS and XPOS predicted; then by whole values as sets) kept
#: and jackknifed
FEATS_UNITS = ("bundle", "feature")

#: the word clusters of a build (:class:`~seqspectral.embeddings.clusters.WordClusters`) and the
#: CCA embeddings they cluster (Koo et al. 2008's two granularities; chosen on EWT dev)
CLUSTERS = {"coarse": 64, "fine": 1024}
CLUSTER_EMBEDDINGS = {"n_components": 50, "window": 2, "min_count": 2, "lowercase": True, "digits": True}


# -- the stages ---------------------------------------------------------------------------------
class ClustersStage(ModelStage):
    name, requires, provides, kind = "clusters", ("train:form",), ("clusters",), "word_clusters"

    def applies(self, state):
        return bool(state.options.clusters_from)

    def key_parts(self, state):
        sources = [_source_digest(p) for p in state.options.clusters_from]
        return (state.inputs["train"], state.inputs["reading"], sources, CLUSTERS, CLUSTER_EMBEDDINGS)

    def compute(self, state, runner):
        return fit_clusters(state.train, state.options.clusters_from)


    def after(self, result, state):
        state.report["clusters"] = {"from": list(state.options.clusters_from), **CLUSTERS, "words": len(result.words_)}


class TaggerStage(ModelStage):
    """A tagger of one column (the build's taggers: UPOS always, XPOS, FEATS and LEMMA when the
    treebank has them; FEATS by the features tagger, LEMMA by the lemmatiser, each trained on
    the gold tags and reading the predicted ones at run time)."""

    def __init__(self, field: str, with_clusters: bool, fields: tuple = ()):
        from seqspectral.tagging.columns import KIND

        self.field, self.kind = field, KIND[field]
        self.name = f"tagger-{field}"
        self.requires = ("train:form", f"train:{field}") + (("clusters",) if with_clusters else ()) + tuple(
            f"tagger:{f}" for f in fields if field == "feats" and f in ("upos", "xpos"))  # they tag dev for the unit
        self.provides = (f"tagger:{field}",)

    def key_parts(self, state):
        return (state.inputs, self.field, state.options.tagger_epochs) + (
            (TAGGER_RUNS,) if self.field in ("upos", "xpos", "lemma") else
            (FEATS_UNITS, "dev's UPOS and XPOS predicted") if self.field == "feats" else ())

    def units(self, state):
        tries = len(FEATS_UNITS) if self.field == "feats" and state.dev else 1
        return tries * state.options.tagger_epochs, "epoch"

    def compute(self, state, runner):
        from seqspectral.tagging import FeaturesTagger, Lemmatiser

        from .training import fit_tagger

        on_epoch, params = runner.epoch_note(state.options.tagger_epochs), {
            "epochs": state.options.tagger_epochs, "clusters": state.results.get("clusters")}
        if self.field in ("upos", "xpos"):
            return fit_tagger(state.train, state.dev, state.reading, on_epoch, field=self.field, runs=TAGGER_RUNS,
                              **params)
        if self.field == "lemma":
            return Lemmatiser(runs=TAGGER_RUNS, **params).fit(state.train, dev=state.dev, on_epoch=on_epoch)
        if not state.dev:
            return FeaturesTagger(**params).fit(state.train, on_epoch=on_epoch)
        # the unit (one class per bundle, or a decision per feature) chosen on dev tagged by the
        # build's UPOS and XPOS taggers, as the features tagger reads new text (FEATS_UNITS)
        tagged = tag({f: state.results[f] for f in self.requires if f.startswith("tagger:")}, state.dev)
        table, best = {}, None
        for unit in FEATS_UNITS:
            model = FeaturesTagger(unit=unit, **params).fit(state.train, dev=state.dev, on_epoch=on_epoch)
            table[unit] = feats_scores(model.predict(tagged), state.dev)
            if best is None or (table[unit]["ufeats"], table[unit]["sets"]) > (table[best.unit]["ufeats"],
                                                                            table[best.unit]["sets"]):
                best = model
        state.report["feats_unit_dev"] = {**table, "chosen": best.unit}
        return best

    def after(self, result, state):
        if state.dev:
            state.report.setdefault("tagger_dev_accuracy", {})[self.field] = result.score(state.dev)


def feats_scores(predicted: list, gold: list) -> dict:
    """Dev figures of predicted FEATS columns against the gold sentences: ``ufeats`` (the shared
    task's UFeats with gold tokenisation: universal features only, in any order) and ``sets``
    (the whole value as a set of Name=Value pairs)."""
    from seqspectral.tagging.token_classifier import column_of
    from seqspectral.treebank_scores import universal_features

    pairs = [(p, g) for ps, s in zip(predicted, gold) for p, g in zip(ps, column_of(s, "feats"))]
    return {"ufeats": 100.0 * sum(universal_features(p) == universal_features(g) for p, g in pairs) / len(pairs),
            "sets": 100.0 * sum(set(p.split("|")) == set(g.split("|")) for p, g in pairs) / len(pairs)}


class TrainTagsStage(Stage):
    """``tags="predicted"``: the training treebank's tag columns jackknifed by taggers with the
    full taggers' settings trained on the other folds; dev tagged by the full taggers."""

    name = "train-tags"

    def __init__(self, fields: list[str]):
        self.fields = fields
        self.requires = tuple(f"tagger:{f}" for f in fields)
        self.provides = ("train:tagged",)

    def files(self, state):
        return ["train.tagged.conllu"]

    def key_parts(self, state):
        return (state.inputs, self.fields, state.options.tagger_epochs, state.options.tag_folds)

    def compute(self, state, runner):
        taggers = {f: state.results[f"tagger:{f}"] for f in self.fields}
        params = {f: {**t.get_params(deep=False), **(t.selection_.chosen if getattr(t, "selection_", None) else {})}
                  for f, t in taggers.items()}
        train = state.train
        jobs = [(params, self.fields, train[:a] + train[b:], train[a:b])
                for a, b in fold_blocks(len(train), state.options.tag_folds)]
        parts = list(parallel_map(tag_fold, jobs, state.workers))
        if state.workers > 1:  # the workers' CPU, which this process's clock does not see
            runner.extra_cpu += sum(cpu for _, cpu in parts)
        return [replace(s, **t) for s, t in zip(train, (t for part, _ in parts for t in part))]

    def save(self, result, directory):
        from seqspectral.corpus import write_conllu

        write_conllu(directory / "train.tagged.conllu", result)

    def load(self, state, directory):
        from seqspectral.corpus import read_conllu

        return read_conllu(directory / "train.tagged.conllu")

    def after(self, result, state):
        state.train = result
        if state.dev:
            state.dev = tag({f: state.results[f"tagger:{f}"] for f in self.fields}, state.dev)


class LemmatiserStage(ModelStage):
    """``tags="predicted"`` with LEMMA: the lemmatiser that tags new text, trained on train twice —
    with its gold UPOS, XPOS and FEATS and with the jackknifed ones (gold lemmas both times), so it
    also learns the scripts of words whose predicted tags are wrong — kept if its dev Lemmas (dev
    tagged by the build's taggers) beat the gold-trained lemmatiser's; the jackknifed LEMMA column
    the parser learns from stays that of :class:`TrainTagsStage`."""

    name, requires, provides, kind = "lemmatiser", ("train:tagged", "tagger:lemma"), ("lemmatiser",), "lemmatiser"

    def applies(self, state):
        return state.options.tags == "predicted" and "lemma" in state.columns

    def key_parts(self, state):
        return (state.inputs, state.options.tagger_epochs, TAGGER_RUNS, "gold and jackknifed train, dev Lemmas")

    def units(self, state):
        return state.options.tagger_epochs, "epoch"

    def compute(self, state, runner):
        from seqspectral.tagging import Lemmatiser

        gold_train, gold_dev = state.results["gold"]
        gold = state.results["tagger:lemma"]
        model = Lemmatiser(**gold.get_params(deep=False)).fit(
            gold_train + [replace(s, lemmas=g.lemmas) for s, g in zip(state.train, gold_train)], dev=gold_dev,
            on_epoch=runner.epoch_note(state.options.tagger_epochs))
        if not state.dev:
            return model
        tagged = [replace(s, lemmas=g.lemmas) for s, g in zip(state.dev, gold_dev)]  # predicted tags, gold lemmas
        table = {"gold train": gold.score(tagged), "gold and jackknifed train": model.score(tagged)}
        state.report["lemmatiser_dev_lemmas"] = table
        return model if table["gold and jackknifed train"] > table["gold train"] else gold

    def after(self, result, state):
        if state.dev:
            state.dev = [replace(s, lemmas=lemmas) for s, lemmas in zip(state.dev, result.predict(state.dev))]


class ParserStage(ModelStage):
    """The parser, its epochs chosen on dev; the tag columns it reads are those the training
    sentences carry (gold), or the predicted UPOS (and XPOS, :data:`PREDICTED_XPOS`) and then
    the predicted FEATS and LEMMA, each kept only if the dev LAS gains (a first-order parser
    trained for each; at ``order`` 2 the second-order parser is then trained once, on the
    columns chosen), and its label classifier also reads the predicted FEATS and LEMMA each if
    it labels the parser's dev trees better with it (:func:`~.training.choose_labeler`)."""

    name, provides, kind = "parser", ("parser",), "dependency_parser"

    def __init__(self, columns: list[str], predicted: bool, with_clusters: bool):
        self.columns = columns
        self.requires = ("train:head",) + (("train:tagged",) if predicted else ()) + (
            ("clusters",) if with_clusters else ())

    def units(self, state):
        """Epochs of every parser trained: one, one more per predicted FEATS or LEMMA tried, and
        the second-order parser on the chosen columns after first-order tries."""
        o = state.options
        tries = 1 + (sum(c in state.columns for c in ("feats", "lemma")) + (o.order == 2)
                     if o.tags == "predicted" and state.dev else 0)
        return tries * o.parser_epochs, "epoch"

    def key_parts(self, state):
        o = state.options
        return (state.inputs, o.tags, (self.columns, "feats, lemma, labeler chosen on dev") if o.tags == "predicted" else None,
                o.order, *(["first-order column tries, pruned second order"] if o.order == 2 else []), o.parser_epochs,
                *([o.parser_hash_bits] if o.parser_hash_bits != BuildOptions.parser_hash_bits else []),
                *([o.parser_params] if o.parser_params else []))

    def compute(self, state, runner):
        from .training import fit_parser

        from .training import choose_labeler, dev_las

        o = state.options

        def fit(columns, order=1):
            return fit_parser(state.train, state.dev, state.reading, runner.epoch_note(o.parser_epochs),
                              order=order, epochs=o.parser_epochs, use_xpos="xpos" in columns,
                              use_feats="feats" in columns, use_lemma="lemma" in columns,
                              clusters=state.results.get("clusters"), hash_bits=o.parser_hash_bits, **o.parser_params)

        columns = list(self.columns)
        if o.tags != "predicted" or not state.dev:
            return fit(columns, o.order)
        parser = fit(columns)
        # the predicted FEATS, then LEMMA, read by the arcs too, each kept only if dev LAS gains
        table = {"+".join(columns): dev_las(parser, state.dev)}
        best = table["+".join(columns)]
        for column in ("feats", "lemma"):
            if column in state.columns:
                candidate = fit(columns + [column])
                table["+".join(columns + [column])] = score = dev_las(candidate, state.dev)
                if score > best:
                    parser, columns, best = candidate, columns + [column], score
        state.report["parser_dev_las"] = table
        if o.order == 2:  # the column tries are first order (cheaper); the parser kept is second order
            parser = fit(columns, 2)
            state.report["second_order_dev_las"] = dev_las(parser, state.dev)
        if parser.labeler_ is not None:
            state.report["labeler_dev_las"] = choose_labeler(parser, state.train, state.dev, state.columns)
        return parser

    def after(self, result, state):
        from .training import input_columns

        state.report["parser_tag_columns"] = input_columns(result)


class TrainListsStage(Stage):
    """The jackknifed k-best lists of train, fold by fold (a finished fold is kept), the
    missing folds at once on ``workers`` processes; each fold is a manifest entry of its own."""

    name, requires, provides = "nbest-train", ("parser",), ("nbest:train",)

    def run(self, state, runner):
        from seqspectral.parsing import TreeLists

        o, train = state.options, state.train
        key = key_of(state.keys["parser"], o.k, o.folds)
        blocks = fold_blocks(len(train), o.folds)
        fold_trees, todo = [None] * o.folds, []
        for i, (a, b) in enumerate(blocks):
            name = f"nbest-train-fold{i + 1}"
            if runner.finished(name, key, [name + ".npz"]):
                fold_trees[i] = load_trees(runner.path(name + ".npz"), train[a:b])
                runner.kept(name)
            else:
                todo.append(i)
        if todo:
            parser = state.results["parser"]
            chosen = dict(parser.selection_.chosen) if getattr(parser, "selection_", None) else {}
            params = {**parser.get_params(deep=False), **chosen}
            with runner.stage(f"jackknifed {o.k}-best lists of train", len(todo), "fold") as shown:
                wall, folds_cpu = time.perf_counter(), 0.0
                jobs = [(params, train[:blocks[i][0]] + train[blocks[i][1]:], train[blocks[i][0]:blocks[i][1]], o.k)
                        for i in todo]
                for i, (heads, scores, n_trees, cpu_i) in zip(todo, parallel_map(parse_fold, jobs, state.workers)):
                    wall_i = time.perf_counter() - wall  # since the previous fold was done
                    wall += wall_i
                    name = f"nbest-train-fold{i + 1}"
                    fold_trees[i] = TreeLists(train[blocks[i][0]:blocks[i][1]], heads, scores, n_trees)
                    save_trees(runner.path(name + ".npz"), fold_trees[i])
                    runner.record(name, key, [name + ".npz"], wall_i, cpu_i)
                    folds_cpu += cpu_i
                    shown.update()
                    shown.set_postfix_str(f"{folds_cpu:.1f} CPU s in the folds")
        state.keys["nbest:train"] = key
        state.results["nbest:train"] = fold_trees


class LabelerStage(ModelStage):
    """The label classifier of the build's trees: one reading the columns the parser's reads
    (chosen on dev, :class:`ParserStage`) trained on the gold trees and on the parser's jackknifed
    1-best trees of train (the first tree of each list of :class:`TrainListsStage`), so it
    also learns to label predicted trees (each word of them that has its gold head)."""

    name, requires, provides, kind = "labeler", ("parser", "nbest:train"), ("labeler",), "dependency_labeler"

    def applies(self, state):
        return state.options.parser_params.get("labels", True) and \
            any(d not in ("_", "") for s in state.train for d in s.deprels)

    def key_parts(self, state):
        return ("gold and jackknifed 1-best trees", self.labeler(state).get_params())

    @staticmethod
    def labeler(state):
        """An unfitted labeler reading the columns the parser's reads (the rest its defaults, so
        a parser file kept from an older build does not hand down older templates)."""
        from seqspectral.parsing import DependencyLabeler

        chosen = state.results["parser"].labeler_
        return DependencyLabeler(**{p: getattr(chosen, p) for p in ("use_lemma", "use_xpos", "use_feats",
                                                                     "random_state")})

    def compute(self, state, runner):
        trees = [tree if n else s.heads for fold in state.results["nbest:train"]
                 for s, n, tree in zip(fold.sentences, fold.n_trees, fold.chosen([0] * len(fold)))]
        return self.labeler(state).fit(state.train, trees=trees)

    def after(self, result, state):
        state.results["parser"].labeler_ = result  # the build's trees are labelled by it from here on


class RelationFeaturesStage(ModelStage):
    """``tags="predicted"`` with FEATS: the predicted FEATS re-decided from each word's relation
    after parsing (:class:`~seqspectral.tagging.relation_features.RelationFeatures`), learned
    from the jackknifed FEATS and the gold relations of train, ``min_count`` chosen on the
    parser's dev trees (no rule when none gains)."""

    name, requires, provides, kind = "feats-relations", ("train:tagged", "labeler"), ("feats-relations",), \
        "relation_features"

    def applies(self, state):
        return state.options.tags == "predicted" and "feats" in state.columns and \
            any(d not in ("_", "") for s in state.train for d in s.deprels)

    def key_parts(self, state):
        from seqspectral.tagging.relation_features import MIN_COUNTS

        return (state.inputs, MIN_COUNTS, "dev FEATS as sets")

    def compute(self, state, runner):
        from seqspectral.tagging.relation_features import RelationFeatures

        gold_train, gold_dev = state.results["gold"]
        parsed = state.results["parser"].parse(state.dev) if state.dev else None
        return RelationFeatures().fit(gold_train, state.train, dev=gold_dev, dev_predicted=parsed)

    def after(self, result, state):
        state.report["feats_relations"] = {"dev_feats_accuracy": {str(m): a for m, a in result.dev_accuracy_.items()},
                                           "min_count": result.min_count_, "rules": len(result.rules_)}


class DevListsStage(Stage):
    name, requires, provides = "nbest-dev", ("parser", "dev"), ("nbest:dev",)

    def applies(self, state):
        return state.dev is not None

    def key_parts(self, state):
        return (state.options.k, "dev")

    def compute(self, state, runner):
        return state.results["parser"].kbest_trees(state.dev, state.options.k)

    def save(self, result, directory):
        save_trees(directory / "nbest-dev.npz", result)

    def load(self, state, directory):
        return load_trees(directory / "nbest-dev.npz", state.dev)

    def after(self, result, state):
        from seqspectral.parsing import attachment_scores

        state.report["parser_dev"] = attachment_scores(state.dev, state.results["parser"].parse(state.dev))
        state.report["dev_oracle_uas"] = oracle_uas(result, state.dev)


class TreeModelStage(ModelStage):
    """A spectral tree model over ``field``: fold ``fold`` (1..folds) trained without that
    fold's trees, or (``fold`` None) on all of train."""

    kind = "spectral_tree_model"

    def __init__(self, fold: int | None, predicted: bool):
        self.fold = fold
        self.name = f"tree-fold{fold}" if fold else "tree"
        self.requires = ("train:head",) + (("train:tagged",) if predicted else ())
        self.provides = (f"tree:fold{fold}" if fold else "tree",)

    def applies(self, state):
        return bool(state.options.field)

    def key_parts(self, state):
        o = state.options
        return (state.inputs, o.tags, o.field, o.folds)

    def compute(self, state, runner):
        train = state.train
        a, b = fold_blocks(len(train), state.options.folds)[self.fold - 1] if self.fold else (0, 0)
        return fit_tree_model(train[:a] + train[b:], state.options.field)



class RerankerStage(ModelStage):
    name, provides, kind = "reranker", ("reranker",), "reranker"

    def __init__(self, options: BuildOptions, with_dev: bool):
        trees = [f"tree:fold{i + 1}" for i in range(options.folds)] + ["tree"] if options.field else []
        self.requires = ("nbest:train", *trees) + (("nbest:dev",) if with_dev else ())

    def key_parts(self, state):
        from seqspectral.reranking import Reranker

        o = state.options
        return (o.templates, o.spectral, Reranker(o.reranker_epochs, runs=o.reranker_runs).get_params())

    def compute(self, state, runner):
        from seqspectral.reranking import Reranker, head_losses

        o = state.options
        fold_trees = state.results["nbest:train"]
        fold_models = [state.results.get(f"tree:fold{i + 1}") for i in range(o.folds)]
        train_trees = concatenated(fold_trees)
        held = None
        if state.dev:
            dev_trees = state.results["nbest:dev"]
            held = (candidate_features(dev_trees, state.results.get("tree"), o, compact=True),
                    head_losses(dev_trees, state.dev), dev_trees.lengths)
        return Reranker(o.reranker_epochs, runs=o.reranker_runs).fit(
            jackknifed_features(fold_trees, fold_models, o), head_losses(train_trees, state.train), dev=held,
            sizes=train_trees.lengths, on_epoch=runner.epoch_note(o.reranker_epochs))


    def after(self, reranker, state):
        from seqspectral.parsing import attachment_scores

        if state.dev:
            dev_trees, parser = state.results["nbest:dev"], state.results["parser"]
            choice = reranker.choose(candidate_features(dev_trees, state.results.get("tree"), state.options,
                                                        compact=True))
            state.report["reranked_dev"] = attachment_scores(state.dev, parser.with_trees(state.dev,
                                                                                          dev_trees.chosen(choice)))
        if getattr(reranker, "selection_", None):
            state.report["reranker_chosen"] = reranker.selection_.chosen
        state.report["reranker_held_out"] = getattr(reranker, "held_out_", None)
        state.report["reranker_features"] = list(reranker.dense_names_)


def tag_fields(columns) -> list[str]:
    """The columns the build trains taggers of: UPOS always, XPOS, FEATS and LEMMA when the
    treebank has them (in that order: each reads the columns predicted before it)."""
    return ["upos"] + [c for c in ("xpos", "feats", "lemma") if c in columns]


def parser_columns(options: BuildOptions, columns, fields: list[str]) -> list[str]:
    """The tag columns the parser reads: the treebank's (gold), or the predicted UPOS and XPOS
    to start with (FEATS and LEMMA are then tried on dev by :class:`ParserStage`)."""
    if options.tags == "predicted":
        return ["upos"] + (["xpos"] if PREDICTED_XPOS and "xpos" in fields else [])
    return ["upos"] + [c for c in ("xpos", "feats", "lemma") if c in columns]


def plan(options: BuildOptions, columns, with_dev: bool) -> list[Stage]:
    """The stages of a build, in order (see the module docstring); ``columns``: those the
    training treebank fills."""
    clusters = bool(options.clusters_from)
    predicted = options.tags == "predicted"
    fields = tag_fields(columns)
    stages = [ClustersStage(), *(TaggerStage(f, clusters, fields) for f in fields)]
    if predicted:
        stages.append(TrainTagsStage(fields))
        if "lemma" in fields:
            stages.append(LemmatiserStage())
    stages += [ParserStage(parser_columns(options, columns, fields), predicted, clusters), TrainListsStage(),
               LabelerStage()]
    if predicted and "feats" in fields:
        stages.append(RelationFeaturesStage())
    if with_dev:
        stages.append(DevListsStage())
    if options.field:
        stages += [TreeModelStage(i + 1, predicted) for i in range(options.folds)] + [TreeModelStage(None, predicted)]
    stages.append(RerankerStage(options, with_dev))
    return stages


def input_names(columns, with_dev: bool) -> set:
    """The names the input provides: its filled columns (and ``dev``)."""
    return {f"train:{c}" for c in columns} | ({"dev"} if with_dev else set())


# -- the build ------------------------------------------------------------------------------------
def run_plan(runner: Runner, train_path: Path, dev_path: Path | None, train: list, dev: list | None,
             options: BuildOptions, reading, workers: int) -> dict:
    """Run every stage of :func:`plan` and write the report; returns it."""
    columns = {"form", "head", *(c for c in ("upos", "xpos", "feats", "lemma") if has_column(train, c))}
    for column, model in (("feats", "features tagger"), ("lemma", "lemmatiser")):
        if column not in columns:
            runner.on_note(f"{train_path}: the {column.upper()} column is _ throughout: no {model} trained")
    inputs = {"train": file_digest(train_path), "dev": file_digest(dev_path) if dev_path else None,
              "reading": {"format": reading.format, "encoding": reading.encoding, "errors": reading.errors}}
    state = BuildState(options, train, dev, inputs, reading, columns, workers)
    state.results["gold"] = (train, dev)  # the gold columns, which jackknifed tags replace in state.train
    state.report = {"options": asdict(options), "train": str(train_path), "dev": str(dev_path) if dev_path else None,
                    "n_train": len(train), "n_dev": len(dev) if dev else 0}
    stages = [s for s in plan(options, columns, dev is not None) if s.applies(state)]
    check_plan(stages, input_names(columns, dev is not None))
    for s in stages:
        s.run(state, runner)
    fields = tag_fields(columns)
    manifest = runner.manifest
    manifest["options"] = {**asdict(options), "clusters_from": list(options.clusters_from)}
    manifest["tag_fields"] = fields
    manifest["parser_tag_columns"] = state.report["parser_tag_columns"]
    manifest["reading"] = inputs["reading"]  # rerank run reads new input as the treebank was read
    write_manifest(runner.directory, manifest)
    report = state.report
    report["stages"] = {n: {"wall_s": e["wall_s"], "cpu_s": e["cpu_s"]} for n, e in manifest["stages"].items()}
    report["total_cpu_s"] = round(sum(e["cpu_s"] for e in manifest["stages"].values()), 1)
    return report


def tag(taggers: dict, sentences) -> list:
    """Copies of ``sentences`` with every column of ``taggers`` ({field: tagger}) predicted."""
    sentences = list(sentences)
    for tagger in taggers.values():
        sentences = tagger.tag(sentences)
    return sentences


def _source_digest(source: str) -> str:
    """What a clusters key records of an unlabelled corpus: a file's sha256, else its name (``brown``)."""
    return file_digest(source) if Path(source).is_file() else str(source)


def fit_clusters(sentences, sources):
    """Word clusters (:data:`CLUSTERS`) of CCA embeddings (:data:`CLUSTER_EMBEDDINGS`) of the
    unlabelled corpora ``sources`` (paths; ``brown`` alone: NLTK's Brown corpus through
    ``NLTK_DATA``) and the word forms of ``sentences``."""
    from seqspectral.corpus import corpus_from_sentences, read_corpus
    from seqspectral.corpus.nltk_corpora import read_brown
    from seqspectral.embeddings import CCAEmbeddings, WordClusters

    corpora = [read_brown(None, field="form") if s == "brown" and not Path(s).exists() else read_corpus(s, field="form")
               for s in sources]
    embeddings = CCAEmbeddings(**CLUSTER_EMBEDDINGS).fit([*corpora, corpus_from_sentences(sentences, field="form")])
    return WordClusters(**CLUSTERS).fit(embeddings)


def fit_tree_model(sentences, field: str):
    """The spectral tree model over ``field`` (identity U over tags, SVD over word forms),
    ridge, shrinkage and floor chosen by ranking on held-out trees (``train_tree_model``;
    the model reads ``field``)."""
    from seqspectral.corpus import Reading, corpus_from_sentences
    from seqspectral.dependency_trees import train_tree_model

    representation = "identity" if field in ("upos", "xpos") else "svd"
    return train_tree_model(corpus_from_sentences(sentences, field=field), "spectral", reading=Reading(field=field),
                            representation=representation, ridge="auto", shrinkage="auto", floor="auto",
                            selection="ranking")


def read_build_inputs(train_path, dev_path, options: BuildOptions, reading):
    """``(train, dev, format, notes, warnings)``: the treebanks of a build, refused (one line naming
    the file) before anything is written when they are the wrong kind: a directory, no such
    file, raw text, an n-best file, no sentences, no UPOS tags, more folds than sentences."""
    from seqspectral.corpus import Reading

    from .reading import InputError, read_sentences

    reading = reading or Reading()
    for path in (train_path, dev_path):
        if path is not None and not os.path.exists(path):
            raise InputError(f"{path}: no such file")
    read_train = read_sentences(train_path, reading)
    read_dev = read_sentences(dev_path, reading.updated(format=read_train.format)) if dev_path else None
    train = read_train.sentences
    if not has_column(train, "upos"):
        raise InputError(f"{train_path}: the UPOS column is empty (every value _); the build trains its tagger and "
                         "parser on it: give a tagged treebank")
    options.check_folds(len(train), train_path)
    notes = read_train.notes + (read_dev.notes if read_dev else [])
    said = read_train.warnings + (read_dev.warnings if read_dev else [])
    return train, read_dev.sentences if read_dev else None, read_train.format, notes, said


def build(directory, train_path, dev_path=None, options: BuildOptions | None = None, *, reading=None,
          workers: int = 1, progress: bool | None = None, stream=None, on_note=None) -> dict:
    """Train every stage of :func:`plan` into ``directory`` and return the report (its
    ``notes`` and ``warnings``: messages for the user). ``reading``: a
    :class:`~seqspectral.corpus.Reading` of the treebanks (format, encoding, errors);
    ``workers``: processes for the folds; ``progress``: every stage shown by the toolkit's
    progress rule (:mod:`seqspectral.progress`; ``stream`` default standard error);
    ``on_note``: called with each note as it comes (default: collected in the report).
    Bad input or options are refused before the directory is made or changed."""
    from .manifest import read_manifest

    options = options or BuildOptions()
    options.check()
    directory = Path(directory)
    manifest = read_manifest(directory)  # a damaged manifest is refused before anything is done
    train, dev, fmt, notes, said = read_build_inputs(train_path, dev_path, options, reading)
    from seqspectral.corpus import Reading

    reading = (reading or Reading()).updated(format=fmt)
    created = not directory.exists()
    directory.mkdir(parents=True, exist_ok=True)
    collected = list(notes)

    def note(message):
        collected.append(message)
        if on_note is not None:
            on_note(message)

    for message in notes:
        if on_note is not None:
            on_note(message)
    runner = Runner(directory, manifest, progress, stream, note)
    try:
        report = run_plan(runner, Path(train_path), Path(dev_path) if dev_path else None, train, dev, options,
                          reading, workers)
    except BaseException:
        if created and not any(directory.iterdir()):  # stopped before a stage finished: no empty directory left
            directory.rmdir()
        raise
    report["notes"], report["warnings"] = collected, said
    with atomic_open(runner.path(REPORT), "w") as f:
        json.dump(report, f, indent=1)
    return report

