"""One command from a treebank to reranked parses (``seqspectral rerank build`` / ``run``).

:func:`build` trains, in a directory, everything a reranked parse needs, as stages:
with ``clusters_from`` (unlabelled corpora), word clusters (k-means of CCA word vectors of
those corpora and the training treebank's words) that the taggers and the parser read as
features; the taggers (UPOS, and XPOS when the treebank has it); for a build meant for untagged
input (``tags="predicted"``) the training treebank's tags jackknifed (``tag_folds``) by taggers
trained on the other folds (and dev tagged by the full taggers); the parser (epochs chosen on dev); the
jackknifed k-best lists of train, fold by fold (each fold parsed by a parser with the full
parser's settings and chosen epochs trained on the other folds); dev's k-best lists; the
spectral tree models, one per fold trained without that fold (so a fold's lists are scored
by a model that never saw its trees, as the parser never did) and one on all of train (for
dev and new input), hyper-parameters chosen by ranking (``selection="ranking"``); the
reranker; ``report.json`` with every held-out figure and each stage's seconds.

Every stage's result is kept in the directory with a key (a hash of the input files' bytes,
the options it depends on and the keys of the stages it reads): a build interrupted and run
again with the same inputs and options keeps the finished stages and redoes the rest.

:func:`run` tags the columns the parser reads that the input leaves empty, parses k-best,
reranks and returns the chosen trees (or the reranked lists).
"""

from __future__ import annotations

import hashlib
import json
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from seqspectral.corpus.reading import Reading
from seqspectral.io import atomic_open
from seqspectral.progress import stage

#: the treebank reader's options and their defaults
READING = {"format": "auto", "encoding": "utf-8", "errors": "raise"}
#: what the report and the run step read
MANIFEST = "build.json"
REPORT = "report.json"


