"""The model layer's speed and memory targets (issue 10), each measured against its reference
in the same run.

1. ``seqspectral lm train --method spectral-substring --states 20 --basis-length 3`` on the
   100,000-string PAutomaC problems, end to end in a fresh process (start-up, Numba cache
   load, reading, counting, SVD, floor and mixture choice on a held-out 20%, refit, saving),
   against scikit-splearn's ``load_data_sample`` + ``Spectral(rank=20, lrows=3, lcolumns=3,
   version="factor", partial=True, sparse=True).fit`` in a fresh process of its own venv
   (python start-up and imports included) — the same basis: every substring up to length 3
   is in both, and the same rank. Best of ``--repeats`` wall times each, after one warm-up run
   of ours (the Numba cache filled).
2. ``seqspectral lm train`` of EWT's UPOS tags with every choice on dev, warm, wall.
3. ``seqspectral --help``, warm, wall.
4. The first ``lm train`` after an install: an empty Numba cache (``NUMBA_CACHE_DIR``), the
   bundled sample; wall and CPU seconds.
5. A word-form HMM (all EWT train word types, 64 states) scoring EWT dev: peak resident
   memory of the scoring process against the dense (V, k, k) operator tensor the old scoring
   built on every call.

With ``--startup``, part 3 alone and extended (issue 43: every command's start-up in the
50 ms class): ``seqspectral --help`` and ``seqspectral GROUP --help`` of every command group,
best of ``--repeats`` (at least 10) wall and CPU seconds each, beside a bare ``python -c pass``,
with Python's bytecode cache (as an installed package starts) and without it.

Usage: python -m evaluation model_layer [--repeats 3] [--problems 4 13] [--startup]
Writes evaluation/results/model_layer.md (only when every part has run); with ``--startup``,
evaluation/results/startup.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


from ._splearn import run_worker  # noqa: E402
from .common import EVALUATION, EWT, PAUTOMAC, REPO, RESULTS, SEQSPECTRAL, best_of, describe, markdown_table, run_timed, timed  # noqa: E402

OUT = RESULTS / "model_layer.md"
SPLEARN_WORKER = EVALUATION / "_splearn_speed_worker.py"


QUIET = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE}


def pautomac_rows(problems, repeats, tmp) -> list[list]:
    rows = []
    for n in problems:
        train = PAUTOMAC / f"{n}.pautomac.train"
        ours_cmd = SEQSPECTRAL + ["lm", "train", str(train), "-o", str(tmp / "p.npz"), "--method", "spectral-substring",
                                  "--states", "20", "--basis-length", "3", "--quiet"]
        run_timed(ours_cmd, **QUIET)  # warm-up: the Numba cache is filled once
        ours = best_of(ours_cmd, repeats, **QUIET)
        runs = [_splearn_fresh(train) for _ in range(repeats)]
        theirs = min(r[0] for r in runs), min(r[1] for r in runs)
        rows.append([n, f"{ours[0]:.2f}", f"{theirs[0]:.2f}", f"**{theirs[0] / ours[0]:.1f}x**",
                     f"{ours[1]:.2f}", f"{theirs[1]:.2f}", f"**{theirs[1] / ours[1]:.1f}x**"])
    return rows


def _splearn_fresh(train) -> tuple[float, float]:
    """(wall, CPU seconds) of one fresh scikit-splearn process loading and fitting ``train``."""
    _, t = timed(run_worker, SPLEARN_WORKER, {"path": str(train), "version": "factor", "lrows": 3, "lcolumns": 3,
                                              "rank": 20, "repeats": 1})
    return t.wall, t.child_cpu


HMM_SCORING = """
import resource, sys, time
import numpy as np
from seqspectral.automata.hmm import HMM
from seqspectral.corpus import read_corpus
train = read_corpus(sys.argv[1], field="form")
dev = read_corpus(sys.argv[2], field="form", vocabulary=train.vocabulary).drop_unknown()
k, v = 64, len(train.vocabulary)
rng = np.random.default_rng(0)
emissions = np.zeros((k, v))
emissions[:, 2:] = rng.dirichlet(np.ones(v - 2), size=k) * 0.95
hmm = HMM(rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k), size=k), emissions, np.full(k, 0.05), train.vocabulary, 1e-6)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
events = hmm.event_log_probs(dev)
seconds = time.perf_counter() - t0
print(v, k, dev.n_tokens, before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, seconds,
      float(np.exp(-events.log_prob.mean())))
