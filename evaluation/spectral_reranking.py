"""Dhillon, Rodu, Collins, Foster & Ungar (EMNLP 2012), Table 1 in the paper's protocol: n-best
reranking with the spectral tree model's log p̂(words | tree) over CCA eigenwords.

The protocol, step by step (every step the toolkit's own: ``rerank build``'s stages, the
reranker of :mod:`seqspectral.reranking`, the tree model of :mod:`seqspectral.dependency_trees`):

- data: the WSJ dependency sample of NLTK split by ``corpora/make_wsj_splits.py`` (80/10/10 by
  sentence order) and UD English-EWT (train/dev/test), **punctuation stripped** before anything
  is trained (WSJ: the PTB tags ``, . : `` ''``, the set MSTParser's evaluation leaves out;
  EWT: UPOS ``PUNCT``); a dependent of a stripped word is attached to the stripped word's
  nearest kept ancestor; EWT's LEMMA and FEATS columns are emptied (the paper's parser reads words
  and POS tags only);
- tags **predicted** (``--tags predicted --tag-folds 10``): the parser trains on training tags
  jackknifed in 10 folds, dev and test are tagged by the taggers trained on all of train;
- **50-best lists** from the first- and the second-order parser, the training lists jackknifed in
  **3 folds** (``-k 50 --folds 3``);
- the averaged-perceptron reranker with the **baseline templates** (``--templates baseline``) and the
  parser score (row *RR baseline*), then the same with the spectral model's log p̂(words | tree)
  forced in (``feature_set="scorers"``; row *RR baseline + log p̂*); epochs (up to 20) and anchor
  those of the best dev UAS (the paper's choice; no margin, see :data:`MARGIN`); the training
  lists' log p̂ from a tree model trained without their fold, dev's and test's from the model on
  all of train;
- the spectral model as the paper's: over **word forms** (forms seen twice in train; the rest one
  UNK), every word represented by its **k-dimensional CCA eigenword** (``CCAEmbeddings``, window 2)
  induced from the largest unlabelled English text at hand: NLTK's Brown corpus (1.16M tokens)
  and the treebank's own training words; k = 10 (the paper's), trained in; beside it the toolkit's
  UPOS model (identity U over the predicted tags of the UPOS column: the PTB tags in the WSJ
  sample), trained in too;
- the learning curve, by *screens* (the RR baseline's score plus w times the column, w chosen on
  dev; the full model's dev and test columns only, no fold models): over k (:data:`KS`) with all
  of Brown, and over the share of Brown behind the k = 10 eigenwords (:data:`SHARES`).

Scores: UAS and complete match (CM) on test, punctuation stripped as above (the paper's
"accuracy" and "complete match"); relative error reduction of the + log p̂ row over the RR
baseline row against the paper's (4.6% first order, 3.9% second order).

Builds, eigenwords, tree models and rows are kept in ``--workdir`` (default
``/work/data/papers/spectral-reranking``) as they are done: a stopped run resumes.

Run from the repository root::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python -m evaluation spectral_reranking
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import fields, replace
from pathlib import Path

import numpy as np

from .common import EWT, NLTK_DATA, REPO, RESULTS, describe, ewt, log, require_data, write_results

OUT = RESULTS / "spectral_reranking.md"
WSJ_ZIP = NLTK_DATA / "corpora" / "dependency_treebank.zip"
BROWN_ZIP = NLTK_DATA / "corpora" / "brown.zip"
SPLITS = ("train", "dev", "test")
#: the PTB tags of punctuation in MSTParser's evaluation (Dhillon et al. strip these)
PTB_PUNCTUATION = frozenset({",", ".", ":", "``", "''"})
#: the paper's Table 1 (PTB §23): parser / RR baseline / RR baseline + log p̂, accuracy (UAS)
PAPER = {1: (90.8, 91.3, 91.7), 2: (91.8, 92.4, 92.7)}
#: eigenword dimensions tried (k = 10 is the paper's)
KS = (10, 20, 50)
#: shares of the unlabelled text behind the eigenwords in the learning curve
SHARES = (0.25, 0.5, 1.0)
#: the rerankers' epochs and anchor are those of the best dev UAS, as the paper chose them (no margin
#: of standard errors: with the toolkit's default of 2, on the 391 WSJ dev lists every reranker
#: here stays at epoch 0, the parser's own ranking)
MARGIN = 0.0


# -- the data: splits with punctuation stripped ------------------------------------------------------
def stripped(sentence, punct: np.ndarray):
    """``sentence`` without the words flagged in ``punct``; a kept word whose head is stripped hangs on
    the stripped head's nearest kept ancestor (0: the root)."""
    n = len(sentence.forms)
    keep = ~np.asarray(punct, dtype=bool)
    if keep.all() or not keep.any():
        return sentence
    new_index = np.cumsum(keep) * keep  # 1-based position among the kept words, 0 for stripped
    heads = np.asarray(sentence.heads)
    new_heads = []
    for i in np.flatnonzero(keep):
        h = heads[i]
        while h and not keep[h - 1]:
            h = heads[h - 1]
        new_heads.append(int(new_index[h - 1]) if h else 0)
    kept = np.flatnonzero(keep)
    changes = {}
    for f in fields(sentence):
        value = getattr(sentence, f.name)
        if isinstance(value, list) and len(value) == n:
            changes[f.name] = [value[i] for i in kept]
    changes["heads"] = new_heads
    return replace(sentence, **changes)


