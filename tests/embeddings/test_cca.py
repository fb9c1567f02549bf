"""CCA word embeddings: counts against brute force, the CCA against a dense reference,
planted HMM word classes recovered, unknown words, files."""

from __future__ import annotations

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.base import NotFittedError, ParameterError
from seqspectral.corpus import Corpus
from seqspectral.embeddings import CCAEmbeddings, ViewCounts, count_views, read_word2vec

BOUNDARY = 1


def _random_corpus(rng, n_sentences=40, n_words=6):
    sentences = [[f"w{x}" for x in rng.integers(0, n_words, size=rng.integers(0, 7))] for _ in range(n_sentences)]
    return Corpus.from_symbols(sentences)


def _one_hot_views(corpus, word_of, n_words, h):
    """Dense W (tokens × n) and the 2h one-hot context slots C (tokens × 2h·n), by loops."""
    rows_w, rows_c = [], []
    for seq in corpus:
        ids = [int(word_of[s]) for s in seq]
        for i, w in enumerate(ids):
            wv = np.zeros(n_words)
            wv[w] = 1
            cv = np.zeros(2 * h * n_words)
            for d in range(1, h + 1):
                left = ids[i - d] if i - d >= 0 else BOUNDARY
                right = ids[i + d] if i + d < len(ids) else BOUNDARY
                cv[(d - 1) * n_words + left] = 1
                cv[(h + d - 1) * n_words + right] = 1
            rows_w.append(wv)
            rows_c.append(cv)
    return np.array(rows_w), np.array(rows_c)


@pytest.mark.parametrize("h", [1, 3])
def test_view_counts_equal_the_one_hot_products(h):
    corpus = _random_corpus(np.random.default_rng(h))
    n = len(corpus.vocabulary)
    word_of = np.arange(n, dtype=np.int32)
    word_of[1] = 0
    W, C = _one_hot_views(corpus, word_of, n, h)
    half = h * n
    L, R = C[:, :half], C[:, half:]
    counts = count_views(corpus, word_of, n, h, context_pairs=True, chunk_tokens=5)
    np.testing.assert_array_equal(counts.word_context.toarray(), W.T @ C)
    np.testing.assert_array_equal(counts.left_right.toarray(), L.T @ R)
    np.testing.assert_array_equal(counts.context_covariance("left").toarray(), L.T @ L)
    np.testing.assert_array_equal(counts.context_covariance("right").toarray(), R.T @ R)
    np.testing.assert_array_equal(counts.word_totals, W.sum(axis=0))
    assert counts.n_tokens == corpus.n_tokens


def test_counts_of_parts_add_up_to_the_whole():
    corpus = _random_corpus(np.random.default_rng(7), n_sentences=60)
    n = len(corpus.vocabulary)
    word_of = np.arange(n, dtype=np.int32)
    whole = count_views(corpus, word_of, n, 2, context_pairs=True)
    parts = count_views(corpus[:25], word_of, n, 2, context_pairs=True) + count_views(corpus[25:], word_of, n, 2,
                                                                                       context_pairs=True)
    assert isinstance(parts, ViewCounts) and parts.n_tokens == whole.n_tokens
    for name in ("word_context", "left_right", "left_left", "right_right"):
        assert (getattr(parts, name) != getattr(whole, name)).nnz == 0
    with pytest.raises(ValueError, match="window"):
        whole + count_views(corpus, word_of, n, 1)


def _inv_sqrt(x):
    """x^(-1/2), 0 where x is 0."""
    return np.where(x > 0, 1 / np.sqrt(np.where(x > 0, x, 1)), 0)


def _dense_one_step(corpus, est):
    """Ω of the one-step CCA built from dense one-hot views, and its full SVD."""
    vocabulary = est.build_vocabulary([corpus])
    n = len(vocabulary)
    word_of = np.array([vocabulary.id(s) for s in corpus.vocabulary.symbols], dtype=np.int32)
    word_of[:2] = 0
    W, C = _one_hot_views(corpus, word_of, n, est.window)
    a, k = est.count_power, est.smoothing
    dw = W.sum(axis=0) ** a + k
    dc = C.sum(axis=0) ** a + k
    omega = _inv_sqrt(dw)[:, None] * (W.T @ C) ** a * _inv_sqrt(dc)[None, :]
    return omega, np.linalg.svd(omega, full_matrices=False), C


