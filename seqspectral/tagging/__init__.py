"""Tagging every column: k-best POS tagging (an averaged-perceptron tagger with Viterbi and
k-best Viterbi decoding), morphological features, lemmas, all of them in one model, and
jackknifed tagging (tag n-best lists are reranked by :mod:`seqspectral.reranking.tags`)."""

from .columns import ColumnTaggers
from .features import FeaturesTagger
from .jackknife import jackknife
from .lemmatiser import Lemmatiser
from .tagger import PerceptronTagger

__all__ = ["ColumnTaggers", "FeaturesTagger", "Lemmatiser", "PerceptronTagger", "jackknife"]
