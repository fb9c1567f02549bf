"""Run scikit-splearn (which needs numpy<2) in its own virtual environment.

The project runs on numpy 2, scikit-splearn on numpy 1, so the two cannot share a process.
``ensure_venv()`` creates (once) ``evaluation/.venv-splearn`` with ``numpy<2`` and
``scikit-splearn``; ``run_worker(script, payload)`` runs a worker script there, handing it
data through files in a temporary directory:

- the caller's ``payload`` (a dict of numpy arrays and JSON-able values) is written to
  ``<dir>/input.npz`` (arrays) and ``<dir>/input.json`` (everything else);
- the worker is run as ``<venv python> script [args...] <dir>`` and writes ``<dir>/output.npz`` and/or
  ``<dir>/output.json``;
- ``run_worker`` returns ``(arrays, values)``: dict of arrays and the decoded JSON (or {}).

A worker reads its input with the stdlib and numpy only (``json`` + ``np.load``); the helpers
``read_input(dir)`` and ``write_output(dir, arrays, values)`` below do it and import nothing
but numpy, so a worker may import them from this file inside the venv.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

VENV = Path(__file__).resolve().parent / ".venv-splearn"
REQUIREMENTS = ["numpy<2", "scipy<1.14", "scikit-splearn"]


def venv_python(venv: Path = VENV) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


_READY: set[Path] = set()


def ensure_venv(venv: Path = VENV, quiet: bool = True) -> Path:
    """The venv's python, creating the venv and installing scikit-splearn when missing."""
    python = venv_python(venv)
    if venv in _READY:
        return python
    ok = python.exists() and subprocess.run(
        [str(python), "-c", "import splearn, numpy; assert numpy.__version__ < '2'"],
        capture_output=True,
    ).returncode == 0
    if not ok:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check"] + (["-q"] if quiet else [])
        subprocess.run(pip + REQUIREMENTS, check=True)
    _READY.add(venv)
    return python


def run_worker(script: str | Path, payload: dict | None = None, args: list[str] = (),
               timeout: float | None = None, venv: Path = VENV) -> tuple[dict, dict]:
    """Run ``<venv python> script *args <dir>`` on ``payload``; return (arrays, json values).

    ``timeout`` (seconds) raises ``subprocess.TimeoutExpired`` when the worker runs longer.
    """
    python = ensure_venv(venv)
    payload = payload or {}
    arrays = {k: v for k, v in payload.items() if isinstance(v, np.ndarray)}
    values = {k: v for k, v in payload.items() if not isinstance(v, np.ndarray)}
    with tempfile.TemporaryDirectory(prefix="splearn-") as tmp:
        tmp = Path(tmp)
        np.savez(tmp / "input.npz", **arrays)
        (tmp / "input.json").write_text(json.dumps(values))
        proc = subprocess.run([str(python), str(script), *args, str(tmp)], capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"splearn worker {script} failed:\n{proc.stderr[-4000:]}")
        out_arrays = {}
        if (tmp / "output.npz").exists():
            with np.load(tmp / "output.npz", allow_pickle=False) as z:
                out_arrays = {k: z[k] for k in z.files}
        out_values = json.loads((tmp / "output.json").read_text()) if (tmp / "output.json").exists() else {}
    return out_arrays, out_values


def read_input(directory) -> tuple[dict, dict]:
    """Inside a worker: the (arrays, values) the caller passed."""
    directory = Path(directory)
    with np.load(directory / "input.npz", allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    return arrays, json.loads((directory / "input.json").read_text())


def write_output(directory, arrays: dict | None = None, values: dict | None = None) -> None:
    """Inside a worker: hand (arrays, values) back to the caller."""
    directory = Path(directory)
    np.savez(directory / "output.npz", **(arrays or {}))
    (directory / "output.json").write_text(json.dumps(values or {}))
