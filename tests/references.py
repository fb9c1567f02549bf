"""Independent references shared by the tests: exact Hankel blocks from a known automaton's
closed forms, small and planted HMMs, and brute-force probabilities."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from seqspectral.automata.hmm import HMM
from seqspectral.corpus import Corpus, Vocabulary


def closed_form(wa, statistic):
    """x -> f(x), f^p(x) = α0ᵀA_x(I−A)⁻¹α∞ or f^s(x) = α0ᵀ(I−A)⁻¹A_x(I−A)⁻¹α∞, written out here."""
    resolvent = np.linalg.inv(np.eye(wa.n_states) - wa.operators.sum(axis=0))
    left = wa.initial @ resolvent if statistic == "substring" else wa.initial
    right = wa.final if statistic == "string" else resolvent @ wa.final

    def f(x):
        v = left
        for a in x:
            v = v @ wa.operators[a]
        return float(v @ right)
    return f


def exact_hankel(wa, statistic, alphabet, length=2, basis=None):
    """Exact Hankel blocks of ``wa``'s ``statistic``: on ``basis`` (a HankelBasis) when given,
    else on all strings over ``alphabet`` up to ``length`` as both prefixes and suffixes; with
    the attributes of ``HankelStatistics`` the learners read."""
    f = closed_form(wa, statistic)
    if basis is None:
        strings = [x for n in range(length + 1) for x in itertools.product(alphabet, repeat=n)]
        prefixes = suffixes = strings
    else:
        prefixes, suffixes, alphabet = basis.prefixes, basis.suffixes, [int(a) for a in basis.alphabet]

    def block(middle):
        return np.array([[f(tuple(u) + middle + tuple(v)) for v in suffixes] for u in prefixes])

    H = block(())
    return SimpleNamespace(basis=basis, statistic=statistic, H=sp.csr_matrix(H),
                           H_sigma=[sp.csr_matrix(block((a,))) for a in alphabet], h_P=H[:, 0], h_S=H[0, :])


def small_hmm(seed=0, k=2, n_symbols=3):
    """A random HMM over ids 2..n_symbols+1 with stop probabilities."""
    rng = np.random.default_rng(seed)
    ext = rng.dirichlet(np.ones(n_symbols + 1), k)  # column 0 = stop
    emit = np.zeros((k, n_symbols + 2))
    emit[:, 2:] = ext[:, 1:]
    return HMM(rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k), k), emit, ext[:, 0],
               Vocabulary(str(a) for a in range(n_symbols)))


def conditional(model, history, event, vocabulary) -> float:
    """p(event | history) read off ``event_log_probs`` of the probe history + event."""
    probe = list(history) + ([event] if event != Vocabulary.EOS_ID else [])
    lp = model.event_log_probs(Corpus.from_ids([probe], vocabulary)).log_prob
    return float(np.exp(lp[len(history)]))


def brute_is_tree(heads, several_roots: bool = False) -> bool:
    """One word (at least one with ``several_roots``) attached to 0 and the n arcs connect
    all n+1 nodes (union-find)."""
    n = len(heads)
    n_roots = sum(h == 0 for h in heads)
    if any(h < 0 or h > n for h in heads) or n_roots < 1 or (n_roots > 1 and not several_roots):
        return False
    parent = list(range(n + 1))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for d, h in enumerate(heads, 1):
        a, b = find(d), find(h)
        if a == b:
            return False
        parent[a] = b
    return True
