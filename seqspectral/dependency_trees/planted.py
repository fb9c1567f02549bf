"""The latent-variable dependency model in parameter form: exact scoring by belief
propagation, sampling, and planted models for tests and benchmarks.

The model (Dhillon et al. 2012, Eq. 2): every word i of a tree has a hidden state
h_i in 1..m; a word attached to the root draws h_i from ``pi``; a dependent standing
left of its head draws it from ``left[:, h_head]`` (T_L), one standing right from
``right[:, h_head]`` (T_R), each dependent independently of its siblings; every word
x_i is drawn from ``emission[:, h_i]`` (O). Given the topology τ (heads and word order),

    p(x | τ) = Π_{roots r} Σ_h π(h) β_r(h),
    β_i(h) = O(x_i | h) Π_{dependents c of i} Σ_{h'} T_{side(c)}(h' | h) β_c(h'),

the inside recursion computed (rescaled) by :func:`_kernels.latent_log_probs`. It is a
distribution over the words given the topology, not over topologies.
"""

from __future__ import annotations

import numpy as np

from seqspectral.corpus.sequences import Corpus
from seqspectral.corpus.vocabulary import Vocabulary

from . import _kernels
from .layout import tree_layout


class LatentTreeModel:
    """π (m), T_L and T_R (m x m, column h = the head's state), O (n_symbols x m, column-
    stochastic over the vocabulary's ids) and the vocabulary the ids refer to."""

    def __init__(self, pi, left, right, emission, vocabulary: Vocabulary):
        self.pi = np.ascontiguousarray(pi, dtype=np.float64)
        self.left = np.ascontiguousarray(left, dtype=np.float64)
        self.right = np.ascontiguousarray(right, dtype=np.float64)
        self.emission = np.ascontiguousarray(emission, dtype=np.float64)
        self.vocabulary = vocabulary
        m = len(self.pi)
        if self.left.shape != (m, m) or self.right.shape != (m, m) or self.emission.shape != (len(vocabulary), m):
            raise ValueError("pi (m), left/right (m x m) and emission (n_symbols x m) do not agree")

    @property
    def n_states(self) -> int:
        return len(self.pi)

    def encode(self, corpus) -> Corpus:
        """``corpus`` in this model's vocabulary (unknown symbols become UNK)."""
        if corpus.vocabulary is None or corpus.vocabulary is self.vocabulary or corpus.vocabulary == self.vocabulary:
            return corpus
        return corpus.with_vocabulary(self.vocabulary)

    def log_probs(self, corpus) -> np.ndarray:
        """Exact natural-log p(words | tree) of every tree of ``corpus``."""
        corpus = self.encode(corpus)
        lay = tree_layout(corpus)
        out = np.empty(len(corpus))
        _kernels.latent_log_probs(corpus.symbols, corpus.offsets, *lay, self.pi, self.left, self.right,
                                  self.emission, out)
        return out

    def sample(self, topologies, random_state=0) -> Corpus:
        """Words for the trees of ``topologies`` (a Corpus with heads; its symbols are
        ignored): a Corpus with the same heads, this model's vocabulary and the sampled
        words (:meth:`sample_states` also returns the hidden states)."""
        return self.sample_states(topologies, random_state)[0]

    def sample_states(self, topologies, random_state=0) -> tuple[Corpus, np.ndarray]:
        """(words as a Corpus, hidden states aligned with them)."""
        rng = np.random.default_rng(random_state)
        lay = tree_layout(topologies)
        n = len(topologies.heads)
        states, words = _kernels.sample_latent(
            lay.parent, lay.is_left, lay.order, np.cumsum(self.pi), np.cumsum(self.left.T, axis=1),
            np.cumsum(self.right.T, axis=1), np.cumsum(self.emission.T, axis=1), rng.random(n), rng.random(n))
        return Corpus(words, topologies.offsets, self.vocabulary, topologies.heads), states


def planted_model(n_states: int = 4, n_symbols: int = 50, random_state=0, *, emission_concentration: float = 0.3,
                  permutation_weight: float = 0.6) -> LatentTreeModel:
    """A random model: π from Dirichlet(1); T_L and T_R each ``permutation_weight`` times
    a random permutation matrix plus the rest times columns from Dirichlet(1) (so both
    are well conditioned, as the spectral method assumes: rank m); every column of O from
    Dirichlet(emission concentration) over ``n_symbols`` words ``w0, w1, ...`` (ids from
    ``Vocabulary.N_RESERVED`` on; the reserved ids are never emitted)."""
    rng = np.random.default_rng(random_state)
    m = n_states
    vocabulary = Vocabulary(f"w{i}" for i in range(n_symbols))
    emission = np.zeros((len(vocabulary), m))
    emission[Vocabulary.N_RESERVED:] = rng.dirichlet(np.full(n_symbols, emission_concentration), size=m).T
    pi = rng.dirichlet(np.ones(m))
    left, right = (permutation_weight * np.eye(m)[rng.permutation(m)]
                   + (1 - permutation_weight) * rng.dirichlet(np.ones(m), size=m).T for _ in range(2))
    return LatentTreeModel(pi, left, right, emission, vocabulary)


def branching_topologies(n_nodes: int, random_state=0, *, mean_left: float = 0.45, mean_right: float = 0.45,
                         max_size: int = 60) -> Corpus:
    """Projective trees from a Galton-Watson process, about ``n_nodes`` tokens in all.

    Each node gets Poisson(mean_left) left and Poisson(mean_right) right dependents
    (a tree stops growing at ``max_size`` nodes); words are laid out in order (left
    subtrees, the node, right subtrees). The symbols are all UNK; only the heads matter.
    """
    rng = np.random.default_rng(random_state)
    heads_all: list[np.ndarray] = []
    total = 0
    while total < n_nodes:
        heads = _one_tree(rng, mean_left, mean_right, max_size)
        heads_all.append(heads)
        total += len(heads)
    offsets = np.zeros(len(heads_all) + 1, np.int64)
    np.cumsum([len(h) for h in heads_all], out=offsets[1:])
    heads = np.concatenate(heads_all).astype(np.int32)
    return Corpus(np.zeros(len(heads), np.int32), offsets, None, heads)


def _one_tree(rng, mean_left: float, mean_right: float, max_size: int) -> np.ndarray:
    """Heads (1-based, 0 = root) of one tree of the branching process."""
    lefts: list[list[int]] = [[]]
    rights: list[list[int]] = [[]]
    frontier = [0]
    size = 1
    while frontier and size < max_size:
        node = frontier.pop(0)
        n_left, n_right = rng.poisson(mean_left), rng.poisson(mean_right)
        for side, count in ((lefts, n_left), (rights, n_right)):
            for _ in range(count):
                if size >= max_size:
                    break
                lefts.append([])
                rights.append([])
                side[node].append(size)
                frontier.append(size)
                size += 1
    position = np.empty(size, np.int64)  # in-order layout, iteratively
    stack: list[tuple[int, bool]] = [(0, False)]
    pos = 0
    while stack:
        node, expanded = stack.pop()
        if expanded:
            position[node] = pos
            pos += 1
            continue
        for child in reversed(rights[node]):
            stack.append((child, False))
        stack.append((node, True))
        for child in reversed(lefts[node]):
            stack.append((child, False))
    heads = np.zeros(size, np.int64)
    for node in range(size):
        for child in lefts[node] + rights[node]:
            heads[position[child]] = position[node] + 1
    return heads