def _punctuation(sentence, treebank: str) -> np.ndarray:
    if treebank == "wsj":
        return np.array([t in PTB_PUNCTUATION for t in sentence.xpos], dtype=bool)
    return np.array([u == "PUNCT" for u in sentence.upos], dtype=bool)


def prepared(workdir: Path, treebank: str) -> dict:
    """{split: path} of ``treebank``'s splits with punctuation stripped (written once into the workdir)."""
    from seqspectral.corpus import read_conllu, write_conllu

    out = {s: workdir / f"{treebank}-nopunct.{s}.conllu" for s in SPLITS}
    if all(p.is_file() for p in out.values()):
        return out
    if treebank == "wsj":
        raw = workdir / "wsj-splits"
        raw.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(REPO / "corpora" / "make_wsj_splits.py"), str(raw), str(WSJ_ZIP)],
                       check=True, capture_output=True)
        sources = {s: raw / f"wsj.{s}.conllu" for s in SPLITS}
    else:
        sources = {s: ewt(s) for s in SPLITS}
    for s in SPLITS:
        write_conllu(out[s], [words_and_tags(stripped(x, _punctuation(x, treebank))) for x in read_conllu(sources[s])])
    return out


def words_and_tags(sentence):
    """``sentence`` without its LEMMA and FEATS (EWT has them): the paper's parser reads words and POS
    tags, and a build given lemmas and features would also train their taggers and try them in the parser."""
    return replace(sentence, lemmas=["_"] * len(sentence.forms), feats=None)


# -- the builds: taggers, parser, jackknifed 50-best lists ------------------------------------------------
def options(order: int):
    from seqspectral.workflows import BuildOptions

    return BuildOptions(order=order, k=50, folds=3, tags="predicted", tag_folds=10, templates="baseline", field="")


#: the build stages that do not read the parser's order: the taggers and the jackknifed training tags
ORDER_FREE_STAGES = ("tagger-upos", "tagger-xpos", "train-tags")


def seed(directory: Path, source: Path) -> None:
    """Copy the finished :data:`ORDER_FREE_STAGES` of build ``source`` (files and manifest entries, their
    CPU set to 0: spent once, in ``source``) into the new build ``directory``; the build keeps a copied
    stage only when its key is the one it would compute (same treebank, same options), else remakes it."""
    import shutil

    from seqspectral.workflows.manifest import read_manifest, stage_files, write_manifest

    if directory.exists() or not (source / "report.json").is_file():
        return
    stages = {name: entry for name, entry in read_manifest(source)["stages"].items() if name in ORDER_FREE_STAGES}
    directory.mkdir()
    for entry in stages.values():
        for f in stage_files(entry):
            shutil.copyfile(source / f, directory / f)
    write_manifest(directory, {"stages": {n: {**e, "wall_s": 0.0, "cpu_s": 0.0} for n, e in stages.items()}})


def built(workdir: Path, treebank: str, order: int) -> Path:
    """The build directory of ``treebank`` at ``order`` (made once; finished stages are kept; the second
    order's starts from the first order's taggers and tags, :func:`seed`)."""
    from seqspectral.workflows import build

    files = prepared(workdir, treebank)
    directory = workdir / f"{treebank}-order{order}"
    if not (directory / "report.json").is_file():
        log(f"build {directory.name}")
        if order == 2:
            seed(directory, workdir / f"{treebank}-order1")
        build(directory, files["train"], files["dev"], options(order), progress=True)
    return directory


