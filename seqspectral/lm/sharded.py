"""Training a language model on a corpus counted in shards, where each shard is read.

``train_lm_sharded`` runs :func:`~.training.train_lm` on the counts of every shard, with
the choices that depend on the data made on the whole input, by rules that do not depend
on how it is cut: the held-out part (unless ``dev`` is given) is the sequences
:func:`~seqspectral.selection.held_out_split` would draw from the whole corpus (by their
index in the input, under the seed), gathered from the shards; the Hankel basis is chosen
from the string counts of every shard's fit part
(:func:`~seqspectral.counting.sharded.sharded_basis`) before the statistics are counted on
it by :func:`seqspectral.counting.sharded.count_sharded` (in this process, on local
processes or on a Dask cluster). A shard's counts are an :class:`LMCounts`: the Hankel
statistics, the n-gram tables of the orders the training needs, the symbol occurrences and
the sizes; they add exactly. So the model is the one ``train_lm`` fits on the whole file,
with one worker or many.

Only methods fitted from statistics that add can be trained this way: the spectral
automata, the convex one and the n-gram models; the HMM learners (tensor, EM) need the
sequences themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ..counting.shards import read_shard
from .ngram import ngram_counts
from .training import LanguageModelError, train_lm


@dataclass(frozen=True)
class LMCounts:
    """What a shard contributes to a language model's training; counts of disjoint shards add."""

    hankel: object  # HankelStatistics on the shared basis, or None (n-gram methods)
    ngrams: dict  # order -> NGramCounts
    symbols: np.ndarray  # occurrences of every symbol id
    n_sequences: int
    n_tokens: int

    def __add__(self, other: "LMCounts") -> "LMCounts":
        return LMCounts(None if self.hankel is None else self.hankel + other.hankel,
                        {order: self.ngrams[order] + other.ngrams[order] for order in self.ngrams},
                        self.symbols + other.symbols, self.n_sequences + other.n_sequences,
                        self.n_tokens + other.n_tokens)


def lm_counts(corpus, basis, statistic: str, orders, n_ids: int) -> LMCounts:
    """The :class:`LMCounts` of ``corpus`` (Hankel statistics on ``basis`` unless it is None)."""
    from ..counting import hankel_statistics

    if corpus.vocabulary is not None and len(corpus.vocabulary) != n_ids:
        raise LanguageModelError(f"a shard was read with {len(corpus.vocabulary)} symbol ids, not the {n_ids} of the "
                                 f"first: every shard must be read with the same vocabulary")
    return LMCounts(None if basis is None else hankel_statistics(corpus, basis, statistic=statistic),
                    {order: ngram_counts(corpus, order, n_ids) for order in orders},
                    np.bincount(corpus.symbols, minlength=n_ids), len(corpus), corpus.n_tokens)


def train_lm_sharded(shards, method: str, *, read=read_shard, dev=None, n_states="auto",
                     basis_length: int | None = None, random_state=0, verbose: bool = False, order: int = 3,
                     mix_order: int | None = 2, workers: int | None = None, scheduler=None,
                     progress: bool = False):
    """A :class:`~.trained.TrainedLM` of ``method`` on every shard of ``shards`` (module docstring).

    ``read(shard)`` must encode every shard alike: give it the vocabulary of the whole
    corpus (:func:`seqspectral.counting.sharded.sharded_vocabulary`), or read PAutomaC files,
    whose ids are fixed. ``workers`` / ``scheduler`` / ``progress`` say where the shards are
    counted (:func:`~seqspectral.counting.sharded.count_sharded`); the model is the same
    wherever, and however the input is cut.
    """
    from ..corpus import Corpus
    from ..counting.sharded import count_sharded, sharded_basis
    from ..selection import HELD_OUT_FRACTION

    shards = list(shards)
    if not shards:
        raise LanguageModelError("no training shards")
    where = {"workers": workers, "scheduler": scheduler, "progress": progress}
    numbered = list(enumerate(shards))
    sizes = count_sharded(numbered, _n_sequences, read=partial(_numbered, read), **where)
    starts = np.concatenate([[0], np.cumsum([sizes.get(i, 0) for i in range(len(shards))])]).astype(np.int64)
    kwargs = {"n_states": n_states, "dev": dev, "basis_length": basis_length, "random_state": random_state,
              "verbose": verbose, "order": order, "mix_order": mix_order}
    if dev is None and starts[-1] < 10 or len(shards) == 1:  # held_out_split's own rule: all of it is one corpus
        return train_lm(Corpus.join([read(s) for s in shards]), method, **kwargs)
    held = np.empty(0, dtype=np.int64) if dev is not None else _held_out_indices(int(starts[-1]), random_state,
                                                                                   HELD_OUT_FRACTION)
    part = partial(_part, read, starts=starts, held=held)
    first = read(shards[0])
    if first.vocabulary is None:
        raise LanguageModelError(f"{shards[0].path}: the first shard has no vocabulary")
    n_ids = len(first.vocabulary)
    fit_part = first.subset(_local(held, starts, 0, keep=False))
    if dev is None:  # the held-out sequences of every shard, in their order in the input
        gathered = count_sharded(numbered, _sequences, read=partial(part, held_part=True), **where)
        held_out = Corpus.join([gathered[i] for i in sorted(gathered)])
        split = (fit_part, held_out, f"held-out {HELD_OUT_FRACTION:.0%} of train")
        train = Corpus.join([fit_part, held_out])
    else:
        split, train = None, first

    def more(estimator, orders):
        basis = statistic = None
        if estimator is not None:
            statistic, basis = estimator.statistic, estimator.basis
            if basis is None:
                basis = sharded_basis(numbered, statistic, estimator.basis_size, estimator.basis_size,
                                      estimator.basis_length, read=part, **where)
        count = partial(lm_counts, basis=basis, statistic=statistic, orders=orders, n_ids=n_ids)
        return count_sharded(numbered[1:], count, read=part, **where)

    return train_lm(train, method, **kwargs, more=more, split=split)


def _held_out_indices(n: int, random_state, fraction: float) -> np.ndarray:
    """The held-out sequence indices :func:`~seqspectral.selection.held_out_split` draws
    from a corpus of ``n`` sequences (``Corpus.split``'s rule), sorted."""
    perm = np.random.default_rng(random_state).permutation(n)
    return np.sort(perm[:int(round(fraction * n))])


def _numbered(read, item):
    """(position, corpus) of a numbered shard."""
    i, shard = item
    return i, read(shard)


def _n_sequences(numbered) -> dict:
    return _PerShard({numbered[0]: len(numbered[1])})


def _sequences(numbered) -> dict:
    return _PerShard({numbered[0]: numbered[1]})


class _PerShard(dict):
    """Values by shard position; they add by union."""

    def __add__(self, other):
        return _PerShard({**self, **other})


def _local(held: np.ndarray, starts: np.ndarray, i: int, keep: bool) -> np.ndarray:
    """Indices within shard ``i`` of its held-out sequences (``keep``) or of the others."""
    lo, hi = int(starts[i]), int(starts[i + 1])
    inside = held[(held >= lo) & (held < hi)] - lo
    if keep:
        return inside
    mask = np.ones(hi - lo, dtype=bool)
    mask[inside] = False
    return np.flatnonzero(mask)


def _part(read, item, starts, held, held_part: bool = False):
    """The fit part of a numbered shard (its sequences not held out), or with ``held_part``
    (position, its held-out sequences)."""
    i, shard = item
    corpus = read(shard)
    if held_part:
        return i, corpus.subset(_local(held, starts, i, keep=True))
    return corpus.subset(_local(held, starts, i, keep=False))
