"""k-best POS tagging: an averaged-perceptron tagger with Viterbi and k-best Viterbi
decoding, jackknifed tagging, and tag n-best lists as reranker input."""

from .jackknife import jackknife
from .reranking import list_problem, rerank_tags, tag_features, tag_losses
from .tagger import PerceptronTagger

__all__ = ["PerceptronTagger", "jackknife", "list_problem", "rerank_tags", "tag_features", "tag_losses"]
