"""The statistics of the spectral L-PCFG as sums over trees (Cohen et al. 2012, Figure 4).

For every node of label ``a`` the inside tree gives binary features φ (its rule; its rule
with the rule of either child) and the outside tree ψ (the rule above with the node's side;
that with the rule above it; the word before and the word after the span; or "at the
root"), and more of each in :data:`FEATURE_SETS` ``"rich"``. Three passes over the treebank, each a sum that shards
(:func:`seqspectral.counting.sharded.count_sharded`):

1. the feature counts (their sorted keys number the features, per label);
2. Ω^a = Σ φ ψᵀ, integer counts; its SVD (feature-scaled, Ω̃ = D_φ^{-1/2} Ω D_ψ^{-1/2})
   gives the projections Y(t) = Uᵀ D_φ^{-1/2} φ(t) and Z(o) = M_a Σ^{-1} Vᵀ D_ψ^{-1/2} ψ(o),
   with E[Z Yᵀ] = I on the nodes of ``a``;
3. the projected moments Σ Z(o) ⊗ Y(t_left) ⊗ Y(t_right) per binary rule, Σ Z(o) per
   preterminal rule, Σ Y(t) per root label, and per binary rule the sums of each
   projection and of each pair's outer product (Z ⊗ Y_left, Z ⊗ Y_right, Y_left ⊗ Y_right:
   the smoothing's back-offs). Each node's contribution is rounded to a multiple of
   2^-:data:`FIXED_POINT_BITS` and added as an integer, so the sums — and the grammar — are
   the same bytes however the trees are cut into shards and in whatever order they add.

The projections keep ``max_states`` coordinates per label; a grammar with fewer states
uses the leading ones (one SVD and one pass serve every number of states).
"""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np
from numba import njit

from .encoding import BinaryTreebank

FIXED_POINT_BITS = 24
_KINDS = 13  # feature kinds (see node_features)


@dataclass
class SparseCounts:
    """Integer counts of int64 keys (sorted, unique); they add."""

    keys: np.ndarray
    counts: np.ndarray

    def __add__(self, other: "SparseCounts") -> "SparseCounts":
        keys, inverse = np.unique(np.concatenate([self.keys, other.keys]), return_inverse=True)
        return SparseCounts(keys, np.bincount(inverse, np.concatenate([self.counts, other.counts])).astype(np.int64))

    @classmethod
    def of(cls, keys: np.ndarray) -> "SparseCounts":
        keys, counts = np.unique(keys, return_counts=True)
        return cls(keys, counts.astype(np.int64))


@dataclass
class FixedPointSums:
    """Sums of fixed-point integers (exact, so they add in any order)."""

    arrays: tuple

    def __add__(self, other: "FixedPointSums") -> "FixedPointSums":
        return FixedPointSums(tuple(a + b for a, b in zip(self.arrays, other.arrays)))


def _rule_keys(tb: BinaryTreebank, n_binary: int) -> np.ndarray:
    return np.where(tb.left >= 0, tb.rule, n_binary + tb.rule).astype(np.int64)


def node_features(tb: BinaryTreebank, n_binary: int, n_lexical: int, n_words: int, features: str = "rules"):
    """(inside, outside): per node, int64 keys of the :data:`FEATURE_SETS` ``features``,
    ``-1`` where a node has fewer; every key carries the node's label (keys sort by label
    first)."""
    rk = _rule_keys(tb, n_binary)
    base = 2 * (n_binary + n_lexical + n_words) + 4
    label = tb.label.astype(np.int64)

    def key(kind, x, y=0):
        return ((label * _KINDS + kind) * base + x) * base + y

    inner = tb.left >= 0
    n = len(tb.label)
    left, right = np.where(inner, tb.left, 0), np.where(inner, tb.right, 0)
    parent = tb.parent.astype(np.int64)
    root = parent < 0
    p = np.where(root, 0, parent)
    side = (tb.right[p] == np.arange(n)).astype(np.int64)
    above = rk[p] * 2 + side
    gp = np.where(root, -1, parent[p])
    gp_side = np.where(gp >= 0, tb.right[np.maximum(gp, 0)] == p, 0).astype(np.int64)
    above2 = np.where(gp >= 0, rk[np.maximum(gp, 0)] * 2 + gp_side, base - 1)
    w, t, length = _span_context(tb, n_words, base)
    inside_columns = {0: key(0, rk), 1: key(1, rk, rk[left]), 2: key(2, rk, rk[right]), 3: key(3, t[0], t[1]),
                      4: key(4, w[1]), 5: key(5, w[0]), 6: key(6, _bin(length[0]))}
    outside_columns = {7: np.where(root, key(7, 0), key(7, above + 1)), 8: key(8, above, above2),
                       9: key(9, w[2]), 10: key(10, w[3]), 11: key(11, t[2], t[3]),
                       12: key(12, _bin(length[1]), _bin(length[2]))}
    inside_kinds, outside_kinds = FEATURE_SETS[features]
    inside = np.stack([np.where(inner | (k == 0), inside_columns[k], -1) for k in inside_kinds], axis=1)
    outside = np.stack([np.where(root & (k == 8), -1, outside_columns[k]) for k in outside_kinds], axis=1)
    return inside, outside