@pytest.mark.parametrize("power, smoothing", [(1.0, 0.0), (0.5, 1.0)])
def test_one_step_cca_matches_a_dense_svd(power, smoothing):
    corpus = _random_corpus(np.random.default_rng(3), n_sentences=80, n_words=8)
    est = CCAEmbeddings(4, window=1, min_count=1, count_power=power, smoothing=smoothing).fit(corpus)
    omega, (U, d, Vt), C = _dense_one_step(corpus, est)
    np.testing.assert_allclose(est.singular_values_, d[:4], rtol=1e-5)  # float32 SVD
    # the same subspace: the fitted (unit-row) vectors are U_k with rows rescaled (empty rows 0)
    seen = np.abs(omega).sum(axis=1, keepdims=True) > 0
    unit = np.where(seen, U[:, :4], 0) / np.maximum(np.linalg.norm(U[:, :4], axis=1, keepdims=True), 1e-300)
    np.testing.assert_allclose(np.abs(est.word_vectors_), np.abs(unit), atol=1e-3)  # σ3 - σ4 = 0.0025
    # token vectors: the one-hot context times D_c^(-1/2) V_k, up to the columns' signs
    signs = np.sign(np.sum(est.word_vectors_ * unit, axis=0))
    dc = C.sum(axis=0) ** power + smoothing
    reference = (C * _inv_sqrt(dc)) @ Vt[:4].T * signs
    np.testing.assert_allclose(est.token_vectors(corpus), reference, atol=1e-3)


def test_two_step_cca_matches_a_dense_reference():
    rng = np.random.default_rng(5)
    corpus = _random_corpus(rng, n_sentences=120, n_words=6)
    h, c, k, kappa = 1, 3, 2, 1.0
    est = CCAEmbeddings(k, window=h, min_count=1, method="two-step", context_dim=c, count_power=1.0,
                        smoothing=kappa).fit(corpus)
    vocabulary = est.vocabulary_
    n = len(vocabulary)
    word_of = np.array([vocabulary.id(s) for s in corpus.vocabulary.symbols], dtype=np.int32)
    word_of[:2] = 0
    W, C = _one_hot_views(corpus, word_of, n, h)
    L, R = C[:, :h * n], C[:, h * n:]
    dl, dr = _inv_sqrt(L.sum(0) + kappa), _inv_sqrt(R.sum(0) + kappa)
    U1, _, V1t = np.linalg.svd(dl[:, None] * (L.T @ R) * dr[None, :])
    S = np.hstack([L @ (dl[:, None] * U1[:, :c]), R @ (dr[:, None] * V1t[:c].T)])  # the state of every token
    evals, evecs = np.linalg.eigh(S.T @ S + kappa * np.eye(2 * c))
    omega = _inv_sqrt(W.sum(0) + kappa)[:, None] * (W.T @ S) @ (evecs / np.sqrt(evals)) @ evecs.T
    d = np.linalg.svd(omega, compute_uv=False)
    np.testing.assert_allclose(est.singular_values_, d[:k], rtol=1e-5)


def _hmm_corpus(rng, n_sentences=2500, n_classes=4, words_per_class=8):
    """Sentences from an HMM whose classes emit disjoint word sets (class c: words c_*)."""
    T = rng.dirichlet(np.full(n_classes, 0.3), size=n_classes)
    start = np.full(n_classes, 1 / n_classes)
    E = rng.dirichlet(np.ones(words_per_class), size=n_classes)
    sentences = []
    for _ in range(n_sentences):
        z = rng.choice(n_classes, p=start)
        sentence = []
        for _ in range(rng.integers(5, 15)):
            sentence.append(f"c{z}_{rng.choice(words_per_class, p=E[z])}")
            z = rng.choice(n_classes, p=T[z])
        sentences.append(sentence)
    return Corpus.from_symbols(sentences)


