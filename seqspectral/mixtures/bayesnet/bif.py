"""Discrete Bayesian networks from BIF text (the format of the bnlearn repository's networks).

Reads the subset every bnlearn ``.bif`` uses: ``variable NAME { type discrete [ n ] { v1,
..., vn }; }`` and ``probability ( CHILD | P1, P2 ) { (p1, p2) q1, ..., qn; ... }`` or
``{ table q1, ..., qn; }`` (rows in mixed-radix order, first parent slowest). Values are
numbered in their declared order. :func:`packaged_network` reads the networks that the
``pgmpy-no-torch`` (or ``pgmpy``) wheel ships as package data, e.g. Alarm (Beinlich et al.
1989), without importing that package.
"""

from __future__ import annotations

import gzip
import importlib.util
import re
from pathlib import Path

import numpy as np

from seqspectral.mixtures._research import EXTRA, MissingResearchDependency
from seqspectral.mixtures.bayesnet.network import BayesNetStructure, DiscreteBayesNet, StructureError

_VARIABLE = re.compile(r"variable\s+([^\s{]+)\s*\{\s*type\s+discrete\s*\[\s*(\d+)\s*\]\s*\{([^}]*)\}", re.S)
_PROBABILITY = re.compile(r"probability\s*\(([^)]*)\)\s*\{(.*?)\}", re.S)


def read_bif(text: str, hidden=(), source: str = "<bif>") -> DiscreteBayesNet:
    """The network of BIF ``text``, the variables named in ``hidden`` flagged hidden."""
    values = {name: [v.strip() for v in vals.split(",")] for name, _, vals in _VARIABLE.findall(text)}
    for name, n, _ in _VARIABLE.findall(text):
        if len(values[name]) != int(n):
            raise StructureError(f"{source}: variable {name} declares {n} values but lists {len(values[name])}")
    parents, rows = {}, {}
    for head, body in _PROBABILITY.findall(text):
        child, _, given = head.partition("|")
        child = child.strip()
        parents[child] = tuple(p.strip() for p in given.split(",") if p.strip())
        rows[child] = body
    missing = set(values) - set(parents)
    if missing:
        raise StructureError(f"{source}: no probability block for {sorted(missing)}")
    structure = BayesNetStructure.from_names({n: len(v) for n, v in values.items()}, parents, hidden=hidden)
    tables = []
    for name in structure.names:
        pa = parents[name]
        table = np.full((structure.n_parent_configs(structure.names.index(name)), len(values[name])), np.nan)
        for line in rows[name].split(";"):
            line = line.strip()
            if not line:
                continue
            if line.startswith("table"):
                table[:] = np.array(line[len("table"):].split(","), dtype=float).reshape(table.shape)
                continue
            config, _, numbers = line.partition(")")
            labels = [c.strip() for c in config.lstrip("(").split(",")]
            index = np.ravel_multi_index(tuple(values[p].index(v) for p, v in zip(pa, labels)),
                                         tuple(len(values[p]) for p in pa))
            table[index] = np.array(numbers.split(","), dtype=float)
        if np.isnan(table).any():
            raise StructureError(f"{source}: the table of {name} misses some parent configurations")
        tables.append(table / table.sum(axis=1, keepdims=True))  # the files round to 4 digits
    return DiscreteBayesNet.from_probabilities(structure, tables)


def packaged_network(name: str, hidden=()) -> DiscreteBayesNet:
    """Network ``name`` (``alarm``, ``asia``, ``cancer``, ...) from pgmpy's packaged ``.bif.gz`` files."""
    spec = importlib.util.find_spec("pgmpy")
    if spec is None or not spec.submodule_search_locations:
        raise MissingResearchDependency(f"network {name!r} needs the tables packaged with pgmpy, which is not installed: "
                                        f"pip install 'seqspectral[{EXTRA}]' (or pip install pgmpy-no-torch)")
    path = Path(list(spec.submodule_search_locations)[0]) / "utils" / "example_models" / f"{name}.bif.gz"
    if not path.is_file():
        raise FileNotFoundError(f"pgmpy packages no network {name!r} ({path} does not exist)")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return read_bif(f.read(), hidden, source=str(path))
