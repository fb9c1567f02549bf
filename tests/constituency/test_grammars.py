"""The three grammars: a planted L-PCFG recovered by the spectral algorithm, EM's
likelihood, sharded statistics byte for byte, parsing's promises, model files."""

from __future__ import annotations

import numpy as np
import pytest
from seqspectral.corpus.bracketed import Tree  # nltk.Tree, without NLTK's package initialiser (scipy.stats, scikit-learn)

from seqspectral.constituency import EMLPCFG, MarkovPCFG, SpectralLPCFG, train_grammar_sharded

# a planted L-PCFG: S and A expand to two of A, X, Y; X and Y give words; two latent states each
CHILDREN = {"S": [("A", "A"), ("X", "A"), ("A", "Y"), ("X", "Y")],
            "A": [("A", "A"), ("X", "Y"), ("X", "A"), ("A", "Y")]}
WORDS = ["a", "b", "c", "d"]


class Planted:
    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.rules = {}
        for a, options in CHILDREN.items():
            p = rng.dirichlet(np.full(len(options) * 4, 0.3), size=2).reshape(2, len(options), 2, 2)
            if a == "A":  # keep the trees finite: A → A A rarely
                p[:, 0] *= 0.2
                p /= p.sum(axis=(1, 2, 3), keepdims=True)
            self.rules[a] = p
        self.words = {x: rng.dirichlet(np.full(4, 0.5), size=2) for x in ("X", "Y")}
        self.root = rng.dirichlet([1.0, 1.0])

    def sample(self, rng) -> Tree:
        def node(a, h, depth):
            if a in self.words:
                return Tree(a, [WORDS[rng.choice(4, p=self.words[a][h])]])
            p = self.rules[a][h] if depth < 12 else self.rules[a][h] * np.array([0, 1, 0, 0])[:, None, None]
            k, h2, h3 = np.unravel_index(rng.choice(p.size, p=(p / p.sum()).ravel()), p.shape)
            b, c = CHILDREN[a][k]
            return Tree(a, [node(b, h2, depth + 1), node(c, h3, depth + 1)])

        return node("S", rng.choice(2, p=self.root), 0)

    def log_prob(self, tree: Tree) -> float:
        def inside(t):  # vector over the node's states
            a = t.label()
            if a in self.words:
                return self.words[a][:, WORDS.index(t[0])]
            k = CHILDREN[a].index((t[0].label(), t[1].label()))
            return np.einsum("hij,i,j->h", self.rules[a][:, k], inside(t[0]), inside(t[1]))

        return float(np.log(self.root @ inside(tree)))


def grammar_log_prob(est, tree: Tree) -> float:
    """log |weight| of a binary tree (no signatures, no Markovisation) under a fitted grammar."""
    g = est.grammar_
    t = g.tables
    m = g.states

    def inside(node):
        a = t.label_index[node.label()]
        if isinstance(node[0], str):
            r = t.lexical_index[a, t.word_index[node[0]]]
            return g.lex_weights[g.lex_offset[r]:g.lex_offset[r + 1]]
        b, c = t.label_index[node[0].label()], t.label_index[node[1].label()]
        r = t.binary_index[a, b, c]
        tensor = g.rule_weights[g.rule_offset[r]:g.rule_offset[r + 1]].reshape(m[a], m[b], m[c])
        return np.einsum("hij,i,j->h", tensor, inside(node[0]), inside(node[1]))

    a = t.label_index[tree.label()]
    return float(np.log(abs(g.root_weights[g.state_offset[a]:g.state_offset[a + 1]] @ inside(tree))))


@pytest.fixture(scope="module")
def planted():
    model = Planted(seed=1)
    rng = np.random.default_rng(7)
    return model, [model.sample(rng) for _ in range(8000)], [model.sample(rng) for _ in range(200)]


