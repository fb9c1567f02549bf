"""Baum-Welch against hmmlearn, and the tensor method's recovery of planted HMMs, in one run.

1. EM speed and agreement: on the first 2,000 training strings of PAutomaC problems, our
   ``BaumWelchHMM`` E/M-steps and hmmlearn's ``CategoricalHMM(implementation="scaling")``
   (its fastest setting) run the same number of iterations from the SAME initial
   parameters. Mapping: hmmlearn sees every string followed by an explicit end symbol
   (feature k); our stop probability of a state is hmmlearn's emission probability of that
   end symbol, our symbol id a + 2 is hmmlearn's feature a. Both models then define the same
   likelihood of the training strings and the same EM updates (hmmlearn's Dirichlet priors
   are left at 1 = no smoothing), so the log-likelihoods must agree. Reported: seconds per
   iteration (ours warm, Numba compiled), the ratio, final log-likelihoods and their
   relative difference, and the PAutomaC score on the test set of the final model (the same
   parameters for both, computed once). hmmlearn's default ``implementation="log"`` is timed
   on a few iterations for reference. Also the time per iteration of our EM on the full
   20,000-string training set.
2. Planted HMMs (3 to 8 states, alphabet ≥ states, each state with its own most likely
   symbol, 10^5 and 10^6 sampled strings): ``TensorHMM`` errors after Hungarian matching of
   the states (scipy ``linear_sum_assignment``): max |O − Ô| over states and symbols (stop
   included) and max over states of the L1 error of the transition row.
3. Spectral fit against EM to convergence on every PAutomaC problem, both with the same
   number of states on the full training set, Numba compiled beforehand, reading excluded:
   ``SpectralWA(statistic="substring")`` (counting, SVD, build) against one Baum-Welch run
   from a random start until the mean per-string gain is below ``--convergence-tol`` nats
   (or ``--convergence-cap`` iterations: then the EM time and the ratio are lower bounds).

Usage: python -m evaluation bench_em [--problems 1 14 33] [--states 10] [--iterations 20]
Writes evaluation/results/em.md.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


from .common import PAUTOMAC as DATA, RESULTS, describe, require_data

from seqspectral.automata.baum_welch import random_start, em
from seqspectral.automata.spectral import SpectralWA
from seqspectral.automata.hmm import HMM
from seqspectral.automata.planted import matched_errors, planted_hmm
from seqspectral.automata.tensor_hmm import TensorHMM
from seqspectral.corpus.pautomac import read_pautomac, read_pautomac_solution
from seqspectral.metrics import pautomac_score

OUT = RESULTS / "em.md"


def hmmlearn_data(corpus):
    """hmmlearn's input: symbol id a -> feature a - 2, then the end symbol (feature k)."""
    k = len(corpus.vocabulary) - 2
    X = np.concatenate([np.append(x - 2, k) for x in corpus])[:, None]
    return X, corpus.lengths + 1


def hmmlearn_model(start: HMM, n_iter: int, implementation: str):
    from hmmlearn.hmm import CategoricalHMM

    ref = CategoricalHMM(start.n_states, n_iter=n_iter, tol=-np.inf, init_params="", params="ste",
                         implementation=implementation)
    ref.startprob_, ref.transmat_ = start.initial.copy(), start.transitions.copy()
    ref.emissionprob_ = np.column_stack([start.emissions[:, 2:], start.stop])
    ref.n_features = start.emissions.shape[1] - 1
    return ref