# -- the lists as the parser saw them (predicted tags) -----------------------------------------------------
class TaggedLists:
    """A build's jackknifed training lists, dev and test lists, over the sentences as the parser read
    them (training tags jackknifed, dev and test tagged by the full taggers); ``train``, ``dev``,
    ``test``: the gold sentences (heads for the losses and the scores). The attributes
    :class:`evaluation.reranking_ablation.Hashed` reads."""

    def __init__(self, directory: Path, files: dict):
        from seqspectral.corpus import read_conllu
        from seqspectral.workflows import Pipeline
        from seqspectral.workflows.folds import fold_blocks, load_trees, save_trees
        from seqspectral.workflows.rerank_build import tag

        self.directory, self.built = directory, Pipeline.load(directory)
        o = self.built.options
        self.train, self.dev, self.test = (read_conllu(files[s]) for s in SPLITS)
        self.tagged = {"train": read_conllu(directory / "train.tagged.conllu"),
                       "dev": tag(self.built.taggers, self.dev), "test": tag(self.built.taggers, self.test)}
        self.blocks = fold_blocks(len(self.train), o.folds)
        self.folds = [load_trees(directory / f"nbest-train-fold{i + 1}.npz", self.tagged["train"][a:b])
                      for i, (a, b) in enumerate(self.blocks)]
        self.dev_trees = load_trees(directory / "nbest-dev.npz", self.tagged["dev"])
        test_path = directory.parent / f"{directory.name}-nbest-test.npz"
        if not test_path.is_file():
            save_trees(test_path, self.built.parser.kbest_trees(self.tagged["test"], o.k))
        self.test_trees = load_trees(test_path, self.tagged["test"])

    def tag_accuracy(self, split: str) -> float:
        gold, pred = getattr(self, split), self.tagged[split]
        right = sum(a == b for g, p in zip(gold, pred) for a, b in zip(g.xpos, p.xpos))
        return 100.0 * right / sum(len(g.forms) for g in gold)


# -- eigenwords and the spectral tree models -----------------------------------------------------------------
def brown_words():
    from seqspectral.corpus.nltk_corpora import read_brown

    return read_brown(str(BROWN_ZIP), field="form")


def eigenwords(workdir: Path, treebank: str, train, k: int, share: float = 1.0) -> tuple:
    """(words, vectors): k-dimensional CCA eigenwords (one step, window 2, forms seen twice) of the
    first ``share`` of Brown's sentences (a fixed random order, so the shares are nested) and the
    forms of the treebank's training sentences, kept in the workdir."""
    from seqspectral import serialize
    from seqspectral.corpus import corpus_from_sentences
    from seqspectral.embeddings import CCAEmbeddings

    path = workdir / "eigenwords" / f"{treebank}-k{k}-share{int(100 * share)}.npz"
    if path.is_file():
        cca = serialize.load(path)
    else:
        brown = brown_words()
        order = np.random.default_rng(0).permutation(len(brown))
        brown = brown.subset(np.sort(order[: int(round(share * len(brown)))]))
        log(f"eigenwords {path.stem}: Brown {brown.n_tokens:,} tokens + {treebank} train")
        cca = CCAEmbeddings(k, window=2, min_count=2).fit([brown, corpus_from_sentences(train, field="form")])
        path.parent.mkdir(exist_ok=True)
        serialize.save(path, cca)
    return cca.words_, cca.word_vectors_


def _tree_model(sentences, field: str, k: int | None, representation, like=None, held=None):
    """The spectral tree model over ``field`` (forms seen twice, the rest UNK; tags all); ridge,
    shrinkage and floor chosen by ranking on ``held`` (20% of ``sentences`` when None), or those of
    ``like``."""
    from seqspectral.corpus import Reading, corpus_from_sentences
    from seqspectral.dependency_trees import SpectralTreeModel

    chosen = ({"ridge": like.ridge_, "shrinkage": like.shrinkage_, "floor": like.floor_} if like else
              {"ridge": "auto", "shrinkage": "auto", "floor": "auto"})
    corpus = corpus_from_sentences(sentences, field=field, min_count=2 if field == "form" else 1)
    held = None if like or held is None else corpus_from_sentences(held, field=field, vocabulary=corpus.vocabulary)
    model = SpectralTreeModel(k, representation=representation, selection="ranking", **chosen).fit(corpus, held)
    model.reading_ = Reading(field=field)
    return model


