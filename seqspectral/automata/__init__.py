"""Weighted automata, HMMs and their learners.

``WeightedAutomaton`` (values, conversions between f, f^p and f^s, the floored
next-event distribution), ``SpectralWA`` (SVD of Hankel statistics), ``ConvexWA``
(nuclear-norm regularisation by ADMM), ``HMM`` (π, T, O, stop), ``TensorHMM`` (whitening
and the robust tensor power method), ``BaumWelchHMM`` (EM, from random or tensor starts),
``read_pautomac_target`` (a PAutomaC ``_model.txt`` machine, the true-model floor).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (seqspectral.exports)

from seqspectral.exports import lazy_exports

# the exported names, each imported when first used (seqspectral.exports): a spectral learner
# imports no EM, ADMM or tensor code
if TYPE_CHECKING:
    from .baum_welch import BaumWelchHMM
    from .convex import ConvexWA
    from .hmm import HMM
    from .pautomac_target import read_pautomac_target
    from .spectral import SpectralWA
    from .tensor_hmm import TensorHMM
    from .wfa import WeightedAutomaton

__all__ = ["BaumWelchHMM", "ConvexWA", "HMM", "SpectralWA", "TensorHMM", "WeightedAutomaton", "read_pautomac_target"]

__getattr__, __dir__ = lazy_exports(__name__, __file__)
