r"""Spectral estimation of the latent-variable dependency model (Dhillon, Rodu, Collins,
Foster & Ungar, EMNLP 2012, "Spectral dependency parsing with latent variables").

The model (their Eq. 2; :mod:`seqspectral.trees.planted`): hidden states h_i ∈ 1..m, π for
words attached to the root, T_L / T_R (m x m, column = the head's state) for every left /
right dependent — each drawn independently of its siblings, so a word may have any number
of dependents on each side, or none — and O (n x m) for the words. The number scored is
**p(words | tree topology)**: heads and word order are given, not generated (the optional
:mod:`topology <seqspectral.trees.topology>` term scores them separately).

Notation. U (n x k, k = m) projects words (:mod:`.representation`; the paper's Sec. 3.2);
G = U^T O (k x m), assumed invertible; ⁺ is the pseudo-inverse (singular values below
``tolerance`` times the largest dropped: a regulariser for data the model fits only
approximately; it leaves well-conditioned planted moments untouched). The labels S1-S6
are this module's; the paper's §3.3 operators c₁, c_∞, E_L, E_R and D(y) are, as we read
them, our c_1, c_∞, E_L, E_R and the products with K_d and d(x) of step 4.

1. Views of a state. Given the state h of word i, these are independent:
   W, its own word, with E[U^T e_{x_i} | h] = G e_h;
   D_d, any one of its dependents on side d ∈ {L, R}, with E[U^T e_{x_c} | h] = G T_d e_h
   (every dependent, not only the nearest: siblings are drawn independently);
   Z_d, its context for side d: the 2k-vector [U^T e_{head word of i}; U^T e_{nearest
   dependent of i on the other side}], a zero block where there is none. The law of Z_d
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

3. Emissions from every occurrence. As a dependent, with its head as the context: over
   all arcs (head word p, dependent word c), J = Σ_arcs E[e_{h_head} e_{h_dep}^T],
   Ψ = Σ U^T e_p (U^T e_c)^T = G J G^T (the paper's Ψ_L + Ψ_R, as we read it) and
   φ_x = Σ U^T e_p 1{c = x} = G J O_{x,:}^T, so φ_x^T = d(x) Ψ^T with
   d(x) = O_{x,:} G^{-1}, the row of the function O_x. As a head, with the context of
   step 2: P^d_{W=x,Z} = Σ_{events with x_i = x} z^T = O_{x,:} M_d^T = d(x) P^d_{W,Z}.
   All three hold at once, so

       d(x) = [φ_x^T, P^L_{W=x,Z}, P^R_{W=x,Z}] [Ψ^T, P^L_{W,Z}, P^R_{W,Z}]⁺             (S4)

   (least squares over every occurrence of x; each block divided by its number of
   events). The root vector is c_∞ = G π = the mean U^T e_x over root attachments
   (S5). UNK gets the mean d(x) of the words seen once (a shared unknown vector).

4. Scoring (the paper's Eq. 4-5 and Algorithm 1). Let β_i(h) = p(words of the subtree of
   i | h_i = h): β_i = O_{x_i} ∘ Π_c u_c with the dependent's message u_c = T_{d(c)}^T β_c.
   Represent a function f of the state by the row f^T G^{-1}: then O_x is d(x), the
   constant 1 is c_1, and multiplying by u_c is v ↦ Σ_a b_c[a] v K_{d(c)}[a] where b_c
   represents β_c. Hence, bottom-up, dependents in sentence order:

       v = d(x_i);   v ← Σ_a b_c[a] v K_{d(c)}[a] for every dependent c;   b_i = v,

   and p(x | τ) = Π_{root attachments r} b_r c_∞ (S6).

5. Rescaling and the floor rule. Each b_i is divided by ρ_i = b_i w_i, w_i = G π_i the
   marginal of node i's state (w = c_∞ at a root, w_c = E_{d(c)} w_head below), so
   log p(x | τ) = Σ_i log ρ_i without underflow. For the exact model
   ρ_i = p(subtree_i) / Π_c p(subtree_c) > 0; an estimate can make it ≤ 0 or tiny: a ρ_i
   below ``floor`` times the training frequency of x_i (NaN included) is replaced by that
   value, the node passes up c_1 (its subtree then tells its head nothing, as if
   marginalised out), and it is counted (``TreeScores.n_floored``). No whole-tree floor.

Costs: scoring k^3 per arc, one Numba pass over the whole corpus. Training: counts of the
distinct symbol pairs and triples (head, dependent, context word) projected by U
(``counting``'s ``project_triples``), a few k x 2k pseudo-inverses and one n x 5k product.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from seqspectral.base import Estimator, NotFittedError, either, integer, one_of, real
from seqspectral.corpus.vocabulary import Vocabulary

from . import _kernels
from .layout import tree_layout
from .representation import representation_matrix
from .topology import ValenceModel


class TreeScores(NamedTuple):
    """Natural-log p(words | tree) per tree, and the floored nodes among ``n_nodes``."""

    log_prob: np.ndarray
    n_floored: int
    n_nodes: int


class SpectralTreeError(ValueError):
    """Training trees that cannot give the moments (the message says which)."""

    user_facing = True


def _representation(v) -> str | None:
    if isinstance(v, str):
        return one_of("identity", "svd")(v)
    if isinstance(v, tuple) and len(v) == 2:
        return None
    return "'identity', 'svd' or a (words, vectors) pair"


class SpectralTreeModel(Estimator):
    """The observable-operator tree model estimated by the method of moments.

    ``dim`` — k, the number of hidden dimensions (default: the number of symbols for the
    identity representation, else 16); ``representation`` — U (see
    :mod:`.representation`); ``floor`` — the floor factor of rule 5 of the module
    docstring; ``tolerance`` — singular values of the moments inverted (P_{W,Z}, Ψ) below
    this fraction of the largest are dropped from their pseudo-inverses: 0 is the plain
    estimator; the default 0.1 regularises real treebanks, which the model fits only
    approximately (on EWT UPOS, dev: floored node factors 34% -> 1.1%, gold tree above a
    re-attached copy 47% -> 87%); planted models with well-conditioned moments are
    unaffected.
    Fitted: ``vocabulary_``, ``U_``, ``representation_info_``, the operators
    ``c1_, cinf_, EL_, ER_, KL_, KR_, emit_``, ``floor_`` (per symbol), ``n_events_``
    (the arcs), ``topology_`` (:class:`~.topology.ValenceModel`).
    """

    kind = "spectral_tree_model"
    _parameter_checks = {"dim": either(one_of(None), integer(1)), "representation": _representation,
                         "floor": real(0, open_low=True), "tolerance": real(0, 1, open_high=True)}

    def __init__(self, dim: int | None = None, *, representation="svd", floor: float = 1e-3,
                 tolerance: float = 0.1):
        self.dim = dim
        self.representation = representation
        self.floor = floor
        self.tolerance = tolerance

    def fit(self, corpus) -> "SpectralTreeModel":
        """Estimate the operators from the trees of ``corpus`` (a Corpus with heads)."""
        from seqspectral.counting.trees import tree_statistics

        self._validate_params()
        if corpus.vocabulary is None:
            raise SpectralTreeError("the training corpus needs a vocabulary")
        lay = tree_layout(corpus)
        stats = tree_statistics(corpus, n_symbols=len(corpus.vocabulary))
        if stats.root.sum() == 0:
            raise SpectralTreeError("the training trees have no root attachment")
        U, info = representation_matrix(self.representation, stats, corpus.vocabulary, self.dim)
        moments = {side: side_moments(corpus, lay, U, side) for side in (1, 0)}  # left, right
        if any(m is None for m in moments.values()):
            raise SpectralTreeError("the training trees have no dependent on one side; the spectral tree model "
                                    "needs both left and right dependents")
        (WZ_L, DZ_L, T_L, nu_L, xZ_L), (WZ_R, DZ_R, T_R, nu_R, xZ_R) = moments[1], moments[0]
        WZ_L_inv, WZ_R_inv = _pinv(WZ_L, self.tolerance), _pinv(WZ_R, self.tolerance)
        self.KL_ = np.ascontiguousarray(T_L @ WZ_L_inv)
        self.KR_ = np.ascontiguousarray(T_R @ WZ_R_inv)
        self.EL_ = np.ascontiguousarray(DZ_L @ WZ_L_inv)
        self.ER_ = np.ascontiguousarray(DZ_R @ WZ_R_inv)
        self.c1_ = (nu_L + nu_R) @ _pinv(WZ_L + WZ_R, self.tolerance)
        self.cinf_ = U.T @ stats.root / stats.root.sum()
        arcs = (stats.left + stats.right).tocsr().astype(np.float64) / max(stats.n_tokens - stats.root.sum(), 1)
        psi_t = U.T @ (arcs @ U)  # Ψ^T: dependent x head
        emit = np.hstack([arcs @ U, xZ_L, xZ_R]) @ _pinv(np.hstack([psi_t, WZ_L, WZ_R]), self.tolerance)
        once = np.flatnonzero(stats.unigram == 1)
        emit[Vocabulary.UNK_ID] = emit[once].mean(axis=0) if len(once) else 0.0
        self.emit_ = np.ascontiguousarray(emit)
        self.floor_ = self.floor * np.maximum(stats.unigram, 1) / max(stats.n_tokens, 1)
        self.U_ = U
        self.representation_info_ = info
        self.n_events_ = int(stats.left.sum() + stats.right.sum())
        self.vocabulary_ = corpus.vocabulary
        self.topology_ = ValenceModel().fit(corpus)
        return self

    # -- scoring -----------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "KL_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit first")

    def tree_scores(self, corpus) -> TreeScores:
        """log p(words | tree) of every tree of ``corpus`` with the floored-node count."""
        self._check_fitted()
        corpus = _encode(corpus, self.vocabulary_)
        lay = tree_layout(corpus)
        out = np.empty(len(corpus))
        n_floored = _kernels.spectral_inside(
            corpus.symbols, corpus.offsets, *lay, self.c1_, self.cinf_, self.EL_, self.ER_, self.KL_,
            self.KR_, self.emit_, self.floor_, out)
        return TreeScores(out, int(n_floored), corpus.n_tokens)

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
    _ARRAYS = ("c1_", "cinf_", "EL_", "ER_", "KL_", "KR_", "emit_", "floor_", "U_")

    def to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        self._check_fitted()
        representation = self.representation if isinstance(self.representation, str) else "embeddings"
        header = {"dim": self.dim, "representation": representation, "floor": self.floor, "tolerance": self.tolerance,
                  "representation_info": self.representation_info_, "n_events": self.n_events_,
                  "vocabulary": self.vocabulary_.to_json(), "reading": getattr(self, "reading_", None)}
        arrays = {name.rstrip("_"): getattr(self, name) for name in self._ARRAYS}
        header["topology"], topo_arrays = self.topology_.to_state()
        arrays.update({f"topology/{k}": v for k, v in topo_arrays.items()})
        return header, arrays

    @classmethod
    def from_state(cls, header: dict, arrays: dict[str, np.ndarray]) -> "SpectralTreeModel":
        representation = header["representation"]
        model = cls(header["dim"], representation=representation, floor=header["floor"],
                    tolerance=header["tolerance"])
        for name in cls._ARRAYS:
            setattr(model, name, np.ascontiguousarray(arrays[name.rstrip("_")]))
        model.representation_info_ = header["representation_info"]
        model.n_events_ = header["n_events"]
        model.vocabulary_ = Vocabulary.from_json(header["vocabulary"])
        model.reading_ = header.get("reading")
        model.topology_ = ValenceModel.from_state(
            header["topology"], {k[len("topology/"):]: v for k, v in arrays.items() if k.startswith("topology/")})
        return model


def side_moments(corpus, lay, U, side: int):
    """(P_{W,Z}, P_{D,Z}, P_{W,D,Z} as k x k x 2k indexed [a, :, :] by the dependent's
    dimension, ν, P_{W=x,Z} as n_symbols x 2k) over the arcs whose dependent stands on
    ``side`` (1 left, 0 right) of its head, each divided by the number of arcs (module
    docstring, steps 2-3); None when there is no such arc. The two blocks of Z (the head's
    head, the head's nearest dependent on the other side) are projected separately from
    counts of symbol pairs and triples, never from a table over events."""
    from seqspectral.counting._kernels import tree_links

    _, near_left, near_right, _ = tree_links(corpus.heads, corpus.offsets)
    dep = np.flatnonzero((lay.parent >= 0) & (lay.is_left == side))
    if len(dep) == 0:
        return None
    x = corpus.symbols.astype(np.int64)
    head = lay.parent[dep]
    blocks = [lay.parent[head], (near_right if side == 1 else near_left)[head]]  # the context words, -1: none
    P_WZ, P_DZ, P_WDZ, nu, P_xZ = [], [], [], [], []
    for ctx in blocks:
        has = ctx >= 0
        h, d, c = x[head[has]], x[dep[has]], x[ctx[has]]
        P_WZ.append(U.T @ (_counts(h, c, len(U)) @ U))
        P_DZ.append(U.T @ (_counts(d, c, len(U)) @ U))
        P_WDZ.append(_triples(d, h, c, U))
        nu.append(U[c].sum(axis=0))
        P_xZ.append(np.asarray(_counts(h, c, len(U)) @ U))
    n = len(dep)
    return (np.hstack(P_WZ) / n, np.hstack(P_DZ) / n, np.concatenate(P_WDZ, axis=2) / n, np.concatenate(nu) / n,
            np.hstack(P_xZ) / n)


def _counts(a, b, n: int) -> sp.csr_matrix:
    """n x n counts of the pairs (a[t], b[t])."""
    return sp.csr_matrix((np.ones(len(a)), (a, b)), shape=(n, n))


def _triples(a, b, c, U) -> np.ndarray:
    """Σ_t U[a_t] ⊗ U[b_t] ⊗ U[c_t] (k x k x k), from the distinct triples and their counts."""
    from seqspectral.counting._kernels import project_triples

    n = len(U)
    codes, counts = np.unique((a * n + b) * n + c, return_counts=True)  # sorted by (a, b)
    ab, cc = np.divmod(codes, n)
    aa, bb = np.divmod(ab, n)
    return project_triples(aa, bb, cc, counts.astype(np.float64), U, U, U, False)


def _pinv(M, tolerance: float):
    """Pseudo-inverse ignoring singular values below ``tolerance`` times the largest."""
    return np.linalg.pinv(M, rcond=tolerance)


def _encode(corpus, vocabulary):
    """``corpus`` in ``vocabulary`` (symbols it lacks become UNK)."""
    if corpus.vocabulary is None or corpus.vocabulary is vocabulary or corpus.vocabulary == vocabulary:
        return corpus
    return corpus.with_vocabulary(vocabulary)
