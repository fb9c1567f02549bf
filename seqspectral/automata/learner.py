"""The fit-select-refit skeleton every sequence learner of the toolkit shares.

A learner has one *swept* hyper-parameter (the number of states, or the convex
regularisation) and the floor of the non-stochastic rule. Either may be ``"auto"``; then
``fit`` chooses it through :func:`seqspectral.selection.grid_search` by held-out
log-likelihood — on ``dev`` when given, else on a seeded :data:`HELD_OUT_FRACTION` of the
training sequences, after which the chosen configuration is *refitted* on all of them
(:meth:`refit`): statistics that add (Hankel blocks) are counted on the held-out part only
and added to the stored ones, EM restarts from the chosen model. Learners whose statistics
add (``_adds_statistics``) also take ``extra``: the statistics of more training data,
counted elsewhere (other shards of a corpus, :mod:`seqspectral.counting.sharded`) on the
basis they were given, added to the counts of ``corpus`` in every fit. The command line
(``seqspectral lm train``), the benchmarks and the estimator's own ``"auto"`` all run this
one path, so the same method on the same data makes the same choice.

Subclasses provide ``_swept``, ``_grid(corpus)`` (values tried, in sweep order),
``_candidates(corpus, extra)`` → a function value → unfloored model (counting once per corpus,
cheap per value where the method allows; what differs between candidates is kept with the
candidate and adopted by ``_finish`` for the chosen value only), and ``_refit(corpus, added)``
→ the unfloored model of the chosen value on ``corpus``. Every candidate model has ``with_floor``,
``event_distributions``, ``event_ids`` and ``n_symbols`` (``WeightedAutomaton``, ``HMM``).
"""

from __future__ import annotations

import time
from functools import cache
from typing import ClassVar

from ..base import Estimator
from ..progress import stage
from ..protocols import EventLogProbs, SequenceLanguageModel
from ..selection import FLOOR_GRID, grid_search, select_and_refit
from .floor_sweep import floor_sweep


class SelectingLearner(Estimator, SequenceLanguageModel):
    """Base of ``SpectralWA``, ``ConvexWA``, ``TensorHMM`` and ``BaumWelchHMM``.

    ``progress`` (a hyper-parameter of every learner): progress over the swept values on
    stderr, by the rule of :mod:`seqspectral.progress` (None: a bar on a terminal only).

    Fitted attributes: ``model_`` (the language model), ``<swept>_`` and ``floor_`` (the
    values used), ``selection_`` (a ``SelectionResult``, None when nothing was chosen),
    ``held_out_`` (the chosen value's ``FloorSweep``, None when nothing was chosen) and
    ``fit_time_`` (seconds, counting and selection included).
    """

    _swept: ClassVar[str] = "n_states"
    #: stop the sweep after this many swept values without improvement (None: try them all)
    _patience: ClassVar[int | None] = None
    #: whether ``fit`` takes ``extra`` statistics (learners fitted from counts that add)
    _adds_statistics: ClassVar[bool] = False

    def _selects(self) -> bool:
        return "auto" in (getattr(self, self._swept), self.floor)

    def fit(self, corpus, dev=None, extra=None, partner_log_prob=None):
        """Fit on ``corpus``; ``"auto"`` values are chosen on ``dev`` (else on a held-out part
        of ``corpus``, then refitted on all of it). ``extra``: statistics of more training
        data, counted on ``choose_basis(corpus)`` (or the given ``basis``), added to those of
        ``corpus`` (learners whose statistics add); the fit uses their basis.
        ``partner_log_prob``: the event log-probabilities on ``dev`` of a model to mix with;
        every mixture weight is then scored in the floor sweep's pass (``held_out_``). Returns self.

        BLAS runs single-threaded inside: the learners' matrices are small to medium, and a
        threaded OpenBLAS on two busy cores made them up to 60x slower."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return self._fit(corpus, dev, extra, partner_log_prob)

    def _fit(self, corpus, dev, extra, partner_log_prob=None):
        self._validate_params()
        if extra is not None and not self._adds_statistics:
            raise ValueError(f"{type(self).__name__} is fitted on sequences: it takes no extra statistics")
        if len(corpus) == 0 or corpus.n_tokens == 0:
            raise ValueError(f"cannot fit {type(self).__name__} on an empty corpus")
        start = time.perf_counter()
        if not self._selects():
            value, floor = getattr(self, self._swept), float(self.floor)
            self.model_ = self._candidates(corpus, extra)(value).with_floor(floor)
            self.selection_ = self.held_out_ = None
            self._finish(value, floor)
        else:
            self.selection_ = select_and_refit(
                corpus, dev, self.random_state,
                lambda part, held, on: self._choose(part, held, on, extra, partner_log_prob), self.refit)
        self.fit_time_ = time.perf_counter() - start
        return self

    def _choose(self, fit_part, held, on: str, extra=None, partner_log_prob=None):
        """Every (swept value, floor) scored on ``held`` by mean log-likelihood per sequence, one
        pass per value (``floor_sweep``); the chosen model adopted (``model_``, ``<swept>_``,
        ``floor_``) and its sweep kept as ``held_out_``."""
        make = self._candidates(fit_part, extra)
        value, floor = getattr(self, self._swept), self.floor
        values = self._grid(fit_part) if value == "auto" else [value]
        floors = list(FLOOR_GRID) if floor == "auto" else [float(floor)]

        bar = stage(f"{type(self).__name__}: {self._swept}", len(values), "value", self.progress)

        @cache
        def scored(v):
            bar.set_postfix_str(f"{self._swept}={v:g}")
            model = make(v)
            bar.update(1)
            return model, floor_sweep(model, held, floors, partner_log_prob)

        try:
            result = grid_search({self._swept: values, "floor": floors},
                                 lambda **c: scored(c[self._swept])[1].alone[floors.index(c["floor"])] / len(held),
                                 on, self._patience)
            bar.set_postfix_str(f"chose {self._swept}={result.chosen[self._swept]:g}")
        finally:
            bar.close()
        chosen_value, chosen_floor = result.chosen[self._swept], result.chosen["floor"]
        model, self.held_out_ = scored(chosen_value)
        self.model_ = model.with_floor(chosen_floor)
        self._finish(chosen_value, chosen_floor)
        return result

    def _finish(self, value, floor) -> None:
        setattr(self, self._swept + "_", value)
        self.floor_ = float(floor)

    def refit(self, corpus, added):
        """The chosen configuration fitted again on ``corpus``, of which ``added`` is the part
        the last fit did not see (its statistics are added, not recounted). Returns self."""
        from threadpoolctl import threadpool_limits

        self._check_fitted()
        with threadpool_limits(limits=1, user_api="blas"):
            self.model_ = self._refit(corpus, added).with_floor(self.floor_)
        self._finish(getattr(self, self._swept + "_"), self.floor_)
        return self

    def event_log_probs(self, corpus) -> EventLogProbs:
        """The sequence-model protocol, by the fitted model."""
        self._check_fitted()
        return self.model_.event_log_probs(corpus)

    def sequence_log_probs(self, corpus):
        self._check_fitted()
        return self.model_.sequence_log_probs(corpus)

    # -- hooks -------------------------------------------------------------------------------
    def _grid(self, corpus) -> list:
        raise NotImplementedError

    def _candidates(self, corpus, extra=None):
        raise NotImplementedError

    def _refit(self, corpus, added):
        raise NotImplementedError



