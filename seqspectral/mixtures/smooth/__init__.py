"""Mixtures of smooth product distributions from 3-way histograms (Kargas & Sidiropoulos 2019)."""

from .product import SmoothProductMixture  # noqa: F401
