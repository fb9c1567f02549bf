"""EM-Tensor against EM through ``train_lm`` on PAutomaC problems with few symbols.

Issue 11 (item 14): the tensor method can use at most |Σ| states; EM-Tensor must grow its
start past |Σ| (split states) so that it is never far worse than EM. Both are trained exactly
as ``seqspectral lm train --method em|em-tensor`` trains them (states and floor chosen on a
held-out 20% of train, bigram mixture, refit), EM capped at ``--n-iter`` iterations a run.

Usage: python -m evaluation em_tensor [--problems 26 28] [--n-iter 50]
Writes evaluation/results/em_tensor.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


from .common import PAUTOMAC as DATA, RESULTS, describe, markdown_table, require_data, write_results  # noqa: E402

OUT = RESULTS / "em_tensor.md"


def main(argv=None) -> None:
    from seqspectral.corpus import read_pautomac, read_pautomac_solution
    from seqspectral.lm import evaluate_lm, train_lm
    from seqspectral.metrics import pautomac_score

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--problems", type=int, nargs="+", default=[26, 28])
    ap.add_argument("--n-iter", type=int, default=50)
    args = ap.parse_args(argv)
    require_data(*(DATA / f"{p}.pautomac{s}" for p in args.problems for s in (".train", ".test", "_solution.txt")),
                 script="em_tensor.py")
    header = describe("evaluation/em_tensor.py", sys.argv[1:] if argv is None else argv)
    rows = []
    for p in args.problems:
        train = read_pautomac(DATA / f"{p}.pautomac.train")
        test = read_pautomac(DATA / f"{p}.pautomac.test", vocabulary=train.vocabulary)
        solution = read_pautomac_solution(DATA / f"{p}.pautomac_solution.txt")
        floor = pautomac_score(solution, solution)
        cells = []
        for method in ("em", "em-tensor"):
            t0 = time.process_time()
            lm = train_lm(train, method, max_iter=args.n_iter)
            seconds = time.process_time() - t0
            score = evaluate_lm(lm, test, solution)["pautomac_score"]
            summary = lm.summary()
            cells.append(f"{score / floor - 1:.2%} ({summary['n_states']} states, {seconds:.0f} CPU s)")
        rows.append([p, len(train.vocabulary) - 2, *cells])
    lines = ["# EM-Tensor against EM (lm train)", "", header, "",
             "Excess of the PAutomaC score over the true model's (states chosen, training CPU seconds).", "",
             *markdown_table(["problem", "symbols", "em", "em-tensor"], rows), ""]
    write_results(OUT, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
