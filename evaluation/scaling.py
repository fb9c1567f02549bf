"""Benchmark: sharded counting against corpus size, in one process, on 2 local worker
processes and on a two-worker Dask ``LocalCluster``; the statistics must equal the
single-process ones exactly in every case.

Two corpora, each at the sizes ``--scales`` (copies of the base corpus, one file each):

- Hankel blocks (substring statistic, basis of the 200 most frequent substrings of length
  <= 3 chosen on a sample: the first 4 MB range, the same in every mode): a synthetic PAutomaC-style file sampled from
  ``planted_hmm(6, 12, seed=0)`` (``--hankel-strings`` strings per copy);
- CCA view counts (one-step, window 2, lower-cased, min count 2, the vocabulary chosen in
  a first pass over the shards): Brown's words written one sentence per line.

Every measurement runs in a fresh Python process, so its memory is its own: wall seconds,
CPU seconds of the process and of its reaped children (the workers), the peak resident
set of the process and the largest peak of any worker (``ru_maxrss``). The "single call"
row reads the whole file and counts it in one call (the reference); the other rows count
byte-range shards of about ``--shard-mb`` MB. Each run prints a SHA-256 of its statistics
(the sorted sparse entries), and the table says whether it equals the single call's.
Speed-ups are wall-time ratios against the single call (the single-process speed); on this shared machine
(2 cores, other agents' jobs) they depend on the load, which is recorded.

    NLTK_DATA=/work/shared/corpora/nltk_data python -m evaluation scaling   # writes evaluation/results/scaling.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import RESULTS, describe, markdown_table, write_results

MODES = ("single call", "in-process shards", "2 processes", "LocalCluster 2 workers")
BASIS = {"n_prefixes": 200, "n_suffixes": 200, "max_length": 3}
#: the Hankel basis is chosen on the first range of about this size (a sample; the same in every mode)
SAMPLE_BYTES = 4 << 20


# -- corpora -----------------------------------------------------------------------------
def make_corpora(workdir: Path, scales, n_strings: int) -> dict:
    """The base files, then the copies: {(kind, scale): path}."""
    from seqspectral.automata.planted import planted_hmm
    from seqspectral.corpus import read_corpus, write_pautomac, write_text

    base = workdir / "planted.pautomac.train"
    sample = planted_hmm(6, 12, seed=0).sample(n_strings, random_state=0)
    write_pautomac(base, sample, alphabet_size=12)
    brown = workdir / "brown.txt"
    write_text(brown, read_corpus(os.environ["NLTK_DATA"], format="brown", field="form"))
    paths = {}
    for scale in scales:
        paths["hankel", scale] = _copies(base, workdir / f"planted-{scale}x.pautomac.train", scale, header=True)
        paths["cca", scale] = _copies(brown, workdir / f"brown-{scale}x.txt", scale, header=False)
    return paths


def _copies(path: Path, out: Path, copies: int, header: bool) -> Path:
    data = path.read_bytes()
    head, body = data.split(b"\n", 1) if header else (b"", data)
    with open(out, "wb") as f:
        if header:
            n, k = head.split()
            f.write(b"%d %s\n" % (int(n) * copies, k))
        for _ in range(copies):
            f.write(body)
    return out


# -- one measurement (in its own process) -----------------------------------------------
def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _sparse_digest(*matrices) -> list:
    out = []
    for m in matrices:
        m = m.tocsr(copy=True)
        m.sum_duplicates()
        m.sort_indices()
        m.eliminate_zeros()
        out += [m.indptr.astype("int64"), m.indices.astype("int64"), m.data]
    return out


def measure(kind: str, path: str, mode: str, shard_bytes: int) -> dict:
    import numpy as np

    from seqspectral.corpus import read_corpus
    from seqspectral.counting import HankelBasis, hankel_statistics
    from seqspectral.counting.sharded import sharded_hankel_statistics
    from seqspectral.embeddings.sharded import sharded_view_counts
    from seqspectral.counting.shards import read_shard, shard_files
    from seqspectral.embeddings import CCAEmbeddings

    workers = 1 if mode in ("single call", "in-process shards") else 2
    shards = shard_files([path], shard_bytes=shard_bytes, format="pautomac" if kind == "hankel" else "text",
                         workers=workers)
    estimator = CCAEmbeddings(50, window=2, min_count=2, lowercase=True)
    cluster = None
    where = {}
    if mode == "2 processes":
        where = {"workers": 2}
    rss_ready = _rss()
    start_cpu, start = time.process_time(), time.perf_counter()
    if mode == "LocalCluster 2 workers":
        from dask.distributed import LocalCluster

        from dask.distributed import Client

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        with Client(cluster) as client:  # a running cluster's workers have the code loaded
            client.run(_load_counting_code)
        where = {"scheduler": cluster.scheduler_address}
    started = time.perf_counter()
    if kind == "hankel":
        sample = shard_files([path], shard_bytes=SAMPLE_BYTES, format="pautomac")[0]  # the same in every mode
        basis = HankelBasis.from_corpus(read_shard(sample), "substring", **BASIS)
        if mode == "single call":
            corpus = read_corpus(path, format="pautomac")
            stats = hankel_statistics(corpus, basis, "substring")
            n_tokens = corpus.n_tokens
        else:
            stats = sharded_hankel_statistics(shards, basis, "substring", **where)
            n_tokens = None
        digest = _digest(stats.keys, stats.counts, np.array([stats.n_strings]))
    else:
        if mode == "single call":
            corpus = read_corpus(path, format="text")
            vocabulary = estimator.build_vocabulary([corpus])
            counts = estimator.count(corpus, vocabulary)
        else:
            counts, vocabulary = sharded_view_counts(shards, estimator, **where)
        n_tokens = counts.n_tokens
        digest = _digest(np.array(vocabulary.symbols), *_sparse_digest(counts.word_context), np.array([n_tokens]))
    counted = time.perf_counter()
    if cluster is not None:
        cluster.close()
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"kind": kind, "mode": mode, "shards": len(shards), "bytes": os.path.getsize(path), "n_tokens": n_tokens,
            "wall": counted - started, "startup": started - start,
            "cpu_self": time.process_time() - start_cpu, "cpu_workers": children.ru_utime + children.ru_stime,
            "peak_self_mb": own.ru_maxrss / 1024, "ready_mb": rss_ready / 2 ** 20,
            "peak_worker_mb": children.ru_maxrss / 1024, "digest": digest, "load": os.getloadavg()[0]}


def _spin(n: int) -> float:
    """A fixed CPU-bound loop; returns its CPU seconds."""
    start, total = time.process_time(), 0
    for i in range(n):
        total += i * i
    return time.process_time() - start


def parallel_capacity(n: int = 20_000_000, repeats: int = 3) -> dict:
    """What two processes can do on this machine: the same CPU-bound loop run once alone
    and twice at once on a 2-process pool (best of ``repeats``). Throughput ratio = 2 x
    alone / together; 2.0 on two free, independent cores."""
    from concurrent.futures import ProcessPoolExecutor

    alone = together = float("inf")
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_spin, [1000, 1000]))  # the workers started
        for _ in range(repeats):
            t0 = time.perf_counter()
            _spin(n)
            alone = min(alone, time.perf_counter() - t0)
            t0 = time.perf_counter()
            list(pool.map(_spin, [n, n]))
            together = min(together, time.perf_counter() - t0)
    return {"alone": alone, "together": together, "ratio": 2 * alone / together}


def _load_counting_code() -> None:
    import seqspectral.counting.sharded  # noqa: F401  (the Numba kernels load from their cache on first call)
    import seqspectral.embeddings  # noqa: F401


def _rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def run_measure(kind, path, mode, shard_bytes) -> dict:
    out = subprocess.run([sys.executable, __file__, "--measure", json.dumps([kind, str(path), mode, shard_bytes])],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- the table ----------------------------------------------------------------------------
def table(rows) -> str:
    return "\n".join(markdown_table(
        ["statistic", "corpus", "tokens", "shards", "how", "wall (s)", "speed-up", "CPU s (process + workers)",
         "peak RSS process (after imports) / worker (MB)", "equal to single call", "load"],
        [[row["statistic"], row["corpus"], f"{row['n_tokens']:,}", row["shards"], row["mode"], f"{row['wall']:.1f}",
          row["speedup"], f"{row['cpu_self']:.1f} + {row['cpu_workers']:.1f}",
          f"{row['peak_self_mb']:.0f} ({row['ready_mb']:.0f}) / {row['peak_worker_mb'] or '-'}", row["equal"],
          f"{row['load']:.1f}"] for row in rows], align="llrrlrrrrlr"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", default="1,10", help="copies of the base corpora (comma-separated)")
    parser.add_argument("--hankel-strings", type=int, default=200_000, help="strings of the base synthetic corpus")
    parser.add_argument("--shard-mb", type=float, default=4.0, help="about this many MB per shard")
    parser.add_argument("--kinds", default="hankel,cca")
    parser.add_argument("--output", type=Path, default=RESULTS / "scaling.md")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(*json.loads(args.measure))))
        return 0
    if "NLTK_DATA" not in os.environ or not (Path(os.environ["NLTK_DATA"]) / "corpora" / "brown.zip").exists():
        print("scaling.py: set NLTK_DATA to an NLTK data directory holding corpora/brown.zip", file=sys.stderr)
        return 2
    header = describe("evaluation/scaling.py", sys.argv[1:] if argv is None else argv)
    scales = [int(s) for s in args.scales.split(",")]
    kinds = args.kinds.split(",")
    shard_bytes = int(args.shard_mb * 2 ** 20)
    rows = []
    capacity = parallel_capacity()
    print(f"two processes: {capacity['ratio']:.2f}x the throughput of one", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="scaling-") as workdir:
        paths = make_corpora(Path(workdir), scales, args.hankel_strings)
        for kind in kinds:
            for scale in scales:
                results = {}
                for mode in MODES:
                    results[mode] = r = run_measure(kind, paths[kind, scale], mode, shard_bytes)
                    print(f"{kind} {scale}x {mode}: {r['wall']:.1f} s wall, cpu {r['cpu_self']:.1f}+{r['cpu_workers']:.1f}"
                          f", load {r['load']:.1f}", file=sys.stderr)
                reference = results["single call"]
                base = reference["wall"]
                for mode, r in results.items():
                    r.update(statistic="Hankel (substring)" if kind == "hankel" else "CCA views",
                             corpus=f"{'planted PAutomaC' if kind == 'hankel' else 'Brown'} {scale}x",
                             n_tokens=r["n_tokens"] or reference["n_tokens"],
                             equal="yes" if r["digest"] == reference["digest"] else "**NO**",
                             speedup="1.00x" if mode == "single call" else f"{base / r['wall']:.2f}x",
                             peak_worker_mb=round(r["peak_worker_mb"]) if mode in MODES[2:] else None)
                    rows.append(r)
    text = (f"# Sharded counting: time and memory against corpus size\n\n{header}\n\n"
            f"Shards of about {args.shard_mb:g} MB; base synthetic corpus {args.hankel_strings:,} strings; "
            f"Hankel basis {BASIS}. Wall seconds exclude process start-up and imports; the LocalCluster rows exclude "
            f"starting the cluster and loading the toolkit on its workers (both are in the CPU seconds). Speed-up: "
            f"single call wall / this wall. The 2-worker rows cut a multiple of 2 ranges.\n\n"
            f"What two processes can do here (same run): a CPU-bound Python loop takes {capacity['alone']:.2f} s "
            f"alone and {capacity['together']:.2f} s for two copies on 2 processes at once, "
            f"**{capacity['ratio']:.2f}x** the throughput of one process (2.00x on two free, independent cores): "
            f"the ceiling for any 2-worker speed-up on this machine.\n\n"
            + table(rows) + "\n")
    write_results(args.output, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