@dataclass
class BuildOptions:
    """``order`` of the parser, ``k``-best lists, ``folds`` of jackknifing, ``tags``: "gold"
    (the parser reads the treebank's tag columns as given) or "predicted" (trained on
    predicted tags jackknifed in ``tag_folds`` folds, for untagged input), ``clusters_from``:
    unlabelled corpora (paths; ``brown``: NLTK's Brown corpus) for word-cluster features
    (none: no clusters), hashed ``templates`` of the reranker,
    ``field`` the column the tree model reads ("" for no tree model), ``spectral``: the
    tree-model features (see :data:`SPECTRAL`), epochs of the parser, tagger and reranker,
    ``parser_hash_bits``: 2**parser_hash_bits feature weights of every parser."""

    order: int = 1
    k: int = 50
    folds: int = 3
    tags: str = "gold"
    tag_folds: int = 3
    clusters_from: tuple = ()
    templates: str = "context"
    field: str = "upos"
    spectral: str = "global"
    parser_epochs: int = 10
    tagger_epochs: int = 10
    reranker_epochs: int = 20
    parser_hash_bits: int = 23

    def check(self) -> None:
        if self.order not in (1, 2):
            raise ValueError(f"order must be 1 or 2, not {self.order}")
        if self.tags not in ("gold", "predicted"):
            raise ValueError(f"tags must be 'gold' or 'predicted', not {self.tags!r}")
        if self.spectral not in SPECTRAL:
            raise ValueError(f"spectral must be one of {SPECTRAL}, not {self.spectral!r}")
        for name in ("k", "parser_epochs", "tagger_epochs", "reranker_epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        if not 10 <= self.parser_hash_bits <= 30:
            raise ValueError(f"parser_hash_bits must be between 10 and 30, not {self.parser_hash_bits}")
        if self.folds < 2 or self.tag_folds < 2:
            raise ValueError(f"folds must be at least 2, not {min(self.folds, self.tag_folds)}")
        for source in self.clusters_from:
            if not Path(source).exists() and source != "brown":
                raise ValueError(f"{source}: no such corpus for the word clusters")


#: whether the parser of a ``tags="predicted"`` build reads the predicted XPOS beside UPOS (chosen
#: on EWT dev, docs/rerank-build.md); it never reads LEMMA or FEATS, which nothing predicts
PREDICTED_XPOS = True

#: the word clusters of a build (:class:`~seqspectral.embeddings.clusters.WordClusters`) and the
#: CCA embeddings they cluster (Koo et al. 2008's two granularities; chosen on EWT dev)
CLUSTERS = {"coarse": 64, "fine": 1024}
CLUSTER_EMBEDDINGS = {"n_components": 50, "window": 2, "min_count": 2, "lowercase": True, "digits": True}

#: tree-model features: "global" log p(words | tree) and the topology term; "direction" adds
#: the per-word conditional log-probabilities summed by the word's side of its head
SPECTRAL = ("global", "direction")


# -- stage bookkeeping -----------------------------------------------------------------------
def _cpu() -> float:
    """CPU seconds of this process (fold workers report their own)."""
    return time.process_time()


def file_digest(path) -> str:
    """sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _key(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:24]


class Stages:
    """The finished stages of a build directory (``build.json``): per stage its key, files and
    seconds. :meth:`run` loads a finished stage whose key matches, else computes and keeps it;
    each is a stage of :mod:`seqspectral.progress` (``progress``: its ``show``)."""

    def __init__(self, directory: Path, progress: bool | None, stream=None):
        self.directory = directory
        self.progress = progress
        self.stream = stream
        path = directory / MANIFEST
        self.manifest = json.loads(path.read_text()) if path.is_file() else {}
        self.manifest.setdefault("stages", {})
        self.extra_cpu = 0.0  # CPU seconds of worker processes during the current stage

    def path(self, name: str) -> Path:
        return self.directory / name

    def finished(self, name: str, key: str, files: list[str]) -> bool:
        entry = self.manifest["stages"].get(name)
        return bool(entry) and entry["key"] == key and all(self.path(f).is_file() for f in files)

    def stage(self, desc: str, total: int | None = None, unit: str = "step"):
        """A :func:`seqspectral.progress.stage` of this build."""
        return stage(f"rerank build: {desc}", total, unit, show=self.progress, stream=self.stream)

    def kept(self, name: str) -> None:
        with self.stage(name) as s:
            s.set_postfix_str("kept: finished earlier")

    def record(self, name: str, key: str, files: list[str], wall: float, cpu: float) -> None:
        self.manifest["stages"][name] = {"key": key, "files": files, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}
        self.write()

    def run(self, name: str, key: str, files: list[str], compute, save, load):
        if self.finished(name, key, files):
            self.kept(name)
            return load()
        with self.stage(name) as shown:
            wall, cpu, self.extra_cpu = time.perf_counter(), _cpu(), 0.0
            result = compute()
            save(result)
            self.record(name, key, files, time.perf_counter() - wall, _cpu() - cpu + self.extra_cpu)
            if self.extra_cpu:
                shown.set_postfix_str(f"and {self.extra_cpu:.1f} CPU s in worker processes")
        return result

    def write(self) -> None:
        with atomic_open(self.directory / MANIFEST, "w") as f:
            json.dump(self.manifest, f, indent=1)


# -- storing n-best trees --------------------------------------------------------------------
def _save_trees(path: Path, trees) -> None:
    """A stage's n-best trees (the build's own cache, not a model file: plain .npz, no pickles)."""
    with atomic_open(path, "wb", encoding=None) as f:
        np.savez(f, heads=trees.heads, scores=trees.scores, n_trees=trees.n_trees)


def _load_trees(path: Path, sentences):
    from seqspectral.parsing import TreeLists

    with np.load(path, allow_pickle=False) as arrays:
        return TreeLists(list(sentences), arrays["heads"], arrays["scores"], arrays["n_trees"])


def concatenated(parts):
    """Tree lists of consecutive sentence blocks as one."""
    from seqspectral.parsing import TreeLists

    return TreeLists([s for p in parts for s in p.sentences], np.concatenate([p.heads for p in parts]),
                     np.concatenate([p.scores for p in parts]), np.concatenate([p.n_trees for p in parts]))


# -- fold workers (module level: they run in worker processes) -------------------------------
def _fold_blocks(n: int, folds: int) -> list[tuple[int, int]]:
    from seqspectral.jackknife import fold_of

    of = fold_of(n, folds)
    return [(int(np.flatnonzero(of == f)[0]), int(np.flatnonzero(of == f)[-1]) + 1) for f in range(folds)]


def _tag_fold(params: dict, fields: list[str], train: list, held: list) -> tuple[list[dict], float]:
    """The ``fields`` of ``held`` predicted by taggers trained on ``train``, and the CPU seconds spent."""
    from seqspectral.tagging import PerceptronTagger

    start = time.process_time()
    columns = {field: PerceptronTagger(**params[field]).fit(train).predict(held) for field in fields}
    return [{f: columns[f][i] for f in fields} for i in range(len(held))], time.process_time() - start


def _parse_fold(params: dict, train: list, held: list, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The k-best trees of ``held`` by a parser trained on ``train``, and the CPU seconds spent."""
    from seqspectral.parsing import DependencyParser

    start = time.process_time()
    trees = DependencyParser(**params).fit(train).kbest_trees(held, k)
    return trees.heads, trees.scores, trees.n_trees, time.process_time() - start


