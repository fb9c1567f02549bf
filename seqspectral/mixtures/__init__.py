"""Latent-variable mixture estimators beyond NLP, one subpackage per component.

- :mod:`.experts`: Spectral Experts and EM for mixtures of linear regressions (Chaganty & Liang 2013);
- :mod:`.smooth`: mixtures of smooth product distributions (Kargas & Sidiropoulos 2019);
- :mod:`.bayesnet`: discrete Bayesian networks with hidden variables and convex EM (Guo & Schuurmans 2007);
- :mod:`.datasets`: the planted and published data those papers' experiments use.

cvxpy and pgmpy (the tables of published networks) are in the ``research`` extra.
"""

from .bayesnet import ConvexEM  # noqa: F401
from .experts import MixtureOfLinearRegressionsEM, SpectralExperts, experts_from_moments, mixture_moments  # noqa: F401
from .smooth import SmoothProductMixture  # noqa: F401
