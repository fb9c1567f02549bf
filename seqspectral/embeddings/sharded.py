"""CCA view counts of a corpus counted in shards, where each shard is read
(:func:`seqspectral.counting.sharded.count_sharded`): the embedding vocabulary first, from
the word counts of every shard, then the views."""

from __future__ import annotations

from collections import Counter
from functools import partial

from ..counting.sharded import count_sharded
from ..counting.shards import read_shard
from .vocabulary import build_vocabulary, word_counts


def sharded_view_counts(shards, estimator, *, read=read_shard, **where):
    """The CCA view counts of every shard for ``estimator`` (a
    :class:`~seqspectral.embeddings.CCAEmbeddings`) and the embedding vocabulary they are
    counted in, chosen first from the word counts of every shard; returns ``(counts,
    vocabulary)`` for ``estimator.fit_counts``. Shards may be read each with its own
    vocabulary: words are mapped by their forms."""
    words = count_sharded(shards, partial(_word_counts, lowercase=estimator.lowercase, digits=estimator.digits),
                          read=read, **where)
    vocabulary = build_vocabulary(words, estimator.min_count, estimator.max_vocab)
    return count_sharded(shards, partial(_view_counts, estimator=estimator, vocabulary=vocabulary),
                         read=read, **where), vocabulary


def _word_counts(corpus, lowercase: bool, digits: bool) -> Counter:
    return word_counts([corpus], lowercase, digits)


def _view_counts(corpus, estimator, vocabulary):
    return estimator.count(corpus, vocabulary)
