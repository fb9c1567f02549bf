"""Held-out scoring of a sequence model under every floor (and every mixture weight with a
partner model) in one pass: the table the automata learners and ``lm train`` choose from
(``selection.grid_search`` makes the choice)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..metrics import event_targets
from ..selection import WEIGHT_GRID
from . import _kernels


@dataclass(frozen=True)
class FloorSweep:
    """Held-out log-likelihood totals of a model under every floor, alone and mixed.

    ``totals[f, w]`` is Σ log(λ_w p_f(e) + (1 − λ_w) p_partner(e)) over the held-out events
    e, with p_f the model's conditional floored at ``floors[f]``; the columns are
    ``mix_weights`` (λ = 1: the model alone, always among them).
    """

    floors: tuple
    mix_weights: tuple
    totals: np.ndarray

    @property
    def alone(self) -> np.ndarray:
        """The model's own total under each floor."""
        return self.totals[:, self.mix_weights.index(1.0)]

    def mixed(self, floor: float) -> dict:
        """Mixture weight → total, the model floored at ``floor``."""
        return dict(zip(self.mix_weights, self.totals[self.floors.index(floor)].tolist()))


def floor_sweep(model, corpus, floors, partner_log_prob=None, mix_weights=WEIGHT_GRID) -> FloorSweep:
    """Every floor of ``floors`` (and, given the held-out event log-probabilities of a partner
    model, every mixture weight of ``mix_weights``) scored on ``corpus`` in one pass.

    The running state does not depend on the floor, so one pass gives every floor's
    conditionals; each distinct event (a prefix and what follows) is scored once and added as
    often as it occurs (held-out sequences on a small alphabet repeat a lot), never as an
    events × candidates array. A ``WeightedAutomaton`` runs its own compiled pass over the
    distinct sequences in lexicographic order, sharing their common prefixes
    (``held_out_sweep``); any other model with ``with_floor``, ``event_distributions`` and
    ``event_ids`` (an ``HMM``) gives the floor-0 conditionals of the distinct sequences a
    block at a time.
    """
    floors = tuple(float(f) for f in floors)
    weights = (1.0,) if partner_log_prob is None else tuple(float(w) for w in mix_weights)
    if 1.0 not in weights:
        weights = weights + (1.0,)
    partner = np.empty(0) if partner_log_prob is None else np.ascontiguousarray(partner_log_prob, dtype=np.float64)
    if len(partner) and len(partner) != corpus.n_tokens + len(corpus):
        raise ValueError(f"{len(partner)} partner log-probabilities for {corpus.n_tokens + len(corpus)} events")
    grid, floor_array = np.array(weights), np.array(floors)
    if hasattr(model, "held_out_sweep"):
        return FloorSweep(floors, weights, model.held_out_sweep(corpus, floor_array, partner, grid))
    representatives, counts = distinct_sequences(corpus)
    products, exponents, logs = candidate_accumulators(len(floors), len(weights))
    column = np.full(model.n_symbols, -1, dtype=np.int64)
    column[model.event_ids] = np.arange(len(model.event_ids))
    unfloored = model.with_floor(0.0)
    distinct = corpus.subset(representatives)
    lengths = distinct.lengths + 1  # events of each distinct sequence: its tokens, then stop
    # each distinct sequence's events: where they are in ``corpus`` (for the partner) and how often they occur
    firsts = np.repeat(corpus.offsets[representatives] + representatives - np.cumsum(lengths) + lengths, lengths)
    where = firsts + np.arange(lengths.sum())
    event_counts = np.repeat(counts, lengths)
    n_blocks = 1 + len(where) * len(model.event_ids) // _MAX_SWEEP_CELLS
    for block in np.array_split(np.arange(len(distinct)), n_blocks):
        if len(block) == 0:
            continue
        part = distinct.subset(block)
        first = int(distinct.offsets[block[0]]) + int(block[0])
        events = slice(first, first + part.n_tokens + len(part))
        _kernels.distribution_sweep(np.ascontiguousarray(unfloored.event_distributions(part)),
                                    column[event_targets(part)], event_counts[events], floor_array,
                                    partner[where[events]] if len(partner) else partner, grid, products, exponents,
                                    logs)
    return FloorSweep(floors, weights, log_likelihoods(products, exponents, logs))


