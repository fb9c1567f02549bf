"""Latent-variable mixture estimators beyond NLP: Spectral Experts, smooth product mixtures, convex EM."""

from .spectral_experts import SpectralExperts, experts_from_moments, mixture_moments  # noqa: F401
from .experts_em import MixtureOfLinearRegressionsEM  # noqa: F401
from .convex_em import ConvexEM  # noqa: F401
from .smooth_product import SmoothProductMixture  # noqa: F401
