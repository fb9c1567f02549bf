"""Discrete Bayesian networks with hidden variables: structure, tables, sampling, inference.

The network of Guo & Schuurmans (NIPS 2007, §2): variables z_1..z_n with finite values
0..card-1, a directed acyclic graph given by each variable's parents, and one conditional
probability table per variable, p(z_j | z_pa(j)), stored as log-probabilities with one row per
parent configuration (the parents' values read as a mixed-radix number, first parent most
significant, as :func:`numpy.ravel_multi_index` does). Some variables are *hidden*: data sets
hold the observed columns only, in the structure's order (``X``, one row per example), and
the hidden ones apart (``H``).

Inference enumerates the joint configurations of the hidden variables (the networks here
have one or two hidden variables of two or three values), so p(x) = Σ_h p(x, h) and the
most probable h are exact.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp


class StructureError(ValueError):
    """A network structure or a data array that does not fit it."""

    user_facing = True


@dataclass(frozen=True)
class BayesNetStructure:
    """Names, cardinalities, parents (indices) and the hidden flags of a network's variables."""

    names: tuple[str, ...]
    cardinalities: tuple[int, ...]
    parents: tuple[tuple[int, ...], ...]
    hidden: tuple[bool, ...]

    def __post_init__(self):
        n = len(self.names)
        if not (len(self.cardinalities) == len(self.parents) == len(self.hidden) == n) or n == 0:
            raise StructureError("names, cardinalities, parents and hidden must have one entry per variable")
        if len(set(self.names)) != n:
            raise StructureError(f"variable names must be distinct: {self.names}")
        for j, (card, pa) in enumerate(zip(self.cardinalities, self.parents)):
            if int(card) < 2:
                raise StructureError(f"variable {self.names[j]!r} needs at least 2 values, has {card}")
            if any(not 0 <= p < n or p == j for p in pa) or len(set(pa)) != len(pa):
                raise StructureError(f"variable {self.names[j]!r} has bad parents {pa}")
        self.order  # noqa: B018  (raises on a cycle)

    @classmethod
    def from_names(cls, cardinalities: dict[str, int], parents: dict[str, tuple[str, ...]], hidden=()):
        """A structure from ``{name: card}``, ``{name: (parent names)}`` and the hidden names."""
        names = tuple(cardinalities)
        index = {name: j for j, name in enumerate(names)}
        unknown = [p for pa in parents.values() for p in pa if p not in index] + [h for h in hidden if h not in index]
        if unknown or set(parents) - set(index):
            raise StructureError(f"unknown variables {sorted(set(unknown) | (set(parents) - set(index)))}")
        return cls(names=names,
                   cardinalities=tuple(int(cardinalities[n]) for n in names),
                   parents=tuple(tuple(index[p] for p in parents.get(n, ())) for n in names),
                   hidden=tuple(n in set(hidden) for n in names))

    # -- derived views ---------------------------------------------------------------------------
    @property
    def order(self) -> tuple[int, ...]:
        """A topological order of the variables (parents first)."""
        done: list[int] = []
        placed = set()
        while len(done) < len(self.names):
            ready = [j for j in range(len(self.names)) if j not in placed and set(self.parents[j]) <= placed]
            if not ready:
                raise StructureError("the parents relation has a cycle")
            done.extend(ready)
            placed.update(ready)
        return tuple(done)

    @property
    def observed_index(self) -> np.ndarray:
        """Indices of the observed variables, the columns of ``X`` in this order."""
        return np.flatnonzero(~np.asarray(self.hidden, dtype=bool))

    @property
    def hidden_index(self) -> np.ndarray:
        """Indices of the hidden variables, the columns of ``H`` in this order."""
        return np.flatnonzero(np.asarray(self.hidden, dtype=bool))

    def n_parent_configs(self, j: int) -> int:
        """Number of rows of variable j's table (1 for a root)."""
        return int(np.prod([self.cardinalities[p] for p in self.parents[j]], dtype=np.int64))

    def parent_configs(self, data: np.ndarray, j: int) -> np.ndarray:
        """Row of variable j's table for every example of complete ``data`` (n_examples × n_vars)."""
        pa = self.parents[j]
        if not pa:
            return np.zeros(len(data), dtype=np.int64)
        return np.ravel_multi_index(tuple(data[:, p] for p in pa), tuple(self.cardinalities[p] for p in pa))

    def hidden_configurations(self) -> np.ndarray:
        """Every joint value of the hidden variables (n_configs × n_hidden), the first varying slowest."""
        cards = [self.cardinalities[h] for h in self.hidden_index]
        return np.array(list(itertools.product(*map(range, cards))), dtype=np.int64).reshape(-1, len(cards))

    # -- data ------------------------------------------------------------------------------------
    def check_observed(self, X) -> np.ndarray:
        """``X`` as an int64 array (n_examples × n_observed) with every value in range."""
        return self._check(X, self.observed_index, "X (observed variables)")

    def check_hidden(self, H) -> np.ndarray:
        """``H`` as an int64 array (n_examples × n_hidden) with every value in range."""
        return self._check(H, self.hidden_index, "H (hidden variables)")

    def _check(self, A, columns: np.ndarray, what: str) -> np.ndarray:
        A = np.asarray(A)
        if A.ndim != 2 or A.shape[1] != len(columns):
            raise StructureError(f"{what} must be a 2-d array with {len(columns)} columns, got shape {A.shape}")
        if A.size and not np.issubdtype(A.dtype, np.integer):
            if not np.all(np.mod(A, 1) == 0):
                raise StructureError(f"{what} must hold integer values")
        A = A.astype(np.int64)
        cards = np.array([self.cardinalities[c] for c in columns], dtype=np.int64)
        bad = np.argwhere((A < 0) | (A >= cards))
        if len(bad):
            i, c = bad[0]
            raise StructureError(f"{what}: row {i}, column {c} ({self.names[columns[c]]!r}) has value {A[i, c]}, "
                                 f"outside 0..{cards[c] - 1}")
        return A

    def complete(self, X: np.ndarray, H: np.ndarray) -> np.ndarray:
        """The complete data (n_examples × n_vars) from the observed and the hidden columns."""
        if len(X) != len(H):
            raise StructureError(f"X has {len(X)} rows but H has {len(H)}")
        data = np.empty((len(X), len(self.names)), dtype=np.int64)
        data[:, self.observed_index] = X
        data[:, self.hidden_index] = H
        return data


