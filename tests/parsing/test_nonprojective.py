"""Non-projective decoding against brute-force enumeration of all trees: maximum spanning
trees, their k best, second-order rearrangement; the parser's decoder choice."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqspectral.corpus.dependency_trees import head_errors, is_projective
from seqspectral.parsing._mst_kernels import chu_liu_edmonds, kbest_mst
from seqspectral.parsing.parser import AUTO_CROSSING_SHARE
from seqspectral.parsing._rearrange_kernels import kbest_rearranged, rearrange, second_order_score
from seqspectral.parsing._sibling_kernels import eisner2


@functools.cache
def all_trees(n, single_root):
    """Every tree over n words, projective or not (single_root: exactly one word on the
    root): the (n+1)**n head vectors in mixed radix, kept when every word reaches the root
    (the head map composed with itself until a power of two ≥ n sends every word to 0)."""
    if single_root:
        trees = all_trees(n, False)
        return trees[(trees == 0).sum(axis=1) == 1]
    codes = np.arange((n + 1) ** n, dtype=np.int64)
    up = np.zeros((len(codes), n + 1), dtype=np.uint8)  # column 0: the root, its own image
    for j in range(n):
        up[:, j + 1] = (codes // (n + 1) ** j) % (n + 1)
    heads = up[:, 1:].astype(np.int32)
    for _ in range(int(np.ceil(np.log2(max(n, 2))))):
        up = np.take_along_axis(up, up, axis=1)
    return heads[(up[:, 1:] == 0).all(axis=1)]


def brute_scores(S, trees):
    return S[trees, np.arange(1, trees.shape[1] + 1)].sum(axis=1)


def test_tree_counts_are_cayleys():
    # rooted trees on n labelled words: (n+1)**(n-1); with one root word: n**(n-1)
    assert [len(all_trees(n, False)) for n in range(1, 6)] == [(n + 1) ** (n - 1) for n in range(1, 6)]
    assert [len(all_trees(n, True)) for n in range(1, 6)] == [n ** (n - 1) for n in range(1, 6)]


scores_matrices = st.integers(1, 7).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(0, 2 ** 32 - 1), st.sampled_from(["normal", "ties"])))


def score_matrix(n, seed, kind):
    rng = np.random.default_rng(seed)
    # "ties": a few integer values, so many trees score alike
    return rng.normal(size=(n + 1, n + 1)) if kind == "normal" else rng.integers(-2, 3, size=(n + 1, n + 1)) * 1.0


@settings(max_examples=60, deadline=None)
@given(scores_matrices, st.sampled_from([1, 2, 7, 50]), st.booleans())
def test_kbest_spanning_trees_are_the_brute_force_top_k(case, k, single_root):
    n, seed, kind = case
    S = score_matrix(n, seed, kind)
    trees = all_trees(n, single_root)
    ranked = np.sort(brute_scores(S, trees))[::-1][:k]
    heads, scores = kbest_mst(S, k, single_root)
    assert len(scores) == len(ranked) == min(k, len(trees))
    np.testing.assert_allclose(scores, ranked, atol=1e-9)
    assert np.all(np.diff(scores) <= 1e-9)  # non-increasing
    assert len({tuple(h) for h in heads}) == len(heads)  # no duplicates
    for h, s in zip(heads, scores):
        assert head_errors(h, several_roots=not single_root) is None
        assert not single_root or int(np.sum(h == 0)) == 1
        assert brute_scores(S, h[None, :])[0] == pytest.approx(s)
    best = chu_liu_edmonds(S, single_root)
    assert brute_scores(S, best[None, :])[0] == pytest.approx(ranked[0])


@pytest.mark.parametrize("seed", range(14))  # 8 to 14 words, each with one root word and several
def test_the_projective_trees_of_the_kbest_spanning_trees_are_eisners_kbest(seed):
    """Past brute force's reach: the projective trees among the K best spanning trees, in
    order, are the projective K' best (Huang & Chiang's k-best Eisner, an independent
    algorithm) — every projective tree that outscores the K-th spanning tree is in the list.
    Scores: a planted projective tree plus noise, so that many of the best trees nest."""
    from seqspectral.parsing._eisner_kernels import eisner, kbest_eisner

    n, single_root = 8 + seed % 7, seed % 2 == 0
    rng = np.random.default_rng(seed)
    planted = eisner(rng.normal(size=(n + 1, n + 1)), single_root)
    S = rng.normal(scale=0.7, size=(n + 1, n + 1))
    S[planted, np.arange(1, n + 1)] += 3.0
    heads, scores = kbest_mst(S, 300, single_root)
    nested = [i for i, h in enumerate(heads) if is_projective(h)]
    assert 0 < len(nested) < len(heads)  # both kinds of tree in the list
    eisner_heads, eisner_scores = kbest_eisner(S, len(nested), single_root)
    np.testing.assert_allclose(scores[nested], eisner_scores, atol=1e-9)
    distinct = np.r_[True, np.diff(eisner_scores) < -1e-9] & np.r_[np.diff(eisner_scores) < -1e-9, True]
    np.testing.assert_array_equal(heads[nested][distinct], eisner_heads[distinct])  # the same trees where no tie


def test_spanning_trees_reach_crossing_arcs_eisner_cannot():
    # 1 <- 3 and 2 <- 4 cross: the only tree with these strong arcs is non-projective
    S = np.full((5, 5), -5.0)
    S[0, 4], S[3, 1], S[4, 2], S[4, 3] = 1.0, 3.0, 3.0, 1.0
    heads = chu_liu_edmonds(S, True)
    assert heads.tolist() == [3, 4, 4, 0] and not is_projective(heads)


def second_order(S, SIB, heads):
    return second_order_score(S, SIB, np.concatenate(([0], heads)).astype(np.int32), np.empty(len(heads) + 1, int))


def brute_second_order(S, SIB, h):
    """Arcs plus sibling parts (h, s, m), s the nearest dependent of h between h and m (h: none)."""
    n = len(h)
    total = 0.0
    for m in range(1, n + 1):
        g = h[m - 1]
        between = [d for d in range(min(g, m) + 1, max(g, m)) if h[d - 1] == g]
        s = (max(between) if m > g else min(between)) if between else g
        total += S[g, m] + SIB[g, s, m]
    return total


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2 ** 32 - 1), st.booleans())
def test_rearrangement_is_a_local_optimum_above_the_projective_parse(n, seed, single_root):
    rng = np.random.default_rng(seed)
    S, SIB = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1, n + 1, n + 1))
    start = eisner2(S, SIB, single_root)
    heads = rearrange(S, SIB, start, single_root)
    assert head_errors(heads, several_roots=not single_root) is None and (not single_root or int(np.sum(heads == 0)) == 1)
    value = second_order(S, SIB, heads)
    assert value == pytest.approx(brute_second_order(S, SIB, heads))
    assert value >= second_order(S, SIB, start) - 1e-12
    # no tree one head away scores more (the stopping rule)
    for tree in all_trees(n, single_root):
        if np.sum(tree != heads) == 1:
            assert brute_second_order(S, SIB, tree) <= value + 1e-9
    kheads, kscores = kbest_rearranged(S, SIB, 5, single_root)
    assert len({tuple(h) for h in kheads}) == len(kheads) and np.all(np.diff(kscores) <= 1e-12)
    assert kscores[0] >= value - 1e-9  # the rearranged 1-best is among them


@pytest.fixture(scope="module")
def planted_crossing():
    """Planted trees that are maximum spanning trees (many non-projective), and two parsers."""
    from seqspectral.parsing import DependencyParser

    from .test_parser import planted_sentences

    theta = np.random.default_rng(5).normal(scale=2.0, size=(5, 5, 2))
    train, _ = planted_sentences(400, 1, theta, decode=chu_liu_edmonds)
    test, _ = planted_sentences(100, 2, theta, decode=chu_liu_edmonds)
    parsers = {d: DependencyParser(epochs=4, hash_bits=18, decoder=d).fit(train) for d in ("projective", "auto")}
    return parsers, train, test


def test_the_nonprojective_parser_learns_crossing_trees(planted_crossing):
    from seqspectral.parsing import attachment_scores

    parsers, train, test = planted_crossing
    assert sum(not is_projective(s.heads) for s in test) >= 20
    auto = parsers["auto"]
    assert auto.decoder_ == "nonprojective" and auto.crossing_share_ > AUTO_CROSSING_SHARE  # chosen from the trees
    assert parsers["projective"].decoder_ == "projective"
    uas = {d: attachment_scores(test, p.parse(test))["uas"] for d, p in parsers.items()}
    assert uas["auto"] > 90.0 and uas["auto"] > uas["projective"] + 10.0  # 93.3 against 76.9 when written
    pred = auto.predict(test)
    assert sum(not is_projective(h) for h in pred) >= 20
    lists = auto.kbest_trees(test[:10], 20)
    offsets = lists.tree_offsets
    candidates = [lists.heads[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
    assert sum(not is_projective(h) for h in candidates) >= 20  # crossing candidates in the n-best lists
    for i, heads in enumerate(lists.chosen([0] * 10)):
        np.testing.assert_array_equal(heads, pred[i])  # the 1-best heads every list


def test_the_decoder_is_saved_and_old_files_parse_projectively(planted_crossing, tmp_path):
    from seqspectral import serialize
    from seqspectral.parsing import DependencyParser

    parsers, _, test = planted_crossing
    auto = parsers["auto"]
    serialize.save(tmp_path / "p.npz", auto)
    loaded = serialize.load(tmp_path / "p.npz", kind="dependency_parser")
    assert loaded.decoder_ == "nonprojective"
    assert all(np.array_equal(a, b) for a, b in zip(loaded.predict(test), auto.predict(test)))
    header, arrays = auto.to_state()
    for key in ("decoder", "crossing_share"):
        del header[key]
    del header["params"]["decoder"]
    old = DependencyParser.from_state(header, arrays)
    assert old.decoder_ == "projective" and all(is_projective(h) for h in old.predict(test))


def test_tree_models_score_a_crossing_tree_by_its_structure():
    """The spectral tree model and the planted one read a tree's heads and sides only: a
    crossing tree scores as its nested rearrangement (same heads, sides and sibling order),
    and the planted model's score is the brute-force sum over hidden states."""
    from seqspectral.corpus.sequences import Corpus
    from seqspectral.dependency_trees import SpectralTreeModel, branching_topologies, planted_model

    from ..dependency_trees.test_trees import _brute_force

    model = planted_model(3, 6, random_state=3, emission_concentration=1.0)
    crossing = Corpus(np.array([2, 3, 4, 5]), np.array([0, 4]), model.vocabulary, np.array([3, 4, 0, 3]))
    nested = Corpus(np.array([2, 4, 3, 5]), np.array([0, 4]), model.vocabulary, np.array([2, 0, 4, 2]))
    assert not is_projective(crossing.heads) and is_projective(nested.heads)
    exact = model.log_probs(crossing)[0]
    assert exact == pytest.approx(np.log(_brute_force(model, crossing, 0)))
    assert exact == pytest.approx(model.log_probs(nested)[0])
    spectral = SpectralTreeModel(3).fit(model.sample(branching_topologies(3_000, random_state=4), random_state=5))
    assert spectral.log_probs(crossing)[0] == pytest.approx(spectral.log_probs(nested)[0])
    assert np.isfinite(spectral.log_probs(crossing)[0])


