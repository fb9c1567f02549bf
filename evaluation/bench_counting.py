"""Benchmark: seqspectral's Numba Hankel counting side by side with scikit-splearn's.

For PAutomaC problems (default 4, 13: 100,000 strings; 1: 20,000), the first 25/50/100%
of the training strings, the versions classic/prefix/factor (our statistics
string/prefix/substring) and basis lengths L = 2, 3, 4, both libraries build the Hankel
blocks H and H_sigma on the same P and S: the strings of length <= L observed in the
sample as prefixes (rows of classic and prefix) / suffixes (columns of classic) /
substrings (factor; columns of prefix), i.e. scikit-splearn's ``Spectral(lrows=L,
lcolumns=L, partial=True, sparse=True)``.

Times are CPU seconds of the process (``time.process_time``: the machine is shared, and
CPU time does not count waiting for a core; all the code timed is single-threaded).
Timed, for scikit-splearn (in its own numpy<2 venv, see ``_splearn.py``):
``Spectral.polulate_dictionnaries`` + ``Hankel(...)`` (file loading excluded); for us:
``HankelBasis.from_corpus`` (choosing the same P, S) + ``hankel_statistics`` (best of
``--repeats`` warm runs), and the counting alone on the given basis. Memory: the peak
resident-set growth during the build (Linux ``VmHWM`` reset through ``clear_refs``).
Every cell checks max |ours - splearn / N| over H and all H_sigma. Also: Numba compile
time (empty cache) and cache-load time in fresh processes, and tree statistics of EWT.

    python -m evaluation bench_counting            # writes evaluation/results/counting.md
    taskset -c 1 python -m evaluation bench_counting --splearn-max-length 0 \
        --out evaluation/results/counting-scaling.md   # our side only, pinned: the doubling rows in a minute
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._memory import peak_growth, reset_peak
from ._splearn import run_worker
from .common import EVALUATION, EWT, PAUTOMAC, RESULTS, describe, require_data, timed

WORKER = EVALUATION / "_splearn_counting_worker.py"

VERSIONS = {"classic": "string", "prefix": "prefix", "factor": "substring"}


def run_splearn(path: Path, n: int, length: int, version: str, timeout: float):
    try:
        arrays, values = run_worker(WORKER, {"path": str(path), "n_strings": n, "length": length,
                                             "version": version}, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return arrays, values


# -- our side ---------------------------------------------------------------------------
def _strings(flat, lengths):
    out, pos = [], 0
    for k in lengths.tolist():
        out.append(tuple(flat[pos:pos + k].tolist()))
        pos += k
    return out


def our_build(corpus, statistic, length):
    from seqspectral.counting import HankelBasis, hankel_statistics

    big = 10 ** 9
    basis = HankelBasis.from_corpus(corpus, statistic, big, big, length)
    return basis, hankel_statistics(corpus, basis, statistic)


def time_ours(corpus, statistic, length, repeats):
    from seqspectral.counting import hankel_statistics

    best_total = best_count = float("inf")
    memory = 0
    for _ in range(repeats):
        rss = reset_peak()
        start = time.process_time()
        basis, stats = our_build(corpus, statistic, length)
        mid = time.process_time()
        memory = max(memory, peak_growth(rss))
        hankel_statistics(corpus, basis, statistic)
        end = time.process_time()
        best_total = min(best_total, mid - start)
        best_count = min(best_count, end - mid)
    return basis, stats, best_total, best_count, memory


def compare(stats, basis, arrays, n, length):
    """max |ours - splearn / n| over H and every H_sigma, on splearn's rows/columns.

    scikit-splearn fills its prefix/factor dictionaries only up to length lrows +
    lcolumns = 2L, so its H_sigma lacks the entries with |u| + |v| = 2L (|u sigma v| =
    2L + 1); those are counted apart (``missing``) and left out of the difference.
    Returns (max difference, missing); the difference is inf when the bases differ.
    """
    import numpy as np
    import scipy.sparse as sp

    rows = _strings(arrays["rows_flat"] + 2, arrays["rows_len"])
    cols = _strings(arrays["cols_flat"] + 2, arrays["cols_len"])
    if set(rows) != set(basis.prefixes) or set(cols) != set(basis.suffixes):
        return float("inf"), 0
    row_of = {p: i for i, p in enumerate(basis.prefixes)}
    col_of = {s: i for i, s in enumerate(basis.suffixes)}
    perm_r = np.array([row_of[p] for p in rows])
    perm_c = np.array([col_of[s] for s in cols])
    len_r = np.array([len(p) for p in basis.prefixes])
    len_c = np.array([len(s) for s in basis.suffixes])
    shape = (basis.n_prefixes, basis.n_suffixes)
    worst, missing = 0.0, 0
    for b, ours in enumerate([stats.H] + stats.H_sigma):
        mine = arrays["block"] == b
        theirs = sp.csr_matrix((arrays["data"][mine] / n, (perm_r[arrays["row"][mine]], perm_c[arrays["col"][mine]])),
                               shape=shape)
        diff = (ours - theirs).tocoo()
        values = np.abs(diff.data)
        if b > 0:
            gap = len_r[diff.row] + len_c[diff.col] >= 2 * length
            missing += int(np.count_nonzero(values[gap] > 1e-12))
            values = values[~gap]
        worst = max(worst, float(values.max(initial=0.0)))
    return worst, missing


# -- compile time ----------------------------------------------------------------------
COMPILE_SNIPPET = """
import time
start = time.process_time()
from seqspectral.corpus import Corpus
from seqspectral.counting import HankelBasis, hankel_statistics, tree_statistics
import numpy as np
imported = time.process_time()
c = Corpus.from_ids([[2, 3, 2], [3]])
hankel_statistics(c, HankelBasis.all_strings([2, 3], 2), "substring")
hankel = time.process_time()
t = Corpus(c.symbols, c.offsets, heads=np.array([0, 1, 1, 0], np.int32))
tree_statistics(t, 4)
trees = time.process_time()
print(imported - start, hankel - imported, trees - hankel)
"""


def compile_times():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = []
        for _ in range(2):  # empty cache: compile; then: load from the cache
            proc = subprocess.run([sys.executable, "-c", COMPILE_SNIPPET], env=env, capture_output=True,
                                  text=True, check=True)
            out.append([float(x) for x in proc.stdout.split()])
    return out


# -- trees -----------------------------------------------------------------------------
def bench_trees(repeats):
    from seqspectral.corpus.conllu_format import read_conllu_corpus
    from seqspectral.counting import tree_statistics

    path = EWT / "en_ewt-ud-train.conllu"
    rows = []
    for field in ("upos", "form"):
        corpus = read_conllu_corpus(path, field=field)
        tree_statistics(corpus[:5])
        best = min(timed(lambda: tree_statistics(corpus))[1].cpu for _ in range(repeats))
        stats = tree_statistics(corpus)
        import numpy as np

        U = np.random.default_rng(0).normal(size=(stats.n_symbols, 50))
        proj = min(timed(lambda: stats.project(U))[1].cpu for _ in range(repeats))
        rows.append((field, len(corpus), corpus.n_tokens, stats.n_symbols, stats.left.nnz + stats.right.nnz, best,
                     proj))
    return rows


def bench_ewt_hankel(repeats, n_basis=1000, length=3):
    """Ours only, on EWT train: UPOS tags (17 symbols) and word forms (~20k symbols)."""
    from seqspectral.corpus.conllu_format import read_conllu_corpus
    from seqspectral.counting import HankelBasis, hankel_statistics

    path = EWT / "en_ewt-ud-train.conllu"
    rows = []
    for field in ("upos", "form"):
        corpus = read_conllu_corpus(path, field=field)
        for statistic in VERSIONS.values():
            HankelBasis.from_corpus(corpus[:10], statistic, n_basis, n_basis, length)
            basis_time = min(timed(lambda: HankelBasis.from_corpus(corpus, statistic, n_basis, n_basis, length))[1].cpu
                             for _ in range(repeats))
            basis = HankelBasis.from_corpus(corpus, statistic, n_basis, n_basis, length)
            count_time = min(timed(lambda: hankel_statistics(corpus, basis, statistic))[1].cpu for _ in range(repeats))
            stats = hankel_statistics(corpus, basis, statistic)
            blocks_time = timed(lambda: stats.H_sigma)[1].cpu
            rows.append((field, statistic, len(basis.alphabet), basis.n_prefixes, basis.n_suffixes, len(stats.keys),
                         basis_time, count_time, blocks_time))
    return rows


def bench_fixed_basis_scaling(problems, fractions, lengths, repeats):
    """Counting time on the first 25/50/100% of the strings with ONE basis (the observed
    strings of the full sample): doubling the data with nothing else changing."""
    from seqspectral.corpus.pautomac import read_pautomac
    from seqspectral.counting import HankelBasis, hankel_statistics

    rows = []
    for problem in problems:
        full = read_pautomac(PAUTOMAC / f"{problem}.pautomac.train")
        for length in lengths:
            for version, statistic in VERSIONS.items():
                basis = HankelBasis.from_corpus(full, statistic, 10 ** 9, 10 ** 9, length)
                parts = [full[:int(round(fraction * len(full)))] for fraction in fractions]
                hankel_statistics(parts[0][:10], basis, statistic)
                # the repeats go round the fractions, so a slow spell hits every size alike
                times = [float("inf")] * len(parts)
                for _ in range(repeats):
                    for i, part in enumerate(parts):
                        times[i] = min(times[i], timed(lambda: hankel_statistics(part, basis, statistic))[1].cpu)
                rows.append((problem, length, version, basis.n_prefixes, basis.n_suffixes, times))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", type=int, nargs="+", default=[4, 13, 1])
    parser.add_argument("--lengths", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--fractions", type=float, nargs="+", default=[0.25, 0.5, 1.0])
    parser.add_argument("--versions", nargs="+", default=list(VERSIONS), choices=list(VERSIONS))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--splearn-timeout", type=float, default=180.0,
                        help="seconds after which a scikit-splearn cell is abandoned (capped)")
    parser.add_argument("--splearn-max-length", type=int, default=4,
                        help="run scikit-splearn only for L up to this (longer ones: ours only)")
    parser.add_argument("--out", type=Path, default=RESULTS / "counting.md")
    args = parser.parse_args(argv)
    require_data(EWT / "en_ewt-ud-train.conllu", PAUTOMAC, script="bench_counting.py")

    from seqspectral.corpus.pautomac import read_pautomac

    compiled, cached = compile_times()
    trees = bench_trees(args.repeats)
    ewt = bench_ewt_hankel(args.repeats)
    fixed = bench_fixed_basis_scaling(args.problems, args.fractions, args.lengths, 2 * args.repeats + 1)
    table = []
    for problem in args.problems:
        path = PAUTOMAC / f"{problem}.pautomac.train"
        full = read_pautomac(path)
        for fraction in args.fractions:
            n = int(round(fraction * len(full)))
            corpus = full[:n]
            for length in args.lengths:
                for version in args.versions:
                    statistic = VERSIONS[version]
                    our_build(corpus[:100], statistic, length)  # warm
                    basis, stats, total, count, memory = time_ours(corpus, statistic, length, args.repeats)
                    theirs = None
                    if length <= args.splearn_max_length:
                        theirs = run_splearn(path, n, length, version, args.splearn_timeout)
                    row = dict(problem=problem, n=n, tokens=corpus.n_tokens, L=length, version=version,
                               P=basis.n_prefixes, S=basis.n_suffixes, ours=total, count=count,
                               ours_mem=memory, theirs=None, theirs_mem=None, diff=None, missing=None,
                               splearn_run=length <= args.splearn_max_length)
                    if theirs is not None:
                        arrays, values = theirs
                        row["theirs"], row["theirs_mem"] = values["seconds"], values["memory"]
                        row["diff"], row["missing"] = compare(stats, basis, arrays, n, length)
                    table.append(row)
                    print(_line(row, args.splearn_timeout), flush=True)
                    write_report(args, table, compiled, cached, trees, ewt, fixed)  # a partial table survives a stop


def _mb(x):
    return "–" if x is None else f"{max(x, 0) / 2 ** 20:.1f}"


def _line(r, timeout):
    theirs = f"{r['theirs']:.2f}" if r["theirs"] is not None else \
        f"> {timeout:.0f} (capped)" if r["splearn_run"] else "not run"
    ratio = "–" if r["theirs"] is None else f"{r['theirs'] / r['ours']:.0f}x"
    diff = "–" if r["diff"] is None else f"{r['diff']:.1e}"
    missing = "–" if r["missing"] is None else str(r["missing"])
    return (f"| {r['problem']} | {r['n']:,} | {r['L']} | {r['version']} | {r['P']:,}×{r['S']:,} | "
            f"{r['ours']:.3f} | {r['count']:.3f} | {theirs} | {ratio} | {_mb(r['ours_mem'])} | "
            f"{_mb(r['theirs_mem'])} | {diff} | {missing} |")


def write_report(args, table, compiled, cached, trees, ewt, fixed):
    from seqspectral.io import atomic_write_text

    by = {(r["problem"], r["L"], r["version"], r["n"]): r for r in table}
    scaling = []  # (problem, L, version, n/2, n, time at n/2, time at n, ratio)
    for (problem, length, version, n), r in sorted(by.items()):
        half = by.get((problem, length, version, n // 2))
        if half is not None and n % 2 == 0:
            scaling.append((problem, length, version, n // 2, n, half["ours"], r["ours"], r["ours"] / half["ours"]))
    big = [q for *_, t, q in scaling if t >= 0.02]
    fixed_ratios = [b / a for *_, times in fixed for a, b in zip(times, times[1:]) if a > 0]
    l3 = [r for r in table if r["L"] == 3 and r["n"] >= 100_000 and r["theirs"] is not None]
    l3_ratios = [r["theirs"] / r["ours"] for r in l3]
    l3_count = [r["theirs"] / r["count"] for r in l3]
    capped = sum(r["theirs"] is None for r in table if r["L"] <= args.splearn_max_length)
    diffs = [r["diff"] for r in table if r["diff"] is not None]
    summary = [
        "## Summary",
        "",
        f"- Warm build at L = 3 on 100,000 strings ({len(l3)} cells): splearn / ours = "
        + (f"{min(l3_ratios):.0f}x to {max(l3_ratios):.0f}x (basis + counting), "
           f"{min(l3_count):.0f}x to {max(l3_count):.0f}x (counting on a given basis)." if l3 else "not measured."),
        (f"- Matrices: max |ours − splearn/N| over all compared cells = {max(diffs):.1e} "
         f"({len(diffs)} cells; {capped} splearn cells capped at {args.splearn_timeout:.0f} s)." if diffs else
         f"- Matrices: not compared (scikit-splearn run for L ≤ {args.splearn_max_length} only; "
         f"{capped} cells capped at {args.splearn_timeout:.0f} s)."),
        f"- Doubling the data (ours, basis + counting): time ratio between {min((q for *_, q in scaling), default=float('nan')):.2f} "
        f"and {max((q for *_, q in scaling), default=float('nan')):.2f} over all {len(scaling)} pairs; "
        f"max {max(big, default=float('nan')):.2f} over the {len(big)} pairs whose larger run takes ≥ 20 ms "
        "(target ≤ 2.3; runs of a few ms are dominated by fixed costs and timer noise, and P, S grow with the "
        "sample); with one fixed basis (counting only, best of "
        f"{2 * args.repeats + 1}): between {min(fixed_ratios, default=float('nan')):.2f} and "
        f"{max(fixed_ratios, default=float('nan')):.2f} over {len(fixed_ratios)} doublings.",
        "- Tree statistics of EWT train (warm): "
        + ", ".join(f"{f} {a:.3f} s" for f, *_, a, _ in trees) + " (target < 1 s).",
        "",
    ]
    lines = [
        "# Counting engine: Hankel blocks vs scikit-splearn",
        "",
        describe("evaluation/bench_counting.py", sys.argv[1:]),
        "",
        *summary,
        "## Hankel blocks, side by side",
        "",
        "Same P and S on both sides: the strings of length ≤ L observed in the sample as prefixes / suffixes / "
        "substrings, as scikit-splearn's `Spectral(lrows=L, lcolumns=L, partial=True, sparse=True)` chooses them "
        "(classic = our `string`, prefix = `prefix`, factor = `substring`). Times are CPU seconds (`time.process_time`; everything timed is single-threaded). splearn time = "
        "`polulate_dictionnaries` + `Hankel(...)` (file loading excluded, one run); ours = "
        "`HankelBasis.from_corpus` + `hankel_statistics` (best of "
        f"{args.repeats} warm runs); 'count only' = `hankel_statistics` on the given basis. Memory = growth of the "
        "peak resident set during the build (MiB; 0.0 = the build fit in memory the process already held). max |Δ| = largest difference between our H, H_σ and "
        "splearn's divided by the number of strings; 'splearn gaps' = H_σ entries with |u|+|v| = 2L that splearn "
        "leaves at 0 because it fills its prefix/factor dictionaries only up to length 2L (excluded from max |Δ|).",
        "",
        "| problem | strings | L | version | \\|P\\|×\\|S\\| | ours (s) | count only (s) | splearn (s) | ratio | ours MiB | "
        "splearn MiB | max abs Δ | splearn gaps |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_line(r, args.splearn_timeout) for r in table]
    lines += [
        "",
        "Scaling with the data (ours, basis + counting): the time on n strings over the time on the first n/2 "
        "(target ≤ 2.3).",
        "",
        "| problem | L | version | n/2 → n strings | time n/2 (s) | time n (s) | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [f"| {p} | {L} | {v} | {h:,} → {n:,} | {a:.3f} | {b:.3f} | {q:.2f} |"
              for p, L, v, h, n, a, b, q in scaling]
    fractions = " / ".join(f"{f:.0%}" for f in args.fractions)
    lines += [
        "",
        f"Doubling the data with one fixed basis (the observed strings of the full sample; `hankel_statistics` only, "
        f"best of {2 * args.repeats + 1}, the repeats taken in turns over the sizes): CPU seconds on the first {fractions} of the strings and the ratio of each "
        "step. The work of the kernels is linear in the data (count_trie, hankel_entries, the sort and the "
        "assembly each scale by 1.8-2.0 per doubling when timed alone); what can push the largest cells "
        "(problem 1, L = 4, factor: ~1.1M entries) above 2 is the kernel touching freshly mapped memory: glibc "
        "returns big freed arrays to the OS, so every call page-faults its tables again, and their capacities "
        "grow by powers of two. With `MALLOC_MMAP_THRESHOLD_=2000000000 MALLOC_TRIM_THRESHOLD_=2000000000` "
        "(freed memory kept) that cell's 10,000 → 20,000 step measured 1.90-1.96 (0.049-0.054 s → "
        "0.093-0.105 s).",
        "",
        "| problem | L | version | \\|P\\|×\\|S\\| | times (s) | ratios |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {p} | {L} | {v} | {a:,}×{b:,} | {' / '.join(f'{t:.4f}' for t in ts)} | "
              f"{' / '.join(f'{y / x:.2f}' for x, y in zip(ts, ts[1:]) if x > 0)} |" for p, L, v, a, b, ts in fixed]
    lines += [
        "",
        "Numba compile time (fresh process, empty cache) and cache-load time (fresh process, warm cache), "
        "seconds: import / first Hankel call / first tree call.",
        "",
        "| | import | Hankel kernels | tree kernels |",
        "|---|---|---|---|",
        f"| empty cache (compile) | {compiled[0]:.2f} | {compiled[1]:.2f} | {compiled[2]:.2f} |",
        f"| warm cache (load) | {cached[0]:.2f} | {cached[1]:.2f} | {cached[2]:.2f} |",
        "",
        "Tree statistics of all of UD English-EWT train (warm, best of "
        f"{args.repeats}; projection = every table by a random n×50 U).",
        "",
        "| field | sentences | words | symbols | distinct arcs | tree_statistics (s) | project (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [f"| {f} | {s:,} | {w:,} | {n:,} | {t:,} | {a:.3f} | {b:.3f} |" for f, s, w, n, t, a, b in trees]
    lines += [
        "",
        "The projection of the word-level tables is dominated by dense products U.T @ (M @ U) with a 19,676-long "
        "inner dimension, which multi-threaded OpenBLAS runs pathologically slowly on a loaded 2-core machine "
        "(0.9 s each; 0.005 s with OPENBLAS_NUM_THREADS=1).",
    ]
    lines += [
        "",
        "Ours alone on UD English-EWT train (12,544 sentences, 204,577 tokens): the 1,000 most frequent "
        "strings of length ≤ 3 as P and S (`HankelBasis.from_corpus`), warm, best of "
        f"{args.repeats}; 'H_σ blocks' = building the list of |Σ| csr matrices on first access.",
        "",
        "| field | statistic | \\|Σ\\| | \\|P\\|×\\|S\\| | nonzeros | basis (s) | counting (s) | H_σ blocks (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [f"| {f} | {st} | {k:,} | {p:,}×{q:,} | {nz:,} | {a:.3f} | {b:.3f} | {c:.3f} |"
              for f, st, k, p, q, nz, a, b, c in ewt]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