def models(workdir: Path, lists: TaggedLists, name: str, field: str, k: int | None, representation,
           with_folds: bool = True) -> tuple:
    """(full model, fold models) of source ``name``: the full one on all of train (its ridge,
    shrinkage and floor chosen by ranking on the dev trees), each fold's without that fold with the
    full model's choices; kept in the workdir (the same for both orders: both read the same tagged
    train)."""
    from .reranking_ablation import _cached_model

    def cached(tag, fit):  # kept in workdir/ablation-models
        return _cached_model(workdir, tag, fit, field)

    train, treebank = lists.tagged["train"], lists.directory.name.split("-")[0]
    full = cached(f"{treebank}-{name}", lambda: _tree_model(train, field, k, representation, held=lists.tagged["dev"]))
    folds = [cached(f"{treebank}-{name}-fold{i + 1}",
                    lambda a=a, b=b: _tree_model(train[:a] + train[b:], field, k, representation, like=full))
             for i, (a, b) in enumerate(lists.blocks)] if with_folds else None
    return full, folds


def candidate_keys(trees) -> list[bytes]:
    """Per candidate, its list's index and its heads: all its log p̂ depends on, given the model and
    the list's sentence."""
    offsets, owner, heads = trees.tree_offsets, trees.owner, trees.heads
    return [owner[c].tobytes() + heads[offsets[c]:offsets[c + 1]].tobytes() for c in range(len(owner))]


def the_same_tags(workdir: Path, treebank: str) -> bool:
    """Whether both orders' builds read the very same tagged sentences: their taggers and jackknifed
    tags have the same stage keys and files (as :func:`seed` makes them)."""
    from seqspectral.workflows.manifest import read_manifest

    stages = [read_manifest(workdir / f"{treebank}-order{o}")["stages"] for o in (1, 2)]
    return all(n in stages[0] and stages[0][n] == {**stages[1].get(n, {}), "wall_s": stages[0][n]["wall_s"],
                                                   "cpu_s": stages[0][n]["cpu_s"]} for n in ORDER_FREE_STAGES)


def _first_order_part(workdir: Path, lists: TaggedLists, name: str, part: str, sentences):
    """(keys, column) of the first-order lists of ``part`` over the same sentences with the same
    model, when the second order's lists are asked for and they are in the workdir; else None."""
    from seqspectral.workflows.folds import load_trees

    treebank, order = lists.directory.name.split("-order")
    first = workdir / f"{treebank}-order1"
    trees = {"dev": first / "nbest-dev.npz", "test": workdir / f"{treebank}-order1-nbest-test.npz"}.get(
        part, first / f"nbest-{part}.npz")
    column = workdir / "columns" / f"{treebank}-order1-{name}-{part}.npy"
    if order != "2" or not (trees.is_file() and column.is_file()) or not the_same_tags(workdir, treebank):
        return None
    return candidate_keys(load_trees(trees, sentences)), np.load(column)


def column_of(model, name: str, trees, earlier=None) -> np.ndarray:
    """log p̂(words | tree) of every candidate of ``trees``; a candidate that ``earlier`` ((keys,
    values) of lists over the same sentences under the same model) holds is taken from there."""
    from seqspectral.parsing import TreeLists
    from seqspectral.reranking import tree_model_scorers

    scorer = tree_model_scorers(model, name, topology=False)[0]
    if earlier is None:
        return scorer.tree_log_probs(trees)
    known = dict(zip(*earlier))
    keys = candidate_keys(trees)
    found = np.array([k in known for k in keys], dtype=bool)
    out = np.empty(len(keys))
    out[found] = [known[k] for k in np.array(keys, dtype=object)[found]]
    todo = np.flatnonzero(~found)
    if len(todo):
        words = np.repeat(~found, np.diff(trees.tree_offsets))
        rest = TreeLists(trees.sentences, trees.heads[words], trees.scores[todo],
                         np.bincount(trees.owner[todo], minlength=len(trees)))
        out[todo] = scorer.tree_log_probs(rest)
    return out


