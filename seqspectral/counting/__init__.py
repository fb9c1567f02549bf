"""Counting engine: Hankel statistics of strings and event counts of dependency trees.

Numba kernels (``_kernels.py``) behind a small Python front: ``HankelBasis`` chooses the
rows and columns, ``hankel_statistics`` counts H, H_sigma, h_P, h_S; ``tree_statistics``
counts the unigram/bigram/trigram events of dependency trees. All counts add with ``+``.
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (seqspectral.exports)

from seqspectral.exports import lazy_exports

# the exported names, each imported when first used (seqspectral.exports): counting strings
# imports no tree counter, and the reverse
if TYPE_CHECKING:
    from .basis import HankelBasis
    from .hankel import HankelStatistics, hankel_statistics
    from .dependency_trees import TreeStatistics, tree_statistics

__all__ = ["HankelBasis", "HankelStatistics", "TreeStatistics", "hankel_statistics", "tree_statistics"]

__getattr__, __dir__ = lazy_exports(__name__, __file__)
