"""The reranker's held-out criterion: its gain over the base model's own ranking, less a
margin of that gain's standard error (paired over the held-out lists).

A model (say, an anchor weight and a number of epochs) is judged by how many fewer errors
its choices make than the base model's rank 1 on the held-out lists, G = Σᵢ dᵢ with
dᵢ = lossᵢ(rank 1) − lossᵢ(model), less ``margin`` standard errors of that sum, √n·sd(d).
The base model's own ranking scores exactly 0 and is always a candidate, so another model is
chosen only when its gain stands out of the noise of a held-out set of that size: on a few
held-out lists (a small treebank's dev set) a gain of a few heads by chance does not choose
a model that would lose on new lists, and on thousands the bound is close to the gain.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from seqspectral.perceptron import HeldOut

from .candidates import CandidateFeatures


def gain_bound(gain: np.ndarray, margin: float) -> float:
    """Σ gain − ``margin``·√n·sd(gain) of per-list gains (sample sd; one list: no bound above 0)."""
    total = float(np.sum(gain))
    if len(gain) < 2:
        return min(total, 0.0)
    return total - margin * float(np.sqrt(len(gain)) * np.std(gain, ddof=1))


class HeldOutGain:
    """Judges models on the held-out ``lists`` of ``features`` (with every candidate's
    ``loss``) against ``base_choice`` (the base model's pick in every list):
    :attr:`held_out` is the :class:`HeldOut` of the epoch loop (score: :func:`gain_bound`);
    :meth:`recording` adds each judged model's total held-out loss to its epoch record."""

    def __init__(self, features: CandidateFeatures, loss: np.ndarray, lists: np.ndarray, base_choice: np.ndarray,
                 margin: float, choose: Callable, on: str):
        self.features, self.loss, self.lists, self.margin = features, loss, lists, margin
        self.choose = choose
        self.base = self.losses(base_choice)
        self.last_loss = None
        self.held_out = HeldOut("held_out_gain_bound", self.evaluate,
                                on=f"{on}: gain over the base ranking less {margin:g} standard errors")

    def losses(self, choice: np.ndarray) -> np.ndarray:
        """Loss of the chosen candidate of every held-out list."""
        return self.loss[self.features.groups[self.lists] + choice[self.lists]]

    def evaluate(self, model) -> float:
        losses = self.losses(self.choose(self.features, model))
        self.last_loss = float(np.sum(losses))
        return gain_bound(self.base - losses, self.margin)

    def recording(self, on_epoch: Callable | None) -> Callable:
        """An epoch-record callback adding ``held_out_loss`` (then calling ``on_epoch``)."""
        def record(r):
            r["held_out_loss"] = self.last_loss
            if on_epoch is not None:
                on_epoch(r)
        return record

    def report(self, chosen: dict, on: str, items: float) -> dict:
        """``held_out_``: the base ranking's and the chosen model's (its epoch record ``chosen``)
        held-out loss and accuracy over ``items`` scored items, the bound and the margin."""
        base, reranked = float(np.sum(self.base)), chosen["held_out_loss"]
        return {"on": on, "lists": len(self.lists), "items": items, "base_loss": base, "reranked_loss": reranked,
                "gain_bound": chosen["held_out_gain_bound"], "margin": self.margin,
                "base_accuracy": 100.0 * (1 - base / items) if items else None,
                "reranked_accuracy": 100.0 * (1 - reranked / items) if items else None}
