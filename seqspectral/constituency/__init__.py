"""Phrase-structure (constituency) trees: bracketed treebanks in and out (treebank.py, from corpus/bracketed.py), EVALB
scores (evalb.py), binarisation (transform.py), the Markovised PCFG, the spectral
latent-variable PCFG and its EM twin, and their coarse-to-fine parser. (Dependency trees
are in :mod:`seqspectral.dependency_trees`.)"""
