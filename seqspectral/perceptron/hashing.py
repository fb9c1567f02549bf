"""Feature hashing shared by every perceptron of the toolkit: parser, label classifier, tagger, reranker (Numba).

A feature is a template id followed by a few atoms (int64 string hashes, see
:mod:`seqspectral.parsing.atoms`); :func:`feature` folds them into one int64 with an
FNV-style multiply-xor, and :func:`slot` maps it into a weight vector of ``mask + 1``
entries (a power of two). Collisions are the price of a fixed-size weight vector.
"""

from __future__ import annotations

from numba import njit

_PRIME = 1099511628211
_SEED = 1469598103934665603


@njit(cache=True, inline="always")
def mix(h, x):
    """``h`` with atom ``x`` folded in (int64 arithmetic wraps)."""
    return (h ^ x) * _PRIME


@njit(cache=True, inline="always")
def feature(template, a, b, c, d):
    """The hash of ``(template, a, b, c, d)``; unused atom places are given as 0."""
    h = mix(_SEED, template)
    h = mix(h, a)
    h = mix(h, b)
    h = mix(h, c)
    return mix(h, d)


@njit(cache=True, inline="always")
def slot(h, mask):
    """The weight index of feature hash ``h``."""
    return (h ^ (h >> 29)) & mask
