"""Tree validation and projectivity against brute-force definitions."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from seqspectral.corpus.dependency_trees import DependencyTree, head_errors, invalid_trees, is_projective

from tests.references import brute_is_tree


def brute_is_projective(heads) -> bool:
    """Every word strictly between the ends of an arc is dominated by the arc's head."""

    def dominated(word, head):
        while word != 0:
            if word == head:
                return True
            word = heads[word - 1]
        return head == 0

    return all(
        dominated(k, h) for d, h in enumerate(heads, 1) for k in range(min(h, d) + 1, max(h, d)) if k != 0
    )


def random_tree(draw, n):
    order = draw(st.permutations(range(1, n + 1)))
    heads = [0] * n
    for i, w in enumerate(order):
        heads[w - 1] = 0 if i == 0 else order[draw(st.integers(0, i - 1))]
    return heads


@st.composite
def trees(draw, max_n=9):
    return random_tree(draw, draw(st.integers(1, max_n)))


head_arrays = st.integers(1, 7).flatmap(lambda n: st.lists(st.integers(-1, n + 1), min_size=n, max_size=n))


@settings(max_examples=300, deadline=None)
@given(head_arrays)
def test_head_validation_matches_brute_force(heads):
    assert (head_errors(heads) is None) == brute_is_tree(heads)


@settings(max_examples=200, deadline=None)
@given(trees())
def test_generated_trees_are_valid(heads):
    assert head_errors(heads) is None
    assert len(DependencyTree(heads)) == len(heads)


@settings(max_examples=300, deadline=None)
@given(trees())
def test_projectivity_matches_brute_force(heads):
    assert is_projective(heads) == brute_is_projective(heads)


@settings(max_examples=100, deadline=None)
@given(st.lists(head_arrays | trees(), max_size=8), st.booleans())
def test_invalid_trees_vectorised_matches_per_sentence(sentences, several_roots):
    offsets = np.cumsum([0] + [len(s) for s in sentences])
    flat = np.array([h for s in sentences for h in s], dtype=np.int64)
    expected = [i for i, s in enumerate(sentences) if not brute_is_tree(s, several_roots)]
    assert invalid_trees(flat, offsets, several_roots).tolist() == expected


def test_known_cases():
    assert is_projective([2, 0, 2])
    assert not is_projective([3, 4, 0, 3])  # arcs 1<-3 and 2<-4 cross
    assert not is_projective([0, 4, 1, 1])  # 1->3 and 2<-4 cross
    assert "cycle" in head_errors([0, 3, 2])
    assert "roots" in head_errors([0, 0])
    assert "out of range" in head_errors([0, 5])
    assert DependencyTree([2, 0, 2]).children(2).tolist() == [1, 3]
