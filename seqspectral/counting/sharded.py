"""Sharded counting: count every shard where it is read, add the counts by a tree of ``+``.

Every statistic of the toolkit is a sum over sentences, so the counts of disjoint shards
add to the counts of their union exactly (integer counts, in any order). The worker that
counts a shard opens the file and reads its byte range itself (a :class:`~.shards.Shard`
is a path and two offsets), so the corpus never travels; only the statistics do, and they
are bounded by the basis or the vocabulary, not by the corpus.

Where the counting runs is one argument: in this process (default), on ``workers=N``
local processes (``concurrent.futures.ProcessPoolExecutor``), or on a Dask cluster
(``scheduler=`` the address of a ``dask.distributed`` scheduler, or a ``Client``); Dask is
imported on that path only. ``count`` and ``read`` must be picklable (top-level
functions, or ``functools.partial`` of them) for the last two.

The statistics must be counted in one frame: one vocabulary for every shard (a first
pass, :func:`sharded_vocabulary`), and for Hankel blocks one basis chosen before counting
(from the counts of every shard, :func:`sharded_basis`), so that the result does not depend
on how the input was cut: the same model from one process, N processes or a cluster.
"""

from __future__ import annotations

import operator
import os
from collections import Counter
from functools import partial

import numpy as np

from seqspectral.corpus import Vocabulary

from .basis import HankelBasis, most_frequent, ranking_kinds, string_counts
from .hankel import hankel_statistics
from .shards import read_shard
from .dependency_trees import tree_statistics


def count_sharded(shards, count, *, read=read_shard, workers: int | None = None, scheduler=None,
                  progress: bool = False):
    """``count(read(shard))`` summed over ``shards`` (a non-empty sequence).

    ``workers=N`` counts on N local processes, ``scheduler=ADDRESS`` (or a
    ``dask.distributed.Client``) on a Dask cluster, where the partial sums are also added
    on the workers; neither: in this process. ``progress``: progress over the shards
    (:mod:`seqspectral.progress`).
    """
    shards = list(shards)
    if not shards:
        raise ValueError("no shards to count")
    if workers is not None and scheduler is not None:
        raise ValueError("give workers (local processes) or scheduler (a Dask cluster), not both")
    if workers is not None and (isinstance(workers, bool) or int(workers) != workers or workers < 1):
        raise ValueError(f"workers must be a positive number of processes, not {workers!r}")
    bar = _bar(len(shards), progress)
    try:
        if scheduler is not None:
            return _on_dask(shards, count, read, scheduler, bar)
        if workers is not None and workers > 1:
            return _on_processes(shards, count, read, int(workers), bar)
        total = _TreeSum()
        for shard in shards:
            total.add(read_and_count(read, count, shard))
            bar.update()
        return total.result()
    finally:
        bar.close()


def read_and_count(read, count, shard):
    """The task a worker runs: read one shard, count it."""
    return count(read(shard))


class _TreeSum:
    """Adds values as they come as a binary tree (a binary counter of partial sums), so at
    most log2(n) partial sums are held and every sum has operands of similar size."""

    def __init__(self):
        self.levels: list = []  # levels[i]: a sum of 2**i values, or None

    def add(self, value) -> None:
        for i, held in enumerate(self.levels):
            if held is None:
                self.levels[i] = value
                return
            self.levels[i] = None
            value = held + value
        self.levels.append(value)

    def result(self):
        held = [v for v in self.levels if v is not None]
        total = held[0]
        for v in held[1:]:
            total = v + total
        return total


def _on_processes(shards, count, read, workers: int, bar):
    from concurrent.futures import ProcessPoolExecutor, as_completed

    total = _TreeSum()
    largest_first = sorted(shards, key=_size, reverse=True)  # the longest tasks start first
    with ProcessPoolExecutor(max_workers=min(workers, len(shards))) as pool:
        for future in as_completed([pool.submit(read_and_count, read, count, s) for s in largest_first]):
            total.add(future.result())
            bar.update()
    return total.result()


def _size(shard) -> int:
    """Bytes of a shard (0 when it is not a byte range of a file)."""
    try:
        stop = os.path.getsize(shard.path) if shard.stop is None else shard.stop
        return stop - shard.start
    except (AttributeError, OSError):
        return 0


