"""The "where and how was this measured" line every results file starts with.

``describe(script, argv)`` gives the date, the machine, the CPUs the process may run on
(``taskset``), the BLAS / OpenMP / Numba thread counts, the load average, and the exact
command that reproduces the run (environment and ``taskset`` included), e.g.::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 taskset -c 1 python evaluation/bench_readers.py
"""

from __future__ import annotations

import datetime
import os
import platform
import shlex

THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS")
#: the load average when the script started (imported this module)
LOAD_AT_START = os.getloadavg()


def _cpu_list(cpus) -> str:
    return ",".join(str(c) for c in sorted(cpus))


def command(script: str, argv) -> str:
    """The shell command of this run: thread variables, ``taskset`` and the arguments."""
    env = " ".join(f"{v}={os.environ[v]}" for v in THREAD_VARS if v in os.environ)
    cpus = os.sched_getaffinity(0)
    pin = f"taskset -c {_cpu_list(cpus)} " if len(cpus) < (os.cpu_count() or 1) else ""
    return " ".join(x for x in (env, f"{pin}python {script}", shlex.join(list(argv))) if x)


def describe(script: str, argv) -> str:
    """One paragraph: date, machine, pinning, threads, load average, command."""
    cpus = os.sched_getaffinity(0)
    threads = ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in THREAD_VARS)
    single = all(os.environ.get(v) == "1" for v in THREAD_VARS[:2])
    if len(cpus) == 1:
        how = (f"pinned to CPU {_cpu_list(cpus)}, {threads} (every timed side, peers' worker processes included, "
               f"runs on that one core{' with one BLAS thread' if single else ''}; ratios compare like with like)")
    else:
        how = f"not pinned: CPUs {_cpu_list(cpus)} of {os.cpu_count()}, {threads}"
    load = ", ".join(f"{x:.2f}" for x in LOAD_AT_START)
    return (f"Date {datetime.date.today().isoformat()} · machine: {os.cpu_count()}-core {platform.machine()}, "
            f"Python {platform.python_version()} · {how} · load average at start {load} · "
            f"command: `{command(script, argv)}`")