def test_spectral_recovers_a_planted_lpcfg(planted):
    """The spectral grammar's tree probabilities approach the planted ones as the sample
    grows (about 1/√N); a PCFG without latent states, fitted on the same trees, cannot."""
    model, train, test = planted
    options = dict(vertical=1, horizontal=0, rare=0)
    one = dict(n_grammars=1, dropout=0.0)  # one grammar, no noise
    truth = np.array([model.log_prob(t) for t in test])

    def error(est):
        return np.mean(np.abs([grammar_log_prob(est, t) for t in test] - truth))

    spectral = SpectralLPCFG(2, smoothing=0.0, kappa=0.0, **one, **options).fit(train)
    # A, S, X, Y: the root's outside tree is always empty, so S keeps one state (its latent
    # state is summed into the moments of its children, exactly)
    assert spectral.grammar_.states.tolist() == [2, 1, 2, 2]
    quarter = error(SpectralLPCFG(2, smoothing=0.0, kappa=0.0, **one, **options).fit(train[:len(train) // 4]))
    full, pcfg = error(spectral), error(MarkovPCFG(**options).fit(train))
    assert full < 0.7 * quarter and full < 0.15 * pcfg, (full, quarter, pcfg)


def test_em_log_likelihood_never_decreases(planted):
    _, train, _ = planted
    em = EMLPCFG(2, max_iter=15, tol=0.0, vertical=1, horizontal=0, rare=0).fit(train[:1500])
    assert em.n_iter_ == 15 and not em.converged_
    steps = np.diff(em.history_)
    assert np.all(steps >= -1e-9 * np.abs(em.history_[1:])) and em.history_[-1] > em.history_[0] + 1.0


def test_spectral_grammar_is_the_same_bytes_for_any_workers(planted, tmp_path):
    from dask.distributed import Client, LocalCluster

    from seqspectral.serialize import save

    _, train, _ = planted
    trees = train[:900]
    shards = [trees[i:i + 100] for i in range(0, len(trees), 100)]
    # two grammars from noisy SVDs, with the pairwise back-off: the noise and every sum shard too
    options = dict(n_states=3, rare=0, n_grammars=2, dropout=0.2, pair_backoff=0.5)
    blobs = {}
    save(tmp_path / "memory.npz", SpectralLPCFG(**options).fit(trees))
    for name, where in (("one", {}), ("two", {"workers": 2})):
        save(tmp_path / f"{name}.npz", train_grammar_sharded("spectral", shards, list, **where, **options))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        save(tmp_path / "dask.npz", train_grammar_sharded("spectral", shards, list, scheduler=client, **options))
    for name in ("memory", "one", "two", "dask"):
        blobs[name] = (tmp_path / f"{name}.npz").read_bytes()
    assert len(set(blobs.values())) == 1


@pytest.fixture(scope="module")
def small_grammar(planted):
    _, train, _ = planted
    return SpectralLPCFG(2, rare=0).fit(train[:500])  # four noisy grammars combined, the default


def test_parse_gives_every_sentence_a_tree_and_reports_the_flat_ones(small_grammar, planted):
    _, _, test = planted
    sentences = [t.leaves() for t in test[:20]]
    long_one = max(range(20), key=lambda k: len(sentences[k]))
    cap = len(sentences[long_one]) - 1
    trees = small_grammar.parse(sentences + [["zebra"] * 3], tags=None, max_length=cap)
    report = small_grammar.last_report_
    assert len(trees) == 21 and [t.leaves() for t in trees] == sentences + [["zebra"] * 3]
    assert long_one in report.too_long and all(len(sentences[k]) > cap for k in report.too_long)
    assert report.latent + report.coarse + len(report.no_parse) + len(report.too_long) == 21
    for k in report.too_long:
        assert trees[k].height() == 3  # flat: root, tags, words


def test_given_tags_are_kept(small_grammar, planted):
    _, _, test = planted
    gold = test[:10]
    trees = small_grammar.parse([t.leaves() for t in gold], tags=[[p[1] for p in t.pos()] for t in gold])
    assert [[p[1] for p in t.pos()] for t in trees] == [[p[1] for p in t.pos()] for t in gold]


@pytest.mark.parametrize("cls, options", [(MarkovPCFG, {}), (SpectralLPCFG, {"n_states": 2, "n_grammars": 1, "dropout": 0.0}),
                                          (SpectralLPCFG, {"n_states": 2, "n_grammars": 3, "dropout": 0.3}),
                                          (EMLPCFG, {"n_states": 2, "max_iter": 2})])
def test_model_files_round_trip(cls, options, planted, tmp_path):
    from seqspectral.serialize import load, save

    _, train, test = planted
    est = cls(rare=0, **options).fit(train[:300])
    save(tmp_path / "g.npz", est)
    back = load(tmp_path / "g.npz", kind=cls.kind)
    sentences = [t.leaves() for t in test[:15]]
    assert back.parse(sentences) == est.parse(sentences)
    assert back.get_params() == est.get_params()


def test_auto_values_are_chosen_on_held_out_trees_then_refitted_on_all(planted):
    """``"auto"`` goes through selection.select_and_refit: on dev, the best row of the table
    wins; without dev, on a held-out part of train, and the grammar is then the fixed
    choice refitted on every training tree (the same arrays as fitting those values)."""
    _, train, test = planted
    trees, dev = train[:600], test[:60]
    options = dict(rare=0, max_states=4)
    on_dev = SpectralLPCFG("auto", spectrum_cutoff="auto", **options).fit(trees, dev)
    table = on_dev.selection_.table
    assert on_dev.selection_.on == "dev" and {tuple(sorted(r)) for r in table} == {
        ("n_states", "score", "spectrum_cutoff")} and len(table) == 3 * 3
    best = max(table, key=lambda r: r["score"])  # ties: the first, as grid_search
    assert on_dev.selection_.chosen == {"n_states": best["n_states"], "spectrum_cutoff": best["spectrum_cutoff"]}
    held = SpectralLPCFG("auto", spectrum_cutoff="auto", **options).fit(trees)
    assert held.selection_.on.startswith("held-out")
    refit = SpectralLPCFG(**held.selection_.chosen, **options).fit(trees)
    for name, value in held.grammar_.to_arrays().items():
        np.testing.assert_array_equal(value, refit.grammar_.to_arrays()[name])
    em = EMLPCFG("auto", max_states=2, max_iter=3, rare=0).fit(trees, dev)
    assert [r["n_states"] for r in em.selection_.table] == [1, 2]
    assert em.grammar_.states.max() == em.selection_.chosen["n_states"] and em.n_iter_ == 3


def test_a_unary_chain_over_a_tag_reaches_the_words_seen_only_under_the_tag():
    """`sees` was only a VBZ with an object, never a verb phrase alone (VP+VBZ): the
    sentence has no parse in the grammar, and one with the chain lexicon, whose
    p(sees | VP+VBZ) is p(sees | VBZ) and whose other rules are the grammar's."""
    from seqspectral.constituency.grammar import chain_lexicon

    trees = [Tree.fromstring(s) for s in ("(S (NP (DT the) (NN dog)) (VP (VBZ barks)))",
                                          "(S (NP (DT the) (NN cat)) (VP (VBZ sees) (NP (DT the) (NN dog))))",
                                          "(S (NP (DT the) (NN dog)) (VP (VBZ likes) (NP (DT the) (NN cat))))")]
    pcfg = MarkovPCFG(vertical=1, horizontal=0, rare=0).fit(trees)
    (tree,) = pcfg.parse([["the", "cat", "sees"]])
    assert pcfg.last_report_.chain_lexicon == [0] and pcfg.last_report_.no_parse == []
    assert tree == Tree.fromstring("(S (NP (DT the) (NN cat)) (VP (VBZ sees)))")
    g, rescue = pcfg.grammar_, chain_lexicon(pcfg.grammar_)
    t, r = g.tables, rescue.tables
    chain, vbz, sees = t.label_index["VP+VBZ"], t.label_index["VBZ"], t.word_index["sees"]
    assert (chain, sees) not in t.lexical_index
    assert rescue.lex_prob[r.lexical_index[chain, sees]] == g.lex_prob[t.lexical_index[vbz, sees]] == 0.5
    assert rescue.lex_weights[r.lexical_index[chain, sees]] == 0.5  # one state: p(sees | VBZ) × 1
    for rule, k in t.lexical_index.items():
        assert rescue.lex_prob[r.lexical_index[rule]] == g.lex_prob[k]


def test_label_states_are_chosen_one_frequent_label_at_a_time_on_dev(planted):
    """Narayan & Cohen (2016)'s search through select_and_refit: the two most frequent labels
    in turn, each trying the grid's values from a quarter of n_states to max_states (the
    current value first), the earlier choices fixed; each keeps its best row."""
    from collections import Counter

    _, train, test = planted
    trees, dev = train[:600], test[:60]
    est = SpectralLPCFG(2, max_states=4, label_states=2, n_grammars=1, rare=0).fit(trees, dev)
    nodes = Counter(t.label() for tree in trees for t in tree.subtrees())
    frequent = sorted(nodes, key=lambda a: (-nodes[a], a))[:2]
    table, chosen = est.selection_.table, est.selection_.chosen
    assert est.selection_.on == "dev" and [k for k in chosen if k.startswith("states of ")] == \
        [f"states of {a}" for a in frequent]
    fixed = {"n_states": 2, "spectrum_cutoff": 0.0}
    for a in frequent:
        name = f"states of {a}"
        rows = [r for r in table if {k for k in r if k.startswith("states of ")} == {*fixed, name} - {
            "n_states", "spectrum_cutoff"}]  # this label's stage
        assert [r[name] for r in rows] == [2, 1, 4]
        assert all(r[k] == v for r in rows for k, v in fixed.items())
        assert chosen[name] == max(rows, key=lambda r: r["score"])[name]
        fixed[name] = chosen[name]
        assert est.grammar_.states[est.grammar_.tables.label_index[a]] <= chosen[name]
