"""Shared numerics: whitening, the robust tensor power method, simplex projection, truncated SVD."""

from .simplex import project_simplex
from .tensor_power import robust_tensor_power
from .svd import truncated_svd
from .whitening import whitening

__all__ = ["project_simplex", "robust_tensor_power", "truncated_svd", "whitening"]
