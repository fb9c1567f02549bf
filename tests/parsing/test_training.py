"""Training kernels: lifting non-projective trees, the passive-aggressive step's constraint."""

import numpy as np

from seqspectral.corpus import Sentence
from seqspectral.corpus.dependency_trees import head_errors, is_projective
from seqspectral.parsing._arc_kernels import XPOS, arc_features, arc_scores, feature_buffer
from seqspectral.parsing._eisner_kernels import eisner
from seqspectral.parsing._training_kernels import _squared_norm, lift_nonprojective, training_epoch
from seqspectral.parsing.atoms import encode, flat_heads


def random_tree(n, rng):
    """A uniformly shuffled random tree on n words (projective or not), one root word."""
    order = rng.permutation(n) + 1
    heads = np.zeros(n + 1, dtype=np.int32)
    for i, w in enumerate(order[1:], start=1):
        heads[w] = order[rng.integers(0, i)]
    return heads[1:]


def ancestors(heads, w):
    out = []
    while w != 0:
        w = heads[w - 1]
        out.append(w)
    return out


def test_lifting_makes_every_tree_projective_and_only_lifts():
    rng = np.random.default_rng(3)
    trees = [random_tree(int(rng.integers(1, 12)), rng) for _ in range(300)]
    offsets = np.concatenate(([0], np.cumsum([len(t) + 1 for t in trees]))).astype(np.int64)
    flat = np.concatenate([np.concatenate(([0], t)) for t in trees]).astype(np.int32)
    lifted = lift_nonprojective(flat, offsets)
    changed = 0
    for i, t in enumerate(trees):
        new = lifted[offsets[i] + 1:offsets[i + 1]]
        assert head_errors(new) is None and is_projective(new)
        if is_projective(t):
            np.testing.assert_array_equal(new, t)
        for m in np.flatnonzero(new != t) + 1:
            changed += 1
            assert new[m - 1] in ancestors(t, t[m - 1])  # a proper ancestor of the old head
    assert changed > 50


def test_squared_norm_sums_repeated_slots_first():
    rng = np.random.default_rng(0)
    slots = rng.integers(0, 20, size=200).astype(np.int64)
    signs = rng.choice([-1.0, 1.0], size=200)
    dense = np.bincount(slots, weights=signs, minlength=20)
    assert abs(_squared_norm(slots, signs, 200) - float(dense @ dense)) < 1e-9


def test_passive_aggressive_step_makes_gold_win_by_its_loss():
    """After one PA step on one sentence, score(gold) − score(prediction) = margin × wrong
    heads of the prediction (PA's constraint is met with equality)."""
    rng = np.random.default_rng(1)
    tags = ["A", "B", "C"]
    n = 9
    upos = [tags[i] for i in rng.integers(0, 3, size=n)]
    forms = [f"w{i}" for i in rng.integers(0, 5, size=n)]
    heads = np.array([2, 0, 2, 3, 6, 2, 6, 9, 7])
    sentences = [Sentence(forms, forms, upos, upos, heads, ["dep"] * n)]
    table, gold = encode(sentences), flat_heads(sentences)
    weights = rng.normal(scale=0.5, size=1 << 16)
    totals = np.zeros_like(weights)
    S0 = arc_scores(table.atoms, 0, n, XPOS, weights, feature_buffer(n), np.zeros((0, 0), bool))
    margin = 1.5
    augmented = S0 + margin * (np.arange(n + 1)[:, None] != gold[None, :])
    before = weights.copy()
    training_epoch(table.atoms, table.offsets, gold, np.array([0]), False, False, XPOS, True, margin, True,
                   weights, totals, 1, np.zeros(0, bool), np.zeros(2, np.int64))
    assert not np.array_equal(before, weights)
    pred = eisner(augmented, True)  # the prediction the step corrected
    wrong = int(np.sum(pred != heads))
    assert wrong > 0
    S1 = arc_scores(table.atoms, 0, n, XPOS, weights, feature_buffer(n), np.zeros((0, 0), bool))
    cols = np.arange(1, n + 1)
    assert abs((S1[heads, cols].sum() - S1[pred, cols].sum()) - margin * wrong) < 1e-8
    # the step moved only the slots of differing arcs
    touched = set()
    buf = feature_buffer(n)
    for m in range(1, n + 1):
        if pred[m - 1] != heads[m - 1]:
            for h in (pred[m - 1], heads[m - 1]):
                k = arc_features(table.atoms, 0, n, h, m, XPOS, len(weights) - 1, buf)
                touched.update(buf[:k].tolist())
    assert set(np.flatnonzero(before != weights).tolist()) <= touched
