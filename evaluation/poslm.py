"""POS-sequence language models (issue 6; Table 4 of Balle, Hamilton & Pineau 2014).

Every ``seqspectral lm`` method and the references a user would pick instead — NLTK's
``KneserNeyInterpolated`` trigram, the toolkit's add-k trigram and unigram, hmmlearn's
``CategoricalHMM`` by EM — on

- UD English-EWT, 17 UPOS tags and the 12-tag set (``--tagset universal12``): fit on
  train, every choice (states, floor, k) on dev, figures on test;
- the Brown corpus with NLTK's universal tags, split by position: sentence i goes to
  test if i % 10 == 9, to dev if i % 10 == 8, to train otherwise.

Perplexity and WER count one stop event per sentence (DESIGN.md, Definitions); every
model is a proper distribution. Fit time includes the selection on dev; score time is
perplexity + WER on test. A last section times ``seqspectral lm train`` itself (process
start, reading, counting, SVD, selection on dev) on EWT train and scikit-splearn's fit at
the same basis, run in its own numpy<2 environment (``evaluation/_splearn.py``).

Writes ``evaluation/results/poslm.md``. Run from the repository root::

    NLTK_DATA=../shared/corpora/nltk_data python -m evaluation poslm
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .common import EWT, NLTK_DATA, RESULTS, SHARED, describe, markdown_table, require_data, timed, write_results

OUT = RESULTS / "poslm.md"


TOOLKIT = ["spectral", "spectral-prefix", "spectral-substring", "convex", "tensor", "em", "em-tensor", "ngram", "unigram"]
UNMIXED = ["spectral", "spectral-substring"]  # also shown without the bigram mixture
DATASETS = ["ewt17", "ewt12", "brown"]


# -- data ----------------------------------------------------------------------------------
def load(name: str):
    """(train, dev, test): EWT dev/test encoded with train's vocabulary; Brown split by position."""
    if name.startswith("ewt"):
        from seqspectral.corpus.readers import read_corpus

        tagset = "universal12" if name == "ewt12" else None
        train = read_corpus(EWT / "en_ewt-ud-train.conllu", field="upos", tagset=tagset)
        dev, test = (read_corpus(EWT / f"en_ewt-ud-{p}.conllu", field="upos", tagset=tagset, vocabulary=train.vocabulary)
                     for p in ("dev", "test"))
        return train, dev, test
    from seqspectral.corpus.readers import read_corpus

    brown = read_corpus(NLTK_DATA, format="brown", field="upos")
    position = np.arange(len(brown)) % 10
    return brown.subset(position < 8), brown.subset(position == 8), brown.subset(position == 9)


# -- the toolkit -------------------------------------------------------------------------------
def run_toolkit(method, train, dev, test, random_state=0, mix=True, n_states="auto"):
    from seqspectral.lm import evaluate_lm, train_lm

    lm, fit = timed(train_lm, train, method, n_states=n_states, dev=dev, random_state=random_state,
                    mix_order=2 if mix else None)
    result, score = timed(evaluate_lm, lm, test)
    fit_s, score_s = fit.wall, score.wall
    summary = lm.summary()
    chosen = {k: v for k, v in lm.params.items() if k in ("n_states", "k", "order", "regularization", "floor")}
    chosen.update({k: v for k, v in summary.items() if k in ("n_states", "floor", "regularization", "k")})
    if "model_weight" in summary:
        chosen["model weight"] = summary["model_weight"]
    name = f"seqspectral {method}" + ("" if mix or method in ("ngram", "unigram") else " (no bigram mixing)")
    if n_states != "auto":
        name += f", {n_states} states fixed"
    return {"system": name, "chosen": _short(chosen), "perplexity": result["perplexity"],
            "wer": result["wer"], "fit": fit_s, "score": score_s,
            "floored": result["n_floored"] / max(result["n_weights"], 1) if result["n_weights"] else 0.0}


def _short(d: dict) -> str:
    return ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in d.items())


