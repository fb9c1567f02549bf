"""Benchmark: CCA word embeddings against gensim's Word2Vec, all in one run on Brown.

Every method learns 50-dimensional vectors from the Brown corpus (NLTK, lowercased, 1.16M
tokens) with one shared vocabulary: forms seen at least ``--min-count`` times; every other
token is ``<unk>`` (for Word2Vec the rare words are replaced by ``<unk>`` in its input, so
it learns an unknown vector too and keeps the positions). Methods:

- ``CCAEmbeddings`` one-step and two-step (LR-MVL), window 2 each side;
- gensim ``Word2Vec`` CBOW and skip-gram (window 5, 5 epochs, 2 workers, negative sampling);
- a random-projection baseline: the rows of the one-step scaled count matrix Ω times a
  Gaussian matrix (unit rows), i.e. CCA's input without its SVD.

Measured:

- wall seconds of training (vocabulary, counting and SVD for CCA; ``Word2Vec(...)`` for
  gensim), the fastest of ``--repeats`` runs, the methods interleaved so they share the
  same machine load;
- a linear probe: UPOS accuracy on UD English-EWT test of a multinomial logistic regression
  (standardised features, C = 1) trained on EWT train, fed the word's vector only and the
  vectors of the word and its two neighbours (zero vectors beyond the sentence);
  EWT forms are lowercased, out-of-vocabulary ones get ``<unk>``'s vector;
- word similarity: Spearman ρ of cosine similarities on WordSim-353 and SimLex-999 (the
  copies shipped in the gensim package, ``gensim/test/test_data``) over the pairs whose
  two words are in the vocabulary;
- nearest neighbours (cosine) of a few words of different classes;
- the singular value spectrum of the one-step Ω (PNG beside the table);
- scaling: counting + SVD of Brown repeated 10 times against Brown, and the peak memory
  the counter allocates (tracemalloc) on each.

    NLTK_DATA=/work/shared/corpora/nltk_data python evaluation/embeddings.py
      # writes evaluation/results/embeddings.md and embeddings-spectrum.png
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

from _machine import describe

from seqspectral.corpus import Corpus, read_conllu, read_corpus
from seqspectral.embeddings import CCAEmbeddings
from seqspectral.io import atomic_open, atomic_write_text

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "corpora"
RESULTS = HERE / "results"
DIM = 50
NEIGHBOUR_WORDS = ["monday", "france", "blue", "walked", "quickly", "money", "she", "of"]


# -- data -----------------------------------------------------------------------------------
def load_brown() -> Corpus:
    if not os.environ.get("NLTK_DATA"):
        sys.exit("set NLTK_DATA (e.g. /work/shared/corpora/nltk_data) to the NLTK data with the Brown corpus")
    return read_corpus(os.environ["NLTK_DATA"], format="brown", field="form")


def load_ewt(split: str):
    path = SHARED / "ud-english-ewt" / f"en_ewt-ud-{split}.conllu"
    if not path.is_file():
        sys.exit(f"missing {path}")
    return read_conllu(path)


def gensim_sentences(brown: Corpus, vocabulary) -> list[list[str]]:
    """Brown lowercased, words outside the shared vocabulary written <unk>."""
    unk = vocabulary.symbol(0)
    return [[w if w in vocabulary else unk for w in (s.lower() for s in sentence)] for sentence in brown.to_symbols()]


# -- methods ----------------------------------------------------------------------------------
def train_cca(brown, method, min_count):
    return CCAEmbeddings(DIM, method=method, lowercase=True, min_count=min_count).fit(brown)


def train_word2vec(sentences, sg):
    from gensim.models import Word2Vec

    return Word2Vec(sentences, vector_size=DIM, window=5, min_count=1, workers=2, epochs=5, sg=sg, seed=0)


def random_projection(brown, min_count):
    """Ω (one-step CCA's scaled counts) times a Gaussian matrix; unit rows."""
    est = CCAEmbeddings(DIM, lowercase=True, min_count=min_count)
    vocabulary = est.build_vocabulary([brown])
    omega = est.scaled_cross_covariance(est.count(brown, vocabulary))
    vectors = omega @ np.random.default_rng(0).normal(size=(omega.shape[1], DIM))
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-300)


def aligned(vectors_of, vocabulary) -> np.ndarray:
    """A (|vocabulary|, DIM) matrix in the CCA vocabulary's id order; the boundary id 1 is 0."""
    out = np.zeros((len(vocabulary), DIM))
    for i, w in enumerate(vocabulary.symbols):
        if i != 1:
            out[i] = vectors_of(w)
    return out