def _map(function, jobs: list[tuple], workers: int):
    """``function(*job)`` of every job, in order, as each is done (on ``workers`` processes)."""
    if workers <= 1 or len(jobs) <= 1:
        yield from (function(*job) for job in jobs)
        return
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        yield from pool.map(function, *zip(*jobs))


# -- which tag columns ------------------------------------------------------------------------
def has_column(sentences, column: str) -> bool:
    """Whether any word of ``sentences`` has a value in ``column`` (upos, xpos or feats)."""
    for s in sentences:
        values = s.feats if column == "feats" else s.column(column)
        if values and any(v not in ("_", "") for v in values):
            return True
    return False


def _with_tags(sentence, tags: dict):
    return replace(sentence, **tags)


# -- the build --------------------------------------------------------------------------------
def build(directory, train_path, dev_path=None, options: BuildOptions | None = None, *, reading=None,
          workers: int = 1, progress: bool | None = None, stream=None) -> dict:
    """Train every stage into ``directory`` (see the module docstring) and return the report.
    ``reading``: keyword arguments of the treebank reader (format, encoding, errors);
    ``workers``: processes for the folds; ``progress``: every stage shown by the toolkit's
    progress rule (:mod:`seqspectral.progress`; ``stream`` default standard error)."""
    options = options or BuildOptions()
    options.check()
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    reading = {**READING, **{k: v for k, v in (reading or {}).items() if v is not None}}
    stages = Stages(directory, progress, stream)
    return _build(stages, Path(train_path), Path(dev_path) if dev_path else None, options, reading, workers)


def read_treebank(path, reading: dict, heads_required: bool = True) -> list:
    """A treebank file's sentences (``reading``: format, encoding, errors); without
    ``heads_required`` HEAD may be ``_``."""
    from seqspectral.corpus import detect, read_conllu, read_conllx, read_malttab
    from seqspectral.parsing.unparsed import read_unparsed

    encoding = reading.get("encoding", "utf-8")
    fmt = reading.get("format", "auto")
    if fmt == "auto":
        fmt = detect(path, encoding).format
    if not heads_required:
        return read_unparsed(path, errors=reading.get("errors", "raise"), encoding=encoding, format=fmt)
    read = {"conllu": read_conllu, "conllx": read_conllx, "malttab": read_malttab}[fmt]
    return read(path, errors=reading.get("errors", "raise"), encoding=encoding)