def compare_em(problem: int, n_states: int, n_iter: int, n_strings: int) -> dict:
    train = read_pautomac(DATA / f"{problem}.pautomac.train")
    test = read_pautomac(DATA / f"{problem}.pautomac.test", vocabulary=train.vocabulary)
    solution = read_pautomac_solution(DATA / f"{problem}.pautomac_solution.txt")
    part = train[:n_strings]
    start = random_start(part, n_states, len(train.vocabulary), np.random.default_rng(0))
    em(part, start, 1, -np.inf)  # compile
    t0 = time.perf_counter()
    ours, history = em(part, start, n_iter, -np.inf)
    ours_s = (time.perf_counter() - t0) / n_iter
    X, lengths = hmmlearn_data(part)
    ref = hmmlearn_model(start, n_iter, "scaling")
    t0 = time.perf_counter()
    ref.fit(X, lengths)
    ref_s = (time.perf_counter() - t0) / n_iter
    n_log = 3
    t0 = time.perf_counter()
    hmmlearn_model(start, n_log, "log").fit(X, lengths)
    log_s = (time.perf_counter() - t0) / n_log
    ll_ours = float(ours.sequence_log_probs(part).sum())
    ll_ref = float(ref.score(X, lengths))
    full_start = random_start(train, n_states, len(train.vocabulary), np.random.default_rng(0))
    t0 = time.perf_counter()
    em(train, full_start, 5, -np.inf)
    full_s = (time.perf_counter() - t0) / 5
    return {
        "problem": problem, "ours_s": ours_s, "ref_s": ref_s, "log_s": log_s, "ll_ours": ll_ours, "ll_ref": ll_ref,
        "rel": abs(ll_ours - ll_ref) / abs(ll_ref), "full_s": full_s, "n_full": len(train),
        "score": pautomac_score(ours.sequence_log_probs(test), solution, log=True),
        "floor": pautomac_score(np.log(solution), solution, log=True),
    }


PLANTED = [(3, 3), (3, 6), (4, 8), (5, 10), (6, 12), (8, 16), (5, 5), (8, 8)]


def planted_rows(sizes) -> list[dict]:
    rows = []
    for k, n_symbols in PLANTED:
        true = planted_hmm(k, n_symbols, seed=k)
        for n in sizes:
            corpus = true.sample(n, random_state=1)
            t0 = time.perf_counter()
            est = TensorHMM(k, random_state=0, floor=0.0).fit(corpus)
            secs = time.perf_counter() - t0
            rows.append({"k": k, "sigma": n_symbols, "n": n, "fit_s": secs, **dict(zip(("err_o", "err_t"), matched_errors(true, est.model_)))})
    return rows


