"""The optional topology term: per-symbol valence with stop probabilities.

The tree models score p(words | topology). A reranker comparing candidate trees of the
same words may also want how plausible each topology is; this term gives, per tree,

    log p(valences | words) = Σ_i Σ_{side ∈ {L, R}} log p(n_side(i) | x_i, side),

with the head-automaton stop model of Klein & Manning's DMV: p(0) = s_adj(x, side),
p(n ≥ 1) = (1 - s_adj) (1 - s_non)^(n-1) s_non, where s_adj is the probability of
stopping before any dependent and s_non after one. Both are add-one estimates from the
training trees' counts (unknown symbols: the pooled counts of every word). It is a score
of the numbers of dependents, not a distribution over whole topologies (attachment and
order are not generated).
"""

from __future__ import annotations

import numpy as np

from seqspectral.base import Estimator

from .layout import tree_layout


class ValenceModel(Estimator):
    """Add-one stop probabilities per (symbol, side): ``stop_adjacent_``, ``stop_further_``
    (n_symbols x 2, side 0 = left, 1 = right)."""

    kind = "tree_valence"

    def fit(self, corpus) -> "ValenceModel":
        n_symbols = len(corpus.vocabulary) if corpus.vocabulary is not None else int(corpus.symbols.max()) + 1
        return self.fit_counts(valence_counts(corpus, n_symbols))

    def fit_counts(self, counts) -> "ValenceModel":
        """Fit from :func:`valence_counts` (of one corpus, or summed over several)."""
        counts = np.asarray(counts, dtype=np.float64).copy()
        unknown = 0  # Vocabulary.UNK_ID: the pooled counts
        counts[unknown] = counts.sum(axis=0)
        none, some, more = counts[:, :, 0], counts[:, :, 1], counts[:, :, 2]
        self.stop_adjacent_ = (none + 1) / (none + some + 2)
        self.stop_further_ = (some + 1) / (some + more + 2)
        return self

    def log_probs(self, corpus) -> np.ndarray:
        """log p(valences | words) per tree."""
        counts = _valences(corpus)
        x = corpus.symbols
        total = np.zeros(len(x))
        for side in range(2):
            n = counts[:, side]
            s_adj, s_non = self.stop_adjacent_[x, side], self.stop_further_[x, side]
            total += np.where(n == 0, np.log(s_adj),
                              np.log1p(-s_adj) + np.maximum(n - 1, 0) * np.log1p(-s_non) + np.log(s_non))
        cumulative = np.concatenate([[0.0], np.cumsum(total)])
        return cumulative[corpus.offsets[1:]] - cumulative[corpus.offsets[:-1]]

    def to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        return {}, {"stop_adjacent": self.stop_adjacent_, "stop_further": self.stop_further_}

    @classmethod
    def from_state(cls, header: dict, arrays: dict[str, np.ndarray]) -> "ValenceModel":
        model = cls()
        model.stop_adjacent_ = arrays["stop_adjacent"]
        model.stop_further_ = arrays["stop_further"]
        return model


def valence_counts(corpus, n_symbols: int) -> np.ndarray:
    """(n_symbols x 2 x 3) counts: words of each symbol with no (j = 0) or some (j = 1)
    dependents on each side (0 left, 1 right), and (j = 2) their dependents beyond the
    first there."""
    per_word = _valences(corpus)
    out = np.zeros((n_symbols, 2, 3), np.int64)
    x = corpus.symbols
    for side in range(2):
        n = per_word[:, side]
        out[:, side, 0] = np.bincount(x, weights=n == 0, minlength=n_symbols)
        out[:, side, 1] = np.bincount(x, weights=n > 0, minlength=n_symbols)
        out[:, side, 2] = np.bincount(x, weights=np.maximum(n - 1, 0), minlength=n_symbols)
    return out


def _valences(corpus) -> np.ndarray:
    """(n_tokens x 2): the number of left and right dependents of every token."""
    lay = tree_layout(corpus)
    has_head = lay.parent >= 0
    out = np.zeros((len(corpus.symbols), 2), np.int64)
    for side, mask in ((0, has_head & (lay.is_left == 1)), (1, has_head & (lay.is_left == 0))):
        out[:, side] = np.bincount(lay.parent[mask], minlength=len(corpus.symbols))
    return out