# -- references --------------------------------------------------------------------------------
def run_nltk_kn(train, dev, test, order=3):
    """NLTK KneserNeyInterpolated; every distinct history's distribution over tags + </s>
    is computed once (NLTK's probabilities as given, not renormalised)."""
    from nltk.lm import KneserNeyInterpolated
    from nltk.lm.preprocessing import padded_everygram_pipeline

    t0 = time.perf_counter()
    lm = KneserNeyInterpolated(order)
    grams, vocab = padded_everygram_pipeline(order, train.to_symbols())
    lm.fit(grams, vocab)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    symbols = train.vocabulary.symbols
    events = symbols[2:] + ["</s>"]
    event_id = np.array(list(range(2, len(symbols))) + [1])
    cache: dict = {}
    log_prob, predicted = [], []
    for seq in test.to_symbols():
        padded = ["<s>"] * (order - 1) + seq + ["</s>"]
        for t in range(order - 1, len(padded)):
            ctx = tuple(padded[t - order + 1:t])
            if ctx not in cache:
                cache[ctx] = np.array([lm.score(w, ctx) for w in events])
            dist = cache[ctx]
            w = padded[t]
            p = dist[events.index(w)] if w in events else lm.score(w, ctx)
            log_prob.append(np.log(p) if p > 0 else -np.inf)
            predicted.append(event_id[int(np.argmax(dist))])
    return _reference_row("NLTK KneserNeyInterpolated trigram", "", np.array(log_prob), np.array(predicted), test,
                          fit_s, time.perf_counter() - t0)


def run_hmmlearn(train, dev, test, n_states=64, n_iter=100, random_state=0):
    """hmmlearn CategoricalHMM by EM with an explicit end symbol (``implementation="scaling"``,
    its fastest); the next-event distribution comes from the forward recursion."""
    from hmmlearn.hmm import CategoricalHMM

    def events(corpus):
        from seqspectral.metrics import event_targets

        return (event_targets(corpus) - 1).reshape(-1, 1), corpus.lengths + 1

    X, lengths = events(train)
    n_features = len(train.vocabulary) - 1
    model = CategoricalHMM(n_components=n_states, n_iter=n_iter, tol=1e-4, random_state=random_state,
                           implementation="scaling", n_features=n_features)
    t0 = time.perf_counter()
    model.fit(X, lengths)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    log_prob, predicted = _forward_events(model.startprob_, model.transmat_, model.emissionprob_, test)
    return _reference_row(f"hmmlearn CategoricalHMM EM ({model.monitor_.iter} iterations)", f"n_states={n_states}",
                          log_prob, predicted, test, fit_s, time.perf_counter() - t0)


def _forward_events(start, trans, emit, corpus):
    """Per event log p(x_t | x_<t) and argmax of an HMM emitting ids 1.. (column j = id j+1)."""
    from seqspectral.metrics import event_targets

    targets = event_targets(corpus) - 1
    log_prob = np.empty(len(targets))
    predicted = np.empty(len(targets), dtype=np.int32)
    e = 0
    for length in corpus.lengths:
        state = start
        for _ in range(length + 1):
            dist = state @ emit
            x = targets[e]
            log_prob[e] = np.log(dist[x])
            predicted[e] = np.argmax(dist) + 1
            alpha = state * emit[:, x]
            state = (alpha / alpha.sum()) @ trans
            e += 1
    return log_prob, predicted


def _reference_row(system, chosen, log_prob, predicted, test, fit_s, score_s):
    from seqspectral.metrics import perplexity, wer

    return {"system": system, "chosen": chosen, "perplexity": perplexity(log_prob), "wer": wer(predicted, test),
            "fit": fit_s, "score": score_s, "floored": 0.0}


# -- command-line timing ---------------------------------------------------------------------
def time_cli(method: str, repeats: int = 3) -> tuple[list[float], str]:
    """Wall times of ``repeats`` runs of ``seqspectral lm train`` on EWT train with selection on dev, and the command."""
    walls = []
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["seqspectral", "lm", "train", str(EWT / "en_ewt-ud-train.conllu"), "-o", f"{tmp}/m.npz",
               "--method", method, "--states", "auto", "--dev", str(EWT / "en_ewt-ud-dev.conllu"), "--quiet"]
        for _ in range(repeats):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True)
            walls.append(time.perf_counter() - t0)
    shown = " ".join(shlex.quote(c.replace(str(SHARED.parent), "../shared")) for c in cmd).replace(f"{tmp}/m.npz", "MODEL")
    return walls, shown


