"""Numba's OpenMP threads on a busy machine: spinning (libgomp's default) against asleep while they wait.

A child process trains the dependency parser on the first 150 sentences of the bundled EWT
sample and times its 10-best lists of the other 150 (`DependencyParser.kbest`, a kernel on every
core), best of ``--repeats``, with ``OMP_WAIT_POLICY`` ACTIVE (what libgomp does by default) and
PASSIVE (what ``import seqspectral`` sets unless the user set it; docs/speed.md, "Threads on a
busy machine"); on the machine as it is, and beside ``--competitors`` processes that only spin,
at the same niceness and with the child at niceness +10 (a job run in the background with
`nice`, or any process on a machine busy with more urgent work). The lists are checked to be
the same under every setting.

Usage: python -m evaluation busy_threads [--repeats 3] [--competitors 2]
(writes evaluation/results/busy_threads.md)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from .common import REPO, RESULTS, describe, log, markdown_table, write_results

OUT = RESULTS / "busy_threads.md"
SAMPLE = REPO / "corpora" / "ewt-sample.conllu"
CHILD = """
import hashlib, json, sys, time
from seqspectral.corpus import read_conllu
from seqspectral.parsing import DependencyParser
sentences = read_conllu(sys.argv[1])
parser = DependencyParser(epochs=3, hash_bits=18, use_xpos=False, use_feats=False).fit(sentences[:150])
best = None
for _ in range(int(sys.argv[2])):
    wall, cpu = time.perf_counter(), time.process_time()
    lists = parser.kbest(sentences[150:], 10)
    run = (time.perf_counter() - wall, time.process_time() - cpu)
    best = run if best is None or run[0] < best[0] else best
digest = hashlib.sha256(repr([[list(map(int, c.heads)) for c in lst.candidates] for lst in lists]).encode()).hexdigest()
print(json.dumps({"wall": best[0], "cpu": best[1], "lists": digest}))
"""


def measure(policy: str, repeats: int, niceness: int) -> dict:
    env = {**os.environ, "OMP_WAIT_POLICY": policy}
    done = subprocess.run([sys.executable, "-c", CHILD, str(SAMPLE), str(repeats)], env=env, capture_output=True,
                          text=True, check=True, preexec_fn=lambda: os.nice(niceness))
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation busy_threads", description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed 10-best passes per setting (the best kept)")
    parser.add_argument("--competitors", type=int, default=2, help="spinning processes beside the busy runs")
    args = parser.parse_args()
    rows, digests = [], set()
    machines = [("as it is", 0, 0), (f"beside {args.competitors} spinning processes", args.competitors, 0),
                (f"beside {args.competitors} spinning processes, the child at niceness +10", args.competitors, 10)]
    for machine, competitors, niceness in machines:
        spinners = [
            subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(competitors)]
        try:
            for policy in ("ACTIVE", "PASSIVE"):
                run = measure(policy, args.repeats, niceness)
                digests.add(run["lists"])
                log(f"{machine}, {policy}: {run['wall']:.2f} s wall, {run['cpu']:.2f} CPU s")
                rows.append([machine, policy, f"{run['wall']:.2f}", f"{run['cpu']:.2f}"])
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
    if len(digests) != 1:
        print("python -m evaluation busy_threads: the 10-best lists differ between the settings", file=sys.stderr)
        return 1
    lines = [describe("busy_threads", sys.argv[1:]), "",
             "10-best lists of 150 sentences (the bundled EWT sample, parser trained on the other 150), best of "
             f"{args.repeats}; the lists are the same under every setting.", "",
             *markdown_table(["machine", "OMP_WAIT_POLICY", "wall s", "CPU s"], rows, "llrr"), ""]
    print("\n".join(lines))
    write_results(OUT, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
