"""Tree event counts against brute-force pure-Python counting."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqspectral.corpus import Corpus
from seqspectral.counting import TreeStatistics, tree_statistics

N_SYMBOLS = 7


@st.composite
def treebank(draw, max_sentences=12, max_length=8):
    """Random dependency trees over symbols 2..6: (symbol lists, 1-based head lists)."""
    sentences, heads = [], []
    for _ in range(draw(st.integers(0, max_sentences))):
        n = draw(st.integers(1, max_length))
        order = draw(st.permutations(range(1, n + 1)))
        h = [0] * n
        for k, word in enumerate(order[1:], start=1):
            h[word - 1] = order[draw(st.integers(0, k - 1))]
        if draw(st.booleans()) and n > 1:  # a flat tree: every word on the first one
            h = [0] + [1] * (n - 1)
        sentences.append(draw(st.lists(st.integers(2, N_SYMBOLS - 1), min_size=n, max_size=n)))
        heads.append(h)
    return sentences, heads


def make_corpus(sentences, heads):
    corpus = Corpus.from_ids(sentences)
    return Corpus(corpus.symbols, corpus.offsets, heads=np.array([x for h in heads for x in h], dtype=np.int32))


def brute(sentences, heads):
    uni, root, left, right = Counter(), Counter(), Counter(), Counter()
    for x, h in zip(sentences, heads):
        for i in range(1, len(x) + 1):
            uni[x[i - 1]] += 1
            if h[i - 1] == 0:
                root[x[i - 1]] += 1
            else:
                (left if i < h[i - 1] else right)[x[i - 1], x[h[i - 1] - 1]] += 1
    return uni, root, left, right


def dense2(counter):
    out = np.zeros((N_SYMBOLS, N_SYMBOLS))
    for (a, b), c in counter.items():
        out[a, b] += c
    return out


def check(stats, sentences, heads):
    uni, root, left, right = brute(sentences, heads)
    assert stats.unigram.tolist() == [uni[a] for a in range(N_SYMBOLS)]
    assert stats.root.tolist() == [root[a] for a in range(N_SYMBOLS)]
    np.testing.assert_array_equal(stats.left.toarray(), dense2(left))
    np.testing.assert_array_equal(stats.right.toarray(), dense2(right))
    assert stats.n_sentences == len(sentences) and stats.n_tokens == sum(map(len, sentences))


@settings(max_examples=60, deadline=None)
@given(bank=treebank(), cut=st.integers(0, 12), chunk=st.integers(1, 5))
def test_tree_counts_match_brute_force_and_add(bank, cut, chunk):
    sentences, heads = bank
    corpus = make_corpus(sentences, heads)
    stats = tree_statistics(corpus, N_SYMBOLS)
    check(stats, sentences, heads)
    cut = min(cut, len(sentences))
    merged = tree_statistics(corpus[:cut], N_SYMBOLS) + tree_statistics(corpus[cut:], N_SYMBOLS)
    check(merged, sentences, heads)
    check(tree_statistics(corpus, N_SYMBOLS, chunk_size=chunk), sentences, heads)
    U = np.random.default_rng(len(sentences)).normal(size=(N_SYMBOLS, 3))
    proj = stats.project(U)
    np.testing.assert_allclose(proj["left"], U.T @ stats.left.toarray() @ U, atol=1e-9)
    np.testing.assert_allclose(proj["right"], U.T @ stats.right.toarray() @ U, atol=1e-9)
    np.testing.assert_allclose(proj["unigram"], U.T @ stats.unigram, atol=1e-9)


def test_one_word_and_flat_trees():
    sentences, heads = [[3], [2, 4, 5, 6]], [[0], [0, 1, 1, 1]]
    stats = tree_statistics(make_corpus(sentences, heads), N_SYMBOLS)
    check(stats, sentences, heads)
    assert stats.root.tolist() == [0, 0, 1, 1, 0, 0, 0]  # the lone word and the flat head
    assert stats.right[4:, 2].sum() == 3 and stats.left.nnz == 0


def test_bad_input():
    corpus = Corpus(np.array([2, 3], np.int32), np.array([0, 2]), heads=np.array([0, 3], np.int32))
    with pytest.raises(ValueError, match="word 2"):
        tree_statistics(corpus, N_SYMBOLS)
    with pytest.raises(ValueError, match="heads"):
        tree_statistics(Corpus.from_ids([[2]]), N_SYMBOLS)
    with pytest.raises(ValueError):
        tree_statistics(make_corpus([[9]], [[0]]), N_SYMBOLS)
    good = tree_statistics(make_corpus([[2]], [[0]]), N_SYMBOLS)
    with pytest.raises(ValueError):
        good.project(np.ones((3, 2)))
    with pytest.raises(ValueError):
        good + tree_statistics(make_corpus([[2]], [[0]]), N_SYMBOLS + 1)
    assert isinstance(tree_statistics([], N_SYMBOLS), TreeStatistics)


def test_ewt_train(ewt_dir):
    """(Its timing target is measured in evaluation/bench_counting.py.)"""
    from seqspectral.corpus.conllu_format import read_conllu_corpus

    corpus = read_conllu_corpus(ewt_dir / "en_ewt-ud-train.conllu")
    stats = tree_statistics(corpus)
    assert stats.n_tokens == corpus.n_tokens and stats.root.sum() >= len(corpus)


def test_one_pass_tables_and_sorted_pairs_agree_array_for_array(monkeypatch):
    """Small symbol sets are counted in one pass into dense tables, large ones by sorting
    the arcs' pairs: the same statistics to the byte (values, CSR layout, dtypes), and both
    the brute force's; a bad head refused by both."""
    from seqspectral.counting import dependency_trees

    rng = np.random.default_rng(0)
    sentences, heads = [], []
    for _ in range(300):
        n = int(rng.integers(1, 12))
        order = rng.permutation(n) + 1
        h = [0] * n
        for k in range(1, n):
            h[order[k] - 1] = int(order[rng.integers(0, k)])
        sentences.append(rng.integers(2, N_SYMBOLS, size=n).tolist())
        heads.append(h)
    corpus = make_corpus(sentences, heads)
    bad = Corpus(np.array([2, 3], np.int32), np.array([0, 2]), heads=np.array([0, 2], np.int32))
    results = []
    for dense_symbols in (dependency_trees.DENSE_SYMBOLS, 0):
        monkeypatch.setattr(dependency_trees, "DENSE_SYMBOLS", dense_symbols)
        results.append(tree_statistics(corpus, N_SYMBOLS))
        check(results[-1], sentences, heads)
        with pytest.raises(ValueError, match="sentence 0: word 2 has head 2"):
            tree_statistics(bad, N_SYMBOLS)
    dense, by_sorting = results
    for name in ("unigram", "root"):
        a, b = getattr(dense, name), getattr(by_sorting, name)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    for name in ("left", "right"):
        a, b = getattr(dense, name), getattr(by_sorting, name)
        assert a.has_canonical_format and b.has_canonical_format
        for part in ("data", "indices", "indptr"):
            assert getattr(a, part).dtype == getattr(b, part).dtype
            assert getattr(a, part).tobytes() == getattr(b, part).tobytes()