# -- measures ---------------------------------------------------------------------------------
def probe_features(sentences, ids_of, E, neighbours: bool):
    rows = []
    for s in sentences:
        ids = ids_of([f.lower() for f in s.forms])
        X = E[ids]
        if neighbours:
            pad = np.zeros((1, E.shape[1]))
            X = np.hstack([np.vstack([pad, X[:-1]]), X, np.vstack([X[1:], pad])])
        rows.append(X)
    return np.vstack(rows)


def probe(E, ids_of, train, test, neighbours: bool) -> float:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    y_train = [t for s in train for t in s.upos]
    y_test = np.array([t for s in test for t in s.upos])
    model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=300))
    model.fit(probe_features(train, ids_of, E, neighbours), y_train)
    return float(np.mean(model.predict(probe_features(test, ids_of, E, neighbours)) == y_test))


def similarity(E, vocabulary, name) -> tuple[float, int, int]:
    """(Spearman ρ, pairs used, pairs in the set) of a gensim-shipped similarity set."""
    from gensim.test.utils import datapath
    from scipy.stats import spearmanr

    pairs = []
    with open(datapath(name), encoding="utf-8") as f:
        for line in f:
            parts = line.strip().split("\t")
            if line.startswith("#") or len(parts) < 3:
                continue
            try:
                pairs.append((parts[0].lower(), parts[1].lower(), float(parts[2])))
            except ValueError:
                continue  # a header line
    used = [(a, b, s) for a, b, s in pairs if a in vocabulary and b in vocabulary]
    unit = E / np.maximum(np.linalg.norm(E, axis=1, keepdims=True), 1e-300)
    cos = [float(unit[vocabulary.id(a)] @ unit[vocabulary.id(b)]) for a, b, _ in used]
    return float(spearmanr(cos, [s for *_, s in used]).statistic), len(used), len(pairs)


def neighbours(E, vocabulary, word, n=5) -> list[str]:
    unit = E / np.maximum(np.linalg.norm(E, axis=1, keepdims=True), 1e-300)
    sims = unit @ unit[vocabulary.id(word)]
    sims[[vocabulary.id(word), 1]] = -np.inf
    return [vocabulary.symbol(int(j)) for j in np.argsort(-sims)[:n]]


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def scaling(brown, min_count, copies=10) -> dict:
    """Counting + SVD of Brown and of Brown repeated ``copies`` times; counter peak memory."""
    big = Corpus(np.tile(brown.symbols, copies),
                 np.concatenate([[0], (np.arange(1, copies + 1)[:, None] * brown.n_tokens
                                       - brown.n_tokens + brown.offsets[1:][None, :]).ravel()]),
                 brown.vocabulary)
    out = {}
    for name, corpus in (("brown", brown), (f"brown x{copies}", big)):
        est = CCAEmbeddings(DIM, lowercase=True, min_count=min_count * (copies if corpus is big else 1))
        vocabulary = est.build_vocabulary([corpus])
        tracemalloc.start()
        t_count, counts = timed(lambda: est.count(corpus, vocabulary))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        t_svd, _ = timed(lambda: est.fit_counts(counts, vocabulary))
        out[name] = {"tokens": corpus.n_tokens, "vocabulary": len(vocabulary), "count": t_count, "svd": t_svd,
                     "total": t_count + t_svd, "peak_mb": peak / 2**20, "nnz": counts.word_context.nnz}
    return out


def spectrum(brown, min_count, n_values, png: Path) -> np.ndarray:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.utils.extmath import randomized_svd

    est = CCAEmbeddings(DIM, lowercase=True, min_count=min_count)
    vocabulary = est.build_vocabulary([brown])
    omega = est.scaled_cross_covariance(est.count(brown, vocabulary))
    _, d, _ = randomized_svd(omega, n_values, n_iter=4, random_state=0)
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=120)
    ax.semilogy(np.arange(1, len(d) + 1), d, lw=1.5)
    ax.axvline(DIM, color="grey", ls="--", lw=1)
    ax.text(DIM + 3, d[0] / 2, f"dim = {DIM}", color="grey")
    ax.set_xlabel("index")
    ax.set_ylabel("singular value of Ω (log)")
    ax.set_title("Brown (lowercased), one-step CCA, window 2")
    fig.tight_layout()
    with atomic_open(png, "wb") as f:
        fig.savefig(f, format="png")
    plt.close(fig)
    return d
