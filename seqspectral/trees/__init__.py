"""The latent-variable dependency-tree model (Dhillon et al. 2012): spectral estimation
(:class:`SpectralTreeModel`), its EM twin (:class:`EMTreeModel`), the parameter form with
exact belief propagation and sampling (:class:`LatentTreeModel`, :func:`planted_model`,
:func:`branching_topologies`) and the optional topology term (:class:`ValenceModel`)."""

from .em import EMTreeModel
from .layout import TreeError, tree_layout
from .planted import LatentTreeModel, branching_topologies, planted_model
from .spectral import SpectralTreeModel, TreeScores
from .topology import ValenceModel

__all__ = ["EMTreeModel", "LatentTreeModel", "SpectralTreeModel", "TreeError", "TreeScores", "ValenceModel",
           "branching_topologies", "planted_model", "tree_layout"]