def log_prob_columns(workdir: Path, lists: TaggedLists, name: str, full, folds=None) -> dict:
    """{split: log p̂(words | tree) of every candidate}: dev and test from the full model, train
    (when ``folds`` are given) fold by fold from the fold models; each part kept in the workdir as
    it is done (a stopped run loses one part at most). The second order's lists share most of
    their trees with the first order's (two thirds of EWT dev's candidate words), scored by the same
    models over the same tagged sentences: those are taken from the first order's columns."""
    from seqspectral.io import atomic_open

    parts = {"dev": (full, lists.dev_trees), "test": (full, lists.test_trees)}
    if folds is not None:
        parts.update({f"train-fold{i + 1}": (m, t) for i, (m, t) in enumerate(zip(folds, lists.folds))})
    done = {}
    for part, (model, trees) in parts.items():
        path = workdir / "columns" / f"{lists.directory.name}-{name}-{part}.npy"
        if not path.is_file():
            path.parent.mkdir(exist_ok=True)
            column = column_of(model, name, trees, _first_order_part(workdir, lists, name, part, trees.sentences))
            with atomic_open(path, "wb", encoding=None) as f:
                np.save(f, column)
        done[part] = np.load(path)
    out = {"dev": done["dev"], "test": done["test"]}
    if folds is not None:
        out["train"] = np.concatenate([done[f"train-fold{i + 1}"] for i in range(len(folds))])
    return out


#: weights of the standardised log p̂ column added to the standardised RR baseline score (the screen)
SCREEN_WEIGHTS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0)
#: the weights whose dev and test UAS the learning-curve table shows (the curve, not a choice)
SHOWN_WEIGHTS = (0.1, 0.3, 1.0)


def screened(workdir: Path, lists: TaggedLists, hashed, name: str, cols: dict) -> dict:
    """The RR baseline reranker's score plus w times the log p̂ column (both standardised within
    lists), w of :data:`SCREEN_WEIGHTS` best on dev: dev and test UAS (the most one weight on the
    column adds after the fact; no fold models, no reranker trained: the cheap learning curve)."""
    from .reranking_ablation import _uas, _within_list_z

    with np.load(workdir / "rows" / f"{lists.directory.name}-baseline-scores.npz") as base:
        uas = {s: [_uas(_within_list_z(base[s], hashed.trees[s].groups)
                        + w * _within_list_z(cols[s], hashed.trees[s].groups), hashed, s) for w in SCREEN_WEIGHTS]
               for s in ("dev", "test")}
    best = int(np.argmax(uas["dev"]))
    return {"w": SCREEN_WEIGHTS[best], "dev": uas["dev"][best], "test": uas["test"][best],
            "dev_base": uas["dev"][0], "test_base": uas["test"][0], "by_w": uas}


def reranked(workdir: Path, lists: TaggedLists, hashed, name: str, cols: dict | None) -> dict:
    """The averaged-perceptron reranker (baseline templates and the parser score; ``cols``: a
    log p̂ column forced in) trained on the jackknifed lists, epochs and anchor chosen on dev:
    dev UAS, test UAS and complete match, its choice; kept in the workdir."""
    from seqspectral.reranking import Reranker

    from .reranking import scores

    path = workdir / "rows" / f"{lists.directory.name}-{name}.json"
    if path.is_file():
        return json.loads(path.read_text())
    log(f"reranker {lists.directory.name} {name}")
    start = time.process_time()
    f = {s: hashed.features[s] if cols is None else hashed.features[s].with_dense([name], [cols[s]]) for s in SPLITS}
    model = Reranker(lists.built.options.reranker_epochs, feature_set="scorers", margin=MARGIN).fit(
        f["train"], hashed.loss["train"], dev=(f["dev"], hashed.loss["dev"], hashed.trees["dev"].lengths))
    chosen = lists.test_trees.chosen(model.choose(f["test"]))
    result = {"name": name, "dev_uas": model.held_out_["reranked_accuracy"],
              "test": scores(lists.test, lists.built.parser.with_trees(lists.tagged["test"], chosen)),
              "chosen": model.selection_.chosen, "cpu_s": time.process_time() - start}
    path.parent.mkdir(exist_ok=True)
    if cols is None:  # the screen's base
        np.savez(path.with_name(f"{lists.directory.name}-{name}-scores.npz"), dev=model.scores(f["dev"]),
                 test=model.scores(f["test"]))
    path.write_text(json.dumps(result, default=float))
    return result


def one_best(lists: TaggedLists) -> dict:
    from .reranking import scores

    return scores(lists.test, lists.built.parser.parse(lists.tagged["test"]))


