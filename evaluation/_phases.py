"""Where a ``seqspectral`` command spends its CPU time: run it in a fresh child process under
``cProfile`` (process-time clock) and add up the cumulative time of named library functions.

``python evaluation/_phases.py OUT.json PHASES.json -- seqspectral ARGS...`` writes
``{"total": s, "startup": s, "phases": {name: s}}``: ``startup`` is the CPU time before
the command starts (interpreter and imports of the command line), each phase the summed
cumulative time of its ``(file suffix, function name)`` pairs (outermost calls only, so a
function calling itself or another of the same phase is not counted twice).
"""

from __future__ import annotations

import cProfile
import json
import pstats
import sys
import time


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
    phases = json.loads(open(phases_file).read())
    result = {"total": total, "startup": imported - start,
              "phases": {name: _phase_seconds(stats, fns) for name, fns in phases.items()}}
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
