"""The spectral features' ablation (issue 25, item 6): every tree-model feature variant tried, on
the same lists with the same hashed features, against the same reranker without it.

Every row is a reranker (``rerank build``'s: context templates, 20 epochs, anchor and epochs
chosen on the EWT or WSJ dev lists) on the jackknifed training lists of a finished build
(``evaluation.reranking``'s ``ewt`` / ``wsj`` parts), with the variant's real-valued columns
forced in (``feature_set="scorers"``), so that the row measures the features themselves. The
training lists' columns come from models trained without their fold (as the build's), the dev
and test lists' from models on all of train (the ``leaky`` row: the all-train model on the
training lists too). The table also says what the reranker's own held-out choice
(``feature_set="auto"``) makes of the variant: it keeps the columns only when the best model
with them beats the best without them (the ``none`` row's, the same run) on the dev lists by
2 standard errors of the paired per-list gain (``reranking.held_out_gain.gain_bound``).

A *screen* (:func:`screen`) is the cheap look: one column added after the fact to the ``none``
reranker's score with one weight chosen on dev (no fold models, no reranker trained).

Models, columns, rows and screens are kept in ``WORKDIR/ablation-{models,columns,rows,screen}``
as they are done (a stopped run resumes). Rows (:data:`ROWS`: the column sources of each; what
the reranker gets beside the parser score):

- ``none``: nothing; ``default``: the UPOS spectral model's log p̂(tags | tree) and its topology
  term (the build's default); ``leaky``: the same from the all-train model on the training lists;
- ``direction``: the default plus the per-word conditional log p̂ summed by side of the head;
- ``per-word``: the default's two columns divided by the sentence length; ``rank``: the
  default's columns replaced by each candidate's rank by them in its list (0 = best), robust
  to the spectral estimate's outliers. (A column less its list's best is not a row: a shift
  within a list changes no ranking and no perceptron update, so it is the default exactly.)
- ``xpos``: the default plus an XPOS model (identity U, k = the 50 XPOS tags: more hidden
  states than the 17 UPOS tags); ``em``: the default plus the EM twin (EM tree model over UPOS,
  17 states, 40 iterations) log p(tags | tree); ``em-only``: the EM model alone;
- ``form``: the default plus a word-form model (forms seen at least 20 times, SVD U, k = 50)
  log p̂(words | tree); ``form-cca``: the same with U the CCA eigenwords of the forms of EWT train
  and Brown (:func:`cca_words`);
- with the parsed Brown corpus (NLTK's, tagged and parsed by the ``untagged`` build's taggers
  and parser: :func:`brown_parsed`) added to every model's training trees: ``upos-brown`` (the
  UPOS model, in place of the default's), ``xpos-brown``, ``form-brown`` and ``form-brown-cca``
  (beside the default's); ``form-brown-topology``: the topology term of the ``form-brown`` model
  alone (the one column whose screen gained on dev, on WSJ).

By default the rows of :data:`VARIANTS` and the screens of :data:`SCREENED` are run (what the
tables hold); the others are there to be asked for by name. The tables go to
``results/reranking_ablation.md`` (``--tables-only``: from every row and screen finished in the
workdir, nothing run), a file of its own, so that regenerating ``results/reranking.md`` from
another workdir leaves them alone.

Run from the repository root (the ``ewt`` and ``wsj`` parts of ``evaluation.reranking`` done in
the same workdir)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python -m evaluation reranking_ablation \\
        --workdir DIR --treebanks ewt --variants default em --screen xpos form
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .common import EWT, NLTK_DATA, RESULTS, describe, log, require_data, write_results

OUT = RESULTS / "reranking_ablation.md"
SPLITS = ("train", "dev", "test")
#: the rows of each treebank (a reranker trained with the row's columns), in the order they are run
VARIANTS = {"ewt": ("none", "default", "per-word", "rank", "em", "em-only", "upos-brown", "form-brown-topology"),
            "wsj": ("none", "default", "per-word", "em", "upos-brown", "form-brown-topology")}
#: the sources screened on each treebank (:func:`screen`: cheap, no reranker trained)
SCREENED = {"ewt": ("upos", "per-word", "rank", "xpos", "em", "form", "upos-brown", "xpos-brown", "form-brown",
                    "form-cca"),
            "wsj": ("upos", "per-word", "rank", "upos-brown", "form-brown")}
LABELS = {
    "none": "no tree model (context templates + parser score)",
    "default": "UPOS spectral model: log p̂ + topology (the build's default)",
    "leaky": "the same, all-train model on the training lists (leaky)",
    "direction": "+ per-word log p̂ summed by side (left / right / root)",
    "per-word": "UPOS log p̂ + topology divided by sentence length",
    "rank": "UPOS log p̂ + topology as ranks in the list",
    "xpos": "+ XPOS spectral model (k = 50 XPOS tags > 17 UPOS)",
    "em": "+ EM twin (EM tree model, UPOS, 17 states) log p",
    "em-only": "EM tree model (UPOS, 17 states) log p alone",
    "form": "+ word-form spectral model (forms seen ≥ 20 times, SVD U, k = 50)",
    "upos-brown": "UPOS spectral model on train + parsed Brown: log p̂ + topology (instead of the default's)",
    "xpos-brown": "+ XPOS spectral model on train + parsed Brown",
    "form-brown": "+ word-form spectral model (forms seen ≥ 20 times, SVD U, k = 50), train + parsed Brown",
    "form-brown-topology": "the topology term of the word-form model on train + parsed Brown, alone",
    "form-cca": "+ word-form spectral model (forms seen ≥ 20 times, CCA U of EWT + Brown, k = 50), train",
    "form-brown-cca": "+ word-form spectral model (forms seen ≥ 20 times, CCA U of EWT + Brown, k = 50), train + "
                      "parsed Brown",
}


# -- the real-valued columns ------------------------------------------------------------------------
def _others(lists, i: int) -> list:
    a, b = lists.blocks[i]
    return lists.train[:a] + lists.train[b:]


def _cached_model(workdir: Path, name: str, fit, field: str):
    """A model kept in ``workdir/ablation-models`` (fitted once), reading ``field``."""
    from seqspectral import serialize
    from seqspectral.corpus import Reading

    path = workdir / "ablation-models" / f"{name}.npz"
    model = serialize.load(path) if path.is_file() else None
    if model is None or getattr(model, "reading_", None) != Reading(field=field):  # caches that recorded no reading
        model = fit()
        path.parent.mkdir(exist_ok=True)
        serialize.save(path, model)
    return model


#: word forms seen fewer times in the model's training sentences are UNK (1,051 forms of EWT train
#: remain, 74% of its tokens): scoring normalises over the vocabulary at every word
FORM_MIN_COUNT = 20


class Fitted(NamedTuple):
    """A model source fitted here: the column it reads, ``"spectral"`` or ``"em"``, whether its
    training trees include the parsed Brown corpus (:func:`brown_parsed`), U (``"identity"``,
    ``"svd"`` or ``"cca"``: CCA eigenwords of EWT train + Brown forms, :func:`cca_words`), and the
    number of hidden states (None: one per tag)."""

    field: str
    kind: str = "spectral"
    brown: bool = False
    representation: str = "identity"
    n_states: int | None = None


#: the model sources fitted here (the build's own UPOS model is ``upos``)
FITTED = {"xpos": Fitted("xpos"), "em": Fitted("upos", "em"), "form": Fitted("form", representation="svd", n_states=50),
          "upos-brown": Fitted("upos", brown=True), "xpos-brown": Fitted("xpos", brown=True),
          "form-brown": Fitted("form", brown=True, representation="svd", n_states=50),
          "form-cca": Fitted("form", representation="cca", n_states=50),
          "form-brown-cca": Fitted("form", brown=True, representation="cca", n_states=50)}


def _spectral(spec: Fitted, sentences, workdir: Path, dev=None, like=None):
    """A spectral tree model of ``spec`` on ``sentences`` (forms seen :data:`FORM_MIN_COUNT` times;
    tags all); ridge, shrinkage and floor chosen by ranking (on ``dev`` when given, else on 20% of
    ``sentences``), or those of the model ``like``."""
    from seqspectral.corpus import Reading, corpus_from_sentences
    from seqspectral.dependency_trees import train_tree_model

    chosen = ({"ridge": like.ridge_, "shrinkage": like.shrinkage_, "floor": like.floor_} if like else
              {"ridge": "auto", "shrinkage": "auto", "floor": "auto"})
    corpus = corpus_from_sentences(sentences, field=spec.field, min_count=1 if spec.field != "form" else
                                   FORM_MIN_COUNT)
    representation = cca_words(workdir) if spec.representation == "cca" else spec.representation
    held = None if like or dev is None else corpus_from_sentences(dev, field=spec.field, vocabulary=corpus.vocabulary)
    return train_tree_model(corpus, "spectral", held, spec.n_states, Reading(field=spec.field),
                            representation=representation, selection="ranking", **chosen)


def cca_words(workdir: Path) -> tuple:
    """(words, vectors): CCA eigenwords (k = 50, window 2, forms seen twice) of the forms of EWT train
    and Brown, kept in the workdir."""
    from seqspectral import serialize
    from seqspectral.corpus import corpus_from_sentences
    from seqspectral.embeddings import CCAEmbeddings

    path = workdir / "ablation-models" / "cca-ewt-brown.npz"
    if path.is_file():
        cca = serialize.load(path)
    else:
        cca = CCAEmbeddings(50).fit(corpus_from_sentences(read_treebank_ewt("train") + brown_parsed(workdir),
                                                          field="form", min_count=1))
        path.parent.mkdir(exist_ok=True)
        serialize.save(path, cca)
    return cca.words_, cca.word_vectors_


def read_treebank_ewt(split: str) -> list:
    from seqspectral.corpus import read_conllu

    from .common import ewt

    return read_conllu(ewt(split))


def _em(sentences, every):
    """The EM tree model over UPOS, in the vocabulary of ``every`` training sentence (so that a
    fold's model gives every tag of train its smoothed mass, not -inf)."""
    from seqspectral.corpus import Reading, corpus_from_sentences
    from seqspectral.dependency_trees import train_tree_model

    vocabulary = corpus_from_sentences(every, field="upos").vocabulary
    return train_tree_model(corpus_from_sentences(sentences, field="upos", vocabulary=vocabulary), "em", n_states=17,
                            reading=Reading(field="upos"), max_iter=40)


def _models(source: str, lists, workdir: Path, part: str):
    """The full model (``part="full"``) or the per-fold models (``"folds"``) of a model source.
    UPOS: the build's own; others fitted here, the fold models with the full model's ridge,
    shrinkage and floor (one choice by ranking: on 20% of train, or on the dev trees for the
    models with Brown, whose held-out part would be mostly Brown's)."""
    from seqspectral import serialize
    from seqspectral.corpus import Reading

    if source == "upos":
        if part == "full":
            return lists.built.tree_model
        return [serialize.load(lists.directory / f"tree-fold{i + 1}.npz") for i in range(len(lists.folds))]
    spec = FITTED[source]
    extra = brown_parsed(workdir) if spec.brown else []
    if lists.name == "wsj":  # the WSJ sample has the PTB tag in both tag columns: so has Brown for it
        extra = [replace(s, upos=s.xpos) for s in extra]
    dev = lists.dev if spec.brown else None
    if spec.kind == "em":
        fit = lambda s, like=None: _em(s, lists.train)  # noqa: E731
    else:
        fit = lambda s, like=None: _spectral(spec, s, workdir, dev, like)  # noqa: E731
    full = _cached_model(workdir, f"{lists.name}-{source}", lambda: fit(lists.train + extra), spec.field)
    if part == "full":
        return full
    like = full if spec.kind == "spectral" else None
    return [_cached_model(workdir, f"{lists.name}-{source}-fold{i + 1}",
                          lambda i=i: fit(_others(lists, i) + extra, like), spec.field)
            for i in range(len(lists.folds))]


def _scorers(source: str, model, prefix: str) -> list:
    from seqspectral.reranking import CorpusScorer, tree_model_scorers
    from seqspectral.reranking.spectral_features import DirectionScorers

    if source == "em":
        return [CorpusScorer(model, "em:log_prob")]
    if source == "direction":
        return DirectionScorers(model, prefix).scorers()
    if source.endswith("-topology"):
        return tree_model_scorers(model, prefix)[1:]
    return tree_model_scorers(model, prefix)


#: the sources of columns: a model's (its scorers' names start with the prefix) or another
#: source's columns transformed within each list
MODEL_SOURCES = {"upos": "tree", "direction": "tree", "xpos": "xpos", "em": "em", "form": "form",
                 "form-brown": "formbrown", "upos-brown": "treebrown", "xpos-brown": "xposbrown",
                 "form-cca": "formcca", "form-brown-cca": "formbrowncca", "form-brown-topology": "formbrown"}
#: the sources that read another source's model
MODEL_OF = {"direction": "upos", "form-brown-topology": "form-brown"}
SOURCES = (*MODEL_SOURCES, "leaky", "per-word", "rank")
#: the columns of every row
ROWS = {"none": (), "default": ("upos",), "leaky": ("leaky",), "direction": ("upos", "direction"),
        "per-word": ("per-word",), "rank": ("rank",), "xpos": ("upos", "xpos"), "em": ("upos", "em"),
        "em-only": ("em",), "form": ("upos", "form"), "upos-brown": ("upos-brown",),
        "xpos-brown": ("upos", "xpos-brown"), "form-brown": ("upos", "form-brown"), "form-cca": ("upos", "form-cca"),
        "form-brown-cca": ("upos", "form-brown-cca"), "form-brown-topology": ("form-brown-topology",)}


def _trees(lists) -> dict:
    from seqspectral.workflows.nbest_features import concatenated

    return {"train": concatenated(lists.folds), "dev": lists.dev_trees, "test": lists.test_trees}


def columns(source: str, lists, workdir: Path, splits=SPLITS) -> dict:
    """{split: {name: column}} of ``source`` for ``splits`` (dev and test are scored by the full
    model, train by the fold models; each part kept in ``workdir/ablation-columns``)."""
    out = {}
    for part, part_splits in (("full", ("dev", "test")), ("folds", ("train",))):
        if not set(splits) & set(part_splits):
            continue
        cache = workdir / "ablation-columns" / f"{lists.name}-{source}-{part}.npz"
        if not cache.is_file():
            cache.parent.mkdir(exist_ok=True)
            np.savez(cache, **{f"{split}/{name}": c for split, cols in _computed(source, lists, workdir, part).items()
                               for name, c in cols.items()})
        with np.load(cache) as saved:
            for k in saved.files:
                split, name = k.split("/", 1)
                out.setdefault(split, {})[name] = saved[k]
    return {split: out.get(split, {}) for split in splits}


def _computed(source: str, lists, workdir: Path, part: str) -> dict:
    splits = ("dev", "test") if part == "full" else ("train",)
    trees = _trees(lists)
    if source in ("per-word", "rank"):
        lengths = {s: np.repeat(trees[s].lengths, trees[s].n_trees) for s in splits}
        transform = ((lambda c, s: c / lengths[s]) if source == "per-word" else
                     (lambda c, s: _rank_in_list(c, trees[s].groups)))
        return {s: {name: transform(c, s) for name, c in cols.items()}
                for s, cols in columns("upos", lists, workdir, splits).items()}
    if source == "leaky":  # the all-train model's columns on every split
        full = _scorers("upos", lists.built.tree_model, "tree")
        return {s: {x.name: x.tree_log_probs(trees[s]) for x in full} for s in splits}
    model_source = MODEL_OF.get(source, source)
    if part == "full":
        full = _scorers(source, _models(model_source, lists, workdir, "full"), MODEL_SOURCES[source])
        return {s: {x.name: x.tree_log_probs(trees[s]) for x in full} for s in splits}
    folds = [_scorers(source, m, MODEL_SOURCES[source]) for m in _models(model_source, lists, workdir, "folds")]
    return {"train": {x.name: np.concatenate([fs[j].tree_log_probs(t) for fs, t in zip(folds, lists.folds)])
                      for j, x in enumerate(folds[0])}}


def _rank_in_list(column, groups) -> np.ndarray:
    """0 for the best of its list, −1 for the next, … (ties share the better rank)."""
    out = np.empty(len(column))
    for a, b in zip(groups[:-1], groups[1:]):
        x = column[a:b]
        out[a:b] = -np.searchsorted(np.sort(-x), -x, side="left")
    return out


def brown_parsed(workdir: Path) -> list:
    """NLTK's Brown corpus (sentences of 1 to 60 tokens) tagged and parsed (1-best) by the ``untagged``
    build of ``evaluation.reranking`` (``workdir/untagged``: UPOS and XPOS taggers trained on EWT train,
    a first-order parser trained on EWT train with jackknifed predicted UPOS + XPOS and no FEATS or
    LEMMA, which Brown does not have), kept as CoNLL-U in the workdir. The parser saw every fold, so a
    fold's model trained on these parses has seen that fold through them (a mild leak, unlike the
    treebank part)."""
    import re
    import zipfile

    from seqspectral.corpus import Sentence, read_conllu, write_conllu
    from seqspectral.workflows import Pipeline
    from seqspectral.workflows.rerank_build import tag

    path = workdir / "brown-parsed.conllu"
    if not path.is_file():
        built = Pipeline.load(workdir / "untagged")
        sentences = []
        with zipfile.ZipFile(NLTK_DATA / "corpora" / "brown.zip") as z:
            for name in sorted(n for n in z.namelist() if re.fullmatch(r"brown/c[a-r]\d\d", n)):
                for line in z.read(name).decode("ascii", "replace").splitlines():
                    words = [w.rsplit("/", 1)[0] for w in line.split()]
                    if 0 < len(words) <= 60:
                        n = len(words)
                        sentences.append(Sentence(words, ["_"] * n, ["_"] * n, ["_"] * n, [0] * n, ["_"] * n))
        log(f"brown: tagging and parsing {len(sentences):,} sentences")
        tagged = tag(built.taggers, sentences)
        log("brown: tagged")
        write_conllu(path, built.parser.parse(tagged))
    return read_conllu(path)


# -- the screen: one column's worth on top of the reranker without a tree model ------------------------
#: weights of a standardised column added to the standardised score of the ``none`` reranker
SCREEN_WEIGHTS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5)


