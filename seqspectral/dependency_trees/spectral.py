r"""Spectral estimation of the latent-variable dependency model (Dhillon, Rodu, Collins,
Foster & Ungar, EMNLP 2012, "Spectral dependency parsing with latent variables").

The model (their Eq. 2; :mod:`seqspectral.dependency_trees.planted`): hidden states h_i ∈ 1..m, π for
words attached to the root, T_L / T_R (m x m, column = the head's state) for every left /
right dependent — each drawn independently of its siblings, so a word may have any number
of dependents on each side, or none — and O (n x m) for the words. The number scored is
**p(words | tree topology)**, a proper distribution over the words of the vocabulary given
the topology: heads and word order are given, not generated (the optional
:mod:`topology <seqspectral.dependency_trees.topology>` term scores them separately).

Notation. U (n x k, k = m) projects words (:mod:`.representation`; the paper's Sec. 3.2);
G = U^T O (k x m), assumed invertible; ⁺ is a ridge (Tikhonov) inverse: each singular
value s of the inverted moment becomes s / (s² + (ridge · s_max)²) — the pseudo-inverse at
``ridge`` = 0, while weak directions (the contexts are weak instruments, step 2) are damped
smoothly rather than kept whole or dropped, as a truncated pseudo-inverse does. The labels
S1-S7 are this module's; the paper's §3.3 operators c₁, c_∞, E_L, E_R and D(y) are, as we
read them, our c_1, c_∞, E_L, E_R and the products with K_d and d(x) of step 4.

1. Views of a state. Given the state h of word i, these are independent:
   W, its own word, with E[U^T e_{x_i} | h] = G e_h;
   D_d, any one of its dependents on side d ∈ {L, R}, with E[U^T e_{x_c} | h] = G T_d e_h
   (every dependent, not only the nearest: siblings are drawn independently);
   Z_d, its context for side d: the 2k-vector [U^T e_{head word of i}; Σ_j U^T e_{x_j}
   over every dependent j of i on the other side], a zero block where there is none (each
   of those words is a view of h independent of W and of the side-d dependents, so their
   sum is one too, with more signal than the nearest alone). The law of Z_d
   given h differs from word to word (it involves the state marginal of the head), but
   only its joint law with h enters below, summed over events: M_d = Σ_events E[z ⊗ e_h]
   (2k x m), assumed of rank m.

2. Three-view moments (one event per arc whose dependent c stands on side d of its head
   i; events with W = x_i, D = x_c, Z = i's context for d; a word with no dependent on
   side d gives no event for d — it has no view of that side):

       P^d_{W,Z}        = Σ U^T e_{x_i} z^T              = G M_d^T
       P^d_{D,Z}        = Σ U^T e_{x_c} z^T              = G T_d M_d^T
       P^d_{W,D=a,Z}    = Σ (U^T e_{x_c})_a U^T e_{x_i} z^T = G diag((G T_d)_{a,:}) M_d^T
       ν^d              = Σ z                            = M_d 1

   Ratios cancel M_d (so the unknown, node-dependent state marginals never need to be
   known, and no word needs dependents on both sides):

       K_d[a] = P^d_{W,D=a,Z} (P^d_{W,Z})⁺ = G diag((G T_d)_{a,:}) G^{-1}          (S1)
       E_d    = P^d_{D,Z} (P^d_{W,Z})⁺     = G T_d G^{-1}                        (S2)
       c_1^T  = (ν^L + ν^R)^T (P^L_{W,Z} + P^R_{W,Z})⁺ = 1^T G^{-1}                (S3)

   Shrinkage (S7). Real treebanks satisfy step 1 only roughly, and the contexts are weak
   instruments for W: the ratios then amplify the violations. ``shrinkage`` = λ appends
   a third block λ U^T e_{x_i} — the head's own word — to every z. That view is not
   independent of W given h, so λ > 0 biases the operators towards the model whose
   state is the projected word itself (with the identity U and k = |symbols|: the
   fully observed head-dependent bigram model, where (S1)-(S3) hold exactly); λ = 0 is
   the consistent estimator. λ, like ``ridge`` and ``floor``, can be chosen on
   held-out trees (``"auto"``).

3. Emissions from every occurrence. As a dependent, with its head as the context: over
   all arcs (head word p, dependent word c), J = Σ_arcs E[e_{h_head} e_{h_dep}^T],
   Ψ = Σ U^T e_p (U^T e_c)^T = G J G^T (the paper's Ψ_L + Ψ_R, as we read it) and
   φ_x = Σ U^T e_p 1{c = x} = G J O_{x,:}^T, so φ_x^T = d(x) Ψ^T with
   d(x) = O_{x,:} G^{-1}, the row of the function O_x. As a head, with the context of
   step 2: P^d_{W=x,Z} = Σ_{events with x_i = x} z^T = O_{x,:} M_d^T = d(x) P^d_{W,Z}.
   All three hold at once, so

       d(x) = [φ_x^T, P^L_{W=x,Z}, P^R_{W=x,Z}] [Ψ^T, P^L_{W,Z}, P^R_{W,Z}]⁺             (S4)

   (least squares over every occurrence of x; each block divided by its number of
   events). With the identity U, G holds the rows of O of the seen symbols, so
   d(x) = O_{x,:} G^{-1} = U[x] exactly and S4 is not needed (its truncated
   pseudo-inverse would only lose the directions of rare symbols). The root vector is
   c_∞ = G π = the mean U^T e_x over root attachments
   (S5). UNK gets the mean d(x) of the words seen once (a shared unknown vector).

4. Operators (the paper's Eq. 4-5 and Algorithm 1). Let β_i(h) = p(words of the subtree of
   i | h_i = h): β_i = O_{x_i} ∘ Π_c u_c with the dependent's message u_c = T_{d(c)}^T β_c.
   Represent a function f of the state by the row f^T G^{-1} and a measure μ on the states
   by the column G μ: O_x is the row d(x), the constant 1 the row c_1, π the column c_∞,
   the dependent's prior T_d μ the column E_d G μ, and multiplying by u_c is, on rows,
   v ↦ Σ_a b_c[a] v K_{d(c)}[a] and, on columns, g ↦ Σ_a b_c[a] K_{d(c)}[a] g, where b_c
   (a row) represents β_c. Bottom-up, dependents in sentence order:

       b_i ∝ d(x_i) Π_c (Σ_a b_c[a] K_{d(c)}[a])                                    (S6)

5. Scoring: a proper distribution by the chain rule (DESIGN, "Definitions"). The words
   are predicted in post-order — each word after the subtrees of its dependents, those
   in sentence order — so word i is predicted given E_i (everything before its subtree)
   and its own descendants. The column a_i = G p(h_i, E_i) (up to scale) is c_∞ at a
   root; a dependent c gets a_c = E_d s, where s = a_head multiplied by the messages of
   the head's dependents before c (step 4, on columns); after all of i's dependents,
   s_i = G p(h_i, E_i, descendants of i), and

       q_i(x) = d(x) s_i ∝ p(x_i = x | E_i, descendants of i).                       (S7')

   For the exact model the product of these conditionals is p(x | τ). For an estimate,
   q_i may have negative entries and need not sum to one, so each is made a distribution
   over the vocabulary (all symbols but the end marker): negative weights set to 0,
   divided by the positive mass, then floored at ``floor`` times the word's training
   frequency and renormalised — the rule of the sequence models with a floor that
   follows word frequency, so the mass it adds stays below ``floor`` however large the
   vocabulary. A node whose own weight was floored is counted
   (``TreeScores.n_floored``); a propagated column or message whose mass c_1 g is not
   positive is replaced (``a_c`` by the state marginal, a message by none) and counted
   (``TreeScores.n_reset``). No whole-tree floor; every vector is scaled to c_1 g = 1.

Costs: scoring 2k^3 per arc in one Numba pass over the corpus, then one n x k product per
word (the normalisation over the vocabulary; BLAS, in chunks). Training: counts of the
distinct (head, dependent, context word) triples (:mod:`.statistics`, mergeable across
shards) projected by U (``counting``'s ``project_triples``), a few k x 3k pseudo-inverses
and one n x 7k product.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from seqspectral.base import Estimator, either, integer, one_of, real, seed
from seqspectral.corpus.vocabulary import Vocabulary

from . import _kernels
from .layout import tree_layout
from .reattach import reattached_copies
from .representation import representation_matrix
from .statistics import SpectralTreeStatistics, spectral_tree_statistics
from .topology import ValenceModel

#: rows of the per-word conditionals computed at once (times the vocabulary size)
_CHUNK_CELLS = 1 << 21


class TreeScores(NamedTuple):
    """Natural-log p(words | tree) per tree; the nodes whose own conditional was floored
    and the propagated vectors replaced (module docstring, step 5), among ``n_nodes``."""

    log_prob: np.ndarray
    n_floored: int
    n_nodes: int
    n_reset: int = 0


class SpectralTreeError(ValueError):
    """Training trees that cannot give the moments (the message says which)."""

    user_facing = True


class Operators(NamedTuple):
    """The observable operators of steps 2-4: c_1, c_∞, E_L, E_R, K_L, K_R, d (n x k)."""

    c1: np.ndarray
    cinf: np.ndarray
    EL: np.ndarray
    ER: np.ndarray
    KL: np.ndarray
    KR: np.ndarray
    emit: np.ndarray


def _representation(v) -> str | None:
    if isinstance(v, str):  # "embeddings": what a model file holds for a (words, vectors) pair; fit refuses it
        return one_of("auto", "identity", "svd", "embeddings")(v)
    if isinstance(v, tuple) and len(v) == 2:
        return None
    return "'auto', 'identity', 'svd' or a (words, vectors) pair"


class SpectralTreeModel(Estimator):
    """The observable-operator tree model estimated by the method of moments.

    ``n_states`` — k, the number of hidden states, the dimension of the operators (default:
    the number of symbols for the identity representation, else 16); ``representation`` — U (see
    :mod:`.representation`; ``"auto"``, the default: identity for a small alphabet, else svd);
    ``ridge`` — the Tikhonov weight of the moments' inverses,
    relative to their largest singular value (module docstring; 0: pseudo-inverses);
    ``shrinkage`` — λ of S7 in the module docstring (0: consistent);
    ``floor`` — the floor of step 5, a fraction of the word's training frequency. Each of
    the last three may be ``"auto"``: chosen on held-out trees (``dev`` when given to
    ``fit``, else a seeded 20% of the training trees, ``random_state``), then refitted on
    all the training trees. ``selection`` says by what: ``"likelihood"``, the per-word
    log-likelihood of the held-out trees, or ``"ranking"``, the share of held-out trees
    scored strictly above a copy with one word re-attached (:mod:`.reattach`, one seeded
    copy per tree of at least 3 words) — for a model that ranks candidate trees, as a
    reranker's feature does. The defaults are the values the likelihood selection chose
    on EWT train (UPOS, identity U, k = 17, 20% held out); on data the model fits exactly
    (planted trees) use ``shrinkage=0``, the consistent estimator.
    Fitted: ``vocabulary_``, ``U_``, ``representation_info_``, the operators
    ``c1_, cinf_, EL_, ER_, KL_, KR_, emit_``, ``ridge_``, ``shrinkage_``, ``floor_``
    (the values used), ``frequencies_`` (per symbol, the floor's unit), ``n_events_`` (the
    arcs), ``topology_`` (:class:`~.topology.ValenceModel`), ``selection_`` (a
    ``SelectionResult``, None when nothing was chosen).
    """

    kind = "spectral_tree_model"
    _parameter_checks = {"n_states": either(one_of(None), integer(1)), "representation": _representation,
                         "floor": either(one_of("auto"), real(0, open_low=True)),
                         "ridge": either(one_of("auto"), real(0)),
                         "shrinkage": either(one_of("auto"), real(0)),
                         "selection": one_of("likelihood", "ranking"), "random_state": seed}

    def __init__(self, n_states: int | None = None, *, representation="auto", floor=0.03, ridge=0.03,
                 shrinkage=3.0, selection="likelihood", random_state=0):
        self.n_states = n_states
        self.representation = representation
        self.floor = floor
        self.ridge = ridge
        self.shrinkage = shrinkage
        self.selection = selection
        self.random_state = random_state

    def _selects(self) -> bool:
        return "auto" in (self.floor, self.ridge, self.shrinkage)

    def fit(self, corpus, dev=None) -> "SpectralTreeModel":
        """Estimate the operators from the trees of ``corpus`` (a Corpus with heads and a
        vocabulary); ``"auto"`` values are chosen on ``dev`` (else on a held-out part of
        ``corpus``, then refitted on all of it: ``selection.select_and_refit``)."""
        from threadpoolctl import threadpool_limits

        from seqspectral.selection import select_and_refit

        self._validate_params()
        if corpus.vocabulary is None:
            raise SpectralTreeError("the training corpus needs a vocabulary")
        n_symbols, vocabulary = len(corpus.vocabulary), corpus.vocabulary
        if not self._selects():
            return self.fit_statistics(spectral_tree_statistics(corpus, n_symbols), vocabulary)
        counted = {}

        def choose(fit_part, held, on):
            counted["fit"] = spectral_tree_statistics(fit_part, n_symbols)
            return self._select(counted["fit"], vocabulary, held, on)

        def refit(train, held):  # the chosen values on every training tree: the held-out trees' counts added
            self._estimate(counted["fit"] + spectral_tree_statistics(held, n_symbols), vocabulary,
                           ridge=self.ridge_, shrinkage=self.shrinkage_, floor=self.floor_)

        with threadpool_limits(limits=1, user_api="blas"):  # small matrices: threads only cost here
            self.selection_ = select_and_refit(corpus, dev, self.random_state, choose, refit)
        return self

    def fit_statistics(self, stats: SpectralTreeStatistics, vocabulary, dev=None,
                       on: str = "dev") -> "SpectralTreeModel":
        """Estimate from counted (e.g. sharded, summed) statistics over ``vocabulary``;
        ``"auto"`` values need ``dev`` trees (a Corpus encoded in ``vocabulary``)."""
        from threadpoolctl import threadpool_limits

        self._validate_params()
        with threadpool_limits(limits=1, user_api="blas"):  # small matrices: threads only cost here
            if not self._selects():
                self.selection_ = None
                return self._estimate(stats, vocabulary, ridge=self.ridge, shrinkage=self.shrinkage,
                                      floor=self.floor)
            if dev is None:
                raise SpectralTreeError("choosing ridge, shrinkage or floor ('auto') needs held-out trees")
            self.selection_ = self._select(stats, vocabulary, dev, on)
            return self

    def _select(self, stats, vocabulary, held_out, on: str):
        """Every (ridge, shrinkage, floor) scored on ``held_out`` (operators built apart,
        nothing of the estimator written) and the chosen one estimated; the SelectionResult."""
        from functools import cache

        from seqspectral.selection import TREE_FLOOR_GRID, TREE_RIDGE_GRID, TREE_SHRINKAGE_GRID, grid_search

        ridges = TREE_RIDGE_GRID if self.ridge == "auto" else (self.ridge,)
        shrinkages = TREE_SHRINKAGE_GRID if self.shrinkage == "auto" else (self.shrinkage,)
        floors = TREE_FLOOR_GRID if self.floor == "auto" else (self.floor,)
        U, info, moments = self._moments(stats, vocabulary)
        held_out = _encode(held_out, vocabulary)
        frequencies = _frequencies(stats)
        if self.selection == "ranking":
            rivals, index = reattached_copies(held_out, 1, self.random_state)
            if len(index) == 0:
                raise SpectralTreeError("choosing by ranking needs held-out trees of at least 3 words")
            layouts = tree_layout(held_out), tree_layout(rivals)

        @cache
        def scored(ridge, shrinkage):  # every floor from one pass of predictive states
            ops = operators(moments, U, stats, ridge, shrinkage, info["kind"] == "identity")
            if self.selection == "likelihood":
                per_token, _, _ = conditional_log_probs(ops, held_out, frequencies, floors)
                return [float(lp.sum() / max(held_out.n_tokens, 1)) for lp in per_token]
            per_token, per_rival = conditional_log_probs_with_copies(ops, held_out, rivals, index, frequencies,
                                                                     floors, layouts)
            return [float(np.mean(_tree_sums(gold, held_out)[index] > _tree_sums(rival, rivals)))
                    for gold, rival in zip(per_token, per_rival)]

        result = grid_search({"ridge": ridges, "shrinkage": shrinkages, "floor": floors},
                             lambda ridge, shrinkage, floor: scored(ridge, shrinkage)[floors.index(floor)], on)
        self._estimate(stats, vocabulary, **result.chosen, prepared=(U, info, moments))
        return result

    def _moments(self, stats, vocabulary):
        if stats.trees.root.sum() == 0:
            raise SpectralTreeError("the training trees have no root attachment")
        U, info = representation_matrix(self.representation, stats.trees, vocabulary, self.n_states)
        moments = {side: side_moments(stats, U, side) for side in ("left", "right")}
        if any(m is None for m in moments.values()):
            raise SpectralTreeError("the training trees have no dependent on one side; the spectral tree model "
                                    "needs both left and right dependents")
        return U, info, moments

    def _estimate(self, stats, vocabulary, ridge, shrinkage, floor, prepared=None) -> "SpectralTreeModel":
        U, info, moments = prepared or self._moments(stats, vocabulary)
        ops = operators(moments, U, stats, ridge, shrinkage, info["kind"] == "identity")
        for name, value in ops._asdict().items():
            setattr(self, name + "_", value)
        self.ridge_, self.shrinkage_, self.floor_ = float(ridge), float(shrinkage), float(floor)
        self.frequencies_ = _frequencies(stats)
        self.U_ = U
        self.representation_info_ = info
        self.n_events_ = int(stats.trees.left.sum() + stats.trees.right.sum())
        self.vocabulary_ = vocabulary
        self.topology_ = ValenceModel().fit_counts(stats.valence)
        return self

    # -- scoring -----------------------------------------------------------------------
    @property
    def operators_(self) -> Operators:
        return Operators(self.c1_, self.cinf_, self.EL_, self.ER_, self.KL_, self.KR_, self.emit_)

    def tree_scores(self, corpus) -> TreeScores:
        """log p(words | tree) of every tree of ``corpus``, with the floored and reset counts."""
        self._check_fitted()
        corpus = _encode(corpus, self.vocabulary_)
        (per_token,), (n_floored,), n_reset = conditional_log_probs(self.operators_, corpus, self.frequencies_,
                                                                    (self.floor_,))
        return TreeScores(_tree_sums(per_token, corpus), int(n_floored), corpus.n_tokens, int(n_reset))

    def log_probs(self, corpus) -> np.ndarray:
        """The per-item scorer protocol: natural-log p(words | tree) per tree, in order."""
        return self.tree_scores(corpus).log_prob

    def topology_log_probs(self, corpus) -> np.ndarray:
        """The optional topology term (per-symbol valence), one log-probability per tree."""
        self._check_fitted()
        return self.topology_.log_probs(_encode(corpus, self.vocabulary_))

    def score(self, corpus) -> float:
        """Mean log p(words | tree) per word (natural log; higher is better)."""
        return float(self.log_probs(corpus).sum() / max(corpus.n_tokens, 1))

    # -- model files -------------------------------------------------------------------
    _ARRAYS = ("c1_", "cinf_", "EL_", "ER_", "KL_", "KR_", "emit_", "frequencies_", "U_")

    def to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        self._check_fitted()
        params = self.json_params()
        if not isinstance(self.representation, str):
            params["representation"] = "embeddings"
        header = {"params": params, "ridge_": self.ridge_, "shrinkage_": self.shrinkage_,
                  "floor_": self.floor_, "representation_info": self.representation_info_,
                  "n_events": self.n_events_, "vocabulary": self.vocabulary_.to_json(),
                  "selection": None if self.selection_ is None else self.selection_.to_json()}
        arrays = {name.rstrip("_"): getattr(self, name) for name in self._ARRAYS}
        header["topology"], topo_arrays = self.topology_.to_state()
        arrays.update({f"topology/{k}": v for k, v in topo_arrays.items()})
        return header, arrays

    @classmethod
    def schema(cls, header: dict):
        from seqspectral.serialize import Member, Schema, Value, vocabulary_size

        n, d = vocabulary_size(header["vocabulary"]), "dim"
        shapes = {"c1": (d,), "cinf": (d,), "EL": (d, d), "ER": (d, d), "KL": (d, d, d), "KR": (d, d, d),
                  "emit": (n, d), "frequencies": (n,), "U": (n, d)}
        return Schema({**{name: Member("f", shape) for name, shape in shapes.items()},
                       **{"topology/stop_adjacent": Member("f", (n, 2)), "topology/stop_further": Member("f", (n, 2))}},
                      values=dict.fromkeys(("ridge_", "shrinkage_", "floor_"), Value("number")))

    @classmethod
    def from_state(cls, header: dict, arrays: dict[str, np.ndarray]) -> "SpectralTreeModel":
        from seqspectral.selection import SelectionResult
        from seqspectral.serialize import ModelFileError

        if "params" not in header or "ridge_" not in header:
            raise ModelFileError("a spectral tree model written by an earlier version ("
                                 + ("improper scores" if "params" not in header else "truncated pseudo-inverses")
                                 + "): train it again")
        params = dict(header["params"])
        if "dim" in params:  # written before the estimators shared one vocabulary
            params["n_states"] = params.pop("dim")
        random_state = params.pop("random_state")
        model = cls(**params, random_state=random_state if not isinstance(random_state, str) else 0)
        for name in cls._ARRAYS:
            setattr(model, name, np.ascontiguousarray(arrays[name.rstrip("_")]))
        model.ridge_, model.shrinkage_, model.floor_ = header["ridge_"], header["shrinkage_"], header["floor_"]
        model.representation_info_ = header["representation_info"]
        model.n_events_ = header["n_events"]
        model.vocabulary_ = Vocabulary.from_json(header["vocabulary"])
        if model.representation == "embeddings":  # the vectors themselves are not a parameter: U, row by symbol
            model.representation = (tuple(model.vocabulary_.symbols), model.U_)
        model.selection_ = None if header["selection"] is None else SelectionResult.from_json(header["selection"])
        model.topology_ = ValenceModel.from_state(
            header["topology"], {k[len("topology/"):]: v for k, v in arrays.items() if k.startswith("topology/")})
        return model


# -- estimation ------------------------------------------------------------------------------
class SideMoments(NamedTuple):
    """The moments of step 2 for one side, the context blocks [head, sibling, own word]
    side by side (own word at weight 1), each divided by the number of arcs on the side:
    P_{W,Z} (k x 3k), P_{D,Z} (k x 3k), P_{W,D,Z} (k x k x 3k, indexed [a] by the
    dependent's dimension), ν (3k) and P_{W=x,Z} (n_symbols x 3k)."""

    WZ: np.ndarray
    DZ: np.ndarray
    WDZ: np.ndarray
    nu: np.ndarray
    xZ: np.ndarray

    def weighted(self, shrinkage: float) -> "SideMoments":
        """The own-word block times λ (dropped at λ = 0)."""
        k = self.WZ.shape[0]
        if shrinkage == 0:
            return SideMoments(*(a[..., :2 * k] for a in self))
        w = np.ones(3 * k)
        w[2 * k:] = shrinkage
        return SideMoments(*(a * w for a in self))


def side_moments(stats: SpectralTreeStatistics, U, side: str) -> SideMoments | None:
    """The moments of the arcs whose dependent stands on ``side`` of its head, projected
    from the counted triples (never a table over events); None when there is no such arc."""
    arcs = (stats.trees.left if side == "left" else stats.trees.right).tocoo()  # [dependent, head]
    n_arcs = arcs.sum()
    if n_arcs == 0:
        return None
    n = stats.n_symbols
    blocks = [stats.triples(side, block) for block in ("head", "sibling")]
    blocks.append((arcs.col, arcs.row, arcs.col, arcs.data))  # the own word: (head, dependent, head)
    WZ, DZ, WDZ, nu, xZ = [], [], [], [], []
    for h, c, z, counts in blocks:
        counts = counts.astype(np.float64)
        hz = sp.csr_matrix((counts, (h, z)), shape=(n, n))
        cz = sp.csr_matrix((counts, (c, z)), shape=(n, n))
        xZ.append(np.asarray(hz @ U))
        WZ.append(U.T @ xZ[-1])
        DZ.append(U.T @ np.asarray(cz @ U))
        nu.append(np.asarray(hz.sum(axis=0)).ravel() @ U)
        WDZ.append(_triples(c, h, z, counts, U))
    return SideMoments(np.hstack(WZ) / n_arcs, np.hstack(DZ) / n_arcs, np.concatenate(WDZ, axis=2) / n_arcs,
                       np.concatenate(nu) / n_arcs, np.hstack(xZ) / n_arcs)


def operators(moments: dict, U, stats: SpectralTreeStatistics, ridge: float, shrinkage: float,
              identity: bool = False) -> Operators:
    """(S1)-(S5) and (S7) of the module docstring for one ridge and shrinkage;
    ``identity``: U is the identity representation (then d(x) = U[x], not S4)."""
    L, R = moments["left"].weighted(shrinkage), moments["right"].weighted(shrinkage)
    L_inv, R_inv = _ridge_inverse(L.WZ, ridge), _ridge_inverse(R.WZ, ridge)
    c1 = (L.nu + R.nu) @ _ridge_inverse(L.WZ + R.WZ, ridge)
    trees = stats.trees
    cinf = U.T @ trees.root / trees.root.sum()
    arcs = (trees.left + trees.right).tocsr().astype(np.float64) / max(trees.n_tokens - trees.root.sum(), 1)
    if identity:  # G holds the rows of O of the seen symbols: d(x) = O_x G^{-1} = U[x] exactly
        emit = U.copy()
    else:
        psi_t = U.T @ (arcs @ U)  # Ψ^T: dependent x head
        emit = np.hstack([arcs @ U, L.xZ, R.xZ]) @ _ridge_inverse(np.hstack([psi_t, L.WZ, R.WZ]), ridge)
    once = np.flatnonzero(trees.unigram == 1)
    emit[Vocabulary.UNK_ID] = emit[once].mean(axis=0) if len(once) else 0.0
    emit[Vocabulary.EOS_ID] = 0.0  # never a word
    c = np.ascontiguousarray
    return Operators(c(c1), c(cinf), c(L.DZ @ L_inv), c(R.DZ @ R_inv),
                     c(L.WDZ @ L_inv), c(R.WDZ @ R_inv), c(emit))


def _triples(a, b, c, counts, U) -> np.ndarray:
    """Σ_t counts_t U[a_t] ⊗ U[b_t] ⊗ U[c_t] (k x k x k) over distinct triples."""
    from seqspectral.counting._kernels import project_triples

    order = np.lexsort((c, b, a))
    return project_triples(a[order], b[order], c[order], counts[order], U, U, U, False)


def _ridge_inverse(M, ridge: float):
    """The ridge inverse of the module docstring: Mᵀ(MMᵀ + (ridge · s_max)² I)⁻¹ through the SVD;
    singular values at rounding level (as ``np.linalg.pinv`` judges them) count as zero."""
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    if not s.size or s[0] == 0:
        return np.zeros(M.T.shape)
    kept = s > max(M.shape) * np.finfo(float).eps * s[0]
    factor = np.where(kept, s / (s ** 2 + (ridge * s[0]) ** 2), 0.0)
    return (Vt.T * factor) @ U.T


def _frequencies(stats: SpectralTreeStatistics) -> np.ndarray:
    """Per symbol: training frequency (unseen symbols: one count), 0 for the end marker."""
    unigram = stats.trees.unigram
    out = np.maximum(unigram, 1) / max(int(unigram.sum()), 1)
    out[Vocabulary.EOS_ID] = 0.0
    return out


# -- scoring ---------------------------------------------------------------------------------
def conditional_log_probs(ops: Operators, corpus, frequencies, floors):
    """Per token, log p(x_i | E_i, descendants of i) (module docstring, step 5) for each
    floor of ``floors``: one pass of predictive states serves them all. Returns (list of
    per-token arrays, list of floored-node counts, reset count)."""
    states = np.empty((corpus.n_tokens, len(ops.c1)))
    n_reset = _kernels.spectral_states(corpus.symbols, corpus.offsets, *tree_layout(corpus), *_kernel_operators(ops),
                                       states)
    return (*floored_log_probs(ops, states, corpus.symbols, frequencies, floors), n_reset)


def conditional_log_probs_with_copies(ops: Operators, corpus, copies, source, frequencies, floors, layouts=None):
    """:func:`conditional_log_probs` of ``corpus`` and of ``copies`` (copy r: the words of
    sentence ``source[r]`` under other heads, ``source`` ascending, as from
    :func:`.reattach.reattached_copies`) in one pass that reuses, for each copy, the inside
    rows its sentence shares (``_kernels.spectral_states_with_copies``): the same numbers
    for a fraction of the work. ``layouts``: the two :func:`tree_layout` when known.
    Returns (per-token arrays of ``corpus``, per-token arrays of ``copies``), one per floor."""
    layout, copy_layout = layouts or (tree_layout(corpus), tree_layout(copies))
    states = np.empty((corpus.n_tokens, len(ops.c1)))
    copy_states = np.empty((copies.n_tokens, len(ops.c1)))
    _kernels.spectral_states_with_copies(corpus.symbols, corpus.offsets, *layout, copies.symbols, copies.offsets,
                                         *copy_layout, source, *_kernel_operators(ops), states, copy_states)
    return (floored_log_probs(ops, states, corpus.symbols, frequencies, floors)[0],
            floored_log_probs(ops, copy_states, copies.symbols, frequencies, floors)[0])


def _kernel_operators(ops: Operators) -> tuple:
    return ops.c1, ops.cinf, ops.EL, ops.ER, ops.KL, ops.KR, ops.emit


def floored_log_probs(ops: Operators, states, symbols, frequencies, floors):
    """Per token, the log of its own conditional (the predictive state times the
    emissions, made a distribution and floored at each of ``floors``); the floored-node
    counts (module docstring, step 5). Returns (list of per-token arrays, list of counts)."""
    units = np.array([fl * frequencies for fl in floors]).reshape(len(floors), len(frequencies))
    own, total = np.empty((len(floors), len(symbols))), np.empty((len(floors), len(symbols)))
    floored = np.zeros(len(floors), np.int64)
    step = max(1, _CHUNK_CELLS // len(ops.emit))
    emit_t = ops.emit.T
    for lo in range(0, len(symbols), step):
        rows = slice(lo, lo + step)
        q = np.maximum(states[rows] @ emit_t, 0.0)
        _kernels.floored_conditionals(q, symbols[rows], units, own[:, rows], total[:, rows], floored)
    return [np.log(own[j]) - np.log(total[j]) for j in range(len(floors))], floored.tolist()


def _tree_sums(per_token, corpus) -> np.ndarray:
    """Per tree, the sum of its tokens' values (a tree's sum alone, not a running one)."""
    sentence = np.repeat(np.arange(len(corpus)), np.diff(corpus.offsets))
    return np.bincount(sentence, weights=per_token, minlength=len(corpus))


def _encode(corpus, vocabulary):
    """``corpus`` in ``vocabulary`` (symbols it lacks become UNK)."""
    if corpus.vocabulary is None or corpus.vocabulary is vocabulary or corpus.vocabulary == vocabulary:
        return corpus
    return corpus.with_vocabulary(vocabulary)
