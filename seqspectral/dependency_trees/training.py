"""Training a tree model: the one place a method name and its options become a fitted model,
for Python, ``seqspectral tree train`` and the benchmarks alike (as :mod:`seqspectral.lm`'s
``train_lm`` for sequences).

``train_tree_model`` fits ``"spectral"`` (:class:`~.spectral.SpectralTreeModel`) or ``"em"``
(:class:`~.em.EMTreeModel`) on a treebank, every ``"auto"`` value chosen on ``dev`` (else
on held-out training trees: ``selection.select_and_refit``). ``train_tree_model_sharded``
does the same on a treebank counted in shards where each is read
(:func:`seqspectral.counting.sharded.count_sharded`): the spectral model is estimated from
the summed statistics (its ``"auto"`` values need ``dev``), EM reads the trees of every
shard in this process.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..counting.shards import read_shard
from .em import EMTreeModel
from .spectral import SpectralTreeModel
from .statistics import spectral_tree_statistics

#: method -> estimator
TREE_METHODS = {"spectral": SpectralTreeModel, "em": EMTreeModel}
#: EM's number of states when none is given
EM_STATES = 16


def make_tree_model(method: str, vocabulary, n_states=None, **params):
    """The unfitted estimator of ``method`` over ``vocabulary``: ``n_states`` (None: the
    method's default — the number of symbols with the identity U, else 16) and the
    estimator's other hyper-parameters; the spectral ``representation`` defaults to the
    model's own default, ``"auto"`` (:data:`~.representation.AUTO_IDENTITY_MAX`)."""
    if method not in TREE_METHODS:
        raise ValueError(f"unknown tree method {method!r}; choose one of {', '.join(TREE_METHODS)}")
    if method == "em":
        return EMTreeModel(EM_STATES if n_states is None else n_states, **params)
    if params.get("representation") is None:
        params.pop("representation", None)
    return SpectralTreeModel(n_states, **params)


def train_tree_model(train, method: str = "spectral", dev=None, n_states=None, reading=None, **params):
    """``method`` fitted on the trees of ``train`` (a Corpus with heads and a vocabulary);
    ``dev``: held-out trees in the same vocabulary, on which ``"auto"`` values are chosen;
    ``reading``: how the training file was read (the model's ``reading_``, kept in its file)."""
    model = make_tree_model(method, train.vocabulary, n_states, **params).fit(train, dev=dev)
    model.reading_ = reading
    return model


def train_tree_model_sharded(shards, vocabulary, method: str = "spectral", *, read=read_shard, dev=None,
                             n_states=None, workers: int | None = None, scheduler=None, progress: bool = False,
                             reading=None, **params):
    """``(model, n_sentences, n_tokens)`` of ``method`` on every shard of ``shards``, each
    read by ``read`` in ``vocabulary`` (:func:`~seqspectral.counting.sharded.sharded_vocabulary`
    gives the vocabulary of the whole treebank); ``workers`` / ``scheduler`` / ``progress``
    say where the spectral statistics are counted; ``reading``: the model's ``reading_``."""
    from ..counting.sharded import count_sharded

    model = make_tree_model(method, vocabulary, n_states, **params)
    read = partial(read, vocabulary=vocabulary)
    if method == "em":
        if workers is not None or scheduler is not None:
            raise ValueError("sharded counting on workers serves the spectral method; EM needs the trees themselves")
        trees = joined_trees([read(shard) for shard in shards])
        model.fit(trees, dev=dev)
        model.reading_ = reading
        return model, len(trees), trees.n_tokens
    stats = count_sharded(shards, partial(spectral_tree_statistics, n_symbols=len(vocabulary)), read=read,
                          workers=workers, scheduler=scheduler, progress=progress)
    model.fit_statistics(stats, vocabulary, dev=dev)
    model.reading_ = reading
    return model, stats.trees.n_sentences, stats.trees.n_tokens


def joined_trees(parts):
    """The trees of ``parts`` (Corpora in one vocabulary) one after the other."""
    from ..corpus.sequences import Corpus

    offsets = [parts[0].offsets[:1]]
    shift = 0
    for part in parts:
        offsets.append(part.offsets[1:] + shift)
        shift += part.n_tokens
    return Corpus(np.concatenate([p.symbols for p in parts]), np.concatenate(offsets), parts[0].vocabulary,
                  np.concatenate([p.heads for p in parts]))
