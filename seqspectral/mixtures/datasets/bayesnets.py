"""The data sets of the convex-EM table (after Guo & Schuurmans, NIPS 2007, Table 1).

Each :class:`LatentDataset` has a network structure with its hidden variables flagged and
``draw(t, n_test, random_state)`` → (X, H, X_test, H_test): t training and up to n_test test
examples, observed columns and hidden values apart.

Synthetic networks, shaped after the paper's descriptions (its tables were not at hand; what is
known of them (as issue 38 reports the paper): Synth1 has nine variables in three layers, the two
in the middle hidden, Synth3 is a naive Bayes network of 7 variables with the parent hidden, parameters "generated
in a discriminative way to produce models with apparent causal relations between the connected
nodes", and the supervised test log-loss at t = 100 in its Table 1: 7.90, 4.50, 5.32 nats). The
tables are drawn by :func:`causal_network` at the strength of :data:`STRENGTH`, calibrated on the
supervised test joint log-loss at t = 100 (10 draws of 100 training and 1,000 test examples):
Synth1 0.55 → 8.10, 0.60 → 7.82, 0.65 → 7.49; Synth2 0.60 → 4.76, 0.65 → 4.51, 0.70 → 4.22; Synth3
0.55 → 5.68, 0.60 → 5.43, 0.65 → 5.13. With ternary observed variables Synth1 stays below 7.90 at
every strength (6.75 at 0.2), hence four values.

- ``synth1``: four-valued roots X1..X3, hidden binary H1 (parents X1, X2) and H2 (X2, X3),
  four-valued Y1, Y2 (children of H1), Y3 (of H2), Y4 (of both: the Hadamard-product case).
- ``synth2``: six ternary variables: observed root R, hidden H (parent R), X1..X3 (children of H),
  X4 (child of H and R: the kernel M ∘ E with an observed co-parent).
- ``synth3``: naive Bayes, ternary hidden H and six ternary children.

Published networks (tables from the bnlearn repository's .bif files, typed in):

- ``asia``: Lauritzen & Spiegelhalter (1988), eight binary variables; ``either`` (tuberculosis
  or lung cancer, a deterministic OR of its parents; children xray and dysp, co-parent bronc:
  the best-connected variable) hidden.
- ``cancer``: Korb & Nicholson (2010, Bayesian Artificial Intelligence, §2.2), five binary
  variables; ``cancer`` (parents pollution and smoker, children xray and dyspnoea) hidden.

- ``alarm``: Beinlich et al. (1989), 37 variables, tables from the ``.bif`` file that the
  ``pgmpy-no-torch`` wheel ships (read by :mod:`seqspectral.mixtures.bayesnet.bif`, no
  download); the first variable with the largest Markov blanket hidden: INTUBATION (three
  values, P = 0.92 / 0.03 / 0.05; children SHUNT, PRESS, VENTLUNG, VENTALV and MINVOL, eight
  neighbours in all). A clear error when pgmpy-no-torch is not installed.

Naive Bayes with the class hidden, from data shipped in scikit-learn (no download):

- ``breast_cancer``: the Wisconsin diagnostic data (569 examples, 2 classes), its ten "mean"
  features binarised at their medians.
- ``wine``: the UCI wine data (178 examples, 3 classes), its 13 features binarised at their
  medians (t = 150 leaves 28 test examples).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from seqspectral.mixtures.bayesnet.network import BayesNetStructure, DiscreteBayesNet


@dataclass(frozen=True)
class LatentDataset:
    """A named data set: its structure and a sampler of train/test splits."""

    name: str
    structure: BayesNetStructure
    draw: Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]
    max_train: int | None = None  # examples available for training (None: unlimited)
    network: DiscreteBayesNet | None = None  # the true network, where the data are sampled from one


def random_network(structure: BayesNetStructure, random_state, *, concentration: float = 1.0) -> DiscreteBayesNet:
    """Tables with every row drawn from the symmetric Dirichlet(``concentration``) (1: uniform on the simplex)."""
    rng = np.random.default_rng(random_state)
    tables = []
    for j, card in enumerate(structure.cardinalities):
        rows = rng.dirichlet(np.full(card, concentration), size=structure.n_parent_configs(j))
        tables.append(np.maximum(rows, 1e-6) / np.maximum(rows, 1e-6).sum(axis=1, keepdims=True))
    return DiscreteBayesNet.from_probabilities(structure, tables)


def network_dataset(name: str, net: DiscreteBayesNet) -> LatentDataset:
    """Train and test examples sampled from ``net``."""
    s = net.structure

    def draw(t: int, n_test: int, random_state=0):
        data = net.sample(t + n_test, random_state)
        return (data[:t, s.observed_index], data[:t, s.hidden_index],
                data[t:, s.observed_index], data[t:, s.hidden_index])

    return LatentDataset(name, s, draw, network=net)


def causal_network(structure: BayesNetStructure, random_state, strength: float) -> DiscreteBayesNet:
    """Tables with "apparent causal relations between the connected nodes" (Guo & Schuurmans 2007, §6).

    A root's row is drawn from the uniform Dirichlet(1). A child's row b is
    ``strength`` · e_{d(b)} + (1 − ``strength``) · Dirichlet(1): most of its mass on one dominant value
    d(b), and the dominant values of the parent configurations run through a random
    permutation of the child's values, cycled (so that different parent values push the child to
    different values as far as its values allow: the parent is visible in the child).
    """
    rng = np.random.default_rng(random_state)
    tables = []
    for j, card in enumerate(structure.cardinalities):
        n_rows = structure.n_parent_configs(j)
        rows = rng.dirichlet(np.ones(card), size=n_rows)
        if structure.parents[j]:
            dominant = rng.permutation(np.resize(rng.permutation(card), n_rows))
            rows = (1.0 - strength) * rows
            rows[np.arange(n_rows), dominant] += strength
        tables.append(np.maximum(rows, 1e-6) / np.maximum(rows, 1e-6).sum(axis=1, keepdims=True))
    return DiscreteBayesNet.from_probabilities(structure, tables)


#: the strength of :func:`causal_network` of every synthetic network, calibrated so that the
#: supervised test joint log-loss at t = 100 lands near the paper's (Table 1: 7.90, 4.50, 5.32)
STRENGTH = {"synth1": 0.6, "synth2": 0.65, "synth3": 0.62}
#: the seed of every synthetic network's tables
SEED = {"synth1": 1, "synth2": 2, "synth3": 3}


def _synthetic(name: str, s: BayesNetStructure, strength: float | None, dirichlet: float | None) -> LatentDataset:
    """``name``'s data set: tables by :func:`causal_network` at ``strength`` (default :data:`STRENGTH`), or,
    with ``dirichlet``, by :func:`random_network` at that concentration (the other generator tried)."""
    net = (random_network(s, SEED[name], concentration=dirichlet) if dirichlet is not None
           else causal_network(s, SEED[name], strength or STRENGTH[name]))
    return network_dataset(name, net)


def synth1(strength: float | None = None, dirichlet: float | None = None) -> LatentDataset:
    """Three layers, nine variables, the two in the middle hidden: four-valued roots X1, X2, X3; hidden
    binary H1 (parents X1, X2) and H2 (X2, X3); four-valued Y1, Y2 (children of H1), Y3 (of H2), Y4 (of
    both). (Ternary observed variables leave the supervised loss below the paper's 7.90 at every strength.)"""
    cards = {"X1": 4, "X2": 4, "X3": 4, "H1": 2, "H2": 2, "Y1": 4, "Y2": 4, "Y3": 4, "Y4": 4}
    parents = {"H1": ("X1", "X2"), "H2": ("X2", "X3"), "Y1": ("H1",), "Y2": ("H1",), "Y3": ("H2",),
               "Y4": ("H1", "H2")}
    s = BayesNetStructure.from_names(cards, parents, hidden=("H1", "H2"))
    return _synthetic("synth1", s, strength, dirichlet)


def synth2(strength: float | None = None, dirichlet: float | None = None) -> LatentDataset:
    """Six ternary variables: an observed root R, the hidden H (parent R), X1..X3 (children of H) and
    X4 (child of H and R)."""
    cards = {"R": 3, "H": 3, **{f"X{i}": 3 for i in range(1, 5)}}
    parents = {"H": ("R",), "X1": ("H",), "X2": ("H",), "X3": ("H",), "X4": ("H", "R")}
    s = BayesNetStructure.from_names(cards, parents, hidden=("H",))
    return _synthetic("synth2", s, strength, dirichlet)


def synth3(strength: float | None = None, dirichlet: float | None = None) -> LatentDataset:
    """Naive Bayes with seven ternary variables, the parent H hidden, X1..X6 its children."""
    cards = {"H": 3, **{f"X{i}": 3 for i in range(1, 7)}}
    s = BayesNetStructure.from_names(cards, {f"X{i}": ("H",) for i in range(1, 7)}, hidden=("H",))
    return _synthetic("synth3", s, strength, dirichlet)


def asia() -> LatentDataset:
    """Asia (value 0 = yes, 1 = no, as in the .bif file)."""
    names = ("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp")
    parents = {"tub": ("asia",), "lung": ("smoke",), "bronc": ("smoke",), "either": ("lung", "tub"),
               "xray": ("either",), "dysp": ("bronc", "either")}
    s = BayesNetStructure.from_names({n: 2 for n in names}, parents, hidden=("either",))
    yes = {  # P(yes | parent configuration), configurations in mixed-radix order (yes = 0 first)
        "asia": [0.01], "tub": [0.05, 0.01], "smoke": [0.5], "lung": [0.1, 0.01], "bronc": [0.6, 0.3],
        "either": [1.0, 1.0, 1.0, 0.0], "xray": [0.98, 0.05], "dysp": [0.9, 0.8, 0.7, 0.1]}
    tables = [np.column_stack([yes[n], 1.0 - np.array(yes[n])]) for n in names]
    return network_dataset("asia", DiscreteBayesNet.from_probabilities(s, tables))


def cancer() -> LatentDataset:
    """Cancer (pollution: 0 = low, 1 = high; the others 0 = True/positive, 1 = False/negative)."""
    names = ("pollution", "smoker", "cancer", "xray", "dyspnoea")
    parents = {"cancer": ("pollution", "smoker"), "xray": ("cancer",), "dyspnoea": ("cancer",)}
    s = BayesNetStructure.from_names({n: 2 for n in names}, parents, hidden=("cancer",))
    first = {"pollution": [0.9], "smoker": [0.3], "cancer": [0.03, 0.001, 0.05, 0.02],
             "xray": [0.9, 0.2], "dyspnoea": [0.65, 0.3]}
    tables = [np.column_stack([first[n], 1.0 - np.array(first[n])]) for n in names]
    return network_dataset("cancer", DiscreteBayesNet.from_probabilities(s, tables))


def markov_blanket_sizes(structure: BayesNetStructure) -> list[int]:
    """|parents ∪ children ∪ children's other parents| of every variable."""
    sizes = []
    for j in range(len(structure.names)):
        children = [c for c, pa in enumerate(structure.parents) if j in pa]
        blanket = set(structure.parents[j]) | set(children) | {p for c in children for p in structure.parents[c]}
        sizes.append(len(blanket - {j}))
    return sizes


def alarm() -> LatentDataset:
    from seqspectral.mixtures.bayesnet.bif import packaged_network

    structure = packaged_network("alarm").structure
    hidden = structure.names[int(np.argmax(markov_blanket_sizes(structure)))]
    return network_dataset("alarm", packaged_network("alarm", hidden=(hidden,)))


def _naive_bayes_dataset(name: str, features: np.ndarray, labels: np.ndarray) -> LatentDataset:
    binary = (features > np.median(features, axis=0)).astype(np.int64)
    classes = np.unique(labels, return_inverse=True)[1].astype(np.int64)
    cards = {"class": int(classes.max()) + 1, **{f"f{i}": 2 for i in range(binary.shape[1])}}
    s = BayesNetStructure.from_names(cards, {f"f{i}": ("class",) for i in range(binary.shape[1])}, hidden=("class",))

    def draw(t: int, n_test: int, random_state=0):
        order = np.random.default_rng(random_state).permutation(len(binary))
        train, test = order[:t], order[t:t + n_test]
        return binary[train], classes[train, None], binary[test], classes[test, None]

    return LatentDataset(name, s, draw, max_train=len(binary) - 20)


def breast_cancer() -> LatentDataset:
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    return _naive_bayes_dataset("breast_cancer", data.data[:, :10], data.target)


def wine() -> LatentDataset:
    from sklearn.datasets import load_wine

    data = load_wine()
    return _naive_bayes_dataset("wine", data.data, data.target)


#: every data set of the table, by name
DATASETS = {f.__name__: f for f in (synth1, synth2, synth3, breast_cancer, wine, asia, cancer, alarm)}
