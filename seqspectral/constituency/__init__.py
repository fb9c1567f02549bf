"""Phrase-structure (constituency) trees: bracketed treebanks in and out (treebank.py, over
corpus/bracketed.py), EVALB scores (evalb.py), binarisation (transform.py), the Markovised
PCFG, the spectral latent-variable PCFG and its EM twin, and their coarse-to-fine parser.
(Dependency trees are in :mod:`seqspectral.dependency_trees`.)"""

from .em import EMLPCFG
from .pcfg import MarkovPCFG
from .spectral import SpectralLPCFG
from .training import METHODS, make_grammar, train_grammar, train_grammar_sharded

__all__ = ["EMLPCFG", "MarkovPCFG", "SpectralLPCFG", "METHODS", "make_grammar", "train_grammar",
           "train_grammar_sharded"]