def _within_list_z(x, groups) -> np.ndarray:
    sizes = np.diff(groups)
    owner = np.repeat(np.arange(len(sizes)), sizes)
    centred = x - (np.bincount(owner, x, minlength=len(sizes)) / np.maximum(sizes, 1))[owner]
    return centred / max(float(np.sqrt(np.mean(centred ** 2))), 1e-12)


def screen(source: str, lists, hashed, workdir: Path) -> dict:
    """For every column of ``source`` on dev and test: the UAS of the ``none`` reranker's score plus
    w times the column (both standardised within lists) for each w of :data:`SCREEN_WEIGHTS`, and
    the w best on dev — the most one weight on the column adds after the fact (no training lists,
    no fold models: a cheap look at whether a column carries anything the reranker lacks)."""
    path = workdir / "ablation-screen" / f"{lists.name}-{source}.json"
    if path.is_file():
        return json.loads(path.read_text())
    with np.load(workdir / "ablation-rows" / f"{lists.name}-none-scores.npz") as none:
        base = {s: none[s] for s in ("dev", "test")}
    cols = columns(source, lists, workdir, ("dev", "test"))
    out = {}
    for name in cols["dev"]:
        uas = {}
        for s in ("dev", "test"):
            groups = hashed.trees[s].groups
            z0, z1 = _within_list_z(base[s], groups), _within_list_z(cols[s][name], groups)
            uas[s] = [_uas(z0 + w * z1, hashed, s) for w in SCREEN_WEIGHTS]
        best = int(np.argmax(uas["dev"]))
        out[name] = {"w": SCREEN_WEIGHTS[best], "dev": uas["dev"], "test": uas["test"]}
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out))
    return out


