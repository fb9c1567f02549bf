"""Mixtures of linear regressions: Spectral Experts, EM, and the regressions onto symmetric tensors beneath them."""

from .em import MixtureOfLinearRegressionsEM  # noqa: F401
from .spectral import SpectralExperts, experts_from_moments, mixture_moments  # noqa: F401