def _on_dask(shards, count, read, scheduler, bar):
    from dask.distributed import Client, as_completed

    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        level = client.map(partial(read_and_count, read, count), shards, pure=False)
        done = as_completed(level)  # holds each shard's count only until it is reported
        while len(level) > 1:  # the reduction tree runs on the workers
            pairs = [client.submit(operator.add, a, b, pure=False) for a, b in zip(level[::2], level[1::2])]
            level = pairs + level[len(pairs) * 2:]
        for _ in done:
            bar.update()
        return level[0].result()
    finally:
        if client is not scheduler:
            client.close()


def _bar(total: int, enabled: bool | None):
    from ..progress import stage

    return stage("counting", total, "shard", enabled)


# -- the fronts: one shared frame, then the statistics ---------------------------------


def symbol_counts(corpus) -> Counter:
    """Occurrences of every symbol (by name) in ``corpus`` (reserved ids not counted)."""
    n = np.bincount(corpus.symbols, minlength=len(corpus.vocabulary)).tolist()
    return Counter({s: c for i, (s, c) in enumerate(zip(corpus.vocabulary.symbols, n))
                    if i >= Vocabulary.N_RESERVED and c})


def sharded_vocabulary(shards, *, read=read_shard, **where):
    """The vocabulary a reader builds for the whole corpus (most frequent first), from
    the symbol counts of every shard (``where``: workers / scheduler / progress)."""
    return Vocabulary.from_counts(count_sharded(shards, symbol_counts, read=read, **where))


def sharded_hankel_statistics(shards, basis: HankelBasis | dict | None = None, statistic: str = "substring", *,
                              read=read_shard, **where):
    """Hankel statistics of every shard on one basis: ``basis`` itself, or chosen by
    :func:`sharded_basis` on all of them (``basis`` then holds its keyword arguments, or is
    None for the defaults). ``read`` must encode every shard alike (a shared vocabulary, or
    PAutomaC's fixed ids)."""
    shards = list(shards)
    if not isinstance(basis, HankelBasis):
        basis = sharded_basis(shards, statistic, **(basis or {}), read=read, **where)
    return count_sharded(shards, partial(hankel_statistics, basis=basis, statistic=statistic), read=read, **where)


def sharded_basis(shards, statistic: str = "substring", n_prefixes: int = 1000, n_suffixes: int = 1000,
                  max_length: int = 3, *, read=read_shard, **where) -> HankelBasis:
    """The basis :meth:`HankelBasis.from_corpus` chooses on the whole of ``shards``, from
    the string counts of every shard (the same basis however the corpus is cut)."""
    if n_prefixes < 1 or n_suffixes < 1 or max_length < 0:
        raise ValueError("n_prefixes and n_suffixes must be >= 1 and max_length >= 0")
    kinds = ranking_kinds(statistic)
    counts = count_sharded(shards, partial(_basis_counts, kinds=kinds, max_length=max_length), read=read, **where)
    prefixes = most_frequent(counts.strings[0], n_prefixes - 1)
    suffixes = most_frequent(counts.strings[1], n_suffixes - 1)
    return HankelBasis._clean([()] + prefixes, [()] + suffixes, np.array(sorted(counts.alphabet), dtype=np.int64))


class _BasisCounts:
    """String counts of the two ranking kinds and the symbols seen; they add."""

    def __init__(self, strings: tuple, alphabet: set):
        self.strings, self.alphabet = strings, alphabet

    def __add__(self, other: "_BasisCounts") -> "_BasisCounts":
        return _BasisCounts(tuple(a + b for a, b in zip(self.strings, other.strings)), self.alphabet | other.alphabet)


def _basis_counts(corpus, kinds, max_length: int) -> _BasisCounts:
    first = Counter(string_counts(corpus, kinds[0], max_length))
    second = first if kinds[1] == kinds[0] else Counter(string_counts(corpus, kinds[1], max_length))
    return _BasisCounts((first, second), set(np.unique(corpus.symbols).tolist()))


def sharded_tree_statistics(shards, vocabulary, *, read=read_shard, **where):
    """Tree statistics of every shard over ``vocabulary`` (which ``read`` must encode)."""
    return count_sharded(shards, partial(tree_statistics, n_symbols=len(vocabulary)), read=read, **where)
