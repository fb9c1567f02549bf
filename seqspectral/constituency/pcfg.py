"""The Markovised PCFG: relative frequencies of the binarised treebank's rules (the
baseline, and the coarse grammar every latent grammar is pruned by)."""

from __future__ import annotations

import numpy as np

from .estimator import GrammarEstimator
from .grammar import unknown_backoff


class MarkovPCFG(GrammarEstimator):
    """A maximum-likelihood PCFG over trees binarised with vertical (``vertical``) and
    horizontal (``horizontal``) Markovisation; words seen at most ``rare`` times become their
    signatures. Decoding: the tree of most expected correct labelled spans."""

    kind = "markov_pcfg"

    def __init__(self, *, vertical: int = 2, horizontal: int | None = 1, rare: int = 1, threshold: float = 1e-4):
        self.vertical = vertical
        self.horizontal = horizontal
        self.rare = rare
        self.threshold = threshold

    def _latent_weights(self, binarised, counts, tables, coarse, dev):
        rule_prob, lex_prob, root_prob, _ = coarse
        states = np.ones(len(tables.labels), np.int32)
        return [(states, rule_prob.copy(), unknown_backoff(tables, lex_prob, states), root_prob.copy())]

    def _has_latent_states(self) -> bool:
        return False