@dataclass
class DiscreteBayesNet:
    """A :class:`BayesNetStructure` with its tables: ``log_cpts[j]`` is (n_parent_configs, card)."""

    structure: BayesNetStructure
    log_cpts: list[np.ndarray]

    def __post_init__(self):
        s = self.structure
        for j, table in enumerate(self.log_cpts):
            shape = (s.n_parent_configs(j), s.cardinalities[j])
            if table.shape != shape:
                raise StructureError(f"table of {s.names[j]!r} has shape {table.shape}, expected {shape}")
            if not np.allclose(logsumexp(table, axis=1), 0.0, atol=1e-8):
                raise StructureError(f"rows of the table of {s.names[j]!r} do not sum to one")

    @classmethod
    def from_probabilities(cls, structure: BayesNetStructure, cpts) -> "DiscreteBayesNet":
        """A network from probability tables (rows sum to one; zeros allowed)."""
        with np.errstate(divide="ignore"):
            return cls(structure, [np.log(np.asarray(c, dtype=float)) for c in cpts])

    def log_joint(self, data: np.ndarray) -> np.ndarray:
        """log p(z) of every row of complete data (n_examples × n_vars)."""
        s = self.structure
        total = np.zeros(len(data))
        for j, table in enumerate(self.log_cpts):
            total += table[s.parent_configs(data, j), data[:, j]]
        return total

    def _log_joint_all_hidden(self, X) -> np.ndarray:
        """log p(x, h) for every example (rows) and hidden configuration (columns)."""
        s = self.structure
        X = s.check_observed(X)
        configs = s.hidden_configurations()
        return np.stack([self.log_joint(s.complete(X, np.broadcast_to(h, (len(X), len(h))))) for h in configs], axis=1)

    def log_marginal(self, X) -> np.ndarray:
        """log p(x) = log Σ_h p(x, h) of every row of the observed data ``X``."""
        return logsumexp(self._log_joint_all_hidden(X), axis=1)

    def most_probable_hidden(self, X) -> np.ndarray:
        """argmax_h p(x, h) of every row of ``X`` (n_examples × n_hidden): Viterbi EM's E-step."""
        return self.structure.hidden_configurations()[np.argmax(self._log_joint_all_hidden(X), axis=1)]

    def sample(self, n: int, random_state=0) -> np.ndarray:
        """``n`` complete examples (n × n_vars) by ancestral sampling."""
        rng = np.random.default_rng(random_state)
        s = self.structure
        data = np.zeros((n, len(s.names)), dtype=np.int64)
        for j in s.order:
            probs = np.exp(self.log_cpts[j][s.parent_configs(data, j)])
            cumulative = np.cumsum(probs, axis=1)
            u = rng.random(n)[:, None] * cumulative[:, -1:]
            data[:, j] = np.minimum((u >= cumulative).sum(axis=1), s.cardinalities[j] - 1)
        return data