#: the feature kinds of :func:`node_features` (inside, outside): ``rules`` — the node's rule,
#: with its left or its right child's rule; the rule above with the node's side, with the
#: rule above that, or "at the root"; the word before and after the span (Cohen et al.
#: 2012's); ``rich`` adds Cohen et al. 2013's kind of context: the tags at the span's ends,
#: its first and last word, its length (binned); the tags before and after it and the
#: numbers of words left and right of it (binned). On the WSJ sample's dev trees ``rich``
#: was no better (evaluation/RESULTS.md, issue 37).
FEATURE_SETS = {"rules": ((0, 1, 2), (7, 8, 9, 10)), "rich": ((0, 1, 2, 3, 4, 5, 6), (7, 8, 9, 10, 11, 12))}
_BINS = np.array([2, 3, 4, 5, 7, 10, 15, 20, 30])


def _bin(length):
    return np.searchsorted(_BINS, length, side="right")


def _span_context(tb: BinaryTreebank, n_words: int, base: int):
    """Per node: the word classes (first, last, before, after its span), the preterminal
    labels at the same four places, and (its length, the words before it, the words after
    it). Past the sentence's edges, words are ``n_words`` (before) or ``n_words + 1`` (after),
    labels ``base - 2`` or ``base - 3``."""
    leaf = tb.left < 0
    tree_of = np.repeat(np.arange(len(tb)), np.diff(tb.offsets))
    words_per_tree = np.bincount(tree_of[leaf], minlength=len(tb))
    word_offsets = np.concatenate([[0], np.cumsum(words_per_tree)])
    words = np.empty(int(word_offsets[-1]) + 1, np.int64)
    tags = np.empty(int(word_offsets[-1]) + 1, np.int64)
    at = (word_offsets[tree_of] + tb.start)[leaf]
    words[at] = tb.word[leaf]
    tags[at] = tb.label[leaf]
    first = word_offsets[tree_of]
    size = words_per_tree[tree_of]
    start, stop = tb.start.astype(np.int64), tb.stop.astype(np.int64)
    has_before, has_after = start > 0, stop < size
    places = (first + start, first + stop - 1, np.maximum(first + start - 1, 0), np.minimum(first + stop, len(words) - 1))
    w = [words[places[0]], words[places[1]], np.where(has_before, words[places[2]], n_words),
         np.where(has_after, words[places[3]], n_words + 1)]
    t = [tags[places[0]], tags[places[1]], np.where(has_before, tags[places[2]], base - 2),
         np.where(has_after, tags[places[3]], base - 3)]
    return w, t, (stop - start, start, size - stop)


def feature_counts(tb: BinaryTreebank, sizes, features: str) -> tuple:
    """Pass 1: (inside, outside) :class:`SparseCounts` of the feature keys."""
    inside, outside = node_features(tb, *sizes, features)
    return _Pair(SparseCounts.of(inside[inside >= 0]), SparseCounts.of(outside[outside >= 0]))


@dataclass
class _Pair:
    inside: SparseCounts
    outside: SparseCounts

    def __add__(self, other):
        return _Pair(self.inside + other.inside, self.outside + other.outside)


def cross_counts(tb: BinaryTreebank, sizes, features: str, inside_keys: np.ndarray,
                 outside_keys: np.ndarray) -> SparseCounts:
    """Pass 2: counts of (inside feature id, outside feature id) pairs (key ``i * n_outside + o``)."""
    inside, outside = node_features(tb, *sizes, features)
    i = _ids(inside, inside_keys)
    o = _ids(outside, outside_keys)
    pairs = (i[:, :, None] * len(outside_keys) + o[:, None, :]).ravel()
    valid = ((i[:, :, None] >= 0) & (o[:, None, :] >= 0)).ravel()
    return SparseCounts.of(pairs[valid])


