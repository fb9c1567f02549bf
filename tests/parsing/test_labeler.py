"""The label classifier: the children lists, the chain decoder against brute force, a
planted case only the chain can learn, older model files."""

import itertools

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.corpus import Sentence
from seqspectral.parsing import DependencyLabeler
from seqspectral.parsing._label_kernels import chain_viterbi, children


def test_children_are_each_words_dependents_left_to_right():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(1, 9))
        heads = np.concatenate(([0], rng.integers(0, n + 1, size=n))).astype(np.int32)
        first, kids = children(np.concatenate(([7, 7], heads)).astype(np.int32), 2, n)  # rows before the sentence
        for h in range(n + 1):
            assert kids[first[h]:first[h + 1]].tolist() == [m for m in range(1, n + 1) if heads[m] == h]


@pytest.mark.parametrize("k, n_labels", [(1, 3), (2, 2), (3, 4), (4, 3), (5, 2)])
def test_chain_decoder_finds_the_best_label_sequence(k, n_labels):
    """Against every one of the n_labels ** k sequences (start row ``n_labels`` of the transitions)."""
    rng = np.random.default_rng(k * 10 + n_labels)
    for _ in range(10):
        unary = rng.normal(size=(k, n_labels))
        trans = rng.normal(size=(k, n_labels + 1, n_labels))

        def score(ys):
            return sum(unary[i, y] + trans[i, ys[i - 1] if i else n_labels, y] for i, y in enumerate(ys))

        best = max(itertools.product(range(n_labels), repeat=k), key=score)
        found = chain_viterbi(unary, trans, k)
        assert score(tuple(found)) == pytest.approx(score(best))
        assert tuple(found) == best  # continuous scores: the best sequence is unique


def siblings_sentences(n_sentences, seed):
    """A verb (last word) whose children all carry one label, ``a`` or ``b``, said only by the
    first child's word (``x`` / ``y``); the other children read ``n``: a word's label is its
    first sibling's, beyond the reach of one arc's features past the second child."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_sentences):
        k = int(rng.integers(2, 7))
        label = "ab"[rng.integers(2)]
        forms = ["xy"["ab".index(label)]] + ["n"] * (k - 1) + ["v"]
        upos = ["NOUN"] * k + ["VERB"]
        out.append(Sentence(forms, forms, upos, upos, np.array([k + 1] * k + [0]), [label] * k + ["root"],
                            {"sent_id": str(i + 1)}))
    return out


def _accuracy(labeler, sentences):
    return np.mean([a == b for s, p in zip(sentences, labeler.predict(sentences)) for a, b in zip(s.deprels, p)])


def test_chain_learns_labels_that_follow_the_siblings_and_independent_labels_cannot():
    train, test = siblings_sentences(300, 1), siblings_sentences(100, 2)
    chain = DependencyLabeler(epochs=4, hash_bits=16, decoder="chain").fit(train)
    assert _accuracy(chain, test) == 1.0
    alone = DependencyLabeler(epochs=4, hash_bits=16, decoder="independent").fit(train)
    assert _accuracy(alone, test) < 0.9


def test_a_file_from_before_templates_and_decoder_labels_as_the_arc_labeler(tmp_path):
    train = siblings_sentences(60, 3)
    old = DependencyLabeler(epochs=2, hash_bits=12, templates="arc", decoder="independent").fit(train)
    header, arrays = serialize.state(old)
    for name in ("templates", "decoder"):
        del header["params"][name]
    serialize.save_arrays(tmp_path / "old.npz", header, arrays)
    loaded = serialize.load(tmp_path / "old.npz")
    assert (loaded.templates, loaded.decoder) == ("arc", "independent")
    assert loaded.predict(train) == old.predict(train)
    new = DependencyLabeler(epochs=2, hash_bits=12).fit(train)
    serialize.save(tmp_path / "new.npz", new)
    assert serialize.load(tmp_path / "new.npz").predict(train) == new.predict(train)


def test_trees_equal_to_the_gold_ones_teach_as_the_sentences_twice():
    """``fit(s, trees=heads of s)``: every word of the second copy has its gold head, so it is
    learned as a second copy of ``s``; a tree of the wrong length is refused."""
    train = siblings_sentences(40, 4)
    twice = DependencyLabeler(epochs=2, hash_bits=12).fit(train + train)
    with_trees = DependencyLabeler(epochs=2, hash_bits=12).fit(train, trees=[s.heads for s in train])
    np.testing.assert_array_equal(with_trees.weights_, twice.weights_)
    with pytest.raises(ValueError, match="trees"):
        DependencyLabeler(epochs=1, hash_bits=12).fit(train, trees=[s.heads[1:] for s in train])
