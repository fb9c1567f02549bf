"""What every benchmark shares: where the data is, progress logging, one timer, markdown
tables, the provenance line, and atomic results files.

- Paths come from here only: :data:`REPO`, :data:`RESULTS` (``evaluation/results``),
  :data:`SHARED` (``../shared/corpora``), :data:`EWT`, :data:`PAUTOMAC`, :data:`NLTK_DATA`.
- :func:`log` writes progress to stderr (stdout stays for the table).
- :func:`timed` / :func:`run_timed` time a call / a command: wall seconds, this process's CPU
  seconds and the CPU seconds of child processes, in one :class:`Timing`.
- :func:`markdown_table` renders a header and rows.
- :func:`describe` is the "where and how was this measured" line every results file starts
  with: date, machine, the CPUs the process may run on (``taskset``), the BLAS / OpenMP /
  Numba thread counts, the load average, and the exact command (``python -m evaluation NAME``).
- :func:`require_data` stops a run at once (exit 2, the missing paths named) when its data is
  absent; :func:`write_results` writes the complete results file once, atomically, at the end
  (a run stopped part-way leaves the committed file as it was).
"""

from __future__ import annotations

import datetime
import os
import platform
import resource
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVALUATION = REPO / "evaluation"
RESULTS = EVALUATION / "results"
#: generated inputs of the benchmarks (replicated files), not committed
WORK = EVALUATION / "_work"
SHARED = REPO.parent / "shared" / "corpora"
EWT = SHARED / "ud-english-ewt"
PAUTOMAC = SHARED / "pautomac"
NLTK_DATA = Path(os.environ.get("NLTK_DATA") or SHARED / "nltk_data")
#: the command-line interface, run in a child process
SEQSPECTRAL = [sys.executable, "-m", "seqspectral.cli.main"]

THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS")
#: the load average when the run started (imported this module)
LOAD_AT_START = os.getloadavg()


def ewt(split: str) -> Path:
    """UD English-EWT's ``train``, ``dev`` or ``test`` CoNLL-U file."""
    return EWT / f"en_ewt-ud-{split}.conllu"


def log(message: str) -> None:
    """Progress to stderr, flushed: ``[NAME HH:MM:SS] message`` (NAME: the running benchmark)."""
    name = Path(sys.argv[0]).stem if sys.argv and sys.argv[0].endswith(".py") else sys.argv[0].split()[-1]
    print(f"[{name} {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- timing ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Timing:
    """Seconds of one timed run: ``wall``, ``cpu`` (this process), ``child_cpu`` (its children)."""

    wall: float
    cpu: float
    child_cpu: float


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(fn, *args, **kwargs):
    """``(fn(*args, **kwargs), Timing)``."""
    wall, cpu, child = time.perf_counter(), time.process_time(), _child_cpu()
    out = fn(*args, **kwargs)
    return out, Timing(time.perf_counter() - wall, time.process_time() - cpu, _child_cpu() - child)


def run_timed(command, **kwargs) -> Timing:
    """The :class:`Timing` of running ``command`` (fails loudly; output captured unless redirected)."""
    kwargs.setdefault("capture_output", "stdout" not in kwargs and "stderr" not in kwargs)
    return timed(subprocess.run, command, check=True, **kwargs)[1]


def best_of(command, repeats: int, **kwargs) -> tuple[float, float]:
    """(best wall, best child CPU seconds) of ``repeats`` runs of ``command``."""
    runs = [run_timed(command, **kwargs) for _ in range(repeats)]
    return min(r.wall for r in runs), min(r.child_cpu for r in runs)


# -- tables --------------------------------------------------------------------------------
def markdown_table(header, rows, align: str | None = None) -> list[str]:
    """Lines of a markdown table; ``align`` has one letter a column: ``l`` left, ``r`` right
    (default: the first column left, the others right)."""
    align = align or "l" + "r" * (len(header) - 1)
    if len(align) != len(header):
        raise ValueError(f"align {align!r} has {len(align)} letters for {len(header)} columns")
    rule = {"l": "---", "r": "---:", "c": ":---:"}
    out = ["| " + " | ".join(map(str, header)) + " |", "|" + "|".join(rule[a] for a in align) + "|"]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"row {row!r} has {len(row)} cells for {len(header)} columns")
        out.append("| " + " | ".join(map(str, row)) + " |")
    return out


# -- provenance ----------------------------------------------------------------------------
def _cpu_list(cpus) -> str:
    return ",".join(str(c) for c in sorted(cpus))


def command(script: str, argv) -> str:
    """The shell command of this run: thread variables, ``taskset``, ``python -m evaluation NAME``
    and the arguments (``script`` is the benchmark's name or its file)."""
    env = " ".join(f"{v}={os.environ[v]}" for v in THREAD_VARS if v in os.environ)
    cpus = os.sched_getaffinity(0)
    pin = f"taskset -c {_cpu_list(cpus)} " if len(cpus) < (os.cpu_count() or 1) else ""
    run = f"{pin}python -m evaluation {Path(script).stem}"
    return " ".join(x for x in (env, run, shlex.join(list(argv))) if x)


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


# -- data in, results out ----------------------------------------------------------------
def require_data(*paths, script: str | None = None, hint: str = "") -> None:
    """Exit with status 2, naming every missing path, unless all of ``paths`` exist."""
    missing = [str(p) for p in paths if not Path(p).exists()]
    if missing:
        name = script or Path(sys.argv[0]).name
        print(f"{name}: data not found: {', '.join(missing)}{'; ' + hint if hint else ''}", file=sys.stderr)
        raise SystemExit(2)


def write_results(path, text: str) -> None:
    """Write the complete results file ``path`` atomically (call it once, at the end of the run)."""
    from seqspectral.io import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text if text.endswith("\n") else text + "\n")


def written_once(out: Path, write) -> Path:
    """``out``, made by ``write(temporary path)`` (then renamed) unless it exists already."""
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        write(tmp)
        tmp.replace(out)
    return out


def replicated(path: Path, copies: int) -> Path:
    """``path`` with its content ``copies`` times, written once to :data:`WORK`: a PAutomaC
    file with its header's count updated, a zip with every member's text ``copies`` times
    (``cats.txt`` and folders as they are), any other file byte for byte."""
    import zipfile

    path = Path(path)
    if copies == 1:
        return path
    out = WORK / f"x{copies}-{path.name}"
    if path.suffix == ".zip":
        def write(tmp):
            with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
                for name in src.namelist():
                    data = src.read(name)
                    dst.writestr(name, data if name.endswith("cats.txt") or name.endswith("/") else data * copies)
        return written_once(out, write)
    data = path.read_bytes()
    if ".pautomac." in path.name:
        header, _, body = data.partition(b"\n")
        n, k = header.split()
        body = body if body.endswith(b"\n") else body + b"\n"
        return written_once(out, lambda tmp: tmp.write_bytes(b"%d %s\n" % (int(n) * copies, k) + body * copies))
    return written_once(out, lambda tmp: tmp.write_bytes(data * copies))