# -- report ------------------------------------------------------------------------------------
def table(rows) -> list[str]:
    return markdown_table(["system", "chosen on dev", "perplexity", "WER", "fit (s)", "score (s)", "floored weights"],
                          [[r["system"], r["error"], "", "", "", "", ""] if "error" in r else
                           [r["system"], r["chosen"], f"{r['perplexity']:.2f}", f"{r['wer']:.3f}", f"{r['fit']:.2f}",
                            f"{r['score']:.2f}", f"{100 * r['floored']:.1f}%"] for r in rows], align="llrrrrr")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="*", default=DATASETS, choices=DATASETS)
    p.add_argument("--methods", nargs="+", default=TOOLKIT, choices=TOOLKIT)
    p.add_argument("--hmmlearn-iter", type=int, default=100)
    p.add_argument("--hmmlearn-states", type=int, default=64)
    p.add_argument("--skip-hmmlearn", nargs="*", default=["brown"], choices=DATASETS,
                   help="datasets without the hmmlearn run (default: brown, hours at 100 iterations)")
    p.add_argument("--skip-nltk", action="store_true")
    p.add_argument("--skip-cli", action="store_true")
    p.add_argument("--skip-splearn", action="store_true")
    p.add_argument("--output", type=Path, default=OUT)
    args = p.parse_args(argv)
    require_data(EWT, *([NLTK_DATA] if "brown" in args.datasets else []), script="poslm.py")
    out = [f"# POS-sequence language models (issue 6)", "",
           describe("evaluation/poslm.py", argv if argv is not None else sys.argv[1:]).replace(
               "command: `", "command: `NLTK_DATA=../shared/corpora/nltk_data ") + ".", "",
           "Perplexity and WER on test with one stop event per sentence; every choice (states, floor, "
           "smoothing) on dev. Fit time includes the selection on dev; score time is perplexity + WER on test. "
           "Floored weights: share of next-event weights raised by the non-stochastic rule.", ""]
    summary = {}
    for name in args.datasets:
        train, dev, test = load(name)
        title = {"ewt17": "UD English-EWT, 17 UPOS tags", "ewt12": "UD English-EWT, 12 tags (--tagset universal12)",
                 "brown": "Brown, NLTK universal tags (12); split by position: i % 10 == 9 test, == 8 dev, else train"}[name]
        T = test.n_tokens + len(test)
        print(f"== {name}: train {len(train)} / dev {len(dev)} / test {len(test)} sentences", file=sys.stderr, flush=True)
        rows = []
        runs = [(m, True, "auto") for m in args.methods] + [(m, False, "auto") for m in args.methods if m in UNMIXED]
        if "em" in args.methods and name not in args.skip_hmmlearn:  # EM against EM: hmmlearn's size, unmixed
            runs.append(("em", False, args.hmmlearn_states))
        header = [f"## {title}", "",
                  f"train {len(train):,} / dev {len(dev):,} / test {len(test):,} sentences; T = {T:,} test events; "
                  f"{len(train.vocabulary) - 2} tags.", ""]
        for method, mix, n_states in runs:
            try:
                rows.append(run_toolkit(method, train, dev, test, mix=mix, n_states=n_states))
            except Exception as e:  # noqa: BLE001 - a learner missing or failing is reported in the table
                rows.append({"system": f"seqspectral {method}", "error": f"failed: {type(e).__name__}: {e}"})
            print(rows[-1], file=sys.stderr, flush=True)
        if not args.skip_nltk:
            rows.append(run_nltk_kn(train, dev, test))
            print(rows[-1], file=sys.stderr, flush=True)
        if name not in args.skip_hmmlearn:
            rows.append(run_hmmlearn(train, dev, test, args.hmmlearn_states, args.hmmlearn_iter))
            print(rows[-1], file=sys.stderr, flush=True)
        summary[name] = rows
        out += header + table(rows) + [""]
        print("\n".join(header + table(rows)), file=sys.stderr, flush=True)  # progress; the file comes at the end
    if not args.skip_cli:
        out += cli_section(summary.get("ewt17", []), args.hmmlearn_states)
    if not args.skip_splearn:
        out += splearn_section()
    write_results(args.output, "\n".join(out))
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def cli_section(rows, em_states) -> list[str]:
    lines = ["## Spectral training from the command line (EWT train, 17 tags, states chosen on dev)", "",
             "Wall time of the whole command (Numba cache warm): process start, reading train and dev, counting, SVD, "
             "selection of rank, floor and bigram weight on dev, saving.", ""]
    walls = {}
    for method in ("spectral-substring", "spectral"):
        times, cmd = time_cli(method)
        walls[method] = min(times)
        lines.append(f"- `{cmd}`: {walls[method]:.2f} s wall, best of {len(times)} "
                     f"({', '.join(f'{t:.2f}' for t in times)}; target < 5 s)")
    spectral_wall = walls["spectral-substring"]
    fixed = next((r for r in rows if r["system"] == f"seqspectral em (no bigram mixing), {em_states} states fixed"
                  and "fit" in r), None)
    auto = next((r for r in rows if r["system"] == "seqspectral em" and "fit" in r), None)
    hl = next((r for r in rows if r["system"].startswith("hmmlearn") and "fit" in r), None)
    if fixed is not None:
        lines.append(f"- toolkit EM, {em_states} states, its defaults (≤ 100 iterations, stop at a mean per-sentence gain "
                     f"< 1e-4 nats): {fixed['fit']:.1f} s = {fixed['fit'] / spectral_wall:.0f}x the spectral-substring command")
    if auto is not None:
        lines.append(f"- toolkit EM with its number of states chosen on dev: {auto['fit']:.1f} s "
                     f"= {auto['fit'] / spectral_wall:.0f}x the spectral-substring command")
    if hl is not None and fixed is not None:
        lines.append(f"- hmmlearn EM, {em_states} states: {hl['fit']:.1f} s; the toolkit's EM is "
                     f"{hl['fit'] / fixed['fit']:.1f}x faster")
    conv = em_to_convergence(em_states)
    lines += ["", f"EM to convergence: the toolkit's Baum-Welch, {em_states} states, one run from a random start on EWT "
              f"train, until the total log-likelihood gains less than {HMMLEARN_TOL} nats in an iteration "
              f"(hmmlearn's default convergence test, `tol={HMMLEARN_TOL}`), at most {conv['cap']} iterations; "
              "reading excluded, Numba compiled beforehand. The toolkit's default rule is read off the same run "
              "(the iteration where it would stop; its seconds = those iterations × the run's mean seconds per "
              "iteration).", ""]
    stops = []
    for label, its, secs in conv["rows"]:
        capped = "≥ " if its >= conv["cap"] else ""
        stops.append([label, f"{capped}{its}", f"{capped}{secs:.1f}", f"{capped}{secs / spectral_wall:.0f}x"])
    lines += markdown_table(["stopping rule", "iterations", "EM seconds", "EM / spectral-substring command"], stops)
    lines.append("")
    lines.append(f"Target: spectral training ≥ 40x faster than the toolkit's EM to convergence (hmmlearn's test): "
                 f"{conv['rows'][-1][2] / spectral_wall:.0f}x.")
    return lines + [""]


