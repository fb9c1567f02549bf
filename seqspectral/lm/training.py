"""Training and evaluating the language models of ``seqspectral lm``.

Every choice is made on one held-out set by the selection engine (``seqspectral.selection``):
the user's development set, else a seeded 20% of the training sequences. In order: the
learner's own ``"auto"`` values (states or regularisation × floor, ``SelectingLearner``),
then the smoothing k of an add-k bigram (from its count tables) and the weight λ of the
learner mixed with it (λ = 1: the learner alone). Without a development set the chosen
configuration is then refitted on all of the training data (``refit``: statistics added,
not recounted). Training data counted elsewhere (other shards, :mod:`.sharded`) comes in
as ``more``: its statistics are added to those of ``train`` in every fit. The estimator's own ``fit`` runs the same first stage the same way, so the
same method on the same data makes the same choice from Python, the command line and the
benchmarks.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..corpus import Corpus, Vocabulary
from ..metrics import event_report
from ..automata.floor_sweep import floor_sweep
from ..selection import CandidateFailed, SelectionError, select_and_refit
from .methods import METHODS, make_estimator
from .mixture import Interpolated, select_weight
from .ngram import NGramLM
from .trained import TrainedLM
from .unknown import UnknownEscape, unseen_mass


class LanguageModelError(ValueError):
    """Bad usage or input of the language-model layer (the command line exits with 2)."""

    user_facing = True


def train_lm(train: Corpus, method: str, n_states="auto", dev: Corpus | None = None, basis_length: int | None = None,
             random_state=0, verbose: bool = False, order: int = 3, max_iter: int | None = None,
             mix_order: int | None = 2, more=None, split=None) -> TrainedLM:
    """Fit ``method`` on ``train``, every choice made by held-out log-likelihood (module docstring).

    ``order`` is the n-gram order of ``method="ngram"``, ``max_iter`` caps EM iterations,
    ``mix_order`` the order of the n-gram mixed into every learner (None: no mixing).
    ``more``: a function ``(estimator, n-gram orders)`` → the :class:`~.sharded.LMCounts`
    of the training data beyond ``train``, its Hankel statistics counted on the basis the
    estimator would choose on all of the fit part (None for the n-gram methods); ``split``:
    the (fit part, held-out part, description) of ``train`` when the caller chose them
    (:mod:`.sharded`: drawn from the whole input, as :func:`held_out_split` draws them).
    """
    if method not in METHODS:
        raise LanguageModelError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if train.vocabulary is None or len(train) == 0 or train.n_tokens == 0:
        raise LanguageModelError("the training corpus is empty or has no vocabulary")
    if dev is not None and (len(dev) == 0 or dev.drop_unknown().n_tokens == 0 and dev.n_tokens > 0):
        raise LanguageModelError("the development set is empty (or has no known symbol): give a non-empty --dev")
    n_ids = len(train.vocabulary)
    try:
        estimator = make_estimator(method, n_states, basis_length=basis_length, random_state=random_state,
                                   max_iter=max_iter, order=order, progress=verbose)
        ngram = isinstance(estimator, NGramLM)
        mixing = bool(mix_order) and not ngram
        orders = [estimator.order] if ngram else [mix_order] if mixing else []
        fitted = {"extra": None, "lower": None, "spectrum": None}

        def choose(fit_part, held, on):
            extra = fitted["extra"] = None if more is None else _counted_elsewhere(estimator, fit_part, more, method,
                                                                                   orders)
            partner = None
            if mixing:  # fitted first: every mixture weight is scored in the learner's floor sweep
                lower = fitted["lower"] = NGramLM(mix_order, random_state=random_state).fit(
                    fit_part, dev=held, n_ids=n_ids, extra=None if extra is None else extra.ngrams[mix_order])
                partner = {"partner_log_prob": lower.event_log_probs(held).log_prob}
            estimator.fit(fit_part, dev=held, **({"n_ids": n_ids} if ngram else partner or {}),
                          **({} if extra is None else {"extra": extra.ngrams[orders[0]] if ngram else extra.hankel}))
            # the Hankel spectrum as selection saw it, for the plot a user chooses the number of states from
            fitted["spectrum"] = getattr(getattr(estimator, "prepared_", None), "singular_values", None)
            # the estimator chose on what it was given as dev: say what that was
            selection = None if estimator.selection_ is None else replace(estimator.selection_, on=on)
            if mixing:
                sweep = estimator.held_out_
                if sweep is None:  # nothing was chosen: one pass for the weights alone
                    sweep = floor_sweep(estimator.model_, held, [estimator.floor_], **partner)
                weight = select_weight(sweep.mixed(estimator.floor_), len(held), on)
                selection = _merged(selection, fitted["lower"].selection_.prefixed("mixture_"), weight)
            return selection

        def refit(train, held):
            estimator.refit(train, held)
            fitted["lower"] = fitted["lower"] and fitted["lower"].refit(train, held)

        selection = select_and_refit(train, None if dev is None else dev.drop_unknown(), random_state, choose, refit,
                                     split=split)
        extra, lower = fitted["extra"], fitted["lower"]
    except (CandidateFailed, SelectionError) as e:
        raise LanguageModelError(f"{method}: {e}") from None
    model = estimator if ngram else estimator.model_
    if lower is not None and selection.chosen["model_weight"] < 1.0:
        model = Interpolated(model, lower, selection.chosen["model_weight"])
    symbols = np.bincount(train.symbols, minlength=n_ids)
    sizes = {"n_sequences": len(train), "n_tokens": train.n_tokens}
    if extra is not None:
        symbols = symbols + extra.symbols
        sizes = {"n_sequences": len(train) + extra.n_sequences, "n_tokens": train.n_tokens + extra.n_tokens}
    if fitted["spectrum"] is not None:  # for the plot a user chooses the number of states from
        sizes["hankel_singular_values"] = [float(f"{v:.6g}") for v in fitted["spectrum"].tolist()]
    return TrainedLM(UnknownEscape(model, unseen_mass(symbols)), method, estimator.json_params(), train.vocabulary,
                     selection, sizes)


def _counted_elsewhere(estimator, fit_part, more, method: str, orders):
    """The statistics of the training data beyond ``train`` (``more``'s, module docstring)."""
    if isinstance(estimator, NGramLM):
        return more(None, orders)
    if not getattr(estimator, "_adds_statistics", False):
        raise LanguageModelError(f"{method} is fitted on the sequences themselves: its training data cannot be "
                                 f"counted in shards (the spectral methods, convex and the n-grams can)")
    return more(estimator, orders)


def _merged(*results):
    results = [r for r in results if r is not None]
    out = results[0]
    for r in results[1:]:
        out = out.merged(r)
    return out


def evaluate_lm(lm: TrainedLM, corpus: Corpus, solution: np.ndarray | None = None) -> dict:
    """Perplexity, WER, PAutomaC score (given true probabilities), sizes, floored weights, unknowns."""
    if len(corpus) == 0:
        raise LanguageModelError("the test corpus has no sequences")
    if solution is not None and len(solution) != len(corpus):
        raise LanguageModelError(f"the solution has {len(solution)} probabilities for {len(corpus)} test sequences")
    events = lm.model.event_log_probs(corpus)
    return {
        **event_report(events.log_prob, events.predicted, corpus, solution),
        "n_unknown": int(np.sum(corpus.symbols == Vocabulary.UNK_ID)),
        "n_floored": int(events.n_floored),
        "n_weights": int(events.n_weights),
    }