#: the rows of every build beyond the baseline: (name, field, k, share of Brown behind the eigenwords)
def sources(ks=KS, shares=SHARES) -> list[tuple[str, str, int | None, float]]:
    out = [("upos", "upos", None, 1.0)]
    out += [(f"form-k{k}", "form", k, 1.0) for k in ks]
    out += [(f"form-k{ks[0]}-share{int(100 * share)}", "form", ks[0], share) for share in shares if share < 1.0]
    return out


#: the rows with a reranker trained on the jackknifed columns (the others are screened only)
TRAINED = ("upos", "form-k10")


def build_rows(workdir: Path, treebank: str, order: int, ks=KS, shares=SHARES, only=None) -> dict:
    """Parser 1-best, RR baseline and every + log p̂ row of one build (each kept in the workdir)."""
    from seqspectral.workflows.nbest_features import oracle_uas

    from .reranking_ablation import Hashed

    start = time.process_time()
    files = prepared(workdir, treebank)
    lists = TaggedLists(built(workdir, treebank, order), files)
    hashed = Hashed(lists)
    out = {"one_best": one_best(lists), "tag_accuracy": lists.tag_accuracy("test"),
           "oracle": oracle_uas(lists.test_trees, lists.test), "rows": {}, "screens": {},
           "build_cpu_s": json.loads((lists.directory / "report.json").read_text())["total_cpu_s"]}
    out["rows"]["baseline"] = reranked(workdir, lists, hashed, "baseline", None)
    log(f"{lists.directory.name}: lists, features and RR baseline {time.process_time() - start:.1f} CPU s")
    out["cpu_by_source"] = {}  # CPU s of each source's eigenwords, models, columns, screen and reranker here
    for name, field, k, share in sources(ks, shares):
        if only is not None and name not in only:
            continue
        start = time.process_time()
        representation = "identity" if field == "upos" else eigenwords(workdir, treebank, lists.tagged["train"], k,
                                                                        share)
        trained = name in TRAINED
        full, folds = models(workdir, lists, name, field, k, representation, with_folds=trained)
        cols = log_prob_columns(workdir, lists, name, full, folds)
        out["screens"][name] = screened(workdir, lists, hashed, name, cols)
        if trained:
            out["rows"][name] = reranked(workdir, lists, hashed, name, cols)
        out["cpu_by_source"][name] = time.process_time() - start
        log(f"{lists.directory.name} {name}: {out['cpu_by_source'][name]:.1f} CPU s")
    return out


def _reduction(row: dict, base: dict) -> float:
    return 100 * (row["test"]["uas"] - base["test"]["uas"]) / (100 - base["test"]["uas"])