HMMLEARN_TOL = 1e-2  # hmmlearn's default: stop when the total log-likelihood gains less than this


def em_to_convergence(n_states: int, cap: int = 2000, random_state: int = 0) -> dict:
    """One Baum-Welch run on EWT train (17 tags) from a random start until hmmlearn's default
    convergence test; also when the toolkit's default rule (mean gain < 1e-4 nats, ≤ 100
    iterations) would have stopped the same run. Returns the iterations and seconds of each."""
    from seqspectral.automata.baum_welch import random_start, em
    from seqspectral.corpus.readers import read_corpus

    train = read_corpus(EWT / "en_ewt-ud-train.conllu", field="upos")
    start = random_start(train, n_states, len(train.vocabulary), np.random.default_rng(random_state))
    em(train[:50], start, 2, 0.0)  # compile / load the kernels
    t0 = time.perf_counter()
    _, history = em(train, start, cap, HMMLEARN_TOL / len(train))
    seconds = time.perf_counter() - t0
    per_iter = seconds / len(history)
    gains = np.diff(history) / len(train)
    default = next((i + 2 for i, g in enumerate(gains) if g < 1e-4), len(history))
    default = min(default, 100)
    return {"cap": cap, "rows": [("toolkit default (mean gain < 1e-4, ≤ 100 iterations)", default, default * per_iter),
                                 (f"hmmlearn's default test (total gain < {HMMLEARN_TOL})", len(history), seconds)]}


