"""Arc pruning for the second-order parser: the kept arcs, the pruned decoders against brute
force over the trees of the kept arcs, and the pruned parser equal to the unpruned one when
nothing is pruned."""

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.parsing import DependencyParser
from seqspectral.parsing._arc_kernels import arc_scores, feature_buffer
from seqspectral.parsing._eisner_kernels import eisner
from seqspectral.parsing._pruning_kernels import keep_best_heads, prune_corpus
from seqspectral.parsing._sibling_kernels import eisner2, kbest_eisner2, sibling_scores
from seqspectral.parsing.atoms import encode, flat_heads

from .test_eisner import all_trees, sibling_tree_score
from .test_parser import planted_sentences


def masked(S, SIB, allowed):
    """``S`` and ``SIB`` with every part over an arc not ``allowed`` at -inf (by definition:
    arc ``h -> m`` needs ``allowed[h, m]``, sibling part ``(h, s, m)`` also ``allowed[h, s]``
    unless ``s == h``)."""
    S, SIB = S.copy(), SIB.copy()
    n = len(S) - 1
    for h in range(n + 1):
        for m in range(n + 1):
            if not allowed[h, m]:
                S[h, m] = -np.inf
                SIB[h, :, m] = -np.inf
                if m != h:
                    SIB[h, m, :] = -np.inf
    return S, SIB


def kept_trees(trees, allowed):
    return [h for h in trees if all(allowed[h[m - 1], m] for m in range(1, len(h) + 1))]


@pytest.mark.parametrize("single_root", [True, False])
def test_pruned_second_order_decoders_are_brute_force_over_the_kept_arcs(single_root):
    """1-best and k-best under a random mask that keeps one random projective tree's arcs and
    about half of the others: the best (k best) of exactly the trees whose arcs are all kept."""
    rng = np.random.default_rng(7)
    for n in range(2, 6):
        trees = all_trees(n, single_root)
        for _ in range(4):
            allowed = rng.random((n + 1, n + 1)) < 0.5
            tree = trees[rng.integers(len(trees))]
            allowed[tree, np.arange(1, n + 1)] = True
            S, SIB = masked(rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1, n + 1, n + 1)), allowed)
            candidates = kept_trees(trees, allowed)
            ranked = sorted(candidates, key=lambda h: -sibling_tree_score(S, SIB, h))
            np.testing.assert_array_equal(eisner2(S, SIB, single_root), ranked[0])
            heads, scores = kbest_eisner2(S, SIB, 200, single_root)
            assert len(heads) == len(candidates)  # no tree over a pruned arc
            np.testing.assert_allclose(scores, [sibling_tree_score(S, SIB, h) for h in ranked])
            assert {tuple(h) for h in heads} == {tuple(h) for h in candidates}


def test_kernels_score_only_the_parts_of_kept_arcs():
    """``arc_scores`` / ``sibling_scores`` under a mask: the unmasked scores where the arcs are
    kept, -inf elsewhere (the definition in :func:`masked`)."""
    sentences, _ = planted_sentences(1, 3)
    table = encode(sentences)
    n = len(sentences[0])
    rng = np.random.default_rng(8)
    weights = rng.normal(size=1 << 14)
    buf, every = feature_buffer(n), np.zeros((0, 0), bool)
    allowed = rng.random((n + 1, n + 1)) < 0.4
    S = arc_scores(table.atoms, 0, n, 0, weights, buf, every)
    SIB = sibling_scores(table.atoms, 0, n, 0, weights, buf, every)
    want_S, want_SIB = masked(S, SIB, allowed)
    np.testing.assert_array_equal(arc_scores(table.atoms, 0, n, 0, weights, buf, allowed), want_S)
    got = sibling_scores(table.atoms, 0, n, 0, weights, buf, allowed)
    np.testing.assert_array_equal(got, want_SIB)


def test_kept_arcs_are_the_best_heads_the_best_tree_and_gold():
    rng = np.random.default_rng(9)
    n, k = 7, 2
    S = rng.normal(size=(n + 1, n + 1))
    S[np.arange(n + 1), np.arange(n + 1)] = -np.inf
    tree = eisner(S, True)
    out = np.zeros((n + 1, n + 1), bool)
    keep_best_heads(S, k, tree, out)
    for m in range(1, n + 1):
        want = set(np.argsort(-S[:, m])[:k]) | {tree[m - 1]}
        assert set(np.flatnonzero(out[:, m])) == want
    assert not out[:, 0].any()
    # the corpus kernel: the same per sentence, with the gold arcs when asked
    sentences, _ = planted_sentences(5, 4)
    table, gold = encode(sentences), flat_heads(sentences)
    weights = rng.normal(size=1 << 14)
    kept, offsets = prune_corpus(table.atoms, table.offsets, 0, weights, 1, True, gold, True)
    for i, s in enumerate(sentences):
        m = len(s)
        mask = kept[offsets[i]:offsets[i + 1]].reshape(m + 1, m + 1)
        S = arc_scores(table.atoms, table.offsets[i], m, 0, weights, feature_buffer(m), np.zeros((0, 0), bool))
        want = np.zeros_like(mask)
        keep_best_heads(S, 1, eisner(S, True), want)
        want[s.heads, np.arange(1, m + 1)] = True
        np.testing.assert_array_equal(mask, want)


def test_pruning_nothing_is_the_unpruned_parser(tmp_path):
    """``prune_heads`` at least every sentence's length keeps every arc: the same weights, trees
    and k best as the parser that scores every part; the model file keeps the pruner."""
    train, theta = planted_sentences(60, 5)
    test, _ = planted_sentences(15, 6, theta)
    params = dict(epochs=2, hash_bits=14, labels=False)
    full = DependencyParser(2, prune_heads=0, **params).fit(train, dev=test)
    wide = DependencyParser(2, prune_heads=20, **params).fit(train, dev=test)
    assert full.pruner_ is None and wide.pruner_ is not None
    np.testing.assert_array_equal(full.weights_, wide.weights_)
    for a, b in zip(full.predict(test), wide.predict(test)):
        np.testing.assert_array_equal(a, b)
    a, b = full.kbest_trees(test, 8), wide.kbest_trees(test, 8)
    np.testing.assert_array_equal(a.heads, b.heads)
    np.testing.assert_allclose(a.scores, b.scores)
    narrow = DependencyParser(2, prune_heads=1, **params).fit(train, dev=test)
    serialize.save(tmp_path / "p.npz", narrow)
    loaded = serialize.load(tmp_path / "p.npz")
    np.testing.assert_array_equal(loaded.pruner_.weights_, narrow.pruner_.weights_.astype(np.float32))
    for a, b in zip(loaded.predict(test), narrow.predict(test)):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(loaded.pruner_.predict(test), narrow.pruner_.predict(test)):
        np.testing.assert_array_equal(a, b)
