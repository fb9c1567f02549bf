"""One model-selection engine: candidates scored on held-out data, the table and the choice.

Every ``"auto"`` hyper-parameter of every estimator, ``seqspectral lm train`` and the
benchmarks choose through :func:`select_and_refit` (the held-out split, the choice, the
refit on all of the training data) and :func:`grid_search` (the candidates and the table),
so the same method on the same data makes the same choice wherever it is asked. The grids
of every model are here, below. A candidate is a dict of hyper-parameter values; its
score is a held-out log-likelihood (higher is better). A candidate that cannot be fitted
(say, a moment matrix of lower rank than the states asked for) raises
:class:`CandidateFailed` and is recorded as failed, not chosen.

The held-out data is the user's development set when given, else a seeded random
:data:`HELD_OUT_FRACTION` of the training sequences (:func:`held_out_split`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

# -- the one set of grids and defaults ---------------------------------------------------------
#: fraction of the training sequences held out when no development set is given
HELD_OUT_FRACTION = 0.2
#: floors of the non-stochastic rule (fractions of the positive next-event mass), every model
FLOOR_GRID = (1e-6, 1e-4, 1e-3, 1e-2, 3e-2, 0.1)
#: ranks tried by the spectral weighted automata (one SVD serves them all)
RANK_GRID = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 130, 160, 200, 250, 300)
#: numbers of states tried by the HMM learners (tensor: at most |Σ|; each EM candidate is a full run)
STATE_GRID = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)
#: nuclear-norm regularisations of the convex automaton, fractions of τ_max, solved in this
#: order with warm starts
TAU_GRID = (1e-3, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 3e-8, 1e-8)
#: weights λ of a model mixed with a lower-order n-gram (λ = 1: the model alone)
WEIGHT_GRID = tuple(float(w) for w in np.linspace(0.0, 1.0, 21))
#: add-k smoothing constants of the n-gram models
NGRAM_K_GRID = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
#: the spectral tree model's ridge (relative to the largest singular value) and shrinkage λ
TREE_RIDGE_GRID = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
TREE_SHRINKAGE_GRID = (0.0, 0.3, 1.0, 3.0, 10.0, 30.0)
#: the spectral tree model's floor — a fraction of the word's training frequency, not of the
#: positive next-event mass as in FLOOR_GRID
TREE_FLOOR_GRID = (1e-4, 1e-3, 1e-2, 0.03, 0.1, 0.3)
#: weights of the base score (standardised) a reranker's perceptron starts from (``anchor="auto"``):
#: the larger, the more evidence the other features need to overrule the base model
ANCHOR_GRID = (1.0, 4.0, 16.0)
#: latent states per label of the L-PCFGs (one SVD and one pass of moments serve them all)
LATENT_STATE_GRID = (1, 2, 4, 8, 12, 16, 24, 32)
#: the spectral L-PCFG's per-label cut of its singular values (relative to the label's largest; 0: keep all)
SPECTRUM_CUTOFF_GRID = (0.0, 0.1, 0.2)
#: numbers of histogram bins per variable of the smooth product mixture (``n_bins="auto"``), cheapest first
BINS_GRID = (4, 6, 8, 10, 12, 15, 20)


class CandidateFailed(ValueError):
    """This candidate cannot be fitted on these data (recorded, never chosen)."""


class SelectionError(ValueError):
    """No candidate could be fitted."""

    user_facing = True


@dataclass
class SelectionResult:
    """What a selection tried and chose.

    ``table`` has one row per candidate: its values plus ``score`` (``None`` if it failed,
    with ``error``). ``at_edge`` names the hyper-parameters whose chosen value is the
    first or last of a grid of several values (the grid may be too narrow there).
    """

    on: str
    chosen: dict
    table: list[dict] = field(default_factory=list)
    at_edge: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"on": self.on, "chosen": self.chosen, "table": self.table, "at_edge": self.at_edge}

    @classmethod
    def from_json(cls, data: Mapping) -> "SelectionResult":
        return cls(data["on"], dict(data["chosen"]), list(data.get("table", [])), list(data.get("at_edge", [])))

    def prefixed(self, prefix: str) -> "SelectionResult":
        """The same selection with every hyper-parameter name prefixed (``k`` → ``mixture_k``)."""
        def rename(row):
            return {(k if k in ("score", "error") else prefix + k): v for k, v in row.items()}
        return SelectionResult(self.on, rename(self.chosen), [rename(r) for r in self.table],
                               [prefix + n for n in self.at_edge])

    def merged(self, other: "SelectionResult") -> "SelectionResult":
        """This selection followed by ``other`` (a later stage on the same held-out data)."""
        return SelectionResult(self.on, {**self.chosen, **other.chosen}, self.table + other.table,
                               self.at_edge + other.at_edge)


def select_and_refit(train, dev, random_state, choose: Callable, refit: Callable,
                     fraction: float = HELD_OUT_FRACTION, split=None) -> SelectionResult:
    """The one select–refit path of every ``"auto"``; returns the :class:`SelectionResult`.

    The held-out data is ``dev`` when given, else a seeded ``fraction`` of ``train``
    (:func:`held_out_split`). ``choose(fit_part, held, on)`` builds the candidates on
    ``fit_part`` without writing the estimator's fitted state, scores them on ``held``
    through :func:`grid_search`, then adopts the chosen one and returns the result. When
    the choice was made on a part of ``train``, ``refit(train, held)`` fits the chosen values
    on all of it (``held``: the part the chosen model has not seen, for statistics that add).
    ``split``: the (fit part, held-out part, description) when the caller drew them (sharded
    training draws them from the whole input by the same rule).
    """
    fit_part, held, on = split or held_out_split(train, dev, random_state, fraction)
    result = choose(fit_part, held, on)
    if dev is None and held is not train:
        refit(train, held)
    return result


def grid_search(grid: Mapping[str, Sequence], score: Callable[..., float], on: str,
                patience: int | None = None) -> SelectionResult:
    """Score every combination of ``grid`` (``score(**values)``, higher is better) and choose
    the best; ties go to the earlier candidate (list cheaper values first).

    With ``patience``, the values of the first name are a path swept in order (say, a
    decreasing regularisation solved with warm starts) and the sweep stops once that many
    consecutive values have not improved on the best score so far.
    """
    names = list(grid)
    table, best = [], None
    start = current = object()
    path_best, stale = -np.inf, 0
    for values in itertools.product(*(grid[n] for n in names)):
        if patience is not None and values[0] != current:
            if current is not start:  # a value of the path is done: did it improve?
                improved = best is not None and best[1] > path_best
                path_best, stale = (best[1], 0) if improved else (path_best, stale + 1)
                if stale >= patience:
                    break
            current = values[0]
        candidate = dict(zip(names, values))
        try:
            s = float(score(**candidate))
        except CandidateFailed as e:
            table.append({**candidate, "score": None, "error": str(e)})
            continue
        table.append({**candidate, "score": s})
        if best is None or s > best[1]:
            best = (candidate, s)
    if best is None:
        reasons = dict.fromkeys(row["error"] for row in table)  # each reason once, in order
        raise SelectionError(f"no candidate of {len(table)} could be fitted: {'; '.join(reasons)}")
    return SelectionResult(on, best[0], table, edges(grid, best[0]))


def edges(grid: Mapping[str, Sequence], chosen: Mapping) -> list[str]:
    """Names whose chosen value is at either end of a grid of at least three values."""
    out = []
    for name, values in grid.items():
        values = list(values)
        if len(values) >= 3 and name in chosen and chosen[name] in (values[0], values[-1]):
            out.append(name)
    return out


def held_out_split(train, dev=None, random_state=0, fraction: float = HELD_OUT_FRACTION):
    """(fit part, held-out part, description): ``dev`` when given, else ``fraction`` of ``train`` (a corpus or an array's rows).

    An empty ``dev`` is an error, never a silent fall-back.
    """
    if dev is not None:
        if len(dev) == 0:
            raise SelectionError("the development set is empty")
        return train, dev, "dev"
    if len(train) < 10:
        return train, train, "train (too small to hold out)"
    if hasattr(train, "split"):
        fit_part, held = train.split(fraction, random_state=random_state)
    else:  # the rows of an array, by a seeded permutation
        order = np.random.default_rng(random_state).permutation(len(train))
        n_held = max(1, int(round(fraction * len(train))))
        fit_part, held = train[order[n_held:]], train[order[:n_held]]
    return fit_part, held, f"held-out {fraction:.0%} of train"
