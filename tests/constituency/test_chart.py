"""The chart against brute force: every labelled binary tree of short sentences under a
small latent-variable grammar enumerated, with every assignment of latent states."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from seqspectral.constituency import _kernels
from seqspectral.constituency.encoding import SymbolTables
from seqspectral.constituency.grammar import LatentGrammar

LABELS = ["A", "B", "C"]
WORDS = ["x", "y"]


def _grammar(states, seed=0) -> LatentGrammar:
    """Every binary rule over three labels, every label over both words, random positive weights."""
    rng = np.random.default_rng(seed)
    binary = list(itertools.product(range(3), repeat=3))
    lexical = list(itertools.product(range(3), range(2)))
    tables = SymbolTables(LABELS, WORDS, binary, lexical, known=WORDS)
    m = np.asarray(states, np.int64)
    rule_w = rng.uniform(0.05, 1.0, int(sum(m[a] * m[b] * m[c] for a, b, c in binary))) / 10
    lex_w = rng.uniform(0.05, 1.0, int(sum(m[a] for a, _ in lexical)))
    root_w = rng.uniform(0.05, 1.0, int(m.sum()))
    root_w[: m[0]] = 0.0  # A never at the root
    coarse = (np.full(len(binary), 0.1), np.full(len(lexical), 0.5), np.array([0.0, 0.5, 0.5]))
    return LatentGrammar(tables, *coarse, np.asarray(states, np.int32), rule_w, lex_w, root_w, 3.0)


def _trees(i, j):
    """Every binary bracketing of [i, j) as nested (i, j, left, right) tuples."""
    if j - i == 1:
        yield (i, j, None, None)
        return
    for k in range(i + 1, j):
        for left in _trees(i, k):
            for right in _trees(k, j):
                yield (i, j, left, right)


def _nodes(tree):
    i, j, left, right = tree
    out = [tree]
    if left is not None:
        out += _nodes(left) + _nodes(right)
    return out


def _weight(g: LatentGrammar, nodes, labels, words):
    """Σ over every latent assignment of the product of the weights of a labelled tree."""
    m = g.states
    index = {id(n): k for k, n in enumerate(nodes)}
    total = 0.0
    for hs in itertools.product(*(range(m[labels[k]]) for k in range(len(nodes)))):
        a0 = labels[0]
        w = g.root_weights[g.state_offset[a0] + hs[0]]
        for k, (i, j, left, right) in enumerate(nodes):
            a = labels[k]
            if left is None:
                r = g.tables.lexical_index[a, words[i]]
                w *= g.lex_weights[g.lex_offset[r] + hs[k]]
            else:
                kl, kr = index[id(left)], index[id(right)]
                b, c = labels[kl], labels[kr]
                r = g.tables.binary_index[a, b, c]
                w *= g.rule_weights[g.rule_offset[r] + (hs[k] * m[b] + hs[kl]) * m[c] + hs[kr]]
        total += w
    return total


def _brute_force(g, words):
    """(Z, μ[(i, j, label)]) by enumeration."""
    n = len(words)
    z, spans = 0.0, {}
    for tree in _trees(0, n):
        nodes = _nodes(tree)
        for labels in itertools.product(range(3), repeat=len(nodes)):
            w = _weight(g, nodes, labels, words)
            z += w
            for node, a in zip(nodes, labels):
                spans[node[0], node[1], a] = spans.get((node[0], node[1], a), 0.0) + w
    return z, {k: v / z for k, v in spans.items()}


def _marginals(g, words):
    args = g.kernel_arguments()
    n = len(words)
    n_cells = n * (n + 1) // 2
    everything = np.ones((n_cells, 3))
    skip = {8, 9, 10}  # the plain PCFG's arrays
    stacked = {11, 12, 13, 15}  # one row per member: the first
    latent_args = [a[0] if k in stacked else a for k, a in enumerate(args) if k not in skip]
    return _kernels._latent_marginals(n, everything, 0.0, np.asarray(words, np.int32), np.full(n, -1, np.int32),
                                      *latent_args)


@pytest.mark.parametrize("words, states", [([0, 1, 0], (1, 1, 1)), ([0, 1, 1, 0], (2, 1, 1)), ([1, 0, 1], (2, 2, 2))])
def test_span_marginals_equal_brute_force(words, states):
    g = _grammar(states)
    _, expected = _brute_force(g, words)
    marginal = _marginals(g, words)
    n = len(words)
    for (i, j, a), mu in expected.items():
        assert marginal[_kernels.cell(i, j, n), a] == pytest.approx(mu, rel=1e-9, abs=1e-12)


def test_k_best_trees_are_the_k_largest_expected_correct_spans():
    g = _grammar((2, 1, 1), seed=3)
    words = [0, 1, 1, 0]
    _, mu = _brute_force(g, words)
    n = len(words)
    best = max(sum(max(mu[i, j, a] for a in range(3) if (i, j) != (0, n) or a != 0) for i, j, _, _ in _nodes(t))
               for t in _trees(0, n))
    args = g.kernel_arguments()
    status, scores, starts, stops, labels = _kernels.parse_sentence(
        np.asarray(words, np.int32), np.full(n, -1, np.int32), *args, 0.0, True, 6)
    # every labelled binary tree, scored by brute force: the k best are the kernel's, in order
    every = sorted((sum(mu.get((i, j, a), 0.0) for (i, j, _, _), a in zip(_nodes(t), labels_))
                    for t in _trees(0, n) for labels_ in itertools.product(range(3), repeat=2 * n - 1)
                    if labels_[0] != 0), reverse=True)
    assert status == 0 and starts.shape == (6, 2 * n - 1)
    assert scores[0] == pytest.approx(best, rel=1e-9) and every[0] == pytest.approx(best, rel=1e-9)
    np.testing.assert_allclose(scores, every[:6], rtol=1e-9)
    for t in range(6):  # each returned tree scores what the kernel says
        assert sum(mu[s, e, a] for s, e, a in zip(starts[t], stops[t], labels[t])) == pytest.approx(scores[t])


def test_em_expected_counts_log_likelihood_is_the_tree_weight():
    """The E-step's log-likelihood of a gold tree equals the brute-force sum over its latent states."""
    g = _grammar((2, 2, 1), seed=5)
    words = [0, 1, 1]
    tree = next(t for t in _trees(0, 3) if t[2][1] == 1)  # the first word, then the other two
    nodes = _nodes(tree)
    labels = (1, 0, 2, 1, 0)
    expected = _weight(g, nodes, labels, words)
    index = {id(n): k for k, n in enumerate(nodes)}
    left = np.array([-1 if n[2] is None else index[id(n[2])] for n in nodes], np.int32)
    right = np.array([-1 if n[3] is None else index[id(n[3])] for n in nodes], np.int32)
    rule = np.array([g.tables.lexical_index[labels[k], words[n[0]]] if n[2] is None else
                     g.tables.binary_index[labels[k], labels[left[k]], labels[right[k]]]
                     for k, n in enumerate(nodes)], np.int32)
    counts = [np.zeros_like(g.rule_weights), np.zeros_like(g.lex_weights), np.zeros_like(g.root_weights)]
    ll = _kernels.tree_expected_counts(np.array(labels, np.int32), rule, left, right, np.array([0, len(nodes)]),
                                       g.states, g.state_offset, g.rule_offset, g.rule_weights, g.lex_offset,
                                       g.lex_weights, g.root_weights, *counts)
    assert ll == pytest.approx(np.log(expected), rel=1e-12)
    assert counts[2].sum() == pytest.approx(1.0)  # one root, its state posteriors sum to 1
    assert counts[1].sum() == pytest.approx(3.0)  # three words