def _purity(vectors, labels, n_clusters):
    from sklearn.cluster import KMeans

    clusters = KMeans(n_clusters, n_init=10, random_state=0).fit_predict(vectors)
    return sum(np.bincount(labels[clusters == c]).max() for c in np.unique(clusters)) / len(labels)


@pytest.mark.parametrize("method", ["one-step", "two-step"])
def test_planted_hmm_classes_cluster_together(method):
    corpus = _hmm_corpus(np.random.default_rng(0))
    est = CCAEmbeddings(4, window=1, min_count=1, method=method).fit(corpus)
    words = est.words_[1:]  # without <unk>
    labels = np.array([int(w[1]) for w in words])
    # measured: purity 1.0 for both methods (seed 0); random vectors give about 0.4
    assert _purity(est.transform(words), labels, 4) >= 0.95


def test_unknown_words_and_normalisation():
    corpus = Corpus.from_symbols([["The", "Dog", "ran", "in", "1984"], ["the", "dog", "ran"], ["A", "cat", "sat"]] * 5)
    est = CCAEmbeddings(3, min_count=10, lowercase=True, digits=True).fit(corpus)
    assert est.words_ == ["<unk>", "dog", "ran", "the"]  # most frequent first, then by name
    unk = est.transform(["cat"])[0]
    np.testing.assert_array_equal(est.transform(["never-seen", "A"]), [unk, unk])
    np.testing.assert_array_equal(est.transform(["DOG"]), est.transform(["dog"]))
    est = CCAEmbeddings(3, min_count=1, digits=True).fit(corpus)
    np.testing.assert_array_equal(est.transform(["2001"]), est.transform(["1984"]))
    assert "0000" in est.words_


@pytest.mark.parametrize("lowercase, digits", [(False, False), (True, False), (False, True), (True, True)])
def test_a_list_normalised_at_once_as_word_by_word(lowercase, digits):
    from seqspectral.embeddings.vocabulary import normalise, normalise_all

    words = ["The", "1984", "İstanbul", "x²", "٣٤", "ΣΑΣ", "", "A1b2", "١٢٣-Ab"]
    assert normalise_all(words, lowercase, digits) == [normalise(w, lowercase, digits) for w in words]


def test_word2vec_export_and_model_file(tmp_path):
    corpus = _hmm_corpus(np.random.default_rng(1), n_sentences=200)
    est = CCAEmbeddings(3, min_count=2, method="two-step").fit(corpus)
    est.write_word2vec(tmp_path / "emb.txt")
    words, vectors = read_word2vec(tmp_path / "emb.txt")
    assert words == est.words_
    np.testing.assert_array_equal(vectors, est.transform(words))
    serialize.save(tmp_path / "emb.npz", est)
    back = serialize.load(tmp_path / "emb.npz", kind="cca_embeddings")
    assert back.get_params() == est.get_params()
    np.testing.assert_array_equal(back.transform(words), est.transform(words))
    np.testing.assert_array_equal(back.token_vectors(corpus), est.token_vectors(corpus))


def test_estimator_conventions():
    from sklearn.base import clone

    est = CCAEmbeddings(7, window=3, method="two-step", random_state=4)
    assert clone(est).get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        est.transform(["a"])
    with pytest.raises(ParameterError, match="method"):
        CCAEmbeddings(method="three-step").fit(Corpus.from_symbols([["a", "b"]]))
    with pytest.raises(ParameterError, match="n_components"):
        CCAEmbeddings(0).fit(Corpus.from_symbols([["a", "b"]]))


def test_same_seed_same_vectors():
    corpus = _hmm_corpus(np.random.default_rng(2), n_sentences=300)
    a = CCAEmbeddings(3, min_count=1, random_state=11).fit(corpus)
    b = CCAEmbeddings(3, min_count=1, random_state=11).fit(corpus)
    np.testing.assert_array_equal(a.word_vectors_, b.word_vectors_)
