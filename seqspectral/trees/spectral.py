r"""Spectral estimation of the latent-variable dependency model (Dhillon, Rodu, Collins,
Foster & Ungar, EMNLP 2012, "Spectral dependency parsing with latent variables").

The model (their Eq. 2; :mod:`seqspectral.trees.planted`): hidden states h_i ∈ 1..m, π for
words attached to the root, T_L / T_R (m x m, column = the head's state) for every left /
right dependent — each drawn independently of its siblings, so a word may have any number
of dependents on each side, or none — and O (n x m) for the words. The number scored is
**p(words | tree topology)**: the heads and the word order are given, not generated (the
optional :mod:`topology <seqspectral.trees.topology>` term scores them separately).

Notation. U (n x k, k = m) projects words (:mod:`.representation`); G = U^T O (k x m),
assumed invertible. Over a set of events E, q_E(h) is the average hidden-state
distribution of the event's node (it differs between nodes: a tree is not stationary).

1. Three views of a state (the paper's Sec. 3.2). Given the state h of a word i, its own
   word, any one of its left dependents' words and any one of its right dependents'
   words are independent, with projected means (Eq. 1a-c)

       E[U^T e_{x_i} | h] = G e_h,   E[U^T e_{x_l} | h] = G T_L e_h,   E[U^T e_{x_r} | h] = G T_R e_h.

   This holds for *every* left (right) dependent, not only the nearest, since siblings are
   drawn independently. We use the event set E_LR = {words with at least one left and one
   right dependent}, one event per such word, with its **nearest** left and nearest right
   dependent (``TreeStatistics.trigram`` without the stop symbol); words with no dependent
   on a side do not enter these moments (they carry no view of that side).

2. Moments over E_LR (all divided by |E_LR|; projected counts of ``tree_statistics``):

       A      = P_{p,r} = G diag(q) (G T_R)^T                       (head x right)
       B      = P_{p,l} = G diag(q) (G T_L)^T                       (head x left)
       P_{l,r}         = G T_L diag(q) (G T_R)^T
       T[a, :, :]      = P_{p, l=a, r} = G diag(q ∘ (G T_L)_{a,:}) (G T_R)^T
       T[:, b, :]      = P_{l, p=b, r} = G T_L diag(q ∘ G_{b,:}) (G T_R)^T
       ν_r             = G T_R q     (the right dependents' mean projected word)

   (T is the projected trigram T[a, b, c] over (left, head, right).) Every operator
   below is a ratio of two of them, so the unknown q cancels:

       K_L[a] = T[a, :, :] A^{-1}           = G diag((G T_L)_{a,:}) G^{-1}        (Eq. 3a)
       K_R[c] = T[:, :, c]^T B^{-1}          = G diag((G T_R)_{c,:}) G^{-1}        (Eq. 3b)
       K_P[b] = A P_{l,r}^{-1} T[:, b, :] A^{-1} = G diag(G_{b,:}) G^{-1}          (Eq. 3c)
       c_1^T  = ν_r^T A^{-1}                 = 1^T G^{-1}                          (Eq. 3d)

   (A P_{l,r}^{-1} = G (G T_L)^{-1} changes the basis G T_L of the ratio
   P_{l,p=b,r} P_{l,r}^{-1} to G.) E_d[a, :] = c_1^T K_d[a] = G T_d G^{-1} (Eq. 3e).

3. Emissions from all arcs (the paper's Ψ_L, Ψ_R). Over all arcs (both sides) with head
   word p and dependent word c, let M = Σ_arcs G diag(q_head) T_d^T (k x m). Then
   Ψ = E[U^T e_p (U^T e_c)^T] = M G^T and φ_x = E[U^T e_p 1{c = x}] = M O_x^T, so

       d(x) = Ψ^{-1} φ_x = G^{-T} O_{x,:}^T                                        (Eq. 3f)

   for every word seen as a dependent, whatever its heads — the arc statistics that
   reach rare words. The word operator is D(x) = Σ_b d(x)_b K_P[b] = G diag(O_x) G^{-1}
   (Eq. 3g), and Σ_x D(x) = I. The root vector c_∞ = G π = E[U^T e_{x_r}] over root
   attachments (Eq. 3h). Unknown symbols (UNK) get the mean d(x) of the words seen once.

4. Scoring (the paper's Eq. 4-5 and Algorithm 1). Write β_i(h) = p(words of the subtree
   of i | h_i = h), so β_i = O_{x_i} ∘ Π_c u_c with the dependent's message
   u_c = T_{d(c)}^T β_c. In the coordinates b_i = (G^{-T} β_i)^T,
   u_c ∘ f  ↦  Σ_a b_c[a] K_{d(c)}[a] and O_x ∘ f ↦ D(x), both acting on the row vector
   of f, and the constant function 1 is c_1. Hence, bottom-up (dependents in sentence
   order, left ones first, then the word):

       v = b_{c_1} E_{d(c_1)};   v ← Σ_a b_{c_j}[a] v K_{d(c_j)}[a] (j ≥ 2);   b_i = v D(x_i)

   (a leaf: b_i = c_1 D(x_i)), and p(x | τ) = Π_{root attachments r} b_r c_∞ (Eq. 5).

5. Rescaling and the floor rule. Each b_i is divided by ρ_i = b_i w_i, w_i = G π_i the
   marginal of node i's state (w = c_∞ at a root, w_c = E_{d(c)} w_head below), so
   log p(x | τ) = Σ_i log ρ_i with no underflow. For the exact model
   ρ_i = p(subtree_i) / Π_c p(subtree_c) > 0; an estimate can make it ≤ 0 or tiny: a
   ρ_i below ``floor`` times the training frequency of x_i (NaN included) is replaced by
   that value, the node passes up c_1 (its subtree then tells its head nothing, as if
   marginalised out), and the node is counted (``TreeScores.n_floored``). No whole-tree
   floor.

Costs: k^2 per arc for the first dependent of a word, k^3 for every further dependent and
for the word of an internal node; one pass over the corpus, Numba, no Python per node.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from seqspectral.base import Estimator, NotFittedError, either, integer, one_of, real
from seqspectral.corpus.vocabulary import Vocabulary

from . import _kernels
from .layout import tree_layout
from .representation import representation_matrix
from .topology import ValenceModel

STOP = Vocabulary.EOS_ID  # "no dependent on this side" in TreeStatistics.trigram


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
    docstring. Fitted: ``vocabulary_``, ``U_``, ``representation_info_``, the operators
    ``c1_, cinf_, EL_, ER_, KL_, KR_, KP_, emit_, leaf_``, ``floor_`` (per symbol),
    ``n_events_`` (|E_LR|), ``topology_`` (:class:`~.topology.ValenceModel`).
    """

    kind = "spectral_tree_model"
    _parameter_checks = {"dim": either(one_of(None), integer(1)), "representation": _representation,
                         "floor": real(0, open_low=True)}

    def __init__(self, dim: int | None = None, *, representation="svd", floor: float = 1e-3):
        self.dim = dim
        self.representation = representation
        self.floor = floor

    def fit(self, corpus) -> "SpectralTreeModel":
        """Estimate the operators from the trees of ``corpus`` (a Corpus with heads)."""
        from seqspectral.counting.trees import tree_statistics

        if corpus.vocabulary is None:
            raise SpectralTreeError("the training corpus needs a vocabulary")
        tree_layout(corpus)  # a clear error for anything that is not a tree
        self.fit_statistics(tree_statistics(corpus, n_symbols=len(corpus.vocabulary)), corpus.vocabulary)
        self.topology_ = ValenceModel().fit(corpus)
        return self

    def fit_statistics(self, stats, vocabulary) -> "SpectralTreeModel":
        """Estimate the operators from tree statistics (``counting.tree_statistics``, e.g.
        merged over shards) over ``vocabulary``'s ids; no topology term."""
        from seqspectral.counting.trees import TreeStatistics

        self._validate_params()
        self.__dict__.pop("topology_", None)  # a topology term belongs to a fit from trees
        U, info = representation_matrix(self.representation, stats, vocabulary, self.dim)
        l, p, r, c = stats.trigram
        both = (l != STOP) & (r != STOP)
        n_events = int(c[both].sum())
        if n_events == 0:
            raise SpectralTreeError("no word of the training trees has both a left and a right dependent; "
                                    "the spectral tree model needs such words")
        n = stats.n_symbols
        codes = (l[both] * n + p[both]) * n + r[both]
        events = TreeStatistics(n, stats.unigram, stats.root, stats.left, stats.right, codes, c[both], 0)
        w = c[both].astype(np.float64) / n_events
        T = events.trigram_projected(U) / n_events
        A = _pair(U, p[both], r[both], w)
        B = _pair(U, p[both], l[both], w)
        P_lr = _pair(U, l[both], r[both], w)
        nu_r = U[r[both]].T @ w
        A_inv, B_inv = np.linalg.pinv(A), np.linalg.pinv(B)
        self.KL_ = np.ascontiguousarray(T @ A_inv)
        self.KR_ = np.ascontiguousarray(np.transpose(T, (2, 1, 0)) @ B_inv)
        self.KP_ = np.ascontiguousarray(A @ np.linalg.pinv(P_lr) @ np.transpose(T, (1, 0, 2)) @ A_inv)
        self.c1_ = nu_r @ A_inv
        self.EL_ = np.ascontiguousarray(np.einsum("e,aec->ac", self.c1_, self.KL_))
        self.ER_ = np.ascontiguousarray(np.einsum("e,aec->ac", self.c1_, self.KR_))
        self.leaf_ = np.ascontiguousarray(np.einsum("e,aec->ac", self.c1_, self.KP_))
        if stats.root.sum() == 0:
            raise SpectralTreeError("the training trees have no root attachment")
        self.cinf_ = U.T @ stats.root / stats.root.sum()
        arcs = (stats.left + stats.right).tocsr().astype(np.float64)
        psi = U.T @ (arcs.T @ U)  # head x dependent
        emit = np.asarray(arcs @ U) @ np.linalg.pinv(psi).T
        once = np.flatnonzero(stats.unigram == 1)
        emit[Vocabulary.UNK_ID] = emit[once].mean(axis=0) if len(once) else 0.0
        self.emit_ = np.ascontiguousarray(emit)
        self.floor_ = self.floor * np.maximum(stats.unigram, 1) / max(stats.n_tokens, 1)
        self.U_ = U
        self.representation_info_ = info
        self.n_events_ = n_events
        self.vocabulary_ = vocabulary
        return self

    # -- scoring -----------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "KP_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit first")

    def tree_scores(self, corpus) -> TreeScores:
        """log p(words | tree) of every tree of ``corpus`` with the floored-node count."""
        self._check_fitted()
        corpus = _encode(corpus, self.vocabulary_)
        lay = tree_layout(corpus)
        out = np.empty(len(corpus))
        n_floored = _kernels.spectral_inside(
            corpus.symbols, corpus.offsets, *lay, self.c1_, self.cinf_, self.EL_, self.ER_, self.KL_,
            self.KR_, self.KP_, self.emit_, self.leaf_, self.floor_, out)
        return TreeScores(out, int(n_floored), corpus.n_tokens)

    def log_probs(self, corpus) -> np.ndarray:
        """The per-item scorer protocol: natural-log p(words | tree) per tree, in order."""
        return self.tree_scores(corpus).log_prob

    def topology_log_probs(self, corpus) -> np.ndarray:
        """The optional topology term (per-symbol valence), one log-probability per tree."""
        self._check_fitted()
        if not hasattr(self, "topology_"):
            raise NotFittedError("this model was fitted from statistics alone: it has no topology term")
        return self.topology_.log_probs(_encode(corpus, self.vocabulary_))

    def score(self, corpus) -> float:
        """Mean log p(words | tree) per word (natural log; higher is better)."""
        return float(self.log_probs(corpus).sum() / max(corpus.n_tokens, 1))

    # -- model files -------------------------------------------------------------------
    _ARRAYS = ("c1_", "cinf_", "EL_", "ER_", "KL_", "KR_", "KP_", "emit_", "leaf_", "floor_", "U_")

    def to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        self._check_fitted()
        representation = self.representation if isinstance(self.representation, str) else "embeddings"
        header = {"dim": self.dim, "representation": representation, "floor": self.floor,
                  "representation_info": self.representation_info_, "n_events": self.n_events_,
                  "vocabulary": self.vocabulary_.to_json(), "reading": getattr(self, "reading_", None)}
        arrays = {name.rstrip("_"): getattr(self, name) for name in self._ARRAYS}
        if hasattr(self, "topology_"):
            header["topology"], topo_arrays = self.topology_.to_state()
            arrays.update({f"topology/{k}": v for k, v in topo_arrays.items()})
        return header, arrays

    @classmethod
    def from_state(cls, header: dict, arrays: dict[str, np.ndarray]) -> "SpectralTreeModel":
        representation = header["representation"]
        model = cls(header["dim"], representation=representation, floor=header["floor"])
        for name in cls._ARRAYS:
            setattr(model, name, np.ascontiguousarray(arrays[name.rstrip("_")]))
        model.representation_info_ = header["representation_info"]
        model.n_events_ = header["n_events"]
        model.vocabulary_ = Vocabulary.from_json(header["vocabulary"])
        model.reading_ = header.get("reading")
        if "topology" in header:
            model.topology_ = ValenceModel.from_state(
                header["topology"], {k[len("topology/"):]: v for k, v in arrays.items() if k.startswith("topology/")})
        return model


def _pair(U, x, y, weight) -> np.ndarray:
    """Σ_t weight[t] U[x_t] U[y_t]^T (k x k)."""
    return (U[x] * weight[:, None]).T @ U[y]


def _encode(corpus, vocabulary):
    """``corpus`` in ``vocabulary`` (symbols it lacks become UNK)."""
    if corpus.vocabulary is None or corpus.vocabulary is vocabulary or corpus.vocabulary == vocabulary:
        return corpus
    return corpus.with_vocabulary(vocabulary)
