"""One entry point from a method name and options to a fitted grammar (the command line
and the benchmarks call it)."""

from __future__ import annotations

from .em import EMLPCFG
from .pcfg import MarkovPCFG
from .spectral import SpectralLPCFG

METHODS = {"pcfg": MarkovPCFG, "spectral": SpectralLPCFG, "em": EMLPCFG}


def make_grammar(method: str, **options):
    """An unfitted grammar of ``method`` (``pcfg``, ``spectral``, ``em``) with ``options``."""
    if method not in METHODS:
        raise ValueError(f"unknown grammar method {method!r}; one of {', '.join(METHODS)}")
    return METHODS[method](**options)


def train_grammar(method: str, trees, dev=None, **options):
    """A grammar of ``method`` fitted on phrase-structure ``trees`` (``dev``: trees for the
    ``"auto"`` choices)."""
    return make_grammar(method, **options).fit(trees, dev)


def train_grammar_sharded(method: str, shards, read, dev=None, *, workers: int | None = None, scheduler=None,
                          progress=None, **options):
    """The same, counting ``shards`` (each read by the picklable ``read(shard)``) on ``workers``
    processes or a Dask ``scheduler``: the same grammar whatever the workers."""
    return make_grammar(method, **options).fit_sharded(shards, read, dev, workers=workers, scheduler=scheduler,
                                                       progress=progress)
