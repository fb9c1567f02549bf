"""Timing ``seqspectral`` commands in fresh processes: :func:`run` (wall and the child's CPU
seconds) and :func:`phases` (where its CPU time goes).

:func:`phases` runs the command in a child process under ``cProfile`` (process-time clock) and
adds up the cumulative time of named library functions: the child,
``python evaluation/_phases.py OUT.json PHASES.json -- seqspectral ARGS...``, writes
``{"total": s, "startup": s, "phases": {name: s}}``: ``startup`` is the CPU time before
the command starts (interpreter and imports of the command line), each phase the summed
cumulative time of its ``(file suffix, function name)`` pairs (outermost calls only, so a
function calling itself or another of the same phase is not counted twice).
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import subprocess
import sys
import time
from pathlib import Path


def run(command) -> tuple[float, float]:
    """(wall, CPU of the child) seconds of one run of ``command`` (fails loudly)."""
    before = os.times()
    t0 = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def phases(seqspectral_args, named: dict, tmp: Path) -> dict:
    """``{"total", "startup", "phases": {name: CPU seconds}}`` of one fresh run of
    ``seqspectral *seqspectral_args``; ``named``: phase -> [[file suffix, function name], ...]."""
    (tmp / "phases.json").write_text(json.dumps(named))
    subprocess.run([sys.executable, __file__, str(tmp / "out.json"), str(tmp / "phases.json"), "--", "seqspectral",
                    *seqspectral_args], check=True, stdout=subprocess.DEVNULL)
    return json.loads((tmp / "out.json").read_text())


def _phase_seconds(stats: pstats.Stats, functions) -> float:
    wanted = {(suffix, name) for suffix, name in functions}
    keys = [k for k in stats.stats if any(k[0].endswith(s) and k[2] == n for s, n in wanted)]
    total = 0.0
    for key in keys:  # count only calls not made from another function of the phase
        _, _, _, cumulative, callers = stats.stats[key]
        inner = sum(v[3] for caller, v in callers.items() if caller in keys)
        total += cumulative - inner
    return total


def main() -> None:
    out, phases_file, rest = sys.argv[1], sys.argv[2], sys.argv[sys.argv.index("--") + 2:]
    start = time.process_time()
    from seqspectral.cli.main import main as seqspectral

    profile = cProfile.Profile(time.process_time)
    imported = time.process_time()
    try:
        profile.runcall(seqspectral, rest)
    except SystemExit as e:
        if e.code:
            raise
    total = time.process_time() - start
    stats = pstats.Stats(profile)
    named = json.loads(open(phases_file).read())
    result = {"total": total, "startup": imported - start,
              "phases": {name: _phase_seconds(stats, fns) for name, fns in named.items()}}
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