def _build(stages: Stages, train_path: Path, dev_path: Path | None, o: BuildOptions, reading: dict,
           workers: int) -> dict:
    from seqspectral import serialize
    from seqspectral.parsing import DependencyParser, attachment_scores
    from seqspectral.tagging import PerceptronTagger

    train = read_treebank(train_path, reading)
    dev = read_treebank(dev_path, reading) if dev_path else None
    inputs = {"train": file_digest(train_path), "dev": file_digest(dev_path) if dev_path else None,
              "reading": {k: reading[k] for k in READING}}
    for folds in (o.folds, o.tag_folds if o.tags == "predicted" else 0):
        if folds > len(train):
            raise ValueError(f"{folds} folds for {len(train)} training sentences")
    report = {"options": asdict(o), "train": str(train_path), "dev": str(dev_path) if dev_path else None,
              "n_train": len(train), "n_dev": len(dev) if dev else 0}
    blocks = _fold_blocks(len(train), o.folds)

    # word clusters of unlabelled text and the treebank's words (keys of later stages name them
    # only when there are clusters, so builds without them keep their stages)
    clusters, with_clusters = None, []
    if o.clusters_from:
        clusters_key = _key(inputs["train"], inputs["reading"], [_source_digest(p) for p in o.clusters_from],
                            CLUSTERS, CLUSTER_EMBEDDINGS)
        clusters = stages.run("clusters", clusters_key, ["clusters.npz"], lambda: fit_clusters(train, o.clusters_from),
                              lambda m: serialize.save(stages.path("clusters.npz"), m),
                              lambda: serialize.load(stages.path("clusters.npz"), "word_clusters"))
        with_clusters = [clusters_key]
        report["clusters"] = {"from": list(o.clusters_from), **CLUSTERS, "words": len(clusters.words_)}

    # taggers: UPOS always, XPOS when the treebank has it
    fields = ["upos"] + (["xpos"] if has_column(train, "xpos") else [])
    taggers = {}
    for field in fields:
        name = f"tagger-{field}.npz"
        key = _key(inputs, field, o.tagger_epochs, *with_clusters)
        taggers[field] = stages.run(
            f"tagger-{field}", key, [name],
            lambda f=field: PerceptronTagger(f, epochs=o.tagger_epochs, clusters=clusters).fit(train, dev=dev),
            lambda m, n=name: serialize.save(stages.path(n), m), lambda n=name: serialize.load(stages.path(n), "tagger"))
    report["tagger_dev_accuracy"] = {f: t.score(dev) for f, t in taggers.items()} if dev else {}

    # the parser's training sentences: gold tags, or jackknifed predicted ones
    tag_key = _key(inputs, fields, o.tagger_epochs, o.tag_folds, *with_clusters)
    if o.tags == "predicted":
        params = {f: {**t.get_params(deep=False), **(t.selection_.chosen if getattr(t, "selection_", None) else {})}
                  for f, t in taggers.items()}

        def jackknife_tags():
            jobs = [(params, fields, train[:a] + train[b:], train[a:b])
                    for a, b in _fold_blocks(len(train), o.tag_folds)]
            parts = list(_map(_tag_fold, jobs, workers))
            if workers > 1:  # the workers' CPU, which this process's clock does not see
                stages.extra_cpu += sum(cpu for _, cpu in parts)
            return [_with_tags(s, t) for s, t in zip(train, (t for part, _ in parts for t in part))]

        from seqspectral.corpus import read_conllu, write_conllu

        train = stages.run("train-tags", tag_key, ["train.tagged.conllu"], jackknife_tags,
                           lambda s: write_conllu(stages.path("train.tagged.conllu"), s),
                           lambda: read_conllu(stages.path("train.tagged.conllu")))
        if dev:
            dev = tag(taggers, dev)
        use_xpos, use_feats, use_lemma = PREDICTED_XPOS and "xpos" in fields, False, False
    else:
        use_xpos, use_feats, use_lemma = (has_column(train, c) for c in ("xpos", "feats", "lemma"))
    report["parser_tag_columns"] = ["upos"] + [c for c, used in (("xpos", use_xpos), ("feats", use_feats),
                                                                 ("lemma", use_lemma)) if used]

    parser_key = _key(inputs, o.tags, (tag_key, report["parser_tag_columns"]) if o.tags == "predicted" else None,
                      o.order, o.parser_epochs, *with_clusters,
                      *([o.parser_hash_bits] if o.parser_hash_bits != BuildOptions.parser_hash_bits else []))
    parser = stages.run(
        "parser", parser_key, ["parser.npz"],
        lambda: DependencyParser(o.order, epochs=o.parser_epochs, use_xpos=use_xpos, use_feats=use_feats,
                                 use_lemma=use_lemma, clusters=clusters,
                                 hash_bits=o.parser_hash_bits).fit(train, dev=dev),
        lambda m: serialize.save(stages.path("parser.npz"), m),
        lambda: serialize.load(stages.path("parser.npz"), "dependency_parser"))
    chosen = dict(getattr(parser, "selection_", None).chosen) if getattr(parser, "selection_", None) else {}
    fold_params = {**parser.get_params(deep=False), **chosen}

    # jackknifed k-best lists of train, fold by fold (a finished fold is kept)
    lists_key = _key(parser_key, o.k, o.folds)
    fold_trees = [None] * o.folds
    todo = []
    for i, (a, b) in enumerate(blocks):
        name = f"nbest-train-fold{i + 1}"
        if stages.finished(name, lists_key, [name + ".npz"]):
            fold_trees[i] = _load_trees(stages.path(name + ".npz"), train[a:b])
            stages.kept(name)
        else:
            todo.append(i)
    if todo:  # the missing folds at once, on ``workers`` processes
        from seqspectral.parsing import TreeLists

        with stages.stage(f"jackknifed {o.k}-best lists of train", len(todo), "fold") as shown:
            wall, folds_cpu = time.perf_counter(), 0.0
            jobs = [(fold_params, train[:blocks[i][0]] + train[blocks[i][1]:], train[blocks[i][0]:blocks[i][1]], o.k)
                    for i in todo]
            for i, (heads, scores, n_trees, cpu_i) in zip(todo, _map(_parse_fold, jobs, workers)):
                wall_i = time.perf_counter() - wall  # since the previous fold was done
                wall += wall_i
                name = f"nbest-train-fold{i + 1}"
                fold_trees[i] = TreeLists(train[blocks[i][0]:blocks[i][1]], heads, scores, n_trees)
                _save_trees(stages.path(name + ".npz"), fold_trees[i])
                stages.record(name, lists_key, [name + ".npz"], wall_i, cpu_i)
                folds_cpu += cpu_i
                shown.update()
                shown.set_postfix_str(f"{folds_cpu:.1f} CPU s in the folds")
    train_trees = concatenated(fold_trees)

    dev_trees = None
    if dev:
        dev_trees = stages.run("nbest-dev", _key(parser_key, o.k, "dev"), ["nbest-dev.npz"],
                               lambda: parser.kbest_trees(dev, o.k), lambda t: _save_trees(stages.path("nbest-dev.npz"), t),
                               lambda: _load_trees(stages.path("nbest-dev.npz"), dev))
        report["parser_dev"] = attachment_scores(dev, parser.parse(dev))
        report["dev_oracle_uas"] = oracle_uas(dev_trees, dev)

    # tree models: one per fold without that fold, one on all of train
    tree_models = {}
    if o.field:
        tree_key = _key(inputs, o.tags, tag_key if o.tags == "predicted" else None, o.field, o.folds)
        for i, (a, b) in enumerate([*blocks, (0, 0)]):
            name = f"tree-fold{i + 1}" if i < o.folds else "tree"
            part = train[:a] + train[b:]
            tree_models[name] = stages.run(
                name, _key(tree_key, name), [name + ".npz"], lambda p=part: fit_tree_model(p, o.field),
                lambda m, n=name: serialize.save(stages.path(n + ".npz"), m),
                lambda n=name: serialize.load(stages.path(n + ".npz"), "spectral_tree_model"))
    fold_models = [tree_models[f"tree-fold{i + 1}"] for i in range(o.folds)] if o.field else [None] * o.folds

    def reranker_fit():
        from seqspectral.reranking import Reranker, head_losses

        train_f = jackknifed_features(fold_trees, fold_models, o)
        held = None
        if dev:
            held = (candidate_features(dev_trees, tree_models.get("tree"), o, compact=True),
                    head_losses(dev_trees, dev), dev_trees.lengths)
        return Reranker(o.reranker_epochs).fit(train_f, head_losses(train_trees, train), dev=held,
                                               sizes=train_trees.lengths)

    from seqspectral.reranking import Reranker

    reranker_key = _key(lists_key, o.templates, o.spectral, Reranker(o.reranker_epochs).get_params(),
                        tree_key if o.field else None, _key(parser_key, o.k, "dev") if dev else None)
    reranker = stages.run("reranker", reranker_key, ["reranker.npz"], reranker_fit,
                          lambda m: serialize.save(stages.path("reranker.npz"), m),
                          lambda: serialize.load(stages.path("reranker.npz"), "reranker"))
    if dev:
        choice = reranker.choose(candidate_features(dev_trees, tree_models.get("tree"), o, compact=True))
        report["reranked_dev"] = attachment_scores(dev, parser.with_trees(dev, dev_trees.chosen(choice)))
    if getattr(reranker, "selection_", None):
        report["reranker_chosen"] = reranker.selection_.chosen
    report["reranker_held_out"] = getattr(reranker, "held_out_", None)
    report["reranker_features"] = list(reranker.dense_names_)
    stages.manifest["options"] = asdict(o)
    stages.manifest["tag_fields"] = fields
    stages.manifest["parser_tag_columns"] = report["parser_tag_columns"]
    stages.manifest["reading"] = inputs["reading"]  # rerank run reads new input as the treebank was read
    stages.write()
    report["stages"] = {n: {"wall_s": e["wall_s"], "cpu_s": e["cpu_s"]} for n, e in stages.manifest["stages"].items()}
    report["total_cpu_s"] = round(sum(e["cpu_s"] for e in stages.manifest["stages"].values()), 1)
    with atomic_open(stages.path(REPORT), "w") as f:
        json.dump(report, f, indent=1)
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
    ridge, shrinkage and floor chosen by ranking on held-out trees."""
    from seqspectral.corpus import corpus_from_sentences
    from seqspectral.dependency_trees import SpectralTreeModel

    corpus = corpus_from_sentences(sentences, field=field)
    representation = "identity" if field in ("upos", "xpos") else "svd"
    model = SpectralTreeModel(representation=representation, ridge="auto", shrinkage="auto", floor="auto",
                              selection="ranking").fit(corpus)
    model.reading_ = Reading(field=field)
    return model


def oracle_uas(trees, gold) -> float:
    """UAS of the best candidate of every list."""
    wrong, scored = trees.wrong_heads(gold)
    groups = trees.groups
    best = np.minimum.reduceat(wrong, groups[:-1]) if len(wrong) else np.zeros(0)
    return float(100.0 * (1 - best.sum() / max(sum(len(g) for g in gold), 1)))


def scorers_of(model, o: BuildOptions) -> list:
    """The real-valued features a tree model contributes (:data:`SPECTRAL`)."""
    from seqspectral.reranking import tree_model_scorers

    from .spectral_features import DirectionScorers

    if model is None:
        return []
    out = tree_model_scorers(model, "tree", topology=True)
    if o.spectral == "direction":
        out += DirectionScorers(model, "tree").scorers()
    return out


def candidate_features(trees, model, o: BuildOptions, compact: bool = False):
    """Features of the candidates of ``trees`` scored by one tree model (``compact``: without
    the hashed features every candidate of a list shares, for training and choosing)."""
    from seqspectral.reranking.parses import compact_parse_features, parse_features

    return (compact_parse_features if compact else parse_features)(trees, scorers_of(model, o), o.templates)


def jackknifed_features(fold_trees, fold_models, o: BuildOptions):
    """Features of the jackknifed training lists: hashed features of all of them, every
    fold's real-valued columns from that fold's tree model (trained without it)."""
    from seqspectral.reranking.parses import compact_parse_features

    trees = concatenated(fold_trees)
    hashed = compact_parse_features(trees, (), o.templates)
    per_fold = [scorers_of(m, o) for m in fold_models]
    if not per_fold[0]:
        return hashed
    names = [s.name for s in per_fold[0]]
    columns = [np.concatenate([scorers[j].tree_log_probs(t) for scorers, t in zip(per_fold, fold_trees)])
               for j in range(len(names))]
    return hashed.with_dense(names, columns)


# -- the run step -----------------------------------------------------------------------------
class Built:
    """A finished build directory's models: ``taggers`` ({field: tagger}), ``parser``,
    ``tree_model`` (or None), ``reranker``, ``options``, and ``reading_`` (the training
    treebank's encoding)."""

    def __init__(self, directory):
        from seqspectral import serialize

        directory = Path(directory)
        path = directory / MANIFEST
        if not path.is_file():
            raise FileNotFoundError(f"{directory}: not a finished rerank build (no {MANIFEST})")
        manifest = json.loads(path.read_text())
        if "options" not in manifest or "reranker" not in manifest["stages"]:
            raise FileNotFoundError(f"{directory}: the build has not finished (run rerank build again)")
        self.options = BuildOptions(**manifest["options"])
        self.parser_tag_columns = manifest["parser_tag_columns"]
        self.reading_ = Reading(encoding=manifest.get("reading", READING)["encoding"])  # older builds: utf-8
        self.taggers = {f: serialize.load(directory / f"tagger-{f}.npz", "tagger") for f in manifest["tag_fields"]}
        self.parser = serialize.load(directory / "parser.npz", "dependency_parser")
        self.tree_model = serialize.load(directory / "tree.npz", "spectral_tree_model") if self.options.field else None
        if self.tree_model is not None:
            self.tree_model.reading_ = Reading(field=self.options.field)
        self.reranker = serialize.load(directory / "reranker.npz", "reranker")


def run(built: Built, sentences, k: int | None = None) -> tuple[list, dict]:
    """Reranked parses of ``sentences`` (the reranker's 1-best; with ``k``, n-best lists of the
    ``k`` best candidates by the reranker's score) and which tag columns came from where:
    ``{"given": [...], "predicted": [...], "missing": [...]}`` — a column the parser reads is
    predicted when the input leaves it empty; FEATS cannot be predicted."""
    from seqspectral.parsing import TreeLists

    sentences = list(sentences)
    columns = {"given": [], "predicted": [], "missing": []}
    needed = list(dict.fromkeys(["upos", *built.parser_tag_columns]))
    predict = {}
    for column in needed:
        if has_column(sentences, column):
            columns["given"].append(column)
        elif column in built.taggers:
            columns["predicted"].append(column)
            predict[column] = built.taggers[column]
        else:
            columns["missing"].append(column)
    sentences = tag(predict, sentences)
    trees = built.parser.kbest_trees(sentences, built.options.k)
    tree_model = None if built.reranker.dropped_names_ else built.tree_model  # dropped on held-out lists: not scored
    scores = built.reranker.scores(candidate_features(trees, tree_model, built.options))
    groups = trees.groups
    if k is None:
        choice = [int(np.argmax(scores[a:b])) for a, b in zip(groups[:-1], groups[1:])]
        return built.parser.with_trees(sentences, trees.chosen(choice)), columns
    offsets = trees.tree_offsets
    heads, kept, n_trees = [], [], []
    for a, b in zip(groups[:-1], groups[1:]):
        order = a + np.argsort(-scores[a:b], kind="stable")[:k]
        heads += [trees.heads[offsets[c]:offsets[c + 1]] for c in order]
        kept.append(order)
        n_trees.append(len(order))
    kept = np.concatenate(kept)
    reranked = TreeLists(sentences, np.concatenate(heads), scores[kept], np.array(n_trees))
    return reranked.to_nbest(built.parser.with_trees), columns
