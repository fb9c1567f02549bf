"""Benchmark: `lm train` end to end against scikit-splearn's factor fit, 1x and 10x data (issue 30).

Data: a PAutomaC problem (``--problem``, default 13: 100,000 training strings, 4 symbols,
0.89M tokens). The issue's problem 47 (10.1M tokens at 10x) is not among the shared problems;
scikit-splearn's 49.7 s on it (4.9 µs a token) points to a small alphabet (the factor basis
grows as |Σ|³: on problem 36, 9 symbols, it takes 32 µs a token), and 13 is the 4-symbol
100,000-string problem closest to it in tokens. As given (1x) and replicated ten times to
1,000,000 strings (10x; written once to ``evaluation/_work``, ``common.replicated``).

Timed, interleaved, best of ``--repeats`` (wall and child CPU seconds), each a fresh process:

- ours: ``seqspectral lm train FILE -o m.npz --method spectral-substring --states 20
  --basis-length 3 --format pautomac --quiet`` (start-up, Numba cache load, reading,
  counting, SVD, the floor and mixture-weight choice on a held-out 20%, refit, saving);
  one warm-up run first (the Numba cache filled);
- scikit-splearn: ``load_data_sample`` + ``Spectral(rank=20, lrows=3, lcolumns=3,
  version="factor", partial=True, sparse=True).fit`` in a fresh process of its numpy<2 venv
  (``_splearn_speed_worker.py``, one repeat per process);
- ours with ``--states auto`` once, beside.

Then ``--repeats`` more runs of ours, each in a fresh process under cProfile (``_phases.py``,
CPU clock), split its time into phases, each phase's figure the least of the runs; the
selection's share is printed against the counting's.

The floor (issue 43): what a fresh process of ours pays before any work, best of
``--repeats`` fresh processes each: the interpreter, numpy, the ARPACK SVD's scipy, Numba,
and Numba's first call of a cached kernel (its typing and target registries, which import
``scipy.linalg`` to check for BLAS, and ``numpy.ma`` through its ``typeof``) — beside the
tenth and twenty-fifth of scikit-splearn's time that the targets leave ours.

``--bytecode-cache``: every process (ours, scikit-splearn's, the floor's) with Python's
compiled-module cache (in ``evaluation/_work/pycache``, written by warm-up runs), as
installed packages start; without it, under this sandbox's ``PYTHONDONTWRITEBYTECODE=1``,
our package's modules and all of scikit-splearn's venv (numpy and scipy included: it holds
no ``.pyc``) are compiled from source at every start.

    python -m evaluation bench_lm_train [--repeats 3] [--sizes 1 10] [--problem 13] [--bytecode-cache]
    # writes results/lm_train.md (with --bytecode-cache: results/lm_train_cached.md)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from ._phases import phases, run
from ._splearn import SPLEARN
from .common import EVALUATION, PAUTOMAC, RESULTS, SEQSPECTRAL, describe, log, replicated, require_data, write_results

OUT = RESULTS / "lm_train.md"
WORKER = EVALUATION / "_splearn_speed_worker.py"
#: phase -> the library functions whose time it is (file suffix, function name)
PHASES = {
    "reading": [["corpus/readers.py", "read_corpus"]],
    "Hankel basis": [["counting/basis.py", "from_corpus"]],
    "counting (Hankel + n-gram)": [["counting/hankel.py", "hankel_statistics"], ["lm/ngram.py", "ngram_counts"]],
    "SVD and automaton": [["automata/spectral.py", "_prepare"], ["automata/spectral.py", "_build"]],
    "selection (floor x weight sweep, n-gram k)": [["automata/floor_sweep.py", "floor_sweep"],
                                                   ["lm/ngram.py", "_k_scores"], ["lm/ngram.py", "event_log_probs"],
                                                   ["lm/mixture.py", "select_weight"]],
    "saving": [["lm/trained.py", "save_lm"]],
}


def ours_command(path: Path, model: Path, states="20") -> list[str]:
    return SEQSPECTRAL + ["lm", "train", str(path), "-o", str(model), "--method", "spectral-substring",
                          "--states", states, "--basis-length", "3", "--format", "pautomac", "--quiet"]


def splearn_command(path: Path, tmp: Path) -> list[str]:
    (tmp / "input.json").write_text(json.dumps({"path": str(path), "version": "factor", "lrows": 3, "lcolumns": 3,
                                                "rank": 20, "repeats": 1}))
    return [str(SPLEARN.ensure()), str(WORKER), str(tmp)]


def measure(problem: Path, copies: int, repeats: int, tmp: Path) -> dict:
    path = replicated(problem, copies)
    model = tmp / "m.npz"
    run(ours_command(path, model))  # warm-up: the Numba cache
    ours, theirs = [], []
    for r in range(repeats):  # interleaved: both sides see the same machine
        ours.append(run(ours_command(path, model)))
        theirs.append(run(splearn_command(path, tmp)))
        log(f"{copies}x repeat {r + 1}: ours {ours[-1][0]:.2f} s, scikit-splearn {theirs[-1][0]:.2f} s")
    from seqspectral.lm import load_lm

    chosen = load_lm(model).selection.chosen
    auto = run(ours_command(path, tmp / "auto.npz", "auto"))
    auto_chosen = load_lm(tmp / "auto.npz").selection.chosen
    return {"copies": copies, "path": path, "ours": min(ours), "splearn": min(theirs),
            "ours_cpu": min(c for _, c in ours), "splearn_cpu": min(c for _, c in theirs), "chosen": chosen,
            "auto": auto, "auto_chosen": auto_chosen, "phases": least_phases(path, model, repeats, tmp)}


#: what a fresh process of ours pays before any work: (what, Python code run with ``python -c``)
FLOOR = [
    ("the interpreter (`python -c pass`)", "pass"),
    ("+ numpy", "import numpy"),
    ("+ scipy.sparse.linalg (the ARPACK SVD)", "import numpy, scipy.sparse.linalg"),
    ("+ Numba", "import numpy, scipy.sparse.linalg, numba"),
    ("+ Numba's first call of a cached kernel (the floor)",
     "import numpy as np, scipy.sparse.linalg\nfrom seqspectral.corpus._kernels import integer_lines\n"
     "integer_lines(np.frombuffer(b'1 0\\n', np.uint8), 1, np.empty(8, np.int32), np.empty(4, np.int64), "
     "np.empty(4, np.int8))"),
]


def floor(repeats: int) -> list[tuple[str, float, float]]:
    """(what, best wall, best CPU seconds) of each :data:`FLOOR` step, fresh processes."""
    rows = []
    for what, code in FLOOR:
        command = [sys.executable, "-c", code]
        run(command)  # warm: the bytecode and Numba caches
        runs = [run(command) for _ in range(repeats)]
        rows.append((what, min(w for w, _ in runs), min(c for _, c in runs)))
        log(f"floor: {what}: {rows[-1][1]:.3f} s wall, {rows[-1][2]:.3f} s CPU")
    return rows


def least_phases(path: Path, model: Path, repeats: int, tmp: Path) -> dict:
    """``_phases.phases`` of ``repeats`` more fresh runs of ours, each figure the least of them
    (as the timings are the best of their repeats: the machine's noise only adds)."""
    runs = [phases(ours_command(path, model)[len(SEQSPECTRAL):], PHASES, tmp) for _ in range(repeats)]
    return {"total": min(r["total"] for r in runs), "startup": min(r["startup"] for r in runs),
            "phases": {name: min(r["phases"][name] for r in runs) for name in PHASES}}


def _choice(chosen: dict) -> str:
    return ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in chosen.items())


