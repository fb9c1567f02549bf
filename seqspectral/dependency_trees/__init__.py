"""The latent-variable dependency-tree model (Dhillon et al. 2012): spectral estimation
(:class:`SpectralTreeModel`), its EM twin (:class:`EMTreeModel`), the parameter form with
exact belief propagation and sampling (:class:`LatentTreeModel`, :func:`planted_model`,
:func:`branching_topologies`), the optional topology term (:class:`ValenceModel`) and
:func:`train_tree_model`, the one training path of both methods."""

from .em import EMTreeModel
from .layout import TreeError, tree_layout
from .planted import LatentTreeModel, branching_topologies, planted_model
from .spectral import SpectralTreeModel, TreeScores
from .topology import ValenceModel
from .training import TREE_METHODS, make_tree_model, train_tree_model, train_tree_model_sharded

__all__ = ["EMTreeModel", "LatentTreeModel", "SpectralTreeModel", "TREE_METHODS", "TreeError", "TreeScores",
           "ValenceModel", "branching_topologies", "make_tree_model", "planted_model", "train_tree_model",
           "train_tree_model_sharded", "tree_layout"]
