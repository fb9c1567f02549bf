"""One model-selection engine: candidates scored on held-out data, the table and the choice.

Every ``"auto"`` hyper-parameter of every estimator, ``seqspectral lm train`` and the
benchmarks choose through :func:`grid_search`, so the same method on the same data makes
the same choice wherever it is asked. A candidate is a dict of hyper-parameter values; its
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

#: fraction of the training sequences held out when no development set is given
HELD_OUT_FRACTION = 0.1


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

    def merged(self, other: "SelectionResult") -> "SelectionResult":
        """This selection followed by ``other`` (a later stage on the same held-out data)."""
        return SelectionResult(self.on, {**self.chosen, **other.chosen}, self.table + other.table,
                               self.at_edge + other.at_edge)


def grid_search(grid: Mapping[str, Sequence], score: Callable[..., float], on: str) -> SelectionResult:
    """Score every combination of ``grid`` (``score(**values)``, higher is better) and choose
    the best; ties go to the earlier candidate (list cheaper values first)."""
    names = list(grid)
    table, best = [], None
    for values in itertools.product(*(grid[n] for n in names)):
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
        raise SelectionError(f"no candidate could be fitted: {[row.get('error') for row in table]}")
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
    """(fit part, held-out part, description): ``dev`` when given, else ``fraction`` of ``train``.

    An empty ``dev`` is an error, never a silent fall-back.
    """
    if dev is not None:
        if len(dev) == 0:
            raise SelectionError("the development set is empty")
        return train, dev, "dev"
    if len(train) < 10:
        return train, train, "train (too small to hold out)"
    fit_part, held = train.split(fraction, random_state=random_state)
    return fit_part, held, f"held-out {fraction:.0%} of train"