def _uas(score, hashed, split: str) -> float:
    from seqspectral.reranking import best_in_groups

    trees = hashed.trees[split]
    picked = trees.groups[:-1] + best_in_groups(np.ascontiguousarray(score), trees.groups)
    return float(100 * (1 - hashed.loss[split][picked].sum() / trees.lengths.sum()))


# -- a row ---------------------------------------------------------------------------------------------
class Hashed:
    """The hashed features (build's templates) and losses of a build's train, dev and test lists,
    made once per process."""

    def __init__(self, lists):
        from seqspectral.reranking import head_losses
        from seqspectral.workflows.nbest_features import concatenated

        self.templates = lists.built.options.templates
        self.trees = {"train": concatenated(lists.folds), "dev": lists.dev_trees, "test": lists.test_trees}
        gold = {"train": lists.train, "dev": lists.dev, "test": lists.test}
        self.loss = {s: head_losses(t, gold[s]) for s, t in self.trees.items()}

    @cached_property
    def features(self) -> dict:
        from seqspectral.reranking import parse_features

        return {s: parse_features(t, (), self.templates) for s, t in self.trees.items()}


def row(key: str, lists, hashed: Hashed, workdir: Path) -> dict:
    """The reranker with variant ``key``'s columns forced in: dev and test figures, its choice, and its
    per-list dev losses (for the feature-set decision against ``none``)."""
    from seqspectral.reranking import Reranker

    from .reranking import scores

    path = workdir / "ablation-rows" / f"{lists.name}-{key}.json"
    if path.is_file():
        return json.loads(path.read_text())
    log(f"ablation: {lists.name} {key}")
    start = time.process_time()
    cols = {s: {} for s in SPLITS}
    for source in ROWS[key]:
        for s, c in columns(source, lists, workdir).items():
            cols[s].update(c)
    f = {s: hashed.features[s].with_dense(list(cols[s]), list(cols[s].values())) for s in SPLITS}
    reranker = Reranker(lists.built.options.reranker_epochs, feature_set="scorers").fit(
        f["train"], hashed.loss["train"], dev=(f["dev"], hashed.loss["dev"], hashed.trees["dev"].lengths))
    dev_choice = reranker.choose(f["dev"])
    chosen = lists.test_trees.chosen(reranker.choose(f["test"]))
    result = {"key": key, "name": LABELS[key], "dev_uas": reranker.held_out_["reranked_accuracy"],
              "test": scores(lists.test, lists.built.parser.with_trees(lists.test, chosen)),
              "chosen": reranker.selection_.chosen, "cpu_s": time.process_time() - start,
              "dev_list_loss": hashed.loss["dev"][f["dev"].groups[:-1] + dev_choice].tolist(),
              "agreement": {n: pairwise_agreement(f["dev"], hashed.loss["dev"], j)
                            for j, n in enumerate(f["dev"].dense_names)}}
    path.parent.mkdir(exist_ok=True)
    if key == "none":  # the screen's base
        np.savez(path.with_name(f"{lists.name}-none-scores.npz"), dev=reranker.scores(f["dev"]),
                 test=reranker.scores(f["test"]))
    path.write_text(json.dumps(result, default=float))
    return result