def _combined(*grammars) -> LatentGrammar:
    """One grammar holding the latent weights of ``grammars`` (same rules and coarse grammar)."""
    first = grammars[0]
    return LatentGrammar(first.tables, first.rule_prob, first.lex_prob, first.root_prob, *first.members[0],
                         first.binary_scale, tuple(g.members[0] for g in grammars[1:]))


def _best(g, words, k):
    n = len(words)
    return _kernels.parse_sentence(np.asarray(words, np.int32), np.full(n, -1, np.int32), *g.kernel_arguments(),
                                   0.0, True, k)


def test_combined_grammars_decode_the_mean_of_their_brute_force_marginals():
    """Narayan & Cohen (2015)'s MaxMrg: the k best trees of two grammars of different states
    are those of largest summed mean marginal, each grammar's marginals by enumeration."""
    first, second = _grammar((2, 1, 1), seed=3), _grammar((1, 2, 2), seed=8)
    words = [0, 1, 1, 0]
    n = len(words)
    mu = [_brute_force(g, words)[1] for g in (first, second)]
    mean = {key: (mu[0].get(key, 0.0) + mu[1].get(key, 0.0)) / 2 for key in set(mu[0]) | set(mu[1])}
    every = sorted((sum(mean.get((i, j, a), 0.0) for (i, j, _, _), a in zip(_nodes(t), labels_))
                    for t in _trees(0, n) for labels_ in itertools.product(range(3), repeat=2 * n - 1)
                    if labels_[0] != 0), reverse=True)
    status, scores, starts, stops, labels = _best(_combined(first, second), words, 5)
    assert status == 0
    np.testing.assert_allclose(scores, every[:5], rtol=1e-9)
    for t in range(5):
        assert sum(mean[s, e, a] for s, e, a in zip(starts[t], stops[t], labels[t])) == pytest.approx(scores[t])


def test_a_grammar_combined_with_itself_decodes_as_it_alone():
    g = _grammar((2, 2, 1), seed=4)
    words = [1, 0, 0, 1, 1]
    alone, twice = _best(g, words, 4), _best(_combined(g, g), words, 4)
    assert alone[0] == twice[0] == 0
    np.testing.assert_allclose(twice[1], alone[1], rtol=1e-12)
    for a, b in zip(alone[2:], twice[2:]):
        np.testing.assert_array_equal(a, b)
