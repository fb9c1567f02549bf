"""Benchmark: the counters' tokens per second per core against the machine's memory bandwidth (issue 43).

- memory: one core reading an int64 array of ``--memory-mb`` MB (a compiled sum, best of
  ``--repeats``) and numpy copying it (read + write), in GB/s; the same bandwidth in int32
  tokens per second (4 bytes a token) is the ceiling of a counter that reads each token once;
- Hankel counting (``hankel_statistics``: the count trie, then the split into entries) of
  PAutomaC problem ``--problem`` on one fixed basis (every substring of length <= ``--length``
  of the sample, ``HankelBasis.from_corpus``), on the sample repeated 1, 2, 4 and 8
  times in memory: tokens per CPU second, and each doubling's time ratio;
- tree counting (``tree_statistics``) of UD English-EWT train, UPOS and forms: tokens per CPU second.

One thread (the counters are single-threaded); CPU seconds of the process (``time.process_time``),
best of ``--repeats`` after a warm-up call (the Numba cache loaded).

    python -m evaluation bench_throughput [--problem 13] [--repeats 5]   # writes results/throughput.md
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from .common import EWT, PAUTOMAC, RESULTS, describe, markdown_table, require_data, write_results

OUT = RESULTS / "throughput.md"


def best_cpu(fn, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def memory_bandwidth(megabytes: int, repeats: int) -> tuple[float, float]:
    """(read GB/s of one core, copy GB/s counting read + write) over an array of ``megabytes`` MB."""
    from numba import njit

    @njit(cache=False)
    def read_all(a):
        total = 0
        for i in range(len(a)):
            total += a[i]
        return total

    a = np.arange(megabytes * 2 ** 20 // 8, dtype=np.int64)
    out = np.empty_like(a)
    read = best_cpu(lambda: read_all(a), repeats)
    copy = best_cpu(lambda: np.copyto(out, a), repeats)
    return a.nbytes / read / 1e9, 2 * a.nbytes / copy / 1e9


def tiled(corpus, copies: int):
    """``corpus``'s strings ``copies`` times, in memory (a duck-typed corpus the counters read)."""

    class Tiled:
        symbols = np.tile(corpus.symbols, copies)
        offsets = np.concatenate([[0], np.cumsum(np.tile(np.diff(corpus.offsets), copies))]).astype(np.int64)

        def __len__(self):
            return len(self.offsets) - 1

    return Tiled()


def hankel_rows(problem: int, length: int, repeats: int):
    from seqspectral.corpus.pautomac import read_pautomac
    from seqspectral.counting import HankelBasis, hankel_statistics

    corpus = read_pautomac(PAUTOMAC / f"{problem}.pautomac.train")
    basis = HankelBasis.from_corpus(corpus, "substring", 10 ** 9, 10 ** 9, length)
    rows, before = [], None
    for copies in (1, 2, 4, 8):
        part = tiled(corpus, copies)
        seconds = best_cpu(lambda: hankel_statistics(part, basis, "substring"), repeats)
        tokens = len(part.symbols)
        rows.append([f"{copies}x", f"{len(part):,}", f"{tokens:,}", f"{seconds:.3f}", f"{tokens / seconds / 1e6:.1f}",
                     "" if before is None else f"{seconds / before:.2f}"])
        before = seconds
    return rows, basis


def tree_rows(repeats: int):
    from seqspectral.corpus.conllu_format import read_conllu_corpus
    from seqspectral.counting import tree_statistics

    rows = []
    for field in ("upos", "form"):
        corpus = read_conllu_corpus(EWT / "en_ewt-ud-train.conllu", field=field)
        seconds = best_cpu(lambda: tree_statistics(corpus), repeats)
        rows.append([field, f"{corpus.n_tokens:,}", f"{seconds:.4f}", f"{corpus.n_tokens / seconds / 1e6:.1f}"])
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", type=int, default=13)
    parser.add_argument("--length", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--memory-mb", type=int, default=512)
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    require_data(PAUTOMAC / f"{args.problem}.pautomac.train", EWT / "en_ewt-ud-train.conllu",
                 script="bench_throughput.py")
    read, copy = memory_bandwidth(args.memory_mb, args.repeats)
    hankel, basis = hankel_rows(args.problem, args.length, args.repeats)
    trees = tree_rows(args.repeats)
    ceiling = read * 1e9 / 4 / 1e6
    lines = ["# Counting throughput against memory bandwidth (issue 43)", "",
             describe("bench_throughput", sys.argv[1:] if argv is None else argv) + ".", "",
             f"Memory, one core, {args.memory_mb} MB: read **{read:.1f} GB/s** (a compiled sum of int64), copy "
             f"{copy:.1f} GB/s (numpy, read + write). Read bandwidth in int32 tokens: **{ceiling:,.0f}M tokens/s** "
             "(the ceiling of a counter that reads each token once and does nothing else).", "",
             f"Hankel counting (substring statistic, PAutomaC {args.problem}, one fixed basis: {basis.n_prefixes:,} "
             f"prefixes × {basis.n_suffixes:,} suffixes, length ≤ {args.length}; the sample repeated in memory), "
             "one thread, best CPU seconds:", "",
             *markdown_table(["data", "strings", "tokens", "CPU s", "M tokens/s", "time / time at half"], hankel), "",
             "Tree counting (`tree_statistics`, UD English-EWT train), one thread, best CPU seconds:", "",
             *markdown_table(["field", "tokens", "CPU s", "M tokens/s"], trees), ""]
    text = "\n".join(lines)
    write_results(args.out, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
