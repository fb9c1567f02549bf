"""Run a peer that cannot share the project's environment in a virtual environment of its own.

scikit-splearn needs numpy<2 while the project runs on numpy 2; spaCy brings its own pins.
A :class:`PeerVenv` names a venv under ``evaluation/.venv-<name>`` with its requirements
and an import check; ``ensure()`` creates it once, ``run_worker(script, payload)`` runs a
worker script there, handing it data through files in a temporary directory:

- the caller's ``payload`` (a dict of numpy arrays and JSON-able values) is written to
  ``<dir>/input.npz`` (arrays) and ``<dir>/input.json`` (everything else);
- the worker is run as ``<venv python> script [args...] <dir>`` and writes ``<dir>/output.npz`` and/or
  ``<dir>/output.json``;
- ``run_worker`` returns ``(arrays, values)``: dict of arrays and the decoded JSON (or {}).

A worker reads its input with the stdlib and numpy only (``json`` + ``np.load``); the helpers
``read_input(dir)`` and ``write_output(dir, arrays, values)`` below do it and import nothing
but numpy, so a worker may import them from this file inside its venv.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class PeerVenv:
    """``evaluation/.venv-<name>`` with ``requirements`` installed; ``check`` is Python code that
    runs without error in the venv once it is ready."""

    name: str
    requirements: tuple[str, ...]
    check: str

    @property
    def venv(self) -> Path:
        return HERE / f".venv-{self.name}"

    @property
    def python(self) -> Path:
        return self.venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")

    def ready(self) -> bool:
        return self.python.exists() and subprocess.run(
            [str(self.python), "-c", self.check], capture_output=True).returncode == 0

    def ensure(self, quiet: bool = True) -> Path:
        """The venv's python, creating the venv and installing the requirements when missing."""
        if self.name not in _READY and not self.ready():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(self.venv)], check=True)
            pip = [str(self.python), "-m", "pip", "install", "--disable-pip-version-check"] + (["-q"] if quiet else [])
            subprocess.run(pip + list(self.requirements), check=True)
        _READY.add(self.name)
        return self.python

    def run_worker(self, script: str | Path, payload: dict | None = None, args=(),
                   timeout: float | None = None) -> tuple[dict, dict]:
        """Run ``<venv python> script *args <dir>`` on ``payload``; return (arrays, json values).

        ``timeout`` (seconds) raises ``subprocess.TimeoutExpired`` when the worker runs longer.
        """
        python = self.ensure()
        payload = payload or {}
        arrays = {k: v for k, v in payload.items() if isinstance(v, np.ndarray)}
        values = {k: v for k, v in payload.items() if not isinstance(v, np.ndarray)}
        with tempfile.TemporaryDirectory(prefix=f"{self.name}-") as tmp:
            tmp = Path(tmp)
            np.savez(tmp / "input.npz", **arrays)
            (tmp / "input.json").write_text(json.dumps(values))
            proc = subprocess.run([str(python), str(script), *args, str(tmp)], capture_output=True, text=True,
                                  timeout=timeout)
            if proc.returncode != 0:
                raise RuntimeError(f"{self.name} worker {script} failed:\n{proc.stderr[-4000:]}")
            out_arrays = {}
            if (tmp / "output.npz").exists():
                with np.load(tmp / "output.npz", allow_pickle=False) as z:
                    out_arrays = {k: z[k] for k in z.files}
            out_values = json.loads((tmp / "output.json").read_text()) if (tmp / "output.json").exists() else {}
        return out_arrays, out_values


_READY: set[str] = set()


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
