"""``lm train --method convex`` against ``--method spectral-substring`` on the same data, in one run.

Issue 11's target: the convex automaton's whole command at most 10x the spectral one's, on
the bundled toy PAutomaC problem, on EWT's UPOS tags (choices on dev) and on a PAutomaC
problem. Each command runs ``--repeats`` times after a warm-up (Numba cache filled); the
best wall and CPU seconds of each are kept, and the perplexity each model gets on the test
file is printed beside them.

Usage: python -m evaluation convex_speed [--repeats 3] [--problem 1]
Writes evaluation/results/convex_speed.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


from .common import EWT, PAUTOMAC, REPO, RESULTS, SEQSPECTRAL, best_of, describe, markdown_table, require_data, write_results  # noqa: E402

OUT = RESULTS / "convex_speed.md"


def datasets(problem: int) -> list[tuple[str, Path, list[str], Path]]:
    """(name, train, extra train arguments, test)."""
    ewt, pautomac = EWT, PAUTOMAC
    return [
        ("toy PAutomaC (bundled, 2,000 strings)", REPO / "corpora" / "toy.pautomac.train", [],
         REPO / "corpora" / "toy.pautomac.test"),
        ("EWT UPOS, choices on dev", ewt / "en_ewt-ud-train.conllu", ["--dev", str(ewt / "en_ewt-ud-dev.conllu")],
         ewt / "en_ewt-ud-test.conllu"),
        (f"PAutomaC {problem}", pautomac / f"{problem}.pautomac.train", [], pautomac / f"{problem}.pautomac.test"),
    ]


def perplexity(model: Path, test: Path) -> float:
    out = subprocess.run(SEQSPECTRAL + ["lm", "eval", str(model), str(test), "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["perplexity"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--problem", type=int, default=1)
    args = ap.parse_args(argv)
    sets = datasets(args.problem)
    require_data(*(p for _, train, extra, test in sets for p in (train, test)), script="convex_speed.py")
    header = describe("evaluation/convex_speed.py", sys.argv[1:] if argv is None else argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, train, extra, test in sets:
            cells = {}
            for method in ("spectral-substring", "convex"):
                model = Path(tmp) / f"{method}.npz"
                cmd = SEQSPECTRAL + ["lm", "train", str(train), "-o", str(model), "--method", method, "--quiet", *extra]
                subprocess.run(cmd, check=True, capture_output=True)  # warm-up
                cells[method] = (*best_of(cmd, args.repeats), perplexity(model, test))
            s, c = cells["spectral-substring"], cells["convex"]
            rows.append([name, f"{s[0]:.2f} / {s[1]:.2f}", f"{c[0]:.2f} / {c[1]:.2f}",
                         f"**{c[0] / s[0]:.1f}x** / **{c[1] / s[1]:.1f}x**", f"{s[2]:.3f}", f"{c[2]:.3f}"])
    lines = ["# `lm train --method convex` against `--method spectral-substring`", "", header, "",
             f"Best of {args.repeats} runs of the whole command after a warm-up; wall / CPU seconds. Perplexity on "
             "the test file (toy: its .test; EWT: test; PAutomaC: its .test).", "",
             *markdown_table(["data", "spectral-substring (s)", "convex (s)", "convex / spectral",
                              "perplexity spectral", "convex"], rows), ""]
    write_results(OUT, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
