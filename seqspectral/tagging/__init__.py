"""k-best POS tagging: an averaged-perceptron tagger with Viterbi and k-best Viterbi
decoding, and jackknifed tagging (tag n-best lists are reranked by :mod:`seqspectral.reranking.tags`)."""

from .jackknife import jackknife
from .tagger import PerceptronTagger

__all__ = ["PerceptronTagger", "jackknife"]