def lists_of(name: str, workdir: Path):
    from seqspectral.corpus import Reading

    from .reranking import Lists, wsj_files

    if name == "ewt":
        lists = Lists(workdir / "ewt")
    else:
        lists = Lists(workdir / "wsj", wsj_files(workdir, False), Reading(format="conllx"))
    lists.name = name
    return lists


def part_ablation(workdir: Path, variants=None, screened=None) -> dict:
    """The screen of every source of :data:`SCREENED`, then every row of :data:`VARIANTS`, of every
    treebank (``variants``, ``screened``: {treebank: keys} to run fewer)."""
    variants, screened = variants or VARIANTS, screened or SCREENED
    out = {}
    for name in dict.fromkeys([*variants, *screened]):
        lists = lists_of(name, workdir)
        hashed = Hashed(lists)
        rows = [row(key, lists, hashed, workdir) for key in dict.fromkeys(("none", *variants.get(name, ())))]
        out[name] = {"rows": rows, "screen": {s: screen(s, lists, hashed, workdir) for s in screened.get(name, ())}}
    return out


def pairwise_agreement(features, loss, column: int) -> float:
    """Share of within-list candidate pairs with different losses where the column is higher
    for the lower-loss candidate (ties half)."""
    agree = total = 0.0
    for a, b in zip(features.groups[:-1], features.groups[1:]):
        l, x = loss[a:b], features.dense[a:b, column]
        better = l[:, None] < l[None, :]
        dx = x[:, None] - x[None, :]
        agree += np.sum(dx[better] > 0) + 0.5 * np.sum(dx[better] == 0)
        total += better.sum()
    return float(agree / max(total, 1))


