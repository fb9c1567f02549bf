"""scikit-splearn worker for evaluation/bench_counting.py (numpy<2 venv): builds the Hankel
blocks of the first ``n_strings`` strings of ``path`` at basis length ``length`` and
``version``, timing ``polulate_dictionnaries`` + ``Hankel(...)`` in CPU seconds and its peak
resident-set growth; hands back the rows, columns and blocks for the comparison."""

import sys
import time

import numpy as np
from _memory import peak_growth, reset_peak
from _peer_venv import read_input, write_output
from splearn.datasets.base import load_data_sample
from splearn.datasets.data_sample import SplearnArray
from splearn.hankel import Hankel
from splearn.spectral import Spectral


def main(directory: str) -> None:
    _, v = read_input(directory)
    sample = load_data_sample(v["path"], filetype="Pautomac")
    n, L, version = v["n_strings"], v["length"], v["version"]
    X = SplearnArray(np.array(sample.data[:n]), nbL=sample.nbL, nbEx=n)
    est = Spectral(lrows=L, lcolumns=L, version=version, partial=True, sparse=True, mode_quiet=True)
    rss = reset_peak()
    start = time.process_time()
    X = est.polulate_dictionnaries(X)
    hankel = Hankel(sample_instance=X, lrows=L, lcolumns=L, version=version, partial=True,
                    sparse=True, mode_quiet=True)
    elapsed = time.process_time() - start
    memory = peak_growth(rss)
    rows, cols = hankel._build_partial(pref=X.pref, suff=X.suff, fact=X.fact, lrows=L, lcolumns=L)
    rows = sorted(rows, key=lambda x: (len(x), x))
    cols = sorted(cols, key=lambda x: (len(x), x))
    out = {}
    for name, strings in (("rows", rows), ("cols", cols)):
        out[name + "_flat"] = np.array([x for s in strings for x in s], dtype=np.int32)
        out[name + "_len"] = np.array([len(s) for s in strings], dtype=np.int64)
    blocks, r, c, d = [], [], [], []
    for b, m in enumerate(hankel.lhankel):
        m = m.tocoo()
        blocks.append(np.full(m.nnz, b)), r.append(m.row), c.append(m.col), d.append(m.data)
    out.update(block=np.concatenate(blocks), row=np.concatenate(r), col=np.concatenate(c),
               data=np.concatenate(d))
    write_output(directory, out, {"seconds": elapsed, "memory": memory, "nbL": sample.nbL})


if __name__ == "__main__":
    main(sys.argv[1])
