"""Phrase-structure (constituency) trees: bracketed treebanks, grammars over them, their
parsing and scoring. Dependency trees are in :mod:`seqspectral.dependency_trees`."""