def convergence_row(problem: int, n_states: int, tol: float, cap: int) -> dict:
    train = read_pautomac(DATA / f"{problem}.pautomac.train")
    t0 = time.perf_counter()
    SpectralWA(n_states=n_states, statistic="substring", floor=0.01).fit(train)
    spectral_s = time.perf_counter() - t0
    start = random_start(train, n_states, len(train.vocabulary), np.random.default_rng(0))
    t0 = time.perf_counter()
    _, history = em(train, start, cap, tol)
    em_s = time.perf_counter() - t0
    return {"problem": problem, "spectral_s": spectral_s, "em_s": em_s, "iterations": len(history),
            "capped": len(history) == cap, "ratio": em_s / spectral_s, "loglik": history[-1] / len(train)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", type=int, nargs="+", default=[1, 14, 33])
    ap.add_argument("--states", type=int, default=10)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--strings", type=int, default=2000)
    ap.add_argument("--planted-sizes", type=int, nargs="+", default=[10**5, 10**6])
    ap.add_argument("--convergence-states", type=int, default=20)
    ap.add_argument("--convergence-tol", type=float, default=1e-5)
    ap.add_argument("--convergence-cap", type=int, default=300)
    args = ap.parse_args(argv)
    command = sys.argv[1:] if argv is None else list(argv)
    em_rows = []
    for p in args.problems:
        row = compare_em(p, args.states, args.iterations, args.strings)
        em_rows.append(row)
        print(row, flush=True)
    require_data(DATA, script="bench_em.py")
    planted = planted_rows(args.planted_sizes)
    for r in planted:
        print(r, flush=True)
    problems = sorted(int(f.name.split(".")[0]) for f in DATA.glob("*.pautomac.train"))
    SpectralWA(n_states=2, statistic="substring", floor=0.01).fit(read_pautomac(DATA / f"{problems[0]}.pautomac.train"))  # compile
    convergence = []
    for p in problems:
        convergence.append(convergence_row(p, args.convergence_states, args.convergence_tol, args.convergence_cap))
        print(convergence[-1], flush=True)
    lines = [
        "# Baum-Welch vs hmmlearn; tensor recovery of planted HMMs", "",
        describe("evaluation/bench_em.py", command) + ".", "",
        f"## EM: {args.strings} training strings, {args.states} states, {args.iterations} iterations from the same start", "",
        "hmmlearn: `CategoricalHMM(implementation=\"scaling\")` on every string followed by an explicit end symbol; "
        "its end-symbol emission probability is our stop probability, so the two run the same EM.", "",
        "| problem | ours s/iter | hmmlearn scaling s/iter | speed-up | hmmlearn log s/iter | log-lik ours | log-lik hmmlearn | rel. diff | PAutomaC score (floor) | ours s/iter on full train |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in em_rows:
        lines.append(f"| {r['problem']} | {r['ours_s']:.4f} | {r['ref_s']:.4f} | {r['ref_s'] / r['ours_s']:.1f}x | {r['log_s']:.3f} | "
                     f"{r['ll_ours']:.6f} | {r['ll_ref']:.6f} | {r['rel']:.1e} | {r['score']:.4f} ({r['floor']:.4f}) | "
                     f"{r['full_s']:.3f} ({r['n_full']} strings) |")
    lines += ["", "## TensorHMM on planted HMMs", "",
              "`TensorHMM(k)` with its defaults (substring statistics, 200 × 200 most frequent substrings up to length 3, "
              "20 power-method starts, ALS refinement). Errors after Hungarian matching: max |O − Ô| (emissions and stop), "
              "max L1 error of a transition row (a distribution over next states). Target for |Σ| = k (5 and 8 states) at "
              "10^5 strings: O within 0.05, T within 0.1.", "",
              "| states | alphabet | strings | O error | T error | fit s |", "|---|---|---|---|---|---|"]
    for r in planted:
        lines.append(f"| {r['k']} | {r['sigma']} | {r['n']} | {r['err_o']:.3f} | {r['err_t']:.3f} | {r['fit_s']:.2f} |")
    ratios = np.array([r["ratio"] for r in convergence])
    lines += ["", f"## Spectral fit vs EM to convergence, {args.convergence_states} states, full training sets", "",
              f"`SpectralWA(n_states={args.convergence_states}, statistic=\"substring\")` fit (count, SVD, build) against one "
              f"Baum-Welch run from a random start until the mean per-string gain is below {args.convergence_tol:g} nats "
              f"(relative to the final per-string log-likelihood in the table: {args.convergence_tol / max(abs(r['loglik']) for r in convergence):.0e} "
              f"to {args.convergence_tol / min(abs(r['loglik']) for r in convergence):.0e}), at most {args.convergence_cap} iterations (≥: capped, a lower bound). "
              "Reading the file excluded from both; Numba compiled beforehand.", "",
              "| problem | spectral s | EM s | EM iterations | EM log-lik per string | EM / spectral |", "|---|---|---|---|---|---|"]
    for r in convergence:
        ge = "≥ " if r["capped"] else ""
        lines.append(f"| {r['problem']} | {r['spectral_s']:.2f} | {ge}{r['em_s']:.1f} | {ge}{r['iterations']} | {r['loglik']:.3f} | {ge}{r['ratio']:.0f}x |")
    lines += ["", f"Geometric mean of the ratio: {np.exp(np.log(ratios).mean()):.0f}x "
              f"({'a lower bound: ' + str(sum(r['capped'] for r in convergence)) + ' runs capped; ' if any(r['capped'] for r in convergence) else ''}"
              f"min {ratios.min():.0f}x, max {ratios.max():.0f}x over {len(ratios)} problems)."]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    from seqspectral.io import atomic_write_text

    atomic_write_text(OUT, "\n".join(lines) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
