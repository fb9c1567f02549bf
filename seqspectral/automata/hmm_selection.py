"""Choosing the number of HMM states (``n_states="auto"``) and the floor by held-out log-likelihood."""

from __future__ import annotations

GRID = (1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64)
#: floors tried with ``floor="auto"`` (a fraction of each next-event distribution, see ``HMM``)
FLOORS = (1e-6, 1e-4, 1e-3, 1e-2)
#: the floor when ``floor="auto"`` has no held-out data to choose on
DEFAULT_FLOOR = 1e-6


def candidate_states(max_states: int, limit: int | None = None) -> list[int]:
    """The grid's state counts up to ``max_states`` (and ``limit``)."""
    top = max_states if limit is None else min(max_states, limit)
    out = [k for k in GRID if k <= top]
    if not out:
        raise ValueError(f"no candidate number of states up to {top}")
    return out


def select_n_states(fit_k, corpus, candidates, validation_fraction: float, random_state=None,
                    floors=(DEFAULT_FLOOR,)) -> tuple[int, float, dict]:
    """(best k, best floor, {k: held-out mean log-likelihood at its best floor}).

    ``fit_k(k, fit_part)`` returns a fitted estimator whose ``model_`` is an ``HMM``.
    ``corpus`` is split once (``validation_fraction`` held out); every candidate is fitted
    on the rest and scored on the held-out part with every floor of ``floors`` (> 0, so
    unseen events do not give -inf).
    """
    if not 0.0 < validation_fraction < 1.0:
        raise ValueError(f"validation_fraction must be in (0, 1), got {validation_fraction}")
    fit_part, held_out = corpus.split(validation_fraction, random_state=random_state)
    if len(fit_part) == 0 or len(held_out) == 0:
        raise ValueError("the corpus is too small to hold out a validation part")
    scores, best = {}, None
    for k in candidates:
        model = fit_k(k, fit_part).model_
        for floor in floors:
            model.floor = floor
            score = float(model.score(held_out))
            if score > scores.get(k, -float("inf")):
                scores[k] = score
            if best is None or score > best[2]:
                best = (k, floor, score)
    return best[0], best[1], scores


def resolve_floor(floor) -> float:
    """A numeric floor: ``"auto"`` without a held-out choice is ``DEFAULT_FLOOR``."""
    if floor == "auto":
        return DEFAULT_FLOOR
    if not 0.0 <= float(floor) < 1.0:
        raise ValueError(f"floor must be 'auto' or in [0, 1), got {floor!r}")
    return float(floor)
