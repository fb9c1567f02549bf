"""Where the binarised training trees of a grammar are: in memory, or in shards that
workers read themselves (:func:`seqspectral.counting.sharded.count_sharded`: this process,
``workers`` local processes or a Dask cluster). Every statistic is a sum over trees, so a
source only has to count."""

from __future__ import annotations

from functools import partial

from ..counting.sharded import count_sharded
from .encoding import SymbolTables, encode, flatten
from .transform import binarise


class InMemoryTrees:
    """Binarised trees held here, flattened once and encoded once per symbol tables."""

    def __init__(self, binarised):
        self.binarised = list(binarised)
        self.flat = [flatten(t) for t in self.binarised]
        self._encoded = None

    def __len__(self) -> int:
        return len(self.binarised)

    def count(self, statistic):
        return statistic(self.flat)

    def encoded(self, tables: SymbolTables) -> "_Encoded":
        if self._encoded is None or self._encoded[0] is not tables:
            self._encoded = (tables, encode(self.flat, tables))
        return _Encoded(self._encoded[1])

    def subset(self, indices) -> "InMemoryTrees":
        return InMemoryTrees([self.binarised[i] for i in indices])


class _Encoded:
    def __init__(self, treebank):
        self.treebank = treebank

    def count(self, statistic):
        return statistic(self.treebank)


class ShardedTrees:
    """Shards read by ``read(shard) -> trees`` (cleaned, not binarised; picklable for workers
    and Dask), binarised and flattened where they are read."""

    def __init__(self, shards, read, vertical: int, horizontal, **where):
        self.shards = list(shards)
        self.read = partial(_binarised, read=read, vertical=vertical, horizontal=horizontal)
        self.where = where

    def count(self, statistic):
        return count_sharded(self.shards, statistic, read=self.read, **self.where)

    def encoded(self, tables: SymbolTables) -> "ShardedTrees":
        out = ShardedTrees.__new__(ShardedTrees)
        out.shards, out.where = self.shards, self.where
        out.read = partial(_encoded, read=self.read, tables=tables)
        return out


def _binarised(shard, read, vertical, horizontal):
    return [flatten(binarise(t, vertical, horizontal)) for t in read(shard)]


def _encoded(shard, read, tables):
    return encode(read(shard), tables)