def tables(results: dict) -> list[str]:
    lines = []
    for treebank, by_order in results.items():
        label = {"wsj": "WSJ sample (NLTK), test 10%", "ewt": "UD English-EWT test"}[treebank]
        lines += ["", f"## Table 1 in the paper's layout: {label}, punctuation stripped, predicted tags", "",
                  "Accuracy (UAS) / complete match (CM) on test. *+ log p̂ (k = 10)*: the paper's model (word forms, "
                  "10-dimensional CCA eigenwords of Brown + the treebank's words), its column forced into the "
                  "reranker; *UPOS*: the toolkit's tag model instead. Relative error reduction of the + log p̂ row "
                  "over RR baseline; the paper's: 4.6% first order, 3.9% second order.", "",
                  "| order | parser | RR baseline | RR baseline + log p̂ (k = 10) | + log p̂ UPOS model | error reduction "
                  "k = 10 / UPOS | paper: parser / RR / + log p̂ (reduction) | tags (test acc.), oracle UAS |",
                  "|---|---|---|---|---|---|---|---|"]
        for order, r in by_order.items():
            rows, base = r["rows"], r["rows"]["baseline"]
            cell = lambda x: f"{x['uas']:.2f} / {x['complete']:.2f}"  # noqa: E731
            plus = {n: (cell(rows[n]["test"]), f"{_reduction(rows[n], base):+.1f}%") if n in rows else ("—", "—")
                    for n in TRAINED}
            paper = PAPER[order]
            lines.append(f"| {'first' if order == 1 else 'second'} | {cell(r['one_best'])} | {cell(base['test'])} | "
                         f"{plus['form-k10'][0]} | {plus['upos'][0]} | {plus['form-k10'][1]} / {plus['upos'][1]} | "
                         f"{paper[0]} / {paper[1]} / {paper[2]} ({100 * (paper[2] - paper[1]) / (100 - paper[1]):.1f}%) | "
                         f"{r['tag_accuracy']:.2f}, {r['oracle']:.2f} |")
        lines += ["", "Builds (taggers, jackknifed tags, parser, jackknifed lists; made once, kept in the workdir): "
                  + ", ".join(f"order {o} {r['build_cpu_s'] / 60:.1f} CPU-min" for o, r in by_order.items()) + "."]
        lines += ["", f"### Every trained reranker ({label})", "",
                  "| order | row | dev UAS | test UAS | test CM | error reduction over RR baseline | anchor, epochs | "
                  "CPU s |", "|---|---|---:|---:|---:|---:|---|---:|"]
        for order, r in by_order.items():
            base = r["rows"]["baseline"]
            for name, row in r["rows"].items():
                red = "—" if name == "baseline" else f"{_reduction(row, base):+.1f}%"
                lines.append(f"| {order} | {ROW_LABELS.get(name, name)} | {row['dev_uas']:.2f} | {row['test']['uas']:.2f} | "
                             f"{row['test']['complete']:.2f} | {red} | {row['chosen']['anchor']:g}, "
                             f"{row['chosen']['epochs']} | {row['cpu_s']:.0f} |")
        lines += ["", f"### The learning curve over k and over the unlabelled text ({label}): screens", "",
                  "The RR baseline reranker's score plus w times the log p̂ column (both standardised within lists), "
                  f"w of {', '.join(f'{w:g}' for w in SCREEN_WEIGHTS)} chosen on dev: what the column adds after the "
                  "fact, with the full model's columns only (no fold models, no reranker trained). Brown share: the "
                  "part of Brown's sentences (a fixed random order, nested) behind the eigenwords, beside the "
                  "treebank's words.", "",
                  "| order | source | k | Brown share | w | dev UAS (RR baseline → + w log p̂) | test UAS | "
                  f"test error reduction | dev / test UAS at w = {', '.join(f'{w:g}' for w in SHOWN_WEIGHTS)} |",
                  "|---|---|---:|---:|---:|---|---|---:|---|"]
        for order, r in by_order.items():
            for name, sc in r.get("screens", {}).items():
                _, field, k, share = next(x for x in sources() if x[0] == name)
                red = 100 * (sc["test"] - sc["test_base"]) / (100 - sc["test_base"])
                lines.append(f"| {order} | {field} | {k or '—'} | {100 * share:.0f}% | {sc['w']:g} | "
                             f"{sc['dev_base']:.2f} → {sc['dev']:.2f} | {sc['test_base']:.2f} → {sc['test']:.2f} | "
                             f"{red:+.1f}% | " + ", ".join(
                                 f"{sc['by_w']['dev'][SCREEN_WEIGHTS.index(w)]:.2f} / "
                                 f"{sc['by_w']['test'][SCREEN_WEIGHTS.index(w)]:.2f}" for w in SHOWN_WEIGHTS) + " |")
    return lines


ROW_LABELS = {"baseline": "RR baseline (baseline templates + parser score)", "upos": "+ log p̂, UPOS model",
              "form-k10": "+ log p̂, word forms, k = 10 eigenwords"}


def protocol_text() -> str:
    """The module docstring's protocol (from "The protocol" to the scores), for the results file."""
    text = __doc__.split("\n\n", 1)[1]
    return text[: text.index("Builds, eigenwords")].strip()


def used_cpu_s() -> float:
    """User + system CPU seconds of this process and its finished children."""
    import resource

    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))


#: every invocation's CPU, one JSON line each, in the workdir: from an empty workdir their sum is the tables' cost
LEDGER = "cpu-ledger.jsonl"


def ledger(workdir: Path) -> list[dict]:
    path = workdir / LEDGER
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def unledgered_work(workdir: Path) -> bool:
    """Whether ``workdir`` holds work no ledger counts (call it before the invocation writes anything):
    a build, a model, a column, a row (the punctuation-stripped splits cost a second and do not count)."""
    return not (workdir / LEDGER).is_file() and workdir.is_dir() and any(
        p.is_dir() or p.suffix == ".json" for p in workdir.iterdir())