# -- the tables ----------------------------------------------------------------------------------------
def kept_by_choice(r: dict, none: dict, margin: float = 2.0) -> tuple[bool, float]:
    """The feature-set choice of ``Reranker(feature_set="auto")`` on this variant: its best model
    against ``none``'s on the dev lists (the same run), kept if the paired gain bound is above 0."""
    from seqspectral.reranking.held_out_gain import gain_bound

    bound = gain_bound(np.asarray(none["dev_list_loss"]) - np.asarray(r["dev_list_loss"]), margin)
    return bound > 0, bound


def tables(ablation: dict, one_best: dict | None = None) -> list[str]:
    """The markdown tables of ``ablation`` ({treebank: {"rows": [...]}}); ``one_best``: {treebank: test
    scores of the parser} where the ablation has none."""
    lines = []
    for name, label, goal in (("ewt", "EWT test", 2.0), ("wsj", "WSJ sample, test 10%", 0.0)):
        if name not in ablation:
            continue
        ab = ablation[name]
        none = next(r for r in ab["rows"] if r["key"] == "none")
        base = none["test"]["uas"]
        first = (one_best or {}).get(name, {"uas": float("nan")})["uas"]
        lines += ["", f"## Spectral features: ablation ({label}; same lists, same hashed features, choices on dev)", "",
                  f"1-best: {first:.2f} UAS. Each row forces its columns in (`feature_set=\"scorers\"`); "
                  f"relative error reduction of test UAS against the reranker without a tree model; target "
                  f"{'≥ +2.0%' if goal else 'no harm (≥ 0)'}. *Held-out choice*: what `feature_set=\"auto\"` "
                  f"(the default) makes of the columns on the dev lists: kept only if the gain over the no-tree "
                  f"reranker is above 2 standard errors (the bound, in heads).", "",
                  "| reranker | dev UAS | test UAS | LAS | CM | rel. UAS error reduction | missed by | held-out "
                  "choice (bound) | anchor, epochs | CPU s | dev pairwise agreement |",
                  "|---|---:|---:|---:|---:|---:|---:|---|---|---:|---|"]
        for r in ab["rows"]:
            t = r["test"]
            red = 100 * (t["uas"] - base) / (100 - base)
            missed = "—" if r is none else ("met" if red >= goal else f"{goal - red:.1f} points")
            kept, bound = kept_by_choice(r, none)
            choice = "—" if r is none else f"{'kept' if kept else 'dropped'} ({bound:+.0f})"
            agree = "; ".join(f"{n} {100 * v:.1f}%" for n, v in r["agreement"].items())
            lines.append(f"| {LABELS[r['key']]} | {r['dev_uas']:.2f} | {t['uas']:.2f} | {t['las']:.2f} | {t['complete']:.2f} "
                         f"| {red:+.1f}% | {missed} | {choice} | {r['chosen']['anchor']:g}, {r['chosen']['epochs']} | "
                         f"{r['cpu_s']:.0f} | {agree} |")
        if ab.get("screen"):
            lines += ["", f"Screen ({label}): the no-tree reranker's score plus w times one column (both standardised "
                      f"within lists), w in {', '.join(f'{w:g}' for w in SCREEN_WEIGHTS)} chosen on dev — the most "
                      "one weight on the column adds after the fact, without training a reranker.", "",
                      "| source | column | w chosen on dev | dev UAS (w = 0 → chosen) | test UAS (w = 0 → chosen) "
                      "| "
                      "test rel. error reduction |", "|---|---|---:|---:|---:|---:|"]
            for source, cols in ab["screen"].items():
                for column, s in cols.items():
                    j = SCREEN_WEIGHTS.index(s["w"])
                    red = 100 * (s["test"][j] - s["test"][0]) / (100 - s["test"][0])
                    lines.append(f"| {source} | {column} | {s['w']:g} | {s['dev'][0]:.2f} → {s['dev'][j]:.2f} | "
                                 f"{s['test'][0]:.2f} → {s['test'][j]:.2f} | {red:+.1f}% |")
    return lines


