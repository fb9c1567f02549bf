"""scikit-splearn worker for evaluation/pautomac.py (runs in the numpy<2 venv of _splearn.py).

Input (input.json): ``fit_path`` (PAutomaC-format training part), ``configs``: a list of
{"version", "lrows", "lcolumns", "ranks"}. For each config the Hankel matrix is built
once by splearn and ``Hankel.to_automaton(rank)`` gives every rank below the Hankel's size; each automaton is
transformed to string probabilities (splearn's ``transformation(..., "classic")``).
Output: output.npz with ``<i>_initial``, ``<i>_final``, ``<i>_transitions`` per model and
output.json with one record per model (version, lrows, lcolumns, rank, load_seconds,
fit_seconds: Hankel + SVD + automaton at that rank, as ``Spectral.fit`` would take).
"""

import json
import sys
import time
from pathlib import Path

import numpy as np
from splearn.datasets.base import load_data_sample
from splearn.spectral import Spectral


def main(tmp: Path) -> None:
    values = json.loads((tmp / "input.json").read_text())
    t0 = time.perf_counter()
    data = load_data_sample(values["fit_path"], filetype="Pautomac")
    load_seconds = time.perf_counter() - t0
    records, arrays = [], {}
    for config in values["configs"]:
        version = config["version"]
        ranks = sorted(config["ranks"])
        t0 = time.perf_counter()
        est = Spectral(rank=1, lrows=config["lrows"], lcolumns=config["lcolumns"], version=version,
                       partial=True, sparse=True, smooth_method="none", mode_quiet=True)
        est.fit(data.data)
        fit_seconds = time.perf_counter() - t0  # Hankel + the rank-1 automaton
        t1 = time.perf_counter()
        est._hankel.to_automaton(1, True)
        rank_one = time.perf_counter() - t1
        n_max = min(est._hankel.lhankel[0].shape)
        for rank in [r for r in ranks if r < n_max] or [max(n_max - 1, 1)]:
            t1 = time.perf_counter()
            automaton = est._hankel.to_automaton(rank, True)
            build = time.perf_counter() - t1
            if version != "classic":
                automaton = automaton.transformation(source=version, target="classic")
            i = len(records)
            arrays[f"{i}_initial"] = np.asarray(automaton.initial, dtype=np.float64)
            arrays[f"{i}_final"] = np.asarray(automaton.final, dtype=np.float64)
            arrays[f"{i}_transitions"] = np.asarray(automaton.transitions, dtype=np.float64)
            records.append({"version": version, "lrows": config["lrows"], "lcolumns": config["lcolumns"],
                            "rank": rank, "load_seconds": load_seconds,
                            "fit_seconds": fit_seconds - rank_one + build})
    np.savez(tmp / "output.npz", **arrays)
    (tmp / "output.json").write_text(json.dumps({"models": records}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