def splearn_section(lengths=(2, 3), rank=25) -> list[str]:
    """Learners at equal basis and rank from the same file: the PAutomaC-format copy of EWT
    train's 17 UPOS tags, substring (factor) statistics, basis = every substring up to length
    L observed in train (scikit-splearn's ``partial=True``), rank 25; best of 3 on each side,
    each side in one process (``_speed``). Ours also from the CoNLL-U file itself."""
    from . import _speed

    from seqspectral.corpus.pautomac import read_pautomac, write_pautomac
    from seqspectral.corpus.readers import read_corpus

    def parts(r):
        return f"{r['seconds']:.3f} = {r['read']:.3f} + {r['basis']:.3f} + {r['fit']:.3f}"

    conllu = EWT / "en_ewt-ud-train.conllu"
    lines = [f"## Equal basis and rank against scikit-splearn (EWT train, 17 tags, substring/factor statistics, rank {rank})",
             "",
             "Both learners read the same file, a PAutomaC-format copy of the UPOS tags of EWT train (12,544 strings, "
             "204,577 symbols), and fit the same configuration: rows and columns = every substring of length ≤ L "
             "observed in train (scikit-splearn's `Spectral(version=\"factor\", lrows=L, lcolumns=L, partial=True, "
             "sparse=True)`; our `HankelBasis.from_corpus(train, \"substring\", ∞, ∞, L)`, the same P and S), "
             f"rank {rank}. Ours: `read_pautomac` + basis + `SpectralWA(n_states={rank}, basis=…, "
             "statistic=\"substring\").fit` (count, SVD, automaton); scikit-splearn: `load_data_sample` + "
             "`Spectral(...).fit`, in its numpy<2 venv. Wall seconds, best of 3 on each side, each side in one "
             "process; ours after a first call (Numba cache load, lazy imports) shown apart. 'ours from CoNLL-U' reads "
             "the treebank itself with `read_corpus` instead (UPOS column, trees validated).", ""]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ewt-upos.pautomac.train"
        write_pautomac(path, read_corpus(conllu, field="upos"))
        for L in lengths:
            ours = _speed.ours(read_pautomac, path, "factor", L, rank)
            from_conllu = _speed.ours(lambda p: read_corpus(p, field="upos"), conllu, "factor", L, rank)
            try:
                theirs = _speed.splearn(path, "factor", L, rank, timeout=1800)
                cells = [f"{theirs['seconds']:.2f} = {theirs['load']:.2f} + {theirs['fit']:.2f}",
                         f"**{theirs['seconds'] / ours['seconds']:.1f}x**"]
                ratio2 = f"{theirs['seconds'] / from_conllu['seconds']:.1f}x"
            except Exception as e:  # noqa: BLE001 - the peer failing is reported, not fatal
                cells, ratio2 = [f"failed: {type(e).__name__}", ""], ""
            rows.append([L, ours["shape"], parts(ours), f"{ours['first_call']:.2f}", *cells, parts(from_conllu), ratio2])
            print(" | ".join(map(str, rows[-1])), file=sys.stderr, flush=True)
    return lines + markdown_table(["L", "\\|P\\|×\\|S\\|", "ours (s) = read + basis + fit", "ours first call (s)",
                                   "scikit-splearn (s) = load + fit", "ratio", "ours from CoNLL-U (s) = read + basis + fit",
                                   "ratio"], rows) + ["", "Target: ≥ 10x at equal basis (the 'ratio' column: same file, same P, S and rank).", ""]

if __name__ == "__main__":
    sys.exit(main())
