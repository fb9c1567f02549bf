"""n-best reranking of parses and tag sequences: a structured averaged perceptron over
candidates with hashed features and real-valued features from pluggable scorers."""

from ._kernels import best_in_groups
from .candidates import CandidateFeatures
from .parses import head_losses, list_problem, parse_features
from .reranker import FeatureMismatchError, Reranker, mean_loss
from .scorers import CorpusScorer, tree_model_scorers

__all__ = [
    "CandidateFeatures",
    "CorpusScorer",
    "FeatureMismatchError",
    "Reranker",
    "best_in_groups",
    "head_losses",
    "list_problem",
    "mean_loss",
    "parse_features",
    "tree_model_scorers",
]
