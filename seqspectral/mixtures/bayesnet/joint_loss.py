"""The joint log-loss −log p(x, h) on fully observed data (Guo & Schuurmans 2007, Table 1).

The paper measures "the trained models by their logloss produced on the fully observed
training data and testing data": the hidden values revealed, −(1/n) Σ_i log p(x_i, h_i). A model
trained without the hidden values names them arbitrarily (value 0 of its H may be the truth's
value 2), so its loss is taken under the relabelling π (one permutation of the values per
hidden variable) that matches its names to the truth's best: the π of the lowest joint
log-loss on the fully observed *training* data, then used on the test data too.
"""

from __future__ import annotations

import itertools

import numpy as np

from seqspectral.mixtures.bayesnet.network import DiscreteBayesNet


def relabellings(net: DiscreteBayesNet) -> list[tuple[np.ndarray, ...]]:
    """Every π: one permutation of the values of each hidden variable (π[c][v]: the model's name of value v)."""
    s = net.structure
    per_variable = [[np.array(p) for p in itertools.permutations(range(s.cardinalities[h]))] for h in s.hidden_index]
    return list(itertools.product(*per_variable))


def joint_log_loss(net: DiscreteBayesNet, X, H, relabelling=None) -> float:
    """−(1/n) Σ_i log p(x_i, π(h_i)) in nats (π: ``relabelling``, default the identity)."""
    s = net.structure
    X, H = s.check_observed(X), s.check_hidden(H)
    if relabelling is not None:
        H = np.stack([p[H[:, c]] for c, p in enumerate(relabelling)], axis=1)
    return float(-np.mean(net.log_joint(s.complete(X, H))))


def best_relabelling(net: DiscreteBayesNet, X, H) -> tuple[np.ndarray, ...]:
    """The π of the lowest :func:`joint_log_loss` on (X, H)."""
    return min(relabellings(net), key=lambda p: joint_log_loss(net, X, H, p))
