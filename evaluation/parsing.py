"""Dependency parsing and n-best reranking on UD English-EWT (issue 14; Table 1 of Dhillon,
Rodu, Collins, Foster & Ungar 2012).

Gold UPOS (and gold tokenization) throughout. The first-order parser is trained on train
(epochs chosen on dev; the jackknife folds reuse that count), parses test 1-best and
50-best; training n-best lists come from 3-fold jackknifing of train (each fold parsed by
a parser trained on the other two). The reranker is trained on the jackknifed lists, its
epochs chosen on dev lists, figures on test: base parser; reranker with the baseline
features (POS triples + parser score); the same + the spectral tree model's
log p̂(words | tree) (UPOS observations, U = identity); + its topology term. Ablations:
word-form observations with U from the SVD of the bigram matrix; list length k. Also:
the k-best oracle UAS for k = 1, 2, 5, 10, 20, 50; the second-order parser (1-best);
CPU times of training and parsing. ``--tags`` sets the parser's features for this run
(default UPOS alone, the paper's set-up).

``--parsers-only`` runs the parsers alone — first and second order, with UPOS features and
with every gold tag column (UPOS, XPOS, FEATS: the parser's default) — with 1-best figures,
k-best oracles of both orders and speeds, into ``evaluation/results/parsing-parsers.md``.

Peers: ``--parsers-only --udpipe-iterations N`` adds UDPipe 1's parser (``ufal.udpipe``,
trained offline on the same split, gold tags); ``--parsers-only --spacy`` adds spaCy's CNN
parser trained from blank (in its own venv, ``_spacy.py``; words only, no tags).

Writes ``evaluation/results/parsing.md``; intermediate n-best lists and models go to
``--workdir`` (reused when present, so a stopped run resumes). Run from the repository
root::

    python -m evaluation parsing --workdir /tmp/parsing-eval
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from ._udpipe import udpipe_sentences
from .common import EWT, RESULTS, describe, log, markdown_table, require_data, write_results

OUT = RESULTS / "parsing.md"

ORACLE_K = (1, 2, 5, 10, 20, 50)
#: feature sets of the parsers: UPOS alone, every gold tag column (the default)
TAG_SETS = {"all": {"use_xpos": True, "use_feats": True}, "upos": {"use_xpos": False, "use_feats": False}}
#: training epochs, the best on dev kept
EPOCHS = {1: 10, 2: 8}
FOLDS = 3
K = 50


class Work:
    """Cached artefacts of the run in ``workdir`` (models, n-best lists, timing JSON)."""

    def __init__(self, workdir: Path):
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.times_path = self.dir / "times.json"
        self.times = json.loads(self.times_path.read_text()) if self.times_path.exists() else {}

    def timed(self, name: str, seconds: float) -> None:
        self.times[name] = seconds
        self.times_path.write_text(json.dumps(self.times, indent=1))

    def model(self, name: str, build):
        from seqspectral import serialize

        path = self.dir / f"{name}.npz"
        if path.exists():
            return serialize.load(path)
        start = time.process_time()
        model = build()
        self.timed(f"{name}:fit_cpu", time.process_time() - start)
        serialize.save(path, model)
        return model

    def trees(self, name: str, sentences, build):
        """k-best trees (:class:`TreeLists`) cached as arrays."""
        from seqspectral.parsing.tree_lists import TreeLists

        path = self.dir / f"{name}.npz"
        if path.exists():
            with np.load(path) as z:
                return TreeLists(sentences, z["heads"], z["scores"], z["n_trees"])
        start = time.process_time()
        trees = build()
        self.timed(f"{name}:cpu", time.process_time() - start)
        np.savez(path, heads=trees.heads, scores=trees.scores, n_trees=trees.n_trees)
        return trees


def add_limit_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--limit", type=int, default=None, help="smoke run: the first N train sentences, N/5 dev/test "
                    "(the results file is not written)")


def read_ewt(limit: int | None = None) -> tuple[list, list, list]:
    """EWT train, dev, test sentences (the first ``limit`` train sentences and limit/5 of the others
    for a smoke run); the run stops naming the missing files when EWT is absent."""
    from seqspectral.corpus import read_conllu

    paths = [EWT / f"en_ewt-ud-{part}.conllu" for part in ("train", "dev", "test")]
    require_data(*paths)
    train, dev, test = (read_conllu(path) for path in paths)
    if limit:
        train, dev, test = train[:limit], dev[:limit // 5], test[:limit // 5]
    return train, dev, test


def oracle_uas(trees, gold, k: int, punct: bool = True) -> float:
    """UAS of the best of the first ``k`` candidates of every list."""
    wrong, scored = trees.wrong_heads(gold, punct)
    rank = np.arange(len(wrong)) - np.repeat(trees.groups[:-1], trees.n_trees)
    wrong = np.where(rank < k, wrong, np.iinfo(np.int64).max)
    best = np.minimum.reduceat(wrong, trees.groups[:-1])
    words = scored[trees.groups[:-1]]
    return 100.0 * float(np.sum(words - best)) / float(np.sum(words))


class Candidates:
    """The k-best trees of one split with their base features and each scorer's column,
    computed once."""

    def __init__(self, trees, gold):
        from seqspectral.reranking import head_losses, parse_features

        self.trees, self.gold = trees, gold
        self.base = parse_features(trees, templates="baseline")
        self.loss = head_losses(trees, gold)
        self.columns: dict[str, np.ndarray] = {}

    def features(self, scorers, k: int = K):
        for s in scorers:
            if s.name not in self.columns:
                self.columns[s.name] = s.tree_log_probs(self.trees)
        full = self.base.with_dense([s.name for s in scorers], [self.columns[s.name] for s in scorers])
        if k == K:
            return full, self.loss
        keep = np.arange(full.n_candidates) - np.repeat(full.groups[:-1], np.diff(full.groups)) < k
        return full.first(k), self.loss[keep]


def rerank_table(parser, train, dev, test, scorer_sets, k=K):
    """Rows (name, scores with punct, without, chosen epochs, weights) of every reranker."""
    from seqspectral.parsing import attachment_scores
    from seqspectral.reranking import Reranker

    rows = []
    for name, scorers in scorer_sets:
        log(f"reranker {name} (k={k})")
        start = time.process_time()
        train_f, train_loss = train.features(scorers, k)
        reranker = Reranker(10).fit(train_f, train_loss, dev=dev.features(scorers, k))
        test_f, _ = test.features(scorers, k)
        best = parser.with_trees(test.gold, test.trees.chosen(reranker.choose(test_f)))
        rows.append({"name": name, "k": k, "epochs": reranker.selection_.chosen["epochs"],
                     "punct": attachment_scores(test.gold, best),
                     "no_punct": attachment_scores(test.gold, best, punct=False),
                     "weights": {n: reranker.dense_weight(n) for n in reranker.dense_names_},
                     "cpu": time.process_time() - start})
    return rows


def jackknifed(parser, train):
    """50-best trees of every training sentence from a parser (``parser``'s settings and
    chosen epochs) trained on the other folds."""
    from seqspectral.parsing import DependencyParser
    from seqspectral.jackknife import fold_of
    from seqspectral.parsing.tree_lists import TreeLists

    folds = fold_of(len(train), FOLDS)  # contiguous blocks, in order
    parts = []
    for f in range(FOLDS):
        log(f"fold {f + 1}/{FOLDS}")
        model = DependencyParser(**{**parser.get_params(deep=False), **parser.selection_.chosen, "labels": False})
        model.fit([s for s, g in zip(train, folds) if g != f])
        parts.append(model.kbest_trees([s for s, g in zip(train, folds) if g == f], K))
    return TreeLists(train, np.concatenate([p.heads for p in parts]), np.concatenate([p.scores for p in parts]),
                     np.concatenate([p.n_trees for p in parts]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/seqspectral-parsing-eval"))
    ap.add_argument("--skip-second-order", action="store_true")
    ap.add_argument("--parsers-only", action="store_true",
                    help="only the parsers of both orders, with UPOS and with all gold tags: 1-best, k-best "
                         "oracles, speed (no jackknife or reranking); writes evaluation/results/parsing-parsers.md")
    ap.add_argument("--udpipe-iterations", type=int, default=0, metavar="N",
                    help="with --parsers-only: also train UDPipe 1's parser for N iterations (its default 10; "
                         "about 3 CPU-minutes each) and add its row")
    ap.add_argument("--spacy", action="store_true",
                    help="with --parsers-only: also train spaCy's CNN parser from blank (its own venv, created "
                         "on first use; spaCy's default schedule, about 20 CPU-minutes) and add its row")
    ap.add_argument("--tags", choices=tuple(TAG_SETS), default="upos",
                    help="the reranking run's parser features: UPOS alone (default, the paper's set-up) or all "
                         "gold tag columns")
    add_limit_option(ap)
    args = ap.parse_args(argv)
    train, dev, test = read_ewt(args.limit)

    from seqspectral.corpus import Reading, corpus_from_sentences
    from seqspectral.parsing import DependencyParser, attachment_scores
    from seqspectral.reranking import tree_model_scorers
    from seqspectral.dependency_trees import train_tree_model

    work = Work(args.workdir)

    if args.parsers_only:
        return parsers_only(work, train, dev, test, args, argv)

    # -- first-order parser: epochs on dev, 1-best and 50-best ------------------------------
    log("first-order parser (epochs chosen on dev)")
    parser = work.model("parser1", lambda: DependencyParser(1, epochs=EPOCHS[1], **TAG_SETS[args.tags])
                          .fit(train, dev=dev))
    sel1 = parser.selection_.to_json()
    start = time.process_time()
    pred = parser.parse(test)
    parse_cpu = time.process_time() - start
    base = {"punct": attachment_scores(test, pred), "no_punct": attachment_scores(test, pred, punct=False)}
    log(f"first-order test UAS {base['punct']['uas']:.2f}")
    test_lists = work.trees("test.50best", test, lambda: parser.kbest_trees(test, K))
    dev_lists = work.trees("dev.50best", dev, lambda: parser.kbest_trees(dev, K))
    start = time.process_time()
    parser.kbest_trees(test, K)
    kbest_ms = 1000 * (time.process_time() - start) / len(test)
    log("jackknifed training lists")
    train_lists = work.trees("train.jackknife.50best", train, lambda: jackknifed(parser, train))
    oracle = {k: (oracle_uas(test_lists, test, k), oracle_uas(test_lists, test, k, punct=False)) for k in ORACLE_K}

    # -- tree models and rerankers -----------------------------------------------------------
    log("spectral tree models")
    # the models record the column they read (reading_, set by train_tree_model; ".read": caches of
    # earlier runs did not record it)
    upos_model = work.model("tree.upos.read", lambda: train_tree_model(
        corpus_from_sentences(train, field="upos"), "spectral", reading=Reading(field="upos"),
        representation="identity"))
    form_model = work.model("tree.form.svd.read", lambda: train_tree_model(
        corpus_from_sentences(train, field="form"), "spectral", n_states=32, reading=Reading(field="form"),
        representation="svd"))
    spectral = tree_model_scorers(upos_model, "tree", topology=False)
    with_topology = tree_model_scorers(upos_model, "tree", topology=True)
    forms = tree_model_scorers(form_model, "tree_forms", topology=False)
    sets = [("baseline features", []), ("+ spectral log p (UPOS, U = I)", spectral),
            ("+ spectral log p + topology term", with_topology), ("+ spectral log p (forms, U = SVD, k = 32)", forms)]
    log("candidate features")
    splits = [Candidates(lists, gold) for lists, gold in ((train_lists, train), (dev_lists, dev), (test_lists, test))]
    rows = rerank_table(parser, *splits, sets)
    rows += rerank_table(parser, *splits, sets[:2], k=10)

    # -- second order ------------------------------------------------------------------------
    second = None
    if not args.skip_second_order:
        log("second-order parser")
        parser2 = work.model("parser2", lambda: DependencyParser(2, epochs=EPOCHS[2], **TAG_SETS[args.tags])
                             .fit(train, dev=dev))
        sel2 = parser2.selection_.to_json()
        start = time.process_time()
        pred2 = parser2.parse(test)
        second = {"epochs": sel2["chosen"]["epochs"], "punct": attachment_scores(test, pred2),
                  "no_punct": attachment_scores(test, pred2, punct=False),
                  "parse_cpu": time.process_time() - start, "fit_cpu": work.times.get("parser2:fit_cpu")}

    text = report(base, rows, oracle, second, sel1, work.times, parse_cpu, kbest_ms, len(test), argv)
    if args.limit:
        print(text)
        return 0
    write_results(OUT, text)
    log(f"wrote {OUT}")
    return 0


def parsers_only(work, train, dev, test, args, argv) -> int:
    """The parsers alone (``--parsers-only``): both orders with UPOS features and with every
    gold tag column (the default), 1-best figures, k-best oracles, speeds."""
    from seqspectral.parsing import DependencyParser, attachment_scores

    lines = ["# Dependency parsers on UD English-EWT (issue 14)", "",
             describe("evaluation/parsing.py", sys.argv[1:] if argv is None else argv), "",
             "Gold tokenization and gold tags; figures on EWT test (2,077 sentences), punctuation included unless "
             "\"no punct\"; training epochs chosen on dev (best dev UAS of "
             f"{EPOCHS[1]} epochs for first order, {EPOCHS[2]} for second order). Tags: \"UPOS\" = features over "
             "UPOS only; \"all\" = UPOS, XPOS and FEATS (the parser's default; UDPipe's \"gold tags\" are these "
             "three columns). 1-best parsing includes the label classifier; k-best times are trees only. CPU seconds "
             "of this process on a shared machine.", ""]
    rows, oracle_rows = [], []
    for tags in TAG_SETS:
        for order in (1, 2):
            name = f"parser{order}.{tags}"
            log(f"{name}: training")
            model = work.model(name, lambda: DependencyParser(order, epochs=EPOCHS[order], **TAG_SETS[tags])
                               .fit(train, dev=dev))
            start = time.process_time()
            pred = model.parse(test)
            cpu = time.process_time() - start
            p, q = attachment_scores(test, pred), attachment_scores(test, pred, punct=False)
            log(f"{name}: test UAS {p['uas']:.2f}; {K}-best")
            start = time.process_time()
            lists = model.kbest_trees(test, K)
            kbest_ms = 1000 * (time.process_time() - start) / len(test)
            rows.append([tags, order, model.selection_.chosen["epochs"], *_scores(p, q),
                         f"{work.times.get(f'{name}:fit_cpu', float('nan')):.0f} s",
                         f"{len(test) / cpu:.0f} sentences/s", f"{kbest_ms:.2f} ms/sentence"])
            oracle_rows.append([tags, order, *(f"{_f(oracle_uas(lists, test, k))} "
                                               f"({_f(oracle_uas(lists, test, k, punct=False))})" for k in ORACLE_K)])
    if args.udpipe_iterations:
        row = udpipe_row(work, test, args.udpipe_iterations)
        if row:
            rows.append(row)
    if args.spacy:
        rows.append(spacy_row(work, train, dev, test, max_steps=200 if args.limit else None))
    lines += markdown_table(["tags", "order", "epochs", "UAS", "LAS", "CM", "UAS no punct", "LAS no punct",
                             "CM no punct", "train CPU", "1-best parsing", "50-best"], rows)
    lines += ["", "## k-best oracle UAS (EWT test; no punct in parentheses)", "",
              *markdown_table(["tags", "order", *(f"k = {k}" for k in ORACLE_K)], oracle_rows)]
    text = "\n".join(lines) + "\n"
    if args.limit:
        print(text)
        return 0
    out = OUT.with_name("parsing-parsers.md")
    write_results(out, text)
    log(f"wrote {out}")
    return 0


def udpipe_row(work, test, iterations: int) -> list | None:
    """UDPipe 1's parser (Parsito) trained on train with dev for early stopping, parsing
    test from its gold tags (``iterations`` training iterations; its default is 10)."""
    from dataclasses import replace

    from seqspectral.parsing import attachment_scores

    try:
        from ufal.udpipe import Model, ProcessingError, Sentences, Trainer
    except ImportError:
        log("ufal.udpipe not installed: no UDPipe row")
        return None
    name = f"udpipe.parser.{iterations}"
    path = work.dir / f"{name}.model"
    if not path.exists():
        train, dev = (Sentences(udpipe_sentences(EWT / f"en_ewt-ud-{part}.conllu")) for part in ("train", "dev"))
        log(f"training UDPipe 1 parser ({iterations} iterations)")
        error = ProcessingError()
        start = time.process_time()
        blob = Trainer.train("morphodita_parsito", train, dev, "none", "none", f"iterations={iterations}", error)
        if error.occurred():
            raise RuntimeError(f"UDPipe training failed: {error.message}")
        work.timed(f"{name}:fit_cpu", time.process_time() - start)
        path.write_bytes(blob if isinstance(blob, bytes) else blob.encode("latin-1"))
    model = Model.load(str(path))
    sentences = udpipe_sentences(EWT / "en_ewt-ud-test.conllu")
    start = time.process_time()
    for u in sentences:
        model.parse(u, Model.DEFAULT)
    cpu = time.process_time() - start
    pred = []
    for gold, u in zip(test, sentences):
        words = list(u.words)[1:]  # words[0] is UDPipe's root
        if len(words) != len(gold):
            raise RuntimeError("UDPipe's words do not align with the toolkit's reading of EWT test")
        pred.append(replace(gold, heads=[w.head for w in words], deprels=[w.deprel for w in words]))
    p, q = attachment_scores(test, pred), attachment_scores(test, pred, punct=False)
    return [f"UDPipe 1 (Parsito, {iterations} iterations; default 10)", "—", "—", *_scores(p, q),
            f"{work.times[f'{name}:fit_cpu']:.0f} s", f"{len(test) / cpu:.0f} sentences/s", "—"]


def spacy_row(work, train, dev, test, max_steps: int | None = None) -> list:
    """spaCy's CNN parser (``spacy init config --pipeline parser --optimize efficiency``) trained
    from blank on train with dev for model selection, parsing test with gold tokenization
    (``max_steps``: spaCy's default schedule when None; smoke runs cut it)."""
    from dataclasses import replace

    from ._spacy import run_worker
    from seqspectral.parsing import attachment_scores

    path = work.dir / "spacy.json"
    if not path.exists():
        log("training spaCy's parser from blank (its own venv)")

        def plain(sentences):
            return [{"words": list(s.forms), "heads": [int(h) for h in s.heads], "deprels": list(s.deprels)}
                    for s in sentences]

        _, out = run_worker(Path(__file__).resolve().parent / "_spacy_parser_worker.py",
                            {"train": plain(train), "dev": plain(dev), "test": plain(test),
                             "workdir": str(work.dir / "spacy"), "seed": 0, "max_steps": max_steps})
        path.write_text(json.dumps(out))
    out = json.loads(path.read_text())
    pred = [replace(g, heads=h, deprels=d) for g, h, d in zip(test, out["heads"], out["deprels"], strict=True)]
    p, q = attachment_scores(test, pred), attachment_scores(test, pred, punct=False)
    return [f"spaCy {out['version']} CNN parser from blank (words only; default schedule, best dev step)", "—", "—",
            *_scores(p, q), f"{out['train_cpu']:.0f} s", f"{len(test) / out['parse_cpu']:.0f} sentences/s", "—"]


def _f(x: float) -> str:
    return f"{x:.2f}"


def _scores(p, q) -> list[str]:
    """UAS, LAS and CM with punctuation (``p``), then without (``q``)."""
    return [_f(p["uas"]), _f(p["las"]), _f(p["complete"]), _f(q["uas"]), _f(q["las"]), _f(q["complete"])]


def report(base, rows, oracle, second, sel1, times, parse_cpu, kbest_ms, n_test, argv) -> str:
    lines = ["# Dependency parsing and reranking on UD English-EWT (issue 14)", "",
             describe("evaluation/parsing.py", sys.argv[1:] if argv is None else argv), "",
             "Gold tokenization and gold UPOS; figures on EWT test (2,077 sentences); training n-best lists by "
             "3-fold jackknifing of train; every choice (parser epochs, reranker epochs) on dev. UAS/LAS/CM in %, "
             "CM = complete match (all heads right). \"punct\": every word scored; \"no punct\": words with gold "
             "UPOS PUNCT left out.", "",
             "## Table 1: parser → reranker → + spectral feature", ""]

    def row(name, k, r, epochs="—"):
        return [name, k, *_scores(r["punct"], r["no_punct"]), epochs]

    table = [row(f"first-order parser (1-best, {sel1['chosen']['epochs']} epochs)", 1, base)]
    table += [row(f"reranker: {r['name']}", r["k"], r, r["epochs"]) for r in rows]
    if second:
        table.append(row(f"second-order parser (1-best, {second['epochs']} epochs)", 1, second))
    lines += markdown_table(["system", "k", "UAS", "LAS", "CM", "UAS no punct", "LAS no punct", "CM no punct",
                             "reranker epochs"], table)
    base_err = 100 - next(r for r in rows if r["name"] == "baseline features" and r["k"] == K)["punct"]["uas"]
    spec = next(r for r in rows if r["name"].startswith("+ spectral log p (UPOS") and r["k"] == K)["punct"]["uas"]
    lines += ["", f"Relative UAS error reduction of the spectral feature over the baseline-feature reranker "
                  f"(k = {K}, punct): {100 * (base_err - (100 - spec)) / base_err:.1f}%.", "",
              "Real-valued feature weights (original units) of each reranker:", ""]
    for r in rows:
        lines.append(f"- {r['name']} (k = {r['k']}): " + ", ".join(f"{n} {w:+.4g}" for n, w in r["weights"].items()))
    lines += ["", "## k-best oracle UAS (first-order parser, EWT test)", "",
              *markdown_table(["k", *ORACLE_K], [["oracle UAS", *(_f(oracle[k][0]) for k in ORACLE_K)],
                                                 ["oracle UAS no punct", *(_f(oracle[k][1]) for k in ORACLE_K)]]), "",
              "## Speed (CPU seconds of this process; the machine is shared)", ""]
    speed = [["first-order parser training (train, 10 epochs with dev UAS after each, + labeler)",
              f"{times.get('parser1:fit_cpu', float('nan')):.1f} s"],
             ["first-order 1-best parsing of test", f"{parse_cpu:.2f} s ({n_test / parse_cpu:.0f} sentences/s)"],
             ["first-order 50-best parsing of test (with labels)", f"{kbest_ms:.2f} ms/sentence"],
             ["3-fold jackknifed 50-best lists of train (3 trainings + parsing)",
              f"{times.get('train.jackknife.50best:cpu', float('nan')):.0f} s"]]
    if second:
        speed += [["second-order parser training", f"{second['fit_cpu'] or float('nan'):.1f} s"],
                  ["second-order 1-best parsing of test",
                   f"{second['parse_cpu']:.2f} s ({n_test / second['parse_cpu']:.0f} sentences/s)"]]
    lines += markdown_table(["what", "CPU"], speed)
    lines += ["", "Parser epochs chosen on dev (UAS by epoch): " +
              ", ".join(f"{r['epochs']}: {_f(r['score'])}" for r in sel1["table"]), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
