"""`rerank build` progress off a terminal (issue 39 item 4): the longest silence between two lines.

One `seqspectral rerank build` of UD English-EWT (train, --dev dev, the defaults; a fresh build
directory), its standard error sent to a pipe as to a log file. Every line is timed as it
arrives; the table gives the lines, the longest gap between two of them (the rule: at most
30 s) and where it fell, the build's wall time and its CPU time (its process and children),
and the stage lines. ``--quick`` builds the bundled 300-sentence sample instead (a smoke test
of the harness, not a figure).

Usage: python -m evaluation build_progress [--quick] [--workdir DIR]
(writes evaluation/results/build_progress.md)
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import REPO, RESULTS, SEQSPECTRAL, describe, ewt, log, markdown_table, require_data, write_results

OUT = RESULTS / "build_progress.md"
#: the rule the build's progress keeps off a terminal
MAX_GAP_S = 30.0


def timed_lines(command: list[str]) -> tuple[list[tuple[float, str]], float, float, int]:
    """``(lines, wall, child CPU seconds, exit status)``: every line ``command`` writes on
    standard error (a pipe) with the seconds since the start."""
    start = time.perf_counter()
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    lines = []
    for line in proc.stderr:
        lines.append((time.perf_counter() - start, line.rstrip("\n")))
        log(f"{lines[-1][0]:7.1f} s  {lines[-1][1]}")
    status = proc.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)
    return lines, time.perf_counter() - start, child_cpu, status


def gaps(lines: list[tuple[float, str]], wall: float) -> list[tuple[float, str]]:
    """``(gap, the line that ended it)`` from the start to the first line, between lines, and
    from the last line to the end."""
    times = [0.0] + [t for t, _ in lines] + [wall]
    after = [text for _, text in lines] + ["(the end of the run)"]
    return [(b - a, text) for a, b, text in zip(times[:-1], times[1:], after)]


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation build_progress", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the bundled sample, a smoke test (no results file)")
    parser.add_argument("--workdir", type=Path, default=None, help="where the build directory goes (default: a "
                        "temporary directory, removed)")
    args = parser.parse_args()
    if args.quick:
        train, dev = REPO / "corpora" / "ewt-sample.conllu", REPO / "corpora" / "ewt-sample-dev.conllu"
        extra = ["-k", "10", "--folds", "2", "--epochs", "2", "--hash-bits", "18"]
    else:
        train, dev, extra = ewt("train"), ewt("dev"), []
        require_data(train, dev, hint="UD English-EWT in ../shared/corpora/ud-english-ewt")
    with tempfile.TemporaryDirectory(dir=args.workdir) as work:
        command = [*SEQSPECTRAL, "rerank", "build", str(train), "--dev", str(dev), "-o", str(Path(work) / "build"),
                   *extra]
        lines, wall, cpu, status = timed_lines(command)
    spans = gaps(lines, wall)
    longest, ended_by = max(spans)
    log(f"exit {status}; {len(lines)} lines in {wall:.1f} s; longest gap {longest:.1f} s (before: {ended_by})")
    if args.quick:
        return 0 if status == 0 else 1
    rows = [[f"{len(lines)}", f"{longest:.1f}", "yes" if longest <= MAX_GAP_S else "**no**", f"{wall:.0f}",
             f"{cpu:.0f}", f"{status}"]]
    text = ["# `rerank build` progress off a terminal", "", describe(__file__, sys.argv[1:]), "",
            f"Standard error of one `rerank build` of EWT train (--dev dev, defaults) read from a pipe; the "
            f"longest gap ended with: `{ended_by}`.", "",
            *markdown_table(["lines", "longest gap (s)", f"every gap <= {MAX_GAP_S:g} s", "wall (s)", "CPU (s)",
                             "exit"], rows, align="rrrrrr"), "", "The lines, with their seconds since the start:",
            "", "```", *(f"{t:8.1f}  {text}" for t, text in lines), "```"]
    write_results(OUT, "\n".join(text))
    log(f"wrote {OUT}")
    return 0 if status == 0 and longest <= MAX_GAP_S else 1