_MAX_SWEEP_CELLS = 20_000_000


def candidate_accumulators(n_floors: int, n_weights: int):
    """The empty ``(products, exponents, logs)`` every candidate's events are added into
    (``automata._kernels.add_event``)."""
    shape = (_kernels.COUNT_CLASSES, n_floors, n_weights)
    return (np.ones(shape), np.zeros(shape, np.int64),
            np.zeros((n_floors, n_weights)))


def log_likelihoods(products, exponents, logs) -> np.ndarray:
    """Σ log of the accumulated probabilities (``candidate_accumulators``): each count class's
    log(product) + exponent · log 2, times its count, plus the summed logs."""
    with np.errstate(divide="ignore"):  # a product of 0: a zero probability, -inf
        once = np.log(products[1:]) + exponents[1:] * np.log(2.0)
    classes = np.arange(1, len(products), dtype=np.float64)[:, None, None]
    return logs + (classes * once).sum(axis=0)


def distinct_sequences(corpus) -> tuple[np.ndarray, np.ndarray]:
    """The distinct sequences of ``corpus`` in lexicographic order (the index of each one's
    first occurrence) and how often each occurs: the order of a trie walked depth first.

    Each sequence's ids (+ 1, 0 past its end) are packed into 64-bit chunk keys, ``width``
    ids a chunk, so that the keys compare as the ids do (a proper prefix first). The sequences
    are sorted by their first chunk, then, in numpy, only the groups still tied and holding a
    longer sequence by their next chunk, until no tie is left undecided: the groups are then
    the distinct sequences, each in index order (stable sorts)."""
    symbols, offsets = corpus.symbols, corpus.offsets
    n = len(offsets) - 1
    lengths = np.diff(offsets)
    bits = (int(symbols.max(initial=0)) + 1).bit_length()
    width = 64 // bits
    chunk_counts = -(-lengths // width)
    chunk_first = np.zeros(n + 1, np.int64)
    np.cumsum(chunk_counts, out=chunk_first[1:])
    position = np.arange(len(symbols)) - np.repeat(offsets[:-1], lengths)
    packed = (symbols.astype(np.uint64) + np.uint64(1)) << (bits * (width - 1 - position % width)).astype(np.uint64)
    chunks = np.zeros(chunk_first[-1] + 1, np.uint64)  # one spare 0: never indexed out of range
    if len(symbols):
        chunks[:-1] = np.add.reduceat(packed, np.flatnonzero(position % width == 0))

    def key(rows, level):  # the level-th chunk of each of ``rows``, 0 past its end
        return np.where(chunk_counts[rows] > level, chunks[np.minimum(chunk_first[rows] + level, chunk_first[-1])],
                        np.uint64(0))

    order = np.argsort(key(np.arange(n), 0), kind="stable")
    first_keys = key(order, 0)
    starts = np.ones(n, bool)  # where a group of equal keys so far begins, in ``order``
    starts[1:] = first_keys[1:] != first_keys[:-1]
    level = 1
    while True:
        group = np.cumsum(starts) - 1
        sizes = np.bincount(group)
        longer = np.bincount(group, weights=chunk_counts[order] > level) > 0
        active = np.flatnonzero(((sizes > 1) & longer)[group])
        if len(active) == 0:
            break
        rows = order[active]
        keys = key(rows, level)
        by = np.lexsort((keys, group[active]))
        order[active], keys = rows[by], keys[by]
        starts[active[1:]] |= keys[1:] != keys[:-1]
        level += 1
    firsts = np.flatnonzero(starts)
    return order[firsts], np.diff(np.append(firsts, n))
