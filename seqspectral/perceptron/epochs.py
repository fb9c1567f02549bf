"""The epoch loop of every averaged perceptron (parser, tagger, reranker) and its held-out
choice of the number of epochs.

One pass over the training data per epoch; after each, the averaged model is evaluated on
held-out data (when there is any) and the best epoch's model is kept — early stopping
read as a choice of ``epochs`` among 1..n (0 too when the untrained model is a candidate,
as the reranker's parser ranking is), recorded like every other held-out choice of the
toolkit as a :class:`~seqspectral.selection.SelectionResult` (:func:`epoch_selection`).
Nothing is written on the estimator while this runs: it gets the kept model at the end.

The candidates are the averaged weights after each epoch of one run, so with ``dev``
held out (the parser and the tagger) the chosen one is already fitted on all of the
training data and ``selection.select_and_refit`` would have nothing to refit; the reranker,
which may hold out training lists, goes through ``select_and_refit`` (docs/design.md,
"Choosing").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from seqspectral.progress import stage
from seqspectral.selection import SelectionResult, grid_search


@dataclass
class HeldOut:
    """How the averaged model of an epoch is judged: ``evaluate(model)`` is recorded in
    the epoch's history record under ``name`` (say ``dev_uas``); ``higher_is_better``
    says which way the choice goes; ``on`` describes it (``"dev UAS"``)."""

    name: str
    evaluate: Callable[[Any], float]
    on: str
    higher_is_better: bool = True

    def score(self, value: float) -> float:
        """``value`` as a score to maximise."""
        return value if self.higher_is_better else -value


@dataclass
class EpochRun:
    """What :func:`train_epochs` did: one history record per epoch, the kept model and,
    with held-out data (described by ``on``), the held-out score (higher is better) of
    every epoch tried."""

    history: list[dict]
    model: Any
    scores: dict[int, float] = field(default_factory=dict)
    on: str = ""


def train_epochs(n_epochs: int, run_epoch: Callable[[int], dict], average: Callable[[], Any],
                 held_out: HeldOut | None = None, *, start: Any = None,
                 on_epoch: Callable[[dict], None] | None = None) -> EpochRun:
    """Run epochs 1..``n_epochs``: ``run_epoch(epoch)`` trains one pass and returns its
    record (training figures), ``average()`` gives the averaged model after it (asked for
    only when needed: after every epoch with ``held_out``, else after the last). With
    ``held_out`` the model of the best epoch is kept (ties: the earlier); ``start``, when
    given, is the model before any epoch and is epoch 0 of that choice. Without it the last
    epoch's model is kept. ``on_epoch(record)`` sees each record as it is made."""
    history: list[dict] = []
    scores: dict[int, float] = {}
    best = None
    if held_out is not None and start is not None:
        value = held_out.evaluate(start)
        scores[0] = held_out.score(value)
        best = (scores[0], start)
        record = {"epoch": 0, held_out.name: value}
        history.append(record)
        if on_epoch is not None:
            on_epoch(record)
    model = start
    with stage("epochs", total=n_epochs, unit="epoch", inner=True) as done:  # the heartbeat of a stage it runs in
        for epoch in range(1, n_epochs + 1):
            record = {"epoch": epoch, **run_epoch(epoch)}
            if held_out is not None or epoch == n_epochs:  # without held-out data only the last is kept
                model = average()
            if held_out is not None:
                value = held_out.evaluate(model)
                record[held_out.name] = value
                scores[epoch] = held_out.score(value)
                if best is None or scores[epoch] > best[0]:
                    best = (scores[epoch], model)
            history.append(record)
            done.update()
            if on_epoch is not None:
                on_epoch(record)
    return EpochRun(history, best[1] if best is not None else model, scores, held_out.on if held_out else "")


def epoch_selection(run: EpochRun) -> SelectionResult | None:
    """The choice of ``epochs`` :func:`train_epochs` made on held-out data (None without)."""
    if not run.scores:
        return None
    return grid_search({"epochs": tuple(run.scores)}, lambda epochs: run.scores[epochs], on=run.on)


def member_generators(random_state, runs: int) -> list:
    """The random generator of each of ``runs`` perceptrons trained side by side (the order each
    visits the training items in): with an integer ``random_state`` member ``r`` has its own,
    seeded ``random_state + r`` (member 0 is the single perceptron of that seed), else the
    members draw in turn from one generator."""
    if isinstance(random_state, (int, np.integer)):
        return [np.random.default_rng(random_state + r) for r in range(runs)]
    return [np.random.default_rng(random_state)] * runs
