"""Discrete Bayesian networks with hidden variables: the networks, supervised and Viterbi EM, convex EM."""

from .convex_em import ConvexEM  # noqa: F401
from .learners import SupervisedBayesNet, ViterbiEM  # noqa: F401
from .network import BayesNetStructure, DiscreteBayesNet  # noqa: F401
