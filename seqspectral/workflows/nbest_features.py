"""The reranker's features of a build's n-best trees: hashed tree features and the tree
models' real-valued columns (:data:`~seqspectral.workflows.options.SPECTRAL`)."""

from __future__ import annotations

import numpy as np


def concatenated(parts):
    """Tree lists of consecutive sentence blocks as one."""
    from seqspectral.parsing import TreeLists

    return TreeLists([s for p in parts for s in p.sentences], np.concatenate([p.heads for p in parts]),
                     np.concatenate([p.scores for p in parts]), np.concatenate([p.n_trees for p in parts]))


def oracle_uas(trees, gold) -> float:
    """UAS of the best candidate of every list."""
    wrong, scored = trees.wrong_heads(gold)
    groups = trees.groups
    best = np.minimum.reduceat(wrong, groups[:-1]) if len(wrong) else np.zeros(0)
    return float(100.0 * (1 - best.sum() / max(sum(len(g) for g in gold), 1)))


def scorers_of(model, o) -> list:
    """The real-valued features a tree model contributes (``o.spectral``)."""
    from seqspectral.reranking import tree_model_scorers
    from seqspectral.reranking.spectral_features import DirectionScorers

    if model is None:
        return []
    out = tree_model_scorers(model, "tree", topology=True)
    if o.spectral == "direction":
        out += DirectionScorers(model, "tree").scorers()
    return out


def candidate_features(trees, model, o, compact: bool = False):
    """Features of the candidates of ``trees`` scored by one tree model (``compact``: without
    the hashed features every candidate of a list shares, for training and choosing)."""
    from seqspectral.reranking.parses import compact_parse_features, parse_features

    return (compact_parse_features if compact else parse_features)(trees, scorers_of(model, o), o.templates)


def jackknifed_features(fold_trees, fold_models, o):
    """Features of the jackknifed training lists: hashed features of all of them, every
    fold's real-valued columns from that fold's tree model (trained without it)."""
    from seqspectral.reranking.parses import compact_parse_features

    trees = concatenated(fold_trees)
    hashed = compact_parse_features(trees, (), o.templates)
    per_fold = [scorers_of(m, o) for m in fold_models]
    if not per_fold[0]:
        return hashed
    names = [s.name for s in per_fold[0]]
    columns = [np.concatenate([scorers[j].tree_log_probs(t) for scorers, t in zip(per_fold, fold_trees)])
               for j in range(len(names))]
    return hashed.with_dense(names, columns)