def report(records, repeats: int, problem: int, floor_rows=()) -> str:
    lines = [f"# `lm train` against scikit-splearn (issue 30)", "", describe("bench_lm_train", sys.argv[1:]) + ".", "",
             f"PAutomaC problem {problem} (the issue's problem 47 is not among the shared problems: see the "
             "script's docstring for the choice), 1x = its 100,000 training strings, 10x = them ten "
             f"times (1,000,000 strings). Fresh processes, interleaved, best of {repeats} (wall; CPU = the "
             "child's user + system seconds); scikit-splearn: `load_data_sample` + `Spectral(rank=20, lrows=3, "
             "lcolumns=3, version='factor', partial=True, sparse=True).fit` (the same basis and rank).", "",
             "| data | ours s | scikit-splearn s | ratio | ours CPU s | scikit-splearn CPU s | CPU ratio | chosen | "
             "`--states auto` s (chosen) |", "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in records:
        lines.append(f"| {r['copies']}x | {r['ours'][0]:.2f} | {r['splearn'][0]:.2f} | "
                     f"**{r['splearn'][0] / r['ours'][0]:.1f}x** | {r['ours_cpu']:.2f} | {r['splearn_cpu']:.2f} | "
                     f"{r['splearn_cpu'] / r['ours_cpu']:.1f}x | {_choice(r['chosen'])} | "
                     f"{r['auto'][0]:.2f} ({_choice(r['auto_chosen'])}) |")
    lines += ["", f"Phases of ours, the least of {repeats} more runs each (fresh processes, cProfile on the CPU clock; start-up = the "
              "interpreter and the command line's imports; the rest = Numba cache loads, splitting, sorting, "
              "arguments):", "", "| phase | " + " | ".join(f"{r['copies']}x CPU s" for r in records) + " |",
              "|---|" + "---:|" * len(records)]
    names = ["start-up"] + list(PHASES) + ["the rest"]
    for name in names:
        cells = []
        for r in records:
            p = r["phases"]
            value = p["startup"] if name == "start-up" else p["phases"].get(name)
            if name == "the rest":
                value = p["total"] - p["startup"] - sum(p["phases"].values())
            cells.append(f"{value:.2f} ({value / p['total']:.0%})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("| total | " + " | ".join(f"{r['phases']['total']:.2f}" for r in records) + " |")
    lines.append("")
    for r in records:
        p = r["phases"]["phases"]
        sel, count = p["selection (floor x weight sweep, n-gram k)"], p["counting (Hankel + n-gram)"]
        lines.append(f"- {r['copies']}x: the selection takes {sel / r['phases']['total']:.0%} of `lm train`'s time, "
                     f"the counting {count / r['phases']['total']:.0%} (selection / counting = {sel / count:.2f}).")
    if floor_rows:
        budget = "; ".join(f"{r['copies']}x: a tenth {r['splearn'][0] / 10:.3f} s, a twenty-fifth "
                           f"{r['splearn'][0] / 25:.3f} s" for r in records)
        lines += ["", f"The floor: what a fresh process of ours pays before any work (best of {repeats} fresh "
                  "processes each, `python -c`; each row adds to the one above). scikit-splearn's wall time "
                  f"divided by the targets' 10 and 25 leaves ours: {budget}.", "",
                  "| fresh process | wall s | CPU s |", "|---|---:|---:|",
                  *(f"| {what} | {wall:.3f} | {cpu:.3f} |" for what, wall, cpu in floor_rows)]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10], help="copies of the problem's strings")
    parser.add_argument("--problem", type=int, default=13)
    parser.add_argument("--bytecode-cache", action="store_true",
                        help="every process with Python's compiled-module cache, as installed packages start")
    parser.add_argument("--out", default=None, help="default results/lm_train.md (lm_train_cached.md with the cache)")
    args = parser.parse_args()
    problem = PAUTOMAC / f"{args.problem}.pautomac.train"
    require_data(problem, script="bench_lm_train.py")
    if args.bytecode_cache:  # inherited by every child process
        os.environ["PYTHONPYCACHEPREFIX"] = str(EVALUATION / "_work" / "pycache")
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    out = args.out or str(OUT.with_name("lm_train_cached.md") if args.bytecode_cache else OUT)
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        run(splearn_command(problem, Path(tmp)))  # warm-up: its venv's modules (compiled, with the cache)
        for copies in args.sizes:
            records.append(measure(problem, copies, args.repeats, Path(tmp)))
            log(report(records, args.repeats, args.problem))
    rows = floor(args.repeats)
    write_results(out, report(records, args.repeats, args.problem, rows))
    print(report(records, args.repeats, args.problem, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
