"""The spectral latent-variable PCFG (Cohen, Stratos, Collins, Foster & Ungar 2012, ACL;
the smoothing of their 2013 NAACL experiments).

The moments of :mod:`.moments` give, for ``m_a`` latent states per label (Figure 4 of the
2012 paper): Ĉ^{a→bc} = (1/M_a) Σ Z(o) ⊗ Y(t_b) ⊗ Y(t_c) over the nodes with rule a → b c,
ĉ_∞^{a→x} = (1/M_a) Σ Z(o) over the nodes a → x, ĉ_1^a = (1/N) Σ Y(t) over the roots
labelled a. A binary rule seen ``n`` times is smoothed towards back-offs built from its
mean projections z̄, ȳ_b, ȳ_c and its mean pairwise products (zy_b)‾, (zy_c)‾, (y_by_c)‾
(Cohen et al. 2013, §3): E = λ Ĉ + (1 − λ) (n/M_a) (v E₂ + (1 − v) E₃) with
E₃ = z̄ ⊗ ȳ_b ⊗ ȳ_c (the rule with the latent states marginalised), E₂ the mean of
(zy_b)‾ ⊗ ȳ_c, (zy_c)‾ ⊗ ȳ_b and z̄ ⊗ (y_by_c)‾ (one state left independent at a time),
λ = √n / (C + √n); C is ``smoothing``, v ``pair_backoff``. Estimates may be negative: the
parser uses the absolute value of each span's marginal.

Label ``a`` keeps the states whose singular values of Ω̃^a are at least ``spectrum_cutoff``
times its largest, at most ``n_states`` (Narayan & Cohen 2016 choose each label's number of
states; here the spectrum does, one cut for all labels). ``"auto"`` values are chosen by
held-out labelled F1 (:meth:`.estimator.GrammarEstimator._select`, on ``dev`` or a held-out
part of train) among :data:`~seqspectral.selection.LATENT_STATE_GRID`'s values up to
``max_states`` and :data:`~seqspectral.selection.SPECTRUM_CUTOFF_GRID`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ..base import either, integer, one_of, real, seed
from .estimator import GrammarEstimator
from .grammar import binary_counts, unknown_backoff
from .moments import (FEATURE_SETS, FIXED_POINT_BITS, _KINDS, cross_counts, feature_counts, layout, projected_moments,
                      projections)


@dataclass
class SpectralStatistics:
    """The projected moments at ``max_states`` (``states``: the states each label keeps),
    as floats, with the counts they are normalised by."""

    states: np.ndarray
    singular: np.ndarray
    rule_sums: np.ndarray
    lex_sums: np.ndarray
    root_sums: np.ndarray
    rule_means: np.ndarray
    rule_pairs: np.ndarray
    label_counts: np.ndarray
    rule_counts: np.ndarray
    n_trees: int


def spectral_statistics(source, counts, tables, max_states: int, kappa: float, features: str = "rules",
                        dropout: float = 0.0, seeds=(None,)) -> list[SpectralStatistics]:
    """The three passes of :mod:`.moments` over ``source``: one
    :class:`SpectralStatistics` per seed of ``seeds``, each with its own SVD of the
    cross-covariance made noisy by ``dropout`` (:func:`.moments.dropped_out`; the first two
    passes serve them all)."""
    enc = source.encoded(tables)
    sizes = (len(tables.binary), len(tables.lexical), len(tables.words))
    pair = enc.count(partial(feature_counts, sizes=sizes, features=features))
    inside, outside = pair.inside, pair.outside
    cross = enc.count(partial(cross_counts, sizes=sizes, features=features, inside_keys=inside.keys,
                              outside_keys=outside.keys))
    base = 2 * sum(sizes) + 4
    n_labels = len(tables.labels)
    label_of_inside = inside.keys // (_KINDS * base * base)
    label_of_outside = outside.keys // (_KINDS * base * base)
    first_kind = (inside.keys // (base * base)) % _KINDS == 0  # one per node
    label_counts = np.bincount(label_of_inside[first_kind], inside.counts[first_kind], n_labels)
    out = []
    for seed in seeds:
        in_proj, out_proj, states, singular = projections(cross, inside, outside, label_of_inside, label_of_outside,
                                                          label_counts, max_states, kappa, dropout, seed)
        sums = enc.count(partial(projected_moments, sizes=sizes, features=features, inside_keys=inside.keys,
                                 outside_keys=outside.keys, inside_projection=in_proj, outside_projection=out_proj,
                                 layout=layout(tables, states)))
        unit = float(2 ** FIXED_POINT_BITS)
        out.append(SpectralStatistics(states, singular, *(a / unit for a in sums.arrays), label_counts,
                                      binary_counts(counts, tables), counts.n_trees))
    return out


def label_states(stats: SpectralStatistics, n_states: int, cutoff: float) -> np.ndarray:
    """The states of each label: its singular values of at least ``cutoff`` times its largest
    (Narayan & Cohen 2016: the spectrum says how many states a label needs), at most
    ``n_states``, at least one."""
    s = stats.singular
    kept = (s >= cutoff * s[:, :1]) & (s > 0)
    return np.clip(np.minimum(kept.sum(axis=1), n_states), 1, stats.states).astype(np.int64)


def spectral_weights(stats: SpectralStatistics, tables, n_states: int, smoothing: float, cutoff: float = 0.0,
                     pair_backoff: float = 0.0):
    """(states, rule_weights, lex_weights, root_weights) with the states of :func:`label_states`."""
    full = stats.states.astype(np.int64)
    new = label_states(stats, n_states, cutoff)
    _, full_rule, full_lex, full_state, _ = layout(tables, full)
    _, rule_off, lex_off, state_off, _ = layout(tables, new)
    M = np.maximum(stats.label_counts, 1.0)
    rule_weights = np.zeros(rule_off[-1])
    for r, (a, b, c) in enumerate(tables.binary.tolist()):
        block = stats.rule_sums[full_rule[r]:full_rule[r + 1]].reshape(full[a], full[b], full[c])
        na, nb, nc = new[a], new[b], new[c]
        moment = block[:na, :nb, :nc] / M[a]
        n = stats.rule_counts[r]
        if n > 0:
            z, yb, yc = (stats.rule_means[r, k, :m] / n for k, m in ((0, na), (1, nb), (2, nc)))
            backoff = np.einsum("i,j,k->ijk", z, yb, yc)
            if pair_backoff > 0:
                zb, zc, bc = (stats.rule_pairs[r, k, :m1, :m2] / n for k, m1, m2 in
                              ((0, na, nb), (1, na, nc), (2, nb, nc)))
                pairs = (np.einsum("ij,k->ijk", zb, yc) + np.einsum("ik,j->ijk", zc, yb)
                         + np.einsum("i,jk->ijk", z, bc)) / 3
                backoff = pair_backoff * pairs + (1 - pair_backoff) * backoff
            lam = np.sqrt(n) / (smoothing + np.sqrt(n))
            moment = lam * moment + (1 - lam) * (n / M[a]) * backoff
        rule_weights[rule_off[r]:rule_off[r + 1]] = moment.ravel()
    lex_weights = np.zeros(lex_off[-1])
    for r, a in enumerate(tables.lexical[:, 0].tolist()):
        lex_weights[lex_off[r]:lex_off[r + 1]] = stats.lex_sums[full_lex[r]:full_lex[r] + new[a]] / M[a]
    root_weights = np.zeros(state_off[-1])
    for a in range(len(full)):
        root_weights[state_off[a]:state_off[a + 1]] = stats.root_sums[full_state[a]:full_state[a] + new[a]] / \
            max(stats.n_trees, 1)
    states = new.astype(np.int32)
    return states, rule_weights, unknown_backoff(tables, lex_weights, states), root_weights


class SpectralLPCFG(GrammarEstimator):
    """The spectral L-PCFG (module docstring). ``features``: :data:`.moments.FEATURE_SETS`;
    ``kappa``: the feature scaling's smoothing count (Ω̃ = D^{-1/2} Ω D^{-1/2} with D the
    feature counts + kappa). ``n_grammars`` > 1: that many grammars, each from its own SVD
    of Ω made noisy by ``dropout`` (> 0; :func:`.moments.dropped_out`, seeded from
    ``random_state``), decoded together by the mean of their span marginals (Narayan & Cohen
    2015, MaxMrg); ``n_grammars=1``: one grammar, without noise (``dropout`` unused). The defaults (4
    grammars, dropout 0.2, pruning threshold 1e-3) were chosen on the WSJ sample's dev trees
    (evaluation/RESULTS.md, issue 37, third session). ``label_states`` > 0: after ``n_states``
    and ``spectrum_cutoff``, the states of each of that many most frequent labels are chosen
    in turn, the others fixed, among :data:`~seqspectral.selection.LATENT_STATE_GRID`'s values
    from a quarter of ``n_states`` to ``max_states`` (Narayan & Cohen 2016's greedy search;
    held-out F1 through :meth:`.estimator.GrammarEstimator._select`, one table)."""

    kind = "spectral_lpcfg"
    _parameter_checks = {**GrammarEstimator._parameter_checks,
                         "n_states": either(one_of("auto"), integer(1, 256)), "max_states": integer(1, 256),
                         "spectrum_cutoff": either(one_of("auto"), real(0.0, 1.0)),
                         "n_grammars": integer(1, 256), "dropout": real(0.0, 1.0, open_high=True),
                         "features": one_of(*FEATURE_SETS), "smoothing": real(0.0),
                         "label_states": integer(0), "pair_backoff": real(0.0, 1.0), "kappa": real(0.0),
                         "random_state": seed}

    def __init__(self, n_states="auto", *, max_states: int = 32, spectrum_cutoff=0.0, n_grammars: int = 4,
                 dropout: float = 0.2, label_states: int = 0, vertical: int = 1, horizontal: int | None = 0,
                 rare: int = 1,
                 features: str = "rules", smoothing: float = 16.0, pair_backoff: float = 0.0, kappa: float = 5.0,
                 threshold: float = 1e-3, random_state=0):
        self.n_states = n_states
        self.max_states = max_states
        self.spectrum_cutoff = spectrum_cutoff
        self.n_grammars = n_grammars
        self.dropout = dropout
        self.label_states = label_states
        self.vertical = vertical
        self.horizontal = horizontal
        self.rare = rare
        self.features = features
        self.smoothing = smoothing
        self.pair_backoff = pair_backoff
        self.kappa = kappa
        self.threshold = threshold
        self.random_state = random_state

    def _latent_weights(self, source, counts, tables, coarse, dev):
        from ..selection import LATENT_STATE_GRID, SPECTRUM_CUTOFF_GRID

        grid = {"n_states": [m for m in LATENT_STATE_GRID if m <= self.max_states] if self.n_states == "auto"
                else [self.n_states],
                "spectrum_cutoff": SPECTRUM_CUTOFF_GRID if self.spectrum_cutoff == "auto" else [self.spectrum_cutoff]}
        if self.n_grammars > 1 and self.dropout == 0:
            raise ValueError("n_grammars > 1 needs dropout > 0 (without noise the grammars are the same)")
        combined = self.n_grammars > 1
        seeds = np.random.default_rng(self.random_state).integers(2 ** 63, size=self.n_grammars) if combined \
            else [None]
        most = max(grid["n_states"] + ([self.max_states] if self.label_states else []))
        statistics = []  # (part, its statistics): one SVD and pass of moments serve every candidate on a part

        def candidates(part, part_counts, part_tables, part_coarse):
            stats = next((found for seen, found in statistics if seen is part), None)
            if stats is None:
                stats = spectral_statistics(part, part_counts, part_tables, most, self.kappa, self.features,
                                            self.dropout if combined else 0.0, seeds)
                statistics.append((part, stats))

            def weights(n_states, spectrum_cutoff, **caps):
                states = np.full(len(part_tables.labels), n_states)
                for name, cap in caps.items():  # "states of LABEL": that label's own cap
                    label = part_tables.label_index.get(name[len(_CAP):])
                    if label is not None:
                        states[label] = cap
                return [spectral_weights(s, part_tables, states, self.smoothing, spectrum_cutoff, self.pair_backoff)
                        for s in stats]
            return weights

        if len(grid["n_states"]) * len(grid["spectrum_cutoff"]) == 1:
            members = candidates(source, counts, tables, coarse)(grid["n_states"][0], grid["spectrum_cutoff"][0])
            chosen, self.selection_ = {name: values[0] for name, values in grid.items()}, None
        else:
            members = self._select(source, counts, tables, coarse, dev, grid, candidates)
            chosen = dict(self.selection_.chosen)
        if not self.label_states:
            return members
        # Narayan & Cohen (2016): each frequent label's number of states in turn, the others fixed
        result = self.selection_
        for label in _most_frequent_labels(counts, self.label_states):
            cap = chosen["n_states"]
            tried = [cap] + [m for m in LATENT_STATE_GRID if cap / 4 <= m <= self.max_states and m != cap]
            members = self._select(source, counts, tables, coarse, dev,
                                   {**{name: [value] for name, value in chosen.items()}, _CAP + label: tried},
                                   candidates)
            chosen = dict(self.selection_.chosen)
            result = self.selection_ if result is None else result.merged(self.selection_)
        self.selection_ = result
        return members


#: the selection's name of one label's number of states (``"states of NP"``)
_CAP = "states of "


def _most_frequent_labels(counts, k: int) -> list[str]:
    """The ``k`` labels of most nodes in the training trees (ties by name)."""
    from collections import Counter

    nodes = Counter()
    for (a, _, _), n in counts.binary.items():
        nodes[a] += n
    for (a, _, _), n in counts.lexical.items():
        nodes[a] += n
    return sorted(nodes, key=lambda a: (-nodes[a], a))[:k]