def test_crossing_arc_count_matches_the_definition():
    """An arc h -> m is non-projective when some word strictly between them is not
    dominated by h; counted over a treebank of every tree of 5 words."""
    from seqspectral.parsing._training_kernels import crossing_arcs

    trees = all_trees(5, False)

    def dominated(h, heads, b):
        while b != 0 and b != h:
            b = heads[b - 1]
        return b == h

    brute = sum(any(not dominated(h, t, b) for b in range(min(h, m) + 1, max(h, m)))
                for t in trees for m, h in enumerate(t.tolist(), 1))
    flat = np.concatenate([np.concatenate(([0], t)) for t in trees]).astype(np.int32)
    offsets = np.arange(len(trees) + 1, dtype=np.int64) * 6
    assert crossing_arcs(flat, offsets) == brute > 0



@pytest.mark.parametrize("single_root", [True, False])
def test_the_closest_projective_tree_is_the_brute_force_one(single_root):
    """projectivity's ceiling: for every tree of 5 words, the projective tree it returns is
    projective, rooted as asked, and shares as many arcs with the gold tree as the best
    projective tree found by enumeration; the per-tree crossing count sums to the kernel's."""
    from seqspectral.parsing._training_kernels import crossing_arcs
    from seqspectral.parsing.projectivity import closest_projective_heads, non_projective_arcs

    trees = all_trees(5, single_root)
    projective = np.array([t for t in trees if is_projective(t)])
    for gold in trees[::7]:
        best = closest_projective_heads(gold, single_root)
        assert is_projective(best) and (not single_root or (best == 0).sum() == 1)
        assert (best == gold).sum() == (projective == gold).sum(axis=1).max()
    flat = np.concatenate([np.concatenate(([0], t)) for t in trees]).astype(np.int32)
    offsets = np.arange(len(trees) + 1, dtype=np.int64) * 6
    assert sum(non_projective_arcs(t) for t in trees) == crossing_arcs(flat, offsets) > 0

def test_auto_trains_exactly_the_decoder_it_picks():
    """``decoder="auto"`` is the projective parser, weight for weight, on projective data, and
    the non-projective one on crossing data."""
    from seqspectral.parsing import DependencyParser

    from .test_parser import planted_sentences

    theta = np.random.default_rng(5).normal(scale=2.0, size=(5, 5, 2))
    for decode, picked in ((None, "projective"), (chu_liu_edmonds, "nonprojective")):
        train, _ = planted_sentences(60, 3, theta, **({"decode": decode} if decode else {}))
        auto, fixed = (DependencyParser(epochs=2, hash_bits=16, labels=False, decoder=d).fit(train)
                       for d in ("auto", picked))
        assert auto.decoder_ == picked
        np.testing.assert_array_equal(auto.weights_, fixed.weights_)
