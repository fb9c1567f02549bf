"""Training a language model on a corpus counted in shards, where each shard is read.

``train_lm_sharded`` runs :func:`~.training.train_lm` with the first shard as its training
corpus — the held-out part (unless ``dev`` is given) and the Hankel basis come from it, as
the issue of counting past one machine asks: the basis is fixed before the shards are
counted — and every other shard counted on that basis by
:func:`seqspectral.counting.sharded.count_sharded` (in this process, on local processes or
on a Dask cluster). A shard's counts are an :class:`LMCounts`: the Hankel statistics, the
n-gram tables of the orders the training needs, the symbol occurrences and the sizes; they
add exactly. With one shard, the model is the one ``train_lm`` fits on the whole file.

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
    whose ids are fixed. ``workers`` / ``scheduler`` / ``progress`` say where the shards
    after the first are counted (:func:`~seqspectral.counting.sharded.count_sharded`).
    """
    from ..counting.sharded import count_sharded

    shards = list(shards)
    if not shards:
        raise LanguageModelError("no training shards")
    first = read(shards[0])
    if first.vocabulary is None:
        raise LanguageModelError(f"{shards[0].path}: the first shard has no vocabulary")
    n_ids = len(first.vocabulary)

    def more(basis, statistic, orders):
        count = partial(lm_counts, basis=basis, statistic=statistic, orders=orders, n_ids=n_ids)
        return count_sharded(shards[1:], count, read=read, workers=workers, scheduler=scheduler, progress=progress)

    return train_lm(first, method, n_states, dev=dev, basis_length=basis_length, random_state=random_state,
                    verbose=verbose, order=order, mix_order=mix_order, more=more if len(shards) > 1 else None)
