"""The spectral dependency-tree model (issue 12) in four tables, one run.

1. Consistency: trees from a branching process or the topologies of EWT train (in order,
   repeated for 10^6 nodes), hidden states and words from a planted model (k = 4 states,
   50 words; ``planted_model(4, 50, random_state=1)``); the spectral model (the consistent
   estimator: ``shrinkage=0``) trained on 10^4, 10^5, 10^6 nodes; the median relative
   error |p̂/p − 1| of p(words | tree) over held-out trees (exact p by belief
   propagation), and the share of floored conditionals.
2. Discrimination on EWT dev (trained on EWT train): for every dev sentence of at least 3
   words, a copy with one word (seeded choice) re-attached to another head that keeps it a
   tree; the share of pairs where the gold tree scores strictly higher. Rows: UPOS with the
   identity U, word forms with the SVD-bigram U and with CCA U (``seqspectral embed`` on
   EWT train, reduced to the same k), UPOS and word forms (SVD U) with every
   hyper-parameter chosen by ranking on held-out train pairs (``selection="ranking"``; never
   on dev), EM on UPOS (the likelihood twin), the topology term alone and added, and a
   reference without hidden states (each word given its head's word and side).
3. Spectral against EM on EWT UPOS, same k = 17: per-word log-likelihood of the dev trees
   and fitting time (reading excluded, Numba compiled beforehand); the spectral model with
   its defaults, with every hyper-parameter chosen on a held-out 20% of train ("auto",
   selection included in the time; by likelihood, and by ranking), and as the plain
   consistent estimator (shrinkage 0);
   EM from a random start to convergence (per-word gain below 1e-4 nats, at most 500
   iterations) and from the spectral start.
4. Speed: ``seqspectral tree train`` on EWT train as a command (wall time, start-up
   included), and scoring a 50-best file of EWT dev (gold + 49 re-attached copies per
   sentence, ≈100,000 trees) with ``seqspectral tree score`` (wall) and in the library
   (CPU seconds of the Numba pass).

Usage: python -m evaluation tree_model [--quick]   (writes evaluation/results/tree_model.md)
       python -m evaluation tree_model --speed   (table 4 alone, with the ranking selection's
       command of issue 43: evaluation/results/tree_model_speed.md)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np


from .common import EWT, RESULTS, SEQSPECTRAL, best_of, describe, log, markdown_table, require_data, run_timed, write_results

from seqspectral.corpus import read_conllu, read_corpus, write_nbest
from seqspectral.corpus.nbest import NBestList
from seqspectral.dependency_trees import (EMTreeModel, SpectralTreeModel, branching_topologies,
                               planted_model, tree_layout)
from seqspectral.dependency_trees.reattach import reattached_copies

TRAIN, DEV = EWT / "en_ewt-ud-train.conllu", EWT / "en_ewt-ud-dev.conllu"
OUT = RESULTS / "tree_model.md"



# -- 1. consistency ------------------------------------------------------------------------
def consistency(sizes, treebank) -> list[str]:
    """Rows for topologies from the branching process and from EWT train (its trees in
    order, repeated as needed); the same held-out trees (branching process) for both."""
    model = planted_model(4, 50, random_state=1)
    test = model.sample(branching_topologies(10_000, random_state=99), random_state=98)
    truth = model.log_probs(test)
    rows = []
    for source in ("branching process", "EWT train"):
        for n in sizes:
            if source == "branching process":
                topologies = branching_topologies(n, random_state=n)
            else:
                ends = np.searchsorted(np.tile(treebank.lengths, 1 + n // treebank.n_tokens).cumsum(), n)
                topologies = treebank.subset(np.arange(ends + 1) % len(treebank))
            train = model.sample(topologies, random_state=n + 1)
            t0 = time.perf_counter()
            estimate = SpectralTreeModel(4, shrinkage=0.0).fit(train)
            seconds = time.perf_counter() - t0
            scores = estimate.tree_scores(test)
            error = np.abs(np.exp(scores.log_prob - truth) - 1)
            rows.append([source, f"{train.n_tokens:,}", f"{len(train):,}", f"{np.median(error):.3f}",
                         f"{np.percentile(error, 90):.3f}", f"{scores.n_floored / scores.n_nodes:.2%}", f"{seconds:.2f}"])
            log(" | ".join(rows[-1]))
    return markdown_table(["topologies", "training nodes", "trees", "median abs(p̂/p − 1)", "90th percentile",
                           "floored conditionals", "fit (s)"], rows) + ["", f"Held-out: {len(test):,} trees, {test.n_tokens:,} nodes (branching process, Poisson(0.45) "
                   "dependents per side, at most 60 nodes)."]


# -- 2. discrimination ---------------------------------------------------------------------
def discrimination(models: list, dev_by_field: dict) -> list[str]:
    rows = []
    for name, field, model, u, k, scorer in models:
        dev = dev_by_field[field]
        encoded = dev.with_vocabulary(_vocabulary(model))
        bad, index = reattached_copies(encoded, 1)
        gold = scorer(encoded)
        other = scorer(bad)
        wins, ties = np.mean(gold[index] > other), np.mean(gold[index] == other)
        floored = ""
        if hasattr(model, "tree_scores") and scorer == model.log_probs:
            s = model.tree_scores(encoded)
            floored = f"{s.n_floored / s.n_nodes:.1%}"
        rows.append([field, name, u, k, f"**{wins:.1%}**", f"{ties:.1%}", floored])
        log(" | ".join(map(str, rows[-1])))
    return markdown_table(["observations", "model", "U", "k", "gold above re-attached", "ties",
                           "floored conditionals (gold)"], rows, align="lllrrrr") + ["", f"Pairs: {len(index):,} (every dev sentence of at least 3 words; seed 0)."]


def head_child_bigram(train, k: float = 0.01):
    """A reference scorer with no hidden state: log p(words | tree) = sum over words of
    log p(word | its head's word or the root, side), add-``k`` smoothed, from ``train``."""
    n = len(train.vocabulary)

    def events(corpus):
        lay = tree_layout(corpus)
        parent, is_left = lay.parent, lay.is_left
        head = np.where(parent >= 0, corpus.symbols[np.maximum(parent, 0)], n)
        side = np.where(parent >= 0, is_left, 2)
        return head, side

    head, side = events(train)
    counts = np.full((3, n + 1, n), k)
    np.add.at(counts, (side, head, train.symbols), 1.0)
    log_p = np.log(counts / counts.sum(axis=2, keepdims=True))

    def log_probs(corpus):
        head, side = events(corpus)
        sentence = np.repeat(np.arange(len(corpus)), np.diff(corpus.offsets))
        return np.bincount(sentence, weights=log_p[side, head, corpus.symbols], minlength=len(corpus))

    return log_probs


def _chosen(model) -> str:
    return f"ridge {model.ridge_:g}, shrinkage {model.shrinkage_:g}, floor {model.floor_:g}"


def _vocabulary(model):
    return model.vocabulary_ if hasattr(model, "vocabulary_") else model.model_.vocabulary


# -- main ----------------------------------------------------------------------------------
def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^4 and 10^5 nodes only; EM capped at 30 iterations")
    parser.add_argument("--speed", action="store_true", help="table 4 (speed) alone, into results/tree_model_speed.md")
    args = parser.parse_args(argv)
    require_data(TRAIN, DEV, script="tree_model.py")
    if args.speed:
        dev = read_corpus(DEV, field="upos", vocabulary=read_corpus(TRAIN, field="upos").vocabulary)
        lines = ["# Spectral dependency-tree model: speed (issue 12, issue 43)", "",
                 describe("evaluation/tree_model.py", sys.argv[1:] if argv is None else argv) + ".", "",
                 *speed(dev), ""]
        write_results(RESULTS / "tree_model_speed.md", "\n".join(lines))
        return
    sizes = (10_000, 100_000) if args.quick else (10_000, 100_000, 1_000_000)
    em_cap = 30 if args.quick else 500

    log("warming the Numba kernels")
    warm = planted_model(2, 5).sample(branching_topologies(200, random_state=0))
    SpectralTreeModel(2).fit(warm).log_probs(warm)
    EMTreeModel(2, max_iter=2).fit(warm)

    log("1. consistency")
    table1 = consistency(sizes, read_corpus(TRAIN, field="upos"))

    log("3. spectral against EM on EWT UPOS")
    train = {f: read_corpus(TRAIN, field=f) for f in ("upos", "form")}
    dev = {f: read_corpus(DEV, field=f, vocabulary=train[f].vocabulary) for f in ("upos", "form")}
    spectral_rows = []
    for name, params in (("spectral, defaults (ridge 0.03, shrinkage 3, floor 0.03)", {}),
                         ("spectral, all chosen on held-out train (auto)",
                          dict(ridge="auto", shrinkage="auto", floor="auto")),
                         ("spectral, consistent (shrinkage 0; ridge, floor auto)",
                          dict(shrinkage=0.0, ridge="auto", floor="auto")),
                         ("spectral, all chosen on held-out train by ranking (auto, selection='ranking')",
                          dict(ridge="auto", shrinkage="auto", floor="auto", selection="ranking")),
                         ("spectral, shrinkage 0, ridge 0.1, floor 0.001 (last session's values)",
                          dict(shrinkage=0.0, ridge=0.1, floor=1e-3))):
        t0 = time.process_time()
        model = SpectralTreeModel(representation="identity", **params).fit(train["upos"])
        seconds = time.process_time() - t0
        scores = model.tree_scores(dev["upos"])
        spectral_rows.append((name, model, seconds, scores))
        log(f"{name}: {scores.log_prob.sum() / dev['upos'].n_tokens:.4f} ({seconds:.2f} s; chosen "
            f"{model.ridge_}, {model.shrinkage_}, {model.floor_})")
    spectral_upos, spectral_plain, spectral_ranking = (spectral_rows[i][1] for i in (0, 2, 3))
    t0 = time.process_time()
    em_upos = EMTreeModel(17, max_iter=em_cap, tol=1e-4, init="random").fit(train["upos"])
    em_seconds = time.process_time() - t0
    t0 = time.process_time()
    em_spectral_start = EMTreeModel(17, max_iter=em_cap, tol=1e-4, init="spectral").fit(train["upos"])
    em_start_seconds = time.process_time() - t0
    ll_em = em_upos.score(dev["upos"])
    ll_em_start = em_spectral_start.score(dev["upos"])
    n_dev = dev["upos"].n_tokens
    rows = []
    for name, model, seconds, scores in spectral_rows:
        ll = scores.log_prob.sum() / n_dev
        rows.append([name, 17, f"{model.ridge_:g} / {model.shrinkage_:g} / {model.floor_:g}", f"{ll:.4f}",
                     f"{ll / ll_em - 1:+.1%}", f"{seconds:.2f}", "", f"**{em_seconds / seconds:.0f}x**",
                     f"{scores.n_floored} / {scores.n_reset}"])
    rows += [["EM, random start", 17, "", f"{ll_em:.4f}", "", f"{em_seconds:.1f}",
              f"{em_upos.n_iter_}{'' if em_upos.converged_ else ' (cap)'}", "", ""],
             ["EM, spectral start", 17, "", f"{ll_em_start:.4f}", f"{ll_em_start / ll_em - 1:+.1%}",
              f"{em_start_seconds:.1f}", f"{em_spectral_start.n_iter_}{'' if em_spectral_start.converged_ else ' (cap)'}",
              "", ""]]
    table3 = markdown_table(["method", "k", "ridge / shrinkage / floor", "dev log-likelihood per word (nats)",
                             "loss against EM's", "fit CPU seconds", "EM iterations", "EM time / this time",
                             "floored / reset"], rows, align="lrlrrrrrr")
    table3 += ["", f"Loss against EM's: relative change of the per-word loss (negative: less loss than EM). Dev: "
               f"{len(dev['upos']):,} trees, {n_dev:,} words; the chain-rule conditionals of {n_dev:,} words, "
               "floored and vectors reset as counted in the last column. Auto: ridge × shrinkage × floor grid "
               "scored on a seeded 20% of train, then refitted on all of it; by the per-word log-likelihood of the "
               "held-out trees, or (ranking) by the share of held-out trees scored above a copy with one word "
               "re-attached (one seeded copy each, not the dev pairs of table 2)."]
    for row in table3:
        log(row)

    log("2. discrimination (CCA embeddings by seqspectral embed)")
    with tempfile.TemporaryDirectory() as tmp:
        emb = Path(tmp) / "cca.txt"
        t0 = time.perf_counter()
        subprocess.run([*SEQSPECTRAL, "embed", str(TRAIN), "-o", str(emb), "--dim", "50"], check=True,
                       capture_output=True, text=True)
        embed_seconds = time.perf_counter() - t0
        from seqspectral.embeddings.word2vec_format import read_word2vec

        cca = read_word2vec(emb)
    spectral_svd = SpectralTreeModel(16, representation="svd").fit(train["form"])
    spectral_cca = SpectralTreeModel(16, representation=cca).fit(train["form"])
    ranking = dict(ridge="auto", shrinkage="auto", floor="auto", selection="ranking")
    svd_ranking = SpectralTreeModel(16, representation="svd", **ranking).fit(train["form"])
    models = [  # (model, observations, fitted model, U, k, scorer)
        ("spectral", "upos", spectral_upos, "identity", 17, spectral_upos.log_probs),
        ("spectral, shrinkage 0", "upos", spectral_plain, "identity", 17, spectral_plain.log_probs),
        (f"spectral, chosen by ranking on held-out train ({_chosen(spectral_ranking)})", "upos", spectral_ranking,
         "identity", 17, spectral_ranking.log_probs),
        ("spectral", "form", spectral_svd, "SVD of the child-parent bigram", 16, spectral_svd.log_probs),
        (f"spectral, chosen by ranking on held-out train ({_chosen(svd_ranking)})", "form", svd_ranking,
         "SVD of the child-parent bigram", 16, svd_ranking.log_probs),
        ("spectral", "form", spectral_cca, "CCA (seqspectral embed, 50 → 16)", 16, spectral_cca.log_probs),
        ("EM (random start)", "upos", em_upos, "–", 17, em_upos.log_probs),
        ("topology term alone", "upos", spectral_upos, "–", "–", spectral_upos.topology_log_probs),
        ("spectral + topology term", "upos", spectral_upos, "identity", 17,
         lambda c: spectral_upos.log_probs(c) + spectral_upos.topology_log_probs(c)),
        ("spectral chosen by ranking + topology term", "upos", spectral_ranking, "identity", 17,
         lambda c: spectral_ranking.log_probs(c) + spectral_ranking.topology_log_probs(c)),
        ("reference without hidden states: each word given its head's word and side, add-0.01", "upos",
         spectral_upos, "–", "–", head_child_bigram(train["upos"])),
    ]
    table2 = discrimination(models, dev)
    table2.append(f"CCA: `seqspectral embed en_ewt-ud-train.conllu --dim 50` ({embed_seconds:.0f} s), "
                  f"{spectral_cca.representation_info_['n_covered']:,} of {len(train['form'].vocabulary):,} "
                  "training forms with a vector, the rest the file's `<unk>` vector.")

    log("4. speed")
    table4 = speed(dev["upos"])

    lines = ["# Spectral dependency-tree model (issue 12)", "",
             describe("evaluation/tree_model.py", sys.argv[1:]) + ".", "",
             "## 1. Consistency on a planted model (k = 4, 50 words)", "", *table1, "",
             "## 2. Discrimination on EWT dev: gold tree against one word re-attached", "", *table2, "",
             "## 3. Spectral against EM (EWT UPOS, same k)", "", *table3, "",
             "## 4. Speed", "", *table4, ""]
    write_results(OUT, "\n".join(lines))
    log(f"wrote {OUT}")


#: issue 43's command: every hyper-parameter chosen by ranking (42 candidates on a held-out 20%)
RANKING = ["--selection", "ranking", "--ridge", "auto", "--shrinkage", "auto", "--floor", "auto"]


def speed(dev_upos) -> list[str]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        command = [*SEQSPECTRAL, "tree", "train", str(TRAIN), "-o", str(Path(tmp) / "ranking.npz"), "--field", "upos",
                   *RANKING, "--quiet"]
        run_timed(command)  # warm: the Numba cache loaded once
        wall, cpu = best_of(command, 3)
        rows.append(["`tree train` EWT train, upos, " + " ".join(RANKING) + " (best of 3)", "12,544", f"{wall:.1f}",
                     f"{cpu:.1f}", ""])
        log(" | ".join(rows[-1]))
        for field in ("upos", "form"):
            model = Path(tmp) / f"{field}.npz"
            t = run_timed([*SEQSPECTRAL, "tree", "train", str(TRAIN), "-o", str(model), "--field", field, "--quiet"])
            wall, cpu = t.wall, t.child_cpu
            rows.append([f"`tree train` EWT train, {field}", "12,544", f"{wall:.1f}", f"{cpu:.1f}", ""])
            log(" | ".join(rows[-1]))
        sentences = read_conllu(DEV)
        bad, index = reattached_copies(dev_upos, 49, random_state=1)
        groups, start = [], 0
        for j, s in enumerate(sentences):
            copies = []
            while start < len(index) and index[start] == j:
                a, b = bad.offsets[start], bad.offsets[start + 1]
                copies.append(replace(s, heads=bad.heads[a:b]))
                start += 1
            candidates = [s, *copies]
            scores = -np.arange(len(candidates), dtype=float)
            groups.append(NBestList(s.metadata.get("sent_id", str(j)), candidates, scores))
        nbest = Path(tmp) / "dev-50best.conllu"
        write_nbest(nbest, groups)
        n_trees = sum(len(g) for g in groups)
        t = run_timed([*SEQSPECTRAL, "tree", "score", str(Path(tmp) / "upos.npz"), str(nbest), "-o",
                       str(Path(tmp) / "scores.txt")])
        wall, command_cpu = t.wall, t.child_cpu
        from seqspectral import serialize

        model = serialize.load(Path(tmp) / "upos.npz")
        trees = read_corpus(nbest, field="upos", vocabulary=model.vocabulary_)
        model.log_probs(trees[:10])
        t0 = time.process_time()
        model.log_probs(trees)
        cpu = time.process_time() - t0
    rows.append(["`tree score` 50-best of EWT dev (gold + 49 re-attached), upos", f"{n_trees:,}", f"{wall:.1f}",
                 f"{command_cpu:.1f}", f"{cpu:.2f}"])
    log(" | ".join(rows[-1]))
    return markdown_table(["what", "trees", "wall seconds (start-up included)", "command CPU seconds",
                           "library CPU seconds"], rows) + ["", "Command CPU seconds: user + system time of the command's process (reading the CoNLL-U "
                   "file included); the wall time adds waiting for the cores, which other jobs share (see the "
                   "load average above). Library CPU seconds: `log_probs` alone on the trees already read."]


if __name__ == "__main__":
    main()