"""


def hmm_memory() -> dict:
    out = subprocess.run([sys.executable, "-c", HMM_SCORING, str(EWT / "en_ewt-ud-train.conllu"),
                          str(EWT / "en_ewt-ud-dev.conllu")], check=True, capture_output=True, text=True).stdout.split()
    v, k, tokens, before, after, seconds, ppl = int(out[0]), int(out[1]), int(out[2]), int(out[3]), int(out[4]), \
        float(out[5]), float(out[6])
    return {"types": v, "states": k, "tokens": tokens, "rss_before_mb": before / 1024, "rss_peak_mb": after / 1024,
            "seconds": seconds, "dense_mb": v * k * k * 8 / 2**20, "perplexity": ppl}


def startup(repeats: int, header: str) -> None:
    """``seqspectral --help`` and every group's ``--help`` (the installed script), best of
    ``repeats``, with Python's bytecode cache (as ``pip install`` leaves a package: its
    modules compiled once) and without (every module compiled from source at each start, as
    under ``PYTHONDONTWRITEBYTECODE=1`` in an editable checkout)."""
    from seqspectral.cli.main import COMMAND_GROUPS
    from seqspectral.io import atomic_write_text

    script = str(Path(sys.executable).parent / "seqspectral")
    commands = [("`python -c pass` (the interpreter alone)", [sys.executable, "-c", "pass"]),
                ("`seqspectral --help`", [script, "--help"]),
                *[(f"`seqspectral {g} --help`", [script, g, "--help"]) for g in COMMAND_GROUPS]]
    cached = dict(os.environ, PYTHONPYCACHEPREFIX=str(EVALUATION / "_work" / "pycache"))
    cached.pop("PYTHONDONTWRITEBYTECODE", None)
    uncached = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    uncached.pop("PYTHONPYCACHEPREFIX", None)
    rows = []
    for what, command in commands:
        run_timed(command, env=cached, **QUIET)  # writes the bytecode cache
        rows.append([what, *(f"{x:.3f}" for env in (cached, uncached)
                             for x in best_of(command, repeats, env=env, **QUIET))])
        print(" | ".join(rows[-1]), file=sys.stderr)
    lines = ["# Start-up: `--help` of the command and of every command group", "", header, "",
             f"Best of {repeats} fresh processes each, warm; wall and CPU (user + system) seconds, with the "
             "bytecode cache (every module compiled once, as an installed package is; here in "
             "`evaluation/_work/pycache`) and without it (`PYTHONDONTWRITEBYTECODE=1` in an editable checkout: "
             "the package's modules compiled from source at every start; the standard library's are cached).",
             "", *markdown_table(["command", "wall (s), cached", "CPU (s), cached", "wall (s), no cache",
                                  "CPU (s), no cache"], rows), ""]
    atomic_write_text(RESULTS / "startup.md", "\n".join(lines))
    print("\n".join(lines))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--problems", type=int, nargs="+", default=[4, 13])
    ap.add_argument("--startup", action="store_true", help="only the start-up table (results/startup.md)")
    args = ap.parse_args(argv)
    if args.startup:
        return startup(max(args.repeats, 10), describe("evaluation/model_layer.py",
                                                         sys.argv[1:] if argv is None else argv))
    needed = [PAUTOMAC / f"{n}.pautomac.train" for n in args.problems] + [EWT / "en_ewt-ud-train.conllu"]
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        sys.exit(f"model_layer.py: data not found: {', '.join(missing)} (the shared corpora are read from ../shared)")
    header = describe("evaluation/model_layer.py", sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        rows = pautomac_rows(args.problems, args.repeats, tmp)
        ewt_cmd = SEQSPECTRAL + ["lm", "train", str(EWT / "en_ewt-ud-train.conllu"), "-o", str(tmp / "e.npz"),
                                 "--method", "spectral-substring", "--dev", str(EWT / "en_ewt-ud-dev.conllu"), "--quiet"]
        run_timed(ewt_cmd, **QUIET)
        ewt = best_of(ewt_cmd, args.repeats, **QUIET)
        help_module = best_of(SEQSPECTRAL + ["--help"], max(args.repeats, 5), **QUIET)
        help_script = best_of([str(Path(sys.executable).parent / "seqspectral"), "--help"], max(args.repeats, 5),
                              **QUIET)
        cold_env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp / "numba-cache")}
        cold = run_timed(SEQSPECTRAL + ["lm", "train", str(REPO / "corpora" / "ewt-sample.conllu"), "-o",
                                        str(tmp / "s.npz"), "--method", "spectral-substring"], env=cold_env, **QUIET)
        cold_wall, cold_cpu = cold.wall, cold.child_cpu
    hmm = hmm_memory()
    lines = [
        "# Model layer: lm train against scikit-splearn, start-up, first run, HMM memory", "", header, "",
        "## `lm train --method spectral-substring --states 20 --basis-length 3`, fresh processes", "",
        f"Best of {args.repeats} runs each, wall and CPU (user + system) seconds; the machine is shared, so CPU "
        "seconds are the steadier measure when it is loaded. Ours: the whole command (start-up, reading, counting, SVD, floor and "
        "bigram-mixture choice on a held-out 20% with the refit, saving). scikit-splearn: a fresh python of its venv "
        "running `load_data_sample` + `Spectral(rank=20, lrows=3, lcolumns=3, version='factor', partial=True, "
        "sparse=True).fit` (imports included).", "",
        *markdown_table(["problem (100,000 strings)", "ours wall (s)", "scikit-splearn wall (s)", "ratio",
                         "ours CPU (s)", "scikit-splearn CPU (s)", "ratio"], rows), "",
        "## Start-up and the first run", "",
        *markdown_table(["what", "wall (s)", "CPU (s)"], [
            ["`lm train --method spectral-substring --dev` on EWT train (12,544 sentences), warm",
             f"{ewt[0]:.2f}", f"{ewt[1]:.2f}"],
            ["`python -m seqspectral.cli.main --help`, warm", f"{help_module[0]:.3f}", f"{help_module[1]:.3f}"],
            ["`seqspectral --help` (the installed script), warm", f"{help_script[0]:.3f}", f"{help_script[1]:.3f}"],
            ["first `lm train` after an install (empty Numba cache, bundled sample)", f"{cold_wall:.1f}",
             f"{cold_cpu:.1f}"]]),
        "",
        "## A word-form HMM scores EWT dev in O(V·k + k²) memory", "",
        f"{hmm['types']:,} word types, {hmm['states']} states, {hmm['tokens']:,} known dev tokens: peak resident "
        f"memory {hmm['rss_peak_mb']:.0f} MB (after reading, before scoring: {hmm['rss_before_mb']:.0f} MB), "
        f"{hmm['seconds']:.1f} s; the dense (V, k, k) operators the old scoring built on every call would be "
        f"{hmm['dense_mb']:.0f} MB. (A random HMM: perplexity {hmm['perplexity']:.0f}, only the memory is measured.)",
        "",
    ]
    from seqspectral.io import atomic_write_text

    atomic_write_text(OUT, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
