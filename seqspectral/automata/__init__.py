"""Weighted automata and their learners.

``WeightedAutomaton`` (values, conversions between f, f^p and f^s, the floored
next-event distribution), ``SpectralWA`` (SVD of Hankel statistics), ``ConvexWA``
(nuclear-norm regularisation by ADMM), ``Interpolated`` (mixing with a lower-order model).
"""

from .convex import ConvexWA
from .interpolated import Interpolated, bigram_automaton
from .spectral import SpectralWA
from .wfa import WeightedAutomaton

__all__ = ["ConvexWA", "Interpolated", "SpectralWA", "WeightedAutomaton", "bigram_automaton"]