def record_cpu(workdir: Path, argv: list[str], finished: bool, unledgered: bool) -> None:
    """Add this invocation (its arguments, CPU so far, whether it finished; ``unledgered``: the workdir
    held work before the ledger began) to the workdir's ledger."""
    from seqspectral.io import atomic_write_text

    entry = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "argv": argv,
             "cpu_s": round(used_cpu_s(), 1), "finished": finished}
    if unledgered:
        entry["earlier_work_not_counted"] = True
    atomic_write_text(workdir / LEDGER, "".join(json.dumps(e) + "\n" for e in [*ledger(workdir), entry]))


def cost_line(workdir: Path) -> str:
    """What the workdir's ledger says the tables cost (from nothing, when the ledger began with the workdir)."""
    entries = ledger(workdir)
    stopped = sum(not e["finished"] for e in entries)
    return (f"Cost: the workdir's ledger (`{LEDGER}`) holds {len(entries)} invocations"
            + (f" ({stopped} stopped before the end, their CPU counted)" if stopped else "")
            + f", {sum(e['cpu_s'] for e in entries) / 60:.1f} CPU-min in all (user + system of each process and its "
            "children) " + ("— the ledger began on a workdir with earlier work, not counted: not the cost from nothing."
                            if any(e.get("earlier_work_not_counted") for e in entries) else
                            "since the workdir was empty: what these tables cost from nothing."))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--workdir", type=Path, default=Path("/work/data/papers/spectral-reranking"),
                    help="builds, eigenwords, models and rows (kept: what is done is not redone)")
    ap.add_argument("--treebanks", nargs="+", choices=("wsj", "ewt"), default=["wsj"],
                    help="treebanks to run (default wsj; ewt: UD English-EWT, a larger build)")
    ap.add_argument("--orders", nargs="+", type=int, choices=(1, 2), default=[1, 2],
                    help="parser orders (default 1 and 2)")
    ap.add_argument("--builds-only", action="store_true", help="make the builds and stop")
    ap.add_argument("--rows", nargs="+", choices=[name for name, *_ in sources()], default=None,
                    help="the + log p̂ rows to run (default: all; k = 10 and UPOS are needed for the main table)")
    ap.add_argument("--output", type=Path, default=None,
                    help="the results file (default: one per treebank, results/spectral_reranking.md for wsj, "
                         "results/spectral_reranking_ewt.md for ewt)")
    args = ap.parse_args(argv)
    require_data(WSJ_ZIP, BROWN_ZIP, *([EWT] if "ewt" in args.treebanks else []))
    unledgered = unledgered_work(args.workdir)
    args.workdir.mkdir(parents=True, exist_ok=True)
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        run(args, argv, unledgered)
    except BaseException:  # stopped (Ctrl-C, a timeout) or failed: its CPU is in the ledger all the same
        record_cpu(args.workdir, argv, False, unledgered)
        raise
    return 0


def run(args, argv: list[str], unledgered: bool) -> None:
    """The builds, rows and results files of ``args``; the invocation recorded in the ledger."""
    for treebank in args.treebanks:
        for order in args.orders:
            built(args.workdir, treebank, order)
    if args.builds_only:
        record_cpu(args.workdir, argv, True, unledgered)
        return
    results = {}
    for treebank in args.treebanks:
        for order in args.orders:
            path = args.workdir / f"{treebank}-order{order}.json"
            start = time.process_time()
            result = build_rows(args.workdir, treebank, order, only=args.rows)
            result["cpu_s"] = time.process_time() - start
            path.write_text(json.dumps(result, default=float))
            results.setdefault(treebank, {})[order] = result
    cpu = used_cpu_s()
    record_cpu(args.workdir, argv, True, unledgered)
    outputs = ({args.output: results} if args.output else
               {OUT.with_name(f"spectral_reranking{'' if t == 'wsj' else '_' + t}.md"): {t: r} for t, r in results.items()})
    for out, part in outputs.items():
        write_results(out, "\n".join([
            "# Spectral dependency parsing (Dhillon et al., EMNLP 2012), Table 1 in the paper's protocol", "",
            describe("evaluation/spectral_reranking.py", argv)
            + f" · this invocation {cpu / 60:.1f} CPU-min, user + system of the process and its children (what "
            "an earlier invocation left in the workdir is not redone).", "", cost_line(args.workdir), "",
            protocol_text(), "", *tables(part)]) + "\n")
        log(f"wrote {out}")


if __name__ == "__main__":
    sys.exit(main())
