"""Counting engine: Hankel statistics of strings and event counts of dependency trees.

Numba kernels (``_kernels.py``) behind a small Python front: ``HankelBasis`` chooses the
rows and columns, ``hankel_statistics`` counts H, H_sigma, h_P, h_S; ``tree_statistics``
counts the unigram/bigram/trigram events of dependency trees. All counts add with ``+``.
"""

from .basis import HankelBasis
from .hankel import HankelStatistics, hankel_statistics
from .dependency_trees import TreeStatistics, tree_statistics

__all__ = ["HankelBasis", "HankelStatistics", "TreeStatistics", "hankel_statistics", "tree_statistics"]
