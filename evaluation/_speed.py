"""Timing a spectral fit at one basis and rank, ours against scikit-splearn's, like with like.

Both sides fit the same configuration from the same file: the basis is every prefix and
suffix (classic) or substring (factor) up to length L observed in the training strings —
the basis scikit-splearn's ``Spectral(lrows=L, lcolumns=L, partial=True, sparse=True)``
builds (``evaluation/bench_counting.py`` checks that the two Hankel matrices are equal) —
and the rank is given. Each side runs ``repeats`` times in one process and keeps the
fastest run (wall seconds):

- ours, in the calling process: read the file (``read``), choose the basis, and
  ``SpectralWA(n_states=rank, basis=basis).fit`` (count, SVD, build the automaton); the
  first call, which loads the Numba cache and the lazy imports, is timed apart;
- scikit-splearn, in one worker process of its numpy<2 venv (``_splearn_speed_worker.py``):
  ``load_data_sample`` + ``Spectral(...).fit``.
"""

from __future__ import annotations

import time
from pathlib import Path

from ._splearn import run_worker

STATISTIC = {"classic": "string", "factor": "substring"}
WORKER = Path(__file__).resolve().parent / "_splearn_speed_worker.py"


def _our_fit(read, path, version: str, length: int, rank: int) -> dict:
    from seqspectral.automata.spectral import SpectralWA
    from seqspectral.counting import HankelBasis

    statistic = STATISTIC[version]
    t0 = time.perf_counter()
    train = read(path)
    t1 = time.perf_counter()
    basis = HankelBasis.from_corpus(train, statistic, n_prefixes=10**9, n_suffixes=10**9, max_length=length)
    t2 = time.perf_counter()
    SpectralWA(n_states=rank, basis=basis, statistic=statistic, floor=0.01).fit(train)
    t3 = time.perf_counter()
    return {"seconds": t3 - t0, "read": t1 - t0, "basis": t2 - t1, "fit": t3 - t2,
            "shape": f"{basis.n_prefixes:,}×{basis.n_suffixes:,}"}


def ours(read, path, version: str, length: int, rank: int, repeats: int = 3) -> dict:
    """The fastest of ``repeats`` end-to-end fits after a first call (``first_call`` seconds)."""
    first = _our_fit(read, path, version, length, rank)["seconds"]
    best = min((_our_fit(read, path, version, length, rank) for _ in range(repeats)), key=lambda r: r["seconds"])
    return {**best, "first_call": first, "repeats": repeats}


def splearn(path, version: str, length: int, rank: int, repeats: int = 3, timeout: float | None = None) -> dict:
    """scikit-splearn's fastest of ``repeats`` load + fit, and the parts of that run."""
    _, values = run_worker(WORKER, {"path": str(path), "version": version, "lrows": length, "lcolumns": length,
                                    "rank": rank, "repeats": repeats}, timeout=timeout)
    return {"seconds": min(values["seconds"]), "load": values["load_seconds"], "fit": values["fit_seconds"],
            "repeats": repeats}
