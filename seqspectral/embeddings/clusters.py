"""Word clusters from CCA word vectors: features for the tagger and the parser.

Koo, Carreras & Collins ("Simple Semi-supervised Dependency Parsing", ACL 2008) add Brown
clusters to a parser's features at two granularities, a short bit-string prefix (a coarse,
POS-like class) and the full bit string (a fine, word-like class). Here each granularity is its
own k-means of the unit-length CCA word vectors (:class:`~.cca.CCAEmbeddings`, trained on
unlabelled text such as Brown plus the treebank's words): ``coarse`` and ``fine`` clusters.
A word is looked up by the embeddings' normalisation (case folding, digits); a word the
embeddings did not keep has cluster 0 at both levels (clusters are numbered from 1).
"""

from __future__ import annotations

from itertools import repeat

import numpy as np

from seqspectral.base import Estimator, integer, seed

from .vocabulary import normalise_all


class WordClusters(Estimator):
    """``coarse`` and ``fine`` k-means clusters of a CCA embedding's word vectors (at most one
    cluster per distinct vector; ``random_state`` seeds k-means). ``fit(embeddings)`` takes fitted
    :class:`~.cca.CCAEmbeddings`; ``ids(forms)`` gives the clusters of word forms."""

    kind = "word_clusters"
    _parameter_checks = {"coarse": integer(2), "fine": integer(2), "random_state": seed}

    def __init__(self, coarse=64, fine=1024, *, random_state=0):
        self.coarse = coarse
        self.fine = fine
        self.random_state = random_state

    def fit(self, embeddings, y=None):
        """Cluster the vectors of ``embeddings``' kept words (``<unk>`` and ``</s>`` left out)."""
        from sklearn.cluster import KMeans

        from seqspectral.corpus import Vocabulary

        self._validate_params()
        words = embeddings.vocabulary_.symbols[Vocabulary.N_RESERVED:]  # rows of word_vectors_ are vocabulary ids
        vectors = np.asarray(embeddings.word_vectors_[Vocabulary.N_RESERVED:], dtype=np.float64)
        if len(words) < 2:
            raise ValueError(f"{len(words)} words to cluster")
        self.words_ = list(words)
        self.lowercase_, self.digits_ = bool(embeddings.lowercase), bool(embeddings.digits)
        distinct = len(np.unique(vectors, axis=0))  # words of identical contexts share a vector
        levels = [KMeans(min(k, distinct), n_init=1, random_state=self.random_state).fit_predict(vectors) + 1
                  for k in (self.coarse, self.fine)]
        self.ids_ = np.stack(levels, axis=1).astype(np.int32)
        return self

    def ids(self, forms) -> np.ndarray:
        """The (coarse, fine) clusters of every form (len(forms) × 2, int64; 0: unknown)."""
        self._check_fitted()
        index = self.__dict__.get("_index")
        if index is None:
            index = self._index = {w: i for i, w in enumerate(self.words_)}
        rows = np.fromiter(map(index.get, normalise_all(list(forms), self.lowercase_, self.digits_), repeat(-1)),
                           dtype=np.int64, count=len(forms))
        out = self.ids_[rows].astype(np.int64)
        out[rows < 0] = 0
        return out

    # -- model files (nested inside the tagger's and the parser's) ----------------------------
    def to_state(self):
        self._check_fitted()
        header = {"params": self.json_params(), "words": self.words_, "lowercase": self.lowercase_,
                  "digits": self.digits_}
        return header, {"ids": self.ids_}

    @classmethod
    def schema(cls, header):
        from seqspectral.serialize import Member, Schema

        words = header["words"]
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise ValueError("the words are not a list of strings")
        high = max(int(header["params"]["coarse"]), int(header["params"]["fine"])) + 1
        return Schema({"ids": Member("iu", (len(words), 2), values=(0, high))})

    @classmethod
    def from_state(cls, header, arrays):
        clusters = cls(**header["params"])
        clusters.words_ = list(header["words"])
        clusters.lowercase_, clusters.digits_ = bool(header["lowercase"]), bool(header["digits"])
        clusters.ids_ = np.asarray(arrays["ids"], dtype=np.int32)
        return clusters
