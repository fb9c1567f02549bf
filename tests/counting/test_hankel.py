"""Hankel statistics against brute-force pure-Python counting."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seqspectral.corpus import Corpus
from seqspectral.counting import HankelBasis, HankelStatistics, hankel_statistics

STATS = ("string", "prefix", "substring")


def brute_counts(strings, statistic):
    """Counter: string tuple -> raw count of the statistic over the sample."""
    counts = Counter()
    for w in map(tuple, strings):
        if statistic == "string":
            counts[w] += 1
        elif statistic == "prefix":
            for k in range(len(w) + 1):
                counts[w[:k]] += 1
        else:
            for i in range(len(w) + 1):
                for j in range(i, len(w) + 1):
                    counts[w[i:j]] += 1
    return counts


def brute_blocks(strings, basis, statistic):
    counts = brute_counts(strings, statistic)
    n = max(len(strings), 1)
    P, S = basis.prefixes, basis.suffixes
    H = np.array([[counts[u + v] for v in S] for u in P], dtype=float) / n
    Hs = [np.array([[counts[u + (int(a),) + v] for v in S] for u in P], dtype=float) / n for a in basis.alphabet]
    return H, Hs


def assert_matches(stats, strings, basis, statistic):
    H, Hs = brute_blocks(strings, basis, statistic)
    np.testing.assert_allclose(stats.H.toarray(), H, rtol=0, atol=1e-12)
    assert len(stats.H_sigma) == len(basis.alphabet)
    for got, want in zip(stats.H_sigma, Hs):
        np.testing.assert_allclose(got.toarray(), want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(stats.h_P, H[:, 0], atol=1e-12)
    np.testing.assert_allclose(stats.h_S, H[0, :], atol=1e-12)
    if len(basis.alphabet):
        np.testing.assert_allclose(stats.tensor(), np.stack(Hs, axis=1), atol=1e-12)
    assert stats.n_strings == len(strings)


strings_st = st.lists(st.lists(st.integers(2, 6), max_size=9), min_size=0, max_size=25)
basis_strings_st = st.lists(st.lists(st.integers(0, 7), max_size=4).map(tuple), max_size=15)


def shifted(strings, shift):
    return [[x + shift for x in s] for s in strings]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strings=strings_st, prefixes=basis_strings_st, suffixes=basis_strings_st,
       alphabet=st.lists(st.integers(0, 8), max_size=6), statistic=st.sampled_from(STATS),
       shift=st.sampled_from([0, 1000]))
def test_user_basis_matches_brute_force(strings, prefixes, suffixes, alphabet, statistic, shift):
    # basis symbols 0, 1, 7 and alphabet symbol 8 never occur in the corpus; shift 1000
    # takes the hash-table path of the kernels instead of the dense one
    strings, prefixes, suffixes = shifted(strings, shift), shifted(prefixes, shift), shifted(suffixes, shift)
    basis = HankelBasis(prefixes, suffixes, [a + shift for a in alphabet])
    stats = hankel_statistics(Corpus.from_ids(strings), basis, statistic)
    assert_matches(stats, strings, basis, statistic)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strings=strings_st, length=st.integers(0, 3), statistic=st.sampled_from(STATS),
       cut=st.integers(0, 25), chunk=st.integers(1, 7))
def test_counts_add_and_chunks(strings, length, statistic, cut, chunk):
    corpus = Corpus.from_ids(strings)
    basis = HankelBasis.all_strings([2, 3, 4], length)
    whole = hankel_statistics(corpus, basis, statistic)
    cut = min(cut, len(strings))
    parts = hankel_statistics(corpus[:cut], basis, statistic) + hankel_statistics(corpus[cut:], basis, statistic)
    chunked = hankel_statistics(corpus, basis, statistic, chunk_size=chunk)
    shards = hankel_statistics([corpus[:cut], corpus[cut:]], basis, statistic)
    for other in (parts, chunked, shards):
        assert other.n_strings == whole.n_strings
        assert np.array_equal(other.keys, whole.keys) and np.array_equal(other.counts, whole.counts)
    assert_matches(whole, strings, basis, statistic)


def test_corpus_symbols_beyond_the_basis_alphabet():
    # ids far above basis.alphabet.max() (dense and hashed trie children) fall outside every
    # H_sigma block instead of indexing past the symbol-to-block table
    for big in (50, 5000):
        strings = [[2, big, 3, 2], [big, big], [3, 2, 2, big, 3], []]
        basis = HankelBasis.all_strings([2, 3], 2)
        for statistic in STATS:
            assert_matches(hankel_statistics(Corpus.from_ids(strings), basis, statistic), strings, basis, statistic)


def test_large_sample_grows_the_tables():
    rng = np.random.default_rng(0)
    for shift in (0, 1000):  # dense and hashed trie children
        strings = [(rng.integers(2, 6, size=rng.integers(0, 30)) + shift).tolist() for _ in range(400)]
        strings.append([2 + shift] * 300)  # one string longer than the initial tables
        alphabet = np.arange(2, 6) + shift
        basis = HankelBasis.all_strings(alphabet, 2)
        for statistic in STATS:
            stats = hankel_statistics(Corpus.from_ids(strings), basis, statistic)
            assert_matches(stats, strings, basis, statistic)
        stats = hankel_statistics(Corpus.from_ids(strings), HankelBasis.all_strings(alphabet, 3), "substring")
        assert len(stats.keys) > 4096  # far more entries (and trie nodes) than the initial tables hold
        assert_matches(stats, strings, stats.basis, "substring")


def test_substring_empty_entry_is_mean_length_plus_one():
    corpus = Corpus.from_ids([[2, 3], [], [4, 4, 4, 2]])
    stats = hankel_statistics(corpus, HankelBasis.all_strings([2, 3, 4], 1), "substring")
    assert stats.H[0, 0] == pytest.approx(6 / 3 + 1)
    assert stats.h_P[0] == pytest.approx(3.0)


def test_strings_shorter_than_every_basis_element():
    corpus = Corpus.from_ids([[2], [], [3]])
    basis = HankelBasis([(2, 2, 2)], [(3, 3)], [2, 3])
    for statistic in STATS:
        stats = hankel_statistics(corpus, basis, statistic)
        assert_matches(stats, [[2], [], [3]], basis, statistic)
    assert hankel_statistics(corpus, basis, "string").H.toarray()[1:, 1:].sum() == 0


def test_empty_corpus_and_errors():
    basis = HankelBasis.all_strings([2, 3], 1)
    stats = hankel_statistics(Corpus.from_ids([]), basis, "prefix")
    assert stats.n_strings == 0 and stats.H.nnz == 0
    with pytest.raises(ValueError):
        hankel_statistics(Corpus.from_ids([[2]]), basis, "suffix")
    with pytest.raises(ValueError):
        stats + hankel_statistics(Corpus.from_ids([[2]]), basis, "string")
    with pytest.raises(ValueError):
        hankel_statistics(Corpus.from_ids([[2]]), basis, chunk_size=0)
    with pytest.raises(ValueError):
        HankelStatistics(basis, "string", [3, 1], [1, 1], 1)  # keys must be sorted
    with pytest.raises(ValueError):
        hankel_statistics(Corpus(np.array([-1], np.int32), np.array([0, 1])), basis)


# -- bases ------------------------------------------------------------------------------

def test_basis_normalises_and_closes():
    basis = HankelBasis([(2,), (), (2,), (3, 2)], [(4,)], [3, 2, 3])
    assert basis.prefixes == [(), (2,), (3, 2)]
    assert basis.suffixes == [(), (4,)]
    assert basis.alphabet.tolist() == [2, 3] and basis.alphabet.dtype == np.int32
    closed = basis.with_prefix_closure()
    assert closed.prefixes[:3] == basis.prefixes
    assert set(closed.prefixes) == set(basis.prefixes) | {p + (a,) for p in basis.prefixes for a in (2, 3)}
    assert len(closed.prefixes) == len(set(closed.prefixes))
    assert HankelBasis.from_json(basis.to_json()) == basis


def test_all_strings():
    basis = HankelBasis.all_strings([5, 3, 4], 3)
    assert basis.n_prefixes == 1 + 3 + 9 + 27 == basis.n_suffixes
    assert basis.prefixes[:5] == [(), (3,), (4,), (5,), (3, 3)]
    assert len(set(basis.prefixes)) == basis.n_prefixes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strings=strings_st, statistic=st.sampled_from(STATS), k_p=st.integers(1, 12),
       k_s=st.integers(1, 12), length=st.integers(0, 3), shift=st.sampled_from([0, 1000]))
def test_from_corpus_picks_most_frequent(strings, statistic, k_p, k_s, length, shift):
    strings = shifted(strings, shift)
    corpus = Corpus.from_ids(strings)
    basis = HankelBasis.from_corpus(corpus, statistic, k_p, k_s, length)
    sub, pre, suf = Counter(), Counter(), Counter()
    for w in map(tuple, strings):
        for n in range(1, min(length, len(w)) + 1):
            pre[w[:n]] += 1
            suf[w[-n:]] += 1
        for i in range(len(w)):
            for n in range(1, min(length, len(w) - i) + 1):
                sub[w[i:i + n]] += 1

    def top(counts, k):
        return [()] + sorted(counts, key=lambda s: (-counts[s], len(s), s))[:k - 1]

    want_p = top(sub if statistic == "substring" else pre, k_p)
    want_s = top({"string": suf, "prefix": sub, "substring": sub}[statistic], k_s)
    assert basis.prefixes == want_p and basis.suffixes == want_s
    assert basis.alphabet.tolist() == sorted({x for w in strings for x in w})