def _ids(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    ids = np.searchsorted(sorted_keys, keys)
    return np.where(keys >= 0, ids, -1)


def projected_moments(tb: BinaryTreebank, sizes, features: str, inside_keys, outside_keys, inside_projection,
                      outside_projection, layout) -> FixedPointSums:
    """Pass 3: the projected moments of a shard as fixed-point sums (module docstring)."""
    inside, outside = node_features(tb, *sizes, features)
    y = _project(_ids(inside, inside_keys), inside_projection)
    z = _project(_ids(outside, outside_keys), outside_projection)
    states, rule_offset, lex_offset, state_offset, n_binary = layout
    most = int(states.max())
    sums = (np.zeros(rule_offset[-1], np.int64), np.zeros(lex_offset[-1], np.int64),
            np.zeros(state_offset[-1], np.int64), np.zeros((n_binary, 3, most), np.int64),
            np.zeros((n_binary, 3, most, most), np.int64))
    _add_moments(tb.label, tb.rule, tb.left, tb.right, tb.parent, y, z, states, rule_offset, lex_offset,
                 state_offset, float(2 ** FIXED_POINT_BITS), *sums)
    return FixedPointSums(sums)


def _project(ids: np.ndarray, projection: np.ndarray) -> np.ndarray:
    """Σ of the projection's rows of each node's features (in a fixed order per node)."""
    out = np.zeros((len(ids), projection.shape[1]))
    for k in range(ids.shape[1]):
        valid = ids[:, k] >= 0
        out[valid] += projection[ids[valid, k]]
    return out


@njit(cache=True)
def _add_moments(label, rule, left, right, parent, y, z, states, rule_offset, lex_offset, state_offset, unit,
                 rule_sums, lex_sums, root_sums, rule_means, rule_pairs):
    for t in range(len(label)):
        a = label[t]
        ma = states[a]
        if parent[t] < 0:
            for h in range(ma):
                root_sums[state_offset[a] + h] += np.int64(np.rint(y[t, h] * unit))
        if left[t] < 0:
            off = lex_offset[rule[t]]
            for h in range(ma):
                lex_sums[off + h] += np.int64(np.rint(z[t, h] * unit))
            continue
        b, c = left[t], right[t]
        mb, mc = states[label[b]], states[label[c]]
        r = rule[t]
        off = rule_offset[r]
        for h in range(ma):
            for h2 in range(mb):
                zy = z[t, h] * y[b, h2]
                for h3 in range(mc):
                    rule_sums[off + (h * mb + h2) * mc + h3] += np.int64(np.rint(zy * y[c, h3] * unit))
        for h in range(ma):
            rule_means[r, 0, h] += np.int64(np.rint(z[t, h] * unit))
            for h2 in range(mb):
                rule_pairs[r, 0, h, h2] += np.int64(np.rint(z[t, h] * y[b, h2] * unit))
            for h3 in range(mc):
                rule_pairs[r, 1, h, h3] += np.int64(np.rint(z[t, h] * y[c, h3] * unit))
        for h in range(mb):
            rule_means[r, 1, h] += np.int64(np.rint(y[b, h] * unit))
            for h3 in range(mc):
                rule_pairs[r, 2, h, h3] += np.int64(np.rint(y[b, h] * y[c, h3] * unit))
        for h in range(mc):
            rule_means[r, 2, h] += np.int64(np.rint(y[c, h] * unit))


def projections(cross: SparseCounts, inside: SparseCounts, outside: SparseCounts, label_of_inside, label_of_outside,
                label_counts, max_states: int, kappa: float, dropout: float = 0.0, random_state=None):
    """The SVD of every label's scaled Ω: (inside projection, outside projection, states,
    singular values): row f of a projection is feature f's contribution to Y (or Z),
    ``states[a]`` the numbers of singular values of Ω̃^a kept (at most ``max_states``, each
    above 10^-6 of the largest; a label with none keeps one state of zero projections),
    ``singular[a]`` those values, largest first (zeros after them). ``dropout`` > 0: Ω is
    first made noisy by :func:`dropped_out`."""
    import scipy.sparse as sp

    n_in, n_out = len(inside.keys), len(outside.keys)
    n_labels = len(label_counts)
    rows, cols = np.divmod(cross.keys, n_out)
    scale_in = 1.0 / np.sqrt(inside.counts + kappa)
    scale_out = 1.0 / np.sqrt(outside.counts + kappa)
    counts = dropped_out(cross.counts, dropout, random_state) if dropout > 0 else cross.counts
    omega = sp.csr_matrix((counts * scale_in[rows] * scale_out[cols], (rows, cols)), shape=(n_in, n_out))
    in_proj = np.zeros((n_in, max_states))
    out_proj = np.zeros((n_out, max_states))
    states = np.ones(n_labels, np.int32)
    singular = np.zeros((n_labels, max_states))
    in_bounds = np.searchsorted(label_of_inside, np.arange(n_labels + 1))
    out_bounds = np.searchsorted(label_of_outside, np.arange(n_labels + 1))
    for a in range(n_labels):
        i0, i1, o0, o1 = in_bounds[a], in_bounds[a + 1], out_bounds[a], out_bounds[a + 1]
        if i1 == i0 or o1 == o0:
            continue
        u, s, vt = _top_singular(omega[i0:i1, o0:o1], max_states)
        keep = len(s)
        if keep == 0:
            continue
        states[a] = keep
        singular[a, :keep] = s
        in_proj[i0:i1, :keep] = u[:, :keep] * scale_in[i0:i1, None]
        out_proj[o0:o1, :keep] = (vt[:keep].T / s[:keep]) * label_counts[a] * scale_out[o0:o1, None]
    return in_proj, out_proj, states, singular


def dropped_out(pair_counts: np.ndarray, rate: float, random_state) -> np.ndarray:
    """Narayan & Cohen (2015)'s dropout noise on the features before the SVD: each feature
    occurrence of a node is dropped with probability ``rate`` and the kept ones weighted
    1/(1 − rate), so an (inside, outside) pair of a node stays with probability (1 − rate)²
    and weight 1/(1 − rate)². Drawn here for each pair occurrence independently, from the
    summed counts (binomial), so the noise depends on the counts only, however the trees
    were sharded."""
    keep = (1.0 - rate) ** 2
    return np.random.default_rng(random_state).binomial(pair_counts, keep) / keep


def _top_singular(block, k: int):
    """The top ``k`` singular triplets of a sparse block, largest first, each with a fixed
    sign: from the eigenvectors of the small Gram matrix when one side has at most
    :data:`_GRAM` features, else by a seeded randomised range finder (Halko, Martinsson &
    Tropp 2011, Algorithm 4.4, four power iterations). Both are deterministic."""
    if block.shape[0] > block.shape[1]:
        v, s, ut = _top_singular(block.T.tocsr(), k)
        return ut.T, s, v.T
    if block.shape[0] <= _GRAM:
        gram = (block @ block.T).toarray()
        values, vectors = np.linalg.eigh(gram)
        order = np.argsort(-values, kind="stable")[:k]
        s = np.sqrt(np.maximum(values[order], 0.0))
        u = vectors[:, order]
    else:
        sketch = block @ np.random.default_rng(0).standard_normal((block.shape[1], k + 10))
        for _ in range(4):
            q, _ = np.linalg.qr(sketch)
            sketch = block @ (block.T @ q)
        q, _ = np.linalg.qr(sketch)
        small_u, s, _ = np.linalg.svd(np.asarray((block.T @ q).T), full_matrices=False)
        u, s = q @ small_u[:, :k], s[:k]
    keep = s > 1e-6 * s[0] if len(s) and s[0] > 0 else np.zeros(len(s), bool)
    u, s = u[:, keep], s[keep]
    vt = np.asarray((block.T @ u).T) / s[:, None]
    signs = np.sign(u[np.argmax(np.abs(u), axis=0), np.arange(u.shape[1])])
    signs[signs == 0] = 1.0
    return u * signs, s, vt * signs[:, None]


_GRAM = 400


def layout(tables, states: np.ndarray):
    """(states, rule_offset, lex_offset, state_offset, n_binary) of a tensor layout."""
    m = states.astype(np.int64)
    b = tables.binary
    return (states, np.concatenate([[0], np.cumsum(m[b[:, 0]] * m[b[:, 1]] * m[b[:, 2]])]),
            np.concatenate([[0], np.cumsum(m[tables.lexical[:, 0]])]), np.concatenate([[0], np.cumsum(m)]), len(b))