def finished(workdir: Path) -> dict:
    """The rows and screens finished so far in ``workdir`` (a treebank only with its ``none`` row)."""
    out = {}
    workdir = Path(workdir or "")
    for path in sorted((workdir / "ablation-rows").glob("*.json")):
        r = json.loads(path.read_text())
        if "key" in r:  # rows of the earlier ablation (test figures only) are not mixed in
            out.setdefault(path.stem.split("-")[0], {"rows": [], "screen": {}})["rows"].append(r)
    for path in sorted((workdir / "ablation-screen").glob("*.json")):
        name, source = path.stem.split("-", 1)
        if name in out:
            out[name]["screen"][source] = json.loads(path.read_text())
    for name, ab in out.items():
        order = list(ROWS)
        ab["rows"].sort(key=lambda r: order.index(r["key"]))
        ab["screen"] = {s: ab["screen"][s] for s in SOURCES if s in ab["screen"]}
    return {k: ab for k, ab in out.items() if ab["rows"][0]["key"] == "none"}


def report(ablation: dict, one_best: dict, argv) -> str:
    """The results file: how it was made, then :func:`tables`."""
    return "\n".join(["# Spectral features for the reranker (issue 25, item 6): the ablation", "",
                      describe("evaluation/reranking_ablation.py", argv), "",
                      "Rows and screens are cached in the workdir as each is done (runs of a few rows at a time add "
                      "up; `--tables-only` rewrites this file from every row and screen finished there), on the lists "
                      "of the `ewt` and `wsj` builds of `python -m evaluation reranking` in the same workdir.",
                      *tables(ablation, one_best)]) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/seqspectral-rerank-eval"),
                    help="the workdir of `python -m evaluation reranking` with its ewt and wsj builds")
    ap.add_argument("--treebanks", nargs="+", choices=tuple(VARIANTS), default=list(VARIANTS))
    ap.add_argument("--variants", nargs="*", default=None, choices=tuple(ROWS),
                    help="rows to run (default: every row of VARIANTS of the treebank)")
    ap.add_argument("--screen", nargs="*", default=None, choices=tuple(SOURCES),
                    help="sources to screen (default: SCREENED's)")
    ap.add_argument("--tables-only", action="store_true", help="write the tables from the rows finished so far")
    ap.add_argument("--output", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if not args.tables_only:
        require_data(EWT)
        pick = (lambda given, default: {name: list(default.get(name, ()) if given is None else given)
                                        for name in args.treebanks})
        part_ablation(args.workdir, pick(args.variants, VARIANTS), pick(args.screen, SCREENED))
    one_best = {name: json.loads(path.read_text())["one_best"] for name in VARIANTS
                if (path := args.workdir / f"{name}.json").is_file()}
    write_results(args.output, report(finished(args.workdir), one_best, sys.argv[1:] if argv is None else argv))
    log(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
