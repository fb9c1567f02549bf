"""scikit-splearn worker for the speed comparison of evaluation/pautomac.py (numpy<2 venv).

Input (input.json): ``path`` (a PAutomaC training file), ``version``, ``lrows``,
``lcolumns``, ``rank``, ``repeats``. Each repeat is what a user of scikit-splearn runs to
fit that configuration: ``load_data_sample`` + ``Spectral(...).fit`` (Hankel, SVD,
automaton), timed with ``time.perf_counter`` in this one process.
Output (output.json): ``seconds`` (every repeat's total), ``load_seconds`` and
``fit_seconds`` (the parts of the fastest repeat).
"""

import json
import sys
import time
from pathlib import Path

from splearn.datasets.base import load_data_sample
from splearn.spectral import Spectral


def main(tmp: Path) -> None:
    values = json.loads((tmp / "input.json").read_text())
    runs = []
    for _ in range(int(values["repeats"])):
        t0 = time.perf_counter()
        data = load_data_sample(values["path"], filetype="Pautomac")
        t1 = time.perf_counter()
        Spectral(rank=values["rank"], lrows=values["lrows"], lcolumns=values["lcolumns"], version=values["version"],
                 partial=True, sparse=True, smooth_method="none", mode_quiet=True).fit(data.data)
        t2 = time.perf_counter()
        runs.append((t2 - t0, t1 - t0, t2 - t1))
    best = min(runs)
    (tmp / "output.json").write_text(json.dumps({"seconds": [r[0] for r in runs], "load_seconds": best[1],
                                                 "fit_seconds": best[2]}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
