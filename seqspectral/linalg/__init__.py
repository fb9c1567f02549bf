"""Shared numerics: whitening, the robust tensor power method, simplex projection."""

from .simplex import project_simplex
from .tensor_power import robust_tensor_power
from .whitening import whitening

__all__ = ["project_simplex", "robust_tensor_power", "whitening"]
