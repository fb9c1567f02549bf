"""The morphological features tagger: FEATS predicted per word, one class per feature bundle.

Each word's bundle (the whole FEATS value, ``Number=Plur|Person=3``) is chosen by the
per-token averaged perceptron of :mod:`.token_classifier` among the bundles seen with the
word's UPOS in training (all bundles for a UPOS never seen), with the tagger's features and
the sentence's predicted UPOS and XPOS as features. Training reads the gold UPOS and XPOS;
tagging reads the ones the sentences have (predicted by the taggers before it).
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from seqspectral.base import Estimator, integer, seed
from seqspectral.corpus.columns import has_column
from seqspectral.corpus.errors import CorpusFormatError
from seqspectral.perceptron import dense_from_state, epoch_selection, sparse_schema, sparse_state

from . import model_files, token_classifier as tc
from .words import per_sentence

#: a FEATS value: ``_`` or ``Name=Value`` pairs joined by ``|`` (names and values without ``=``,
#: ``|`` or spaces; UD's stricter letter rules are not required: treebanks outside UD use others)
#: the tag columns the features tagger reads (never FEATS itself)
READS = ("upos", "xpos")
FEATS_VALUE = re.compile(r"_|[^=|\s]+=[^=|\s]+(\|[^=|\s]+=[^=|\s]+)*")


def word_line(sentence, i: int) -> int | None:
    """The line of word ``i`` (0-based) of a sentence read from a file."""
    if sentence.line is None:
        return None
    source = sentence.source
    if source is None:
        return sentence.line + i
    return sentence.line + len(source.comments) + i + sum(1 for before, _ in source.others if before <= i)


def check_feats(sentences, path) -> None:
    """Raise :class:`~seqspectral.corpus.errors.CorpusFormatError` (file and line) at the first
    FEATS value that is not ``Name=Value|...`` or ``_``."""
    for s in sentences:
        for i, value in enumerate(s.feats or ()):
            if not FEATS_VALUE.fullmatch(value):
                raise CorpusFormatError(path, word_line(s, i), f"FEATS {value!r} of word {i + 1} is not "
                                                               "Name=Value|Name=Value... or _")


class FeaturesTagger(Estimator):
    """Tags the FEATS column of CoNLL-U sentences (one class per feature bundle).

    Parameters: ``epochs`` of the perceptron (the best on dev kept when dev is given);
    ``hash_bits`` (2**hash_bits weights, shared by every (feature, bundle) pair);
    ``clusters`` (fitted :class:`~seqspectral.embeddings.clusters.WordClusters`, as the
    tagger's); ``random_state`` (the order words are visited in each epoch).
    """

    kind = "features_tagger"
    field = "feats"
    _parameter_checks = {"epochs": integer(1), "hash_bits": integer(8, 26),
                         "clusters": lambda v: None if v is None or hasattr(v, "ids") else
                         "fitted word clusters or None",
                         "random_state": seed}

    def __init__(self, *, epochs=10, hash_bits=20, clusters=None, random_state=0):
        self.epochs = epochs
        self.hash_bits = hash_bits
        self.clusters = clusters
        self.random_state = random_state

    def _candidates(self, sentences) -> tc.Candidates:
        every = np.arange(len(self.bundles_), dtype=np.int32)
        by_upos = {u: np.asarray(ids, dtype=np.int32) for u, ids in self.by_upos_.items()}
        return tc.Candidates.of([by_upos.get(u, every) for s in sentences for u in s.upos])

    def _gold(self, sentences) -> np.ndarray:
        index = {b: i for i, b in enumerate(self.bundles_)}
        return np.array([index.get(v, -1) for s in sentences for v in tc.column_of(s, "feats")], dtype=np.int32)

    def fit(self, sentences, dev=None, on_epoch=None):
        """Train on ``sentences`` (their FEATS, with their gold UPOS and XPOS as features);
        with ``dev`` the epoch of the best dev accuracy is kept (``selection_``)."""
        self._validate_params()
        sentences = list(sentences)
        if not has_column(sentences, "feats"):
            raise ValueError("the training sentences have no FEATS (the column is _ throughout)")
        self.bundles_ = sorted({v for s in sentences for v in tc.column_of(s, "feats")})
        index = {b: i for i, b in enumerate(self.bundles_)}
        pairs = {(u, index[v]) for s in sentences for u, v in zip(s.upos, tc.column_of(s, "feats"))}
        self.by_upos_ = {}
        for u, b in sorted(pairs):
            self.by_upos_.setdefault(u, []).append(b)
        slots, _ = tc.token_features(sentences, self.clusters, self.hash_bits, columns=READS)
        held = None
        if dev:
            gold = self._gold(dev)
            held = (tc.token_features(dev, self.clusters, self.hash_bits, columns=READS)[0], self._candidates(dev),
                    lambda pred: 100.0 * float(np.mean(pred == gold)))
        run = tc.train(slots, self._candidates(sentences), self._gold(sentences), epochs=self.epochs,
                       hash_bits=self.hash_bits, random_state=self.random_state, dev=held, on_epoch=on_epoch)
        self.history_, self.weights_ = run.history, run.model
        self.selection_ = epoch_selection(run)
        return self

    def predict(self, sentences, table=None) -> list[list[str]]:
        """The FEATS of every word of every sentence (their UPOS and XPOS read as they are;
        ``table``: their word table, if made already)."""
        self._check_fitted()
        sentences = list(sentences)
        slots, _ = tc.token_features(sentences, self.clusters, self.hash_bits, table, READS)
        return per_sentence(self.bundles_, tc.classify(slots, self._candidates(sentences), self.weights_,
                                                       self.hash_bits), sentences)

    def tag(self, sentences, table=None) -> list:
        """Copies of ``sentences`` with FEATS predicted."""
        sentences = list(sentences)
        return [replace(s, feats=f) for s, f in zip(sentences, self.predict(sentences, table))]

    def score(self, sentences) -> float:
        """Accuracy (%) of whole FEATS values on ``sentences``."""
        sentences = list(sentences)
        pred = [v for p in self.predict(sentences) for v in p]
        gold = [v for s in sentences for v in tc.column_of(s, "feats")]
        return 100.0 * float(np.mean([a == b for a, b in zip(pred, gold)])) if gold else 0.0

    # -- model files -----------------------------------------------------------------------
    def to_state(self):
        return model_files.state(self, {"bundles": self.bundles_, "by_upos": self.by_upos_},
                                 sparse_state("weights", self.weights_))

    @classmethod
    def schema(cls, header):
        bundles = header["bundles"]
        if not isinstance(bundles, list) or not bundles or not all(isinstance(x, str) for x in bundles):
            raise ValueError("the bundles are not a non-empty list of strings")
        return model_files.schema(header, sparse_schema("weights", model_files.hash_bits(header)))

    @classmethod
    def from_state(cls, header, arrays):
        tagger = model_files.restore(cls, header, arrays)
        tagger.bundles_ = list(header["bundles"])
        n = len(tagger.bundles_)
        tagger.by_upos_ = {str(u): [int(b) for b in ids] for u, ids in header["by_upos"].items()}
        if any(not 0 <= b < n for ids in tagger.by_upos_.values() for b in ids):
            raise ValueError("a UPOS lists a bundle the tagger does not have")
        tagger.weights_ = dense_from_state("weights", arrays, 1 << tagger.hash_bits)
        return tagger
