"""n-best reranking of the first-order parser on UD English-EWT (issue 14, the reranker rows of
Table 1 of Dhillon, Rodu, Collins, Foster & Ungar 2012), with ablations of the spectral feature.

The parser, its 50-best lists of dev and test and the 3-fold jackknifed 50-best lists of train
are those of ``evaluation/parsing.py`` (its :class:`Work` cache and :func:`jackknifed`; point
``--workdir`` at that script's workdir to reuse them, else they are built here). Gold
tokenization and gold UPOS; every choice on dev (each reranker's epochs: the best dev loss of
``EPOCHS``); figures on test.

Rerankers (structured averaged perceptron, :class:`seqspectral.reranking.Reranker`, trained on
the jackknifed lists): the paper's baseline features (POS triples + the parser's score); + the
spectral tree model's log p̂(words | tree) under several tree models (UPOS observations with
U = I, k = 17, with the default hyper-parameters and with those chosen by ranking on held-out
train, ``selection="ranking"``; word forms with U from the SVD of the head-dependent bigram matrix or from CCA
word embeddings, k = 32; each with and without the model's topology term); then the context
templates (grandparent, sibling, valency, subtree size; ``--templates context`` of ``rerank
train``) with and without the spectral feature. Diagnostics: for every real-valued feature,
how often, over the pairs of candidates of a dev list with different numbers of wrong heads,
it scores the better candidate higher (ties count half); and the reranker's weights.

Writes ``evaluation/results/reranking.md``. Run from the repository root::

    python -m evaluation reranking --workdir /tmp/parsing-eval
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from .common import REPO, RESULTS, describe, log, write_results
from .parsing import K, Work, add_limit_option, jackknifed, read_ewt

OUT = RESULTS / "reranking.md"

EPOCHS = 20
#: candidates per training list for the rerankers whose features include a word-observation
#: tree model (scoring costs k^3 per arc; k = 10 loses nothing measurable on the baseline)
WORD_MODEL_TRAIN_K = 10
#: the UPOS tree model with its hyper-parameters chosen by ranking on held-out train (issue 12)
RANKED = "UPOS, U = I, chosen by ranking (k = 17)"


class Split:
    """The k-best trees of one split, each template set's features and each scorer's column,
    computed once."""

    def __init__(self, trees, gold):
        from seqspectral.reranking import head_losses

        self.trees, self.gold = trees, gold
        self.loss = head_losses(trees, gold)
        self.hashed: dict[str, object] = {}
        self.columns: dict[str, np.ndarray] = {}
        self.cpu: dict[str, float] = {}

    def features(self, templates: str, scorers, k: int = K):
        from seqspectral.reranking import parse_features

        if templates not in self.hashed:
            self.hashed[templates] = parse_features(self.trees, templates=templates)
        lists = self.trees if k == K else _first(self.trees, k)
        for s in scorers:
            if s.name not in self.columns or len(self.columns[s.name]) != len(lists.scores):
                start = time.process_time()
                self.columns[s.name] = s.tree_log_probs(lists)
                self.cpu[s.name] = time.process_time() - start
        base = self.hashed[templates] if k == K else self.hashed[templates].first(k)
        loss = self.loss if k == K else self.loss[_rank(self.trees) < k]
        return base.with_dense([s.name for s in scorers], [self.columns[s.name] for s in scorers]), loss


def _rank(trees) -> np.ndarray:
    return np.arange(len(trees.scores)) - np.repeat(trees.groups[:-1], trees.n_trees)


def _first(trees, k: int):
    """The first ``k`` trees of every list."""
    from seqspectral.parsing.tree_lists import TreeLists

    keep = _rank(trees) < k
    offsets = trees.tree_offsets
    heads = np.concatenate([trees.heads[offsets[c]:offsets[c + 1]] for c in np.flatnonzero(keep)])
    return TreeLists(trees.sentences, heads, trees.scores[keep], np.minimum(trees.n_trees, k))


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


def rerank(name, templates, scorers, train, dev, test, parser, train_k=K):
    """One reranker trained on ``train``, epochs chosen on ``dev``, measured on ``test``."""
    from seqspectral.parsing import attachment_scores
    from seqspectral.reranking import Reranker

    log(f"reranker: {name}")
    train_f, train_loss = train.features(templates, scorers, train_k)
    dev_f, dev_loss = dev.features(templates, scorers)
    test_f, _ = test.features(templates, scorers)
    start = time.process_time()
    reranker = Reranker(EPOCHS, hash_bits=20).fit(train_f, train_loss, dev=(dev_f, dev_loss))
    fit_cpu = time.process_time() - start
    best = parser.with_trees(test.gold, test.trees.chosen(reranker.choose(test_f)))
    return {"name": name, "templates": templates, "train_k": train_k, "epochs": reranker.selection_.chosen["epochs"],
            "punct": attachment_scores(test.gold, best), "no_punct": attachment_scores(test.gold, best, punct=False),
            "weights": {n: reranker.dense_weight(n) for n in reranker.dense_names_},
            "agreement": {n: pairwise_agreement(dev_f, dev_loss, j) for j, n in enumerate(dev_f.dense_names)},
            "fit_cpu": fit_cpu}


def tree_models(work: Work, train, words: bool = True):
    """The spectral tree models whose log-probabilities are features (cached in the workdir), by
    label, each with the prefix of its feature names."""
    from seqspectral.corpus import corpus_from_sentences
    from seqspectral.embeddings import CCAEmbeddings
    from seqspectral.trees import SpectralTreeModel

    forms = corpus_from_sentences(train, field="form")
    upos = corpus_from_sentences(train, field="upos")

    def cca():
        embeddings = CCAEmbeddings(32, min_count=1).fit(forms)
        symbols = list(embeddings.vocabulary_.symbols)
        return SpectralTreeModel(32, representation=(symbols, embeddings.word_vectors_)).fit(forms)

    models = {  # label: (file in the workdir, column read, build)
        "UPOS, U = I (k = 17)": ("tree.upos", "upos", lambda: SpectralTreeModel(representation="identity").fit(upos)),
        RANKED: ("tree.upos.ranking", "upos",
                 lambda: SpectralTreeModel(representation="identity", ridge="auto", shrinkage="auto", floor="auto",
                                           selection="ranking").fit(upos)),
        "forms, U = SVD (k = 32)": ("tree.form.svd", "form",
                                    lambda: SpectralTreeModel(32, representation="svd").fit(forms)),
        "forms, U = CCA embeddings (k = 32)": ("tree.form.cca", "form", cca),
    }
    out = {}
    for label, (name, field, build) in models.items():
        if field == "form" and not words:
            continue
        log(f"tree model {label}")
        model = work.model(name, build)
        model.reading_ = {"field": field}
        out[label] = (model, name.replace(".", "-"))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/seqspectral-parsing-eval"),
                    help="evaluation/parsing.py's workdir (its parser and n-best lists are reused)")
    ap.add_argument("--no-word-models", action="store_true",
                    help="leave out the word-observation tree models (scoring normalises over the vocabulary per "
                         "word: slow on 50-best lists)")
    ap.add_argument("--output", type=Path, default=OUT, help=f"results file (default {OUT.relative_to(REPO)})")
    add_limit_option(ap)
    args = ap.parse_args(argv)
    train, dev, test = read_ewt(args.limit)

    from seqspectral.parsing import DependencyParser, attachment_scores
    from seqspectral.reranking import tree_model_scorers

    work = Work(args.workdir)
    log("first-order parser and n-best lists")
    parser = work.model("parser1", lambda: DependencyParser(1, epochs=10).fit(train, dev=dev))
    base = attachment_scores(test, parser.parse(test))
    base_no_punct = attachment_scores(test, parser.parse(test), punct=False)
    lists = {"test": work.trees("test.50best", test, lambda: parser.kbest_trees(test, K)),
             "dev": work.trees("dev.50best", dev, lambda: parser.kbest_trees(dev, K)),
             "train": work.trees("train.jackknife.50best", train, lambda: jackknifed(parser, train))}
    splits = {name: Split(lists[name], gold) for name, gold in (("train", train), ("dev", dev), ("test", test))}
    models = tree_models(work, train, words=not args.no_word_models)

    def spectral(label, topology=False):
        model, prefix = models[label]
        return tree_model_scorers(model, prefix, topology=topology)

    upos = "UPOS, U = I (k = 17)"
    word_models = [m for m in models if m not in (upos, RANKED)]
    configurations = [("baseline features (paper)", "baseline", [], K),
                      (f"+ spectral log p̂ ({upos})", "baseline", spectral(upos), K),
                      (f"+ spectral log p̂ + topology term ({upos})", "baseline", spectral(upos, True), K),
                      (f"+ spectral log p̂ ({RANKED})", "baseline", spectral(RANKED), K),
                      (f"+ spectral log p̂ + topology term ({RANKED})", "baseline", spectral(RANKED, True), K),
                      (f"baseline features, train lists cut to k = {WORD_MODEL_TRAIN_K}", "baseline", [],
                       WORD_MODEL_TRAIN_K)]
    configurations += [(f"+ spectral log p̂ ({m}), train k = {WORD_MODEL_TRAIN_K}", "baseline", spectral(m),
                        WORD_MODEL_TRAIN_K) for m in word_models]
    configurations += [("context features", "context", [], K),
                       (f"context features + spectral log p̂ + topology term ({upos})", "context",
                        spectral(upos, True), K),
                       (f"context features + spectral log p̂ + topology term ({RANKED})", "context",
                        spectral(RANKED, True), K)]
    rows = []
    for name, templates, scorers, train_k in configurations:
        rows.append(rerank(name, templates, scorers, splits["train"], splits["dev"], splits["test"], parser, train_k))
        log(f"  UAS {rows[-1]['punct']['uas']:.2f}")
    scoring_cpu = {name: cpu for split in splits.values() for name, cpu in split.cpu.items()}
    text = report({"punct": base, "no_punct": base_no_punct}, rows, models, scoring_cpu, argv)
    if args.limit:
        print(text)
        return 0
    write_results(args.output, text)
    log(f"wrote {args.output}")
    return 0


def _f(x: float) -> str:
    return f"{x:.2f}"


def report(base, rows, models, scoring_cpu, argv) -> str:
    lines = ["# n-best reranking of the first-order parser on UD English-EWT (issue 14)", "",
             describe("evaluation/reranking.py", sys.argv[1:] if argv is None else argv), "",
             f"Gold tokenization and gold UPOS; figures on EWT test (2,077 sentences) from {K}-best lists of the "
             "first-order parser; rerankers trained on 3-fold jackknifed lists of train, epochs (of "
             f"{EPOCHS}) chosen on dev lists. CM = complete match. Relative error reduction: of UAS error, "
             "against the row named.", "",
             "| reranker | UAS | LAS | CM | UAS no punct | CM no punct | epochs | vs parser 1-best | "
             "rel. error reduction vs baseline-feature reranker |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    base_uas = base["punct"]["uas"]
    p, q = base["punct"], base["no_punct"]
    lines.append(f"| first-order parser, 1-best | {_f(p['uas'])} | {_f(p['las'])} | {_f(p['complete'])} | "
                 f"{_f(q['uas'])} | {_f(q['complete'])} | — | — | — |")
    reference = {r["train_k"]: r for r in rows if r["templates"] == "baseline" and not r["weights"].keys() - {"parser"}}
    for r in rows:
        p, q = r["punct"], r["no_punct"]
        ref = reference[r["train_k"]]["punct"]["uas"]
        red = 100 * ((100 - ref) - (100 - p["uas"])) / (100 - ref)
        lines.append(f"| {r['name']} | {_f(p['uas'])} | {_f(p['las'])} | {_f(p['complete'])} | {_f(q['uas'])} | "
                     f"{_f(q['complete'])} | {r['epochs']} | {p['uas'] - base_uas:+.2f} | {red:+.1f}% |")
    lines += ["", "Real-valued features: weight (original units) and pairwise agreement on dev lists (the share "
                  "of candidate pairs with different numbers of wrong heads where the feature is higher for the "
                  "better one; 50% is no signal):", ""]
    for r in rows:
        lines.append(f"- {r['name']}: " + "; ".join(
            f"{n} {r['weights'][n]:+.4g} ({100 * r['agreement'][n]:.1f}%)" for n in r["weights"]))
    lines += ["", "Tree models: " + "; ".join(
        f"{label}: {m.representation_info_}" for label, (m, _) in models.items()) + ".",
        "", "Scoring CPU seconds (all splits, every list length used): " +
        ", ".join(f"{n} {s:.1f} s" for n, s in scoring_cpu.items()) + "; reranker training: " +
        ", ".join(f"{r['name']} {r['fit_cpu']:.0f} s" for r in rows) + ".", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
