"""Eisner decoding, 1-best and k-best, against brute-force enumeration of projective trees."""

import functools
import itertools

import numpy as np
import pytest

from seqspectral.corpus.dependency_trees import is_projective, nonprojective
from seqspectral.parsing._eisner_kernels import eisner, kbest_eisner


@functools.cache  # enumerated once per run: every test of this module reads the same lists
def all_trees(n, single_root):
    """Every projective tree over n words (single_root: exactly one word on the root): of all
    (n+1)**n head vectors, those with a root word and no cycle (every word reaches the root
    in n steps up), then the projective ones; in the order of ``itertools.product``."""
    heads = np.array(list(itertools.product(range(n + 1), repeat=n)), dtype=np.int32).reshape(-1, n)
    n_roots = (heads == 0).sum(axis=1)
    heads = heads[(n_roots == 1) | ((n_roots > 1) & (not single_root))]
    rows, up = np.arange(len(heads))[:, None], np.tile(np.arange(1, n + 1), (len(heads), 1))
    for _ in range(n):
        up = np.where(up == 0, 0, heads[rows, np.maximum(up - 1, 0)])
    heads = heads[(up == 0).all(axis=1)]
    crossing = nonprojective(heads.ravel(), np.arange(len(heads) + 1, dtype=np.int64) * n)
    return list(heads[~crossing].astype(np.int64))


def tree_score(S, heads):
    return S[heads, np.arange(1, len(heads) + 1)].sum()


@pytest.mark.parametrize("single_root", [True, False])
def test_eisner_finds_the_best_projective_tree(single_root):
    rng = np.random.default_rng(1)
    for n in range(1, 7):
        trees = all_trees(n, single_root)
        for _ in range(6):
            S = rng.normal(size=(n + 1, n + 1))
            best = max(trees, key=lambda h: tree_score(S, h))
            np.testing.assert_array_equal(eisner(S, single_root), best)


def test_tree_counts_match_the_catalan_formula():
    # projective trees with one root child over n words: the number of projective
    # dependency trees, 1, 2, 7, 30, 143 (OEIS A006013)
    assert [len(all_trees(n, True)) for n in range(1, 6)] == [1, 2, 7, 30, 143]


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("single_root", [True, False])
def test_kbest_is_the_brute_force_top_k(single_root, order):
    """k-best of either order: the k best scores of all projective trees, distinct trees,
    each scoring what is reported, the 1-best decoder's tree first."""
    from seqspectral.parsing._sibling_kernels import eisner2, kbest_eisner2

    rng = np.random.default_rng(2 + order)
    for n in range(1, 6):
        trees = all_trees(n, single_root)
        for k in (1, 3, 50, 200):
            S = rng.normal(size=(n + 1, n + 1))
            if order == 1:
                score = lambda h: tree_score(S, h)  # noqa: E731
                heads, scores = kbest_eisner(S, k, single_root)
                first = eisner(S, single_root)
            else:
                SIB = rng.normal(size=(n + 1, n + 1, n + 1))
                score = lambda h: sibling_tree_score(S, SIB, h)  # noqa: E731
                heads, scores = kbest_eisner2(S, SIB, k, single_root)
                first = eisner2(S, SIB, single_root)
            ranked = sorted((score(h) for h in trees), reverse=True)[:k]
            assert len(scores) == min(k, len(trees))
            np.testing.assert_allclose(scores, ranked)
            assert len({tuple(h) for h in heads}) == len(heads)  # distinct trees
            for h, s in zip(heads, scores):
                assert is_projective(h) and score(h) == pytest.approx(s)
            np.testing.assert_array_equal(heads[0], first)


def test_kbest_first_tree_is_the_eisner_tree():
    rng = np.random.default_rng(3)
    S = rng.normal(size=(16, 16))
    heads, scores = kbest_eisner(S, 5, True)
    np.testing.assert_array_equal(heads[0], eisner(S, True))
    assert np.all(np.diff(scores) <= 0)


def sibling_tree_score(S, SIB, heads):
    """Arcs plus, for every word, the sibling part (head, previous dependent on its side or
    the head itself, word) — computed directly from the head array."""
    n = len(heads)
    total = tree_score(S, heads)
    for m in range(1, n + 1):
        h = heads[m - 1]
        side = [c for c in range(1, n + 1) if heads[c - 1] == h and (c > h) == (m > h)]
        inner = [c for c in side if abs(c - h) < abs(m - h)]
        s = max(inner, key=lambda c: -abs(c - m)) if inner else h
        total += SIB[h, s, m]
    return total


@pytest.mark.parametrize("single_root", [True, False])
def test_second_order_eisner_finds_the_best_tree_with_sibling_scores(single_root):
    from seqspectral.parsing._sibling_kernels import eisner2, previous_siblings

    rng = np.random.default_rng(4)
    for n in range(1, 7):
        trees = all_trees(n, single_root)
        for _ in range(5):
            S = rng.normal(size=(n + 1, n + 1))
            SIB = rng.normal(size=(n + 1, n + 1, n + 1))
            best = max(trees, key=lambda h: sibling_tree_score(S, SIB, h))
            np.testing.assert_array_equal(eisner2(S, SIB, single_root), best)
        for heads in trees:  # the kernel's sibling parts are the brute force's
            flat = np.concatenate(([0], heads)).astype(np.int32)
            prev = previous_siblings(flat, 0, n)
            SIB = np.zeros((n + 1, n + 1, n + 1))
            for m in range(1, n + 1):
                SIB[heads[m - 1], prev[m], m] += 1.0
            assert sibling_tree_score(np.zeros((n + 1, n + 1)), SIB, heads) == n
