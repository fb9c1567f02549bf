"""HMMs by tensor decomposition on a prefix/suffix basis (Balle, Hamilton & Pineau 2014, §3.3).

With the HMM of ``hmm.py`` (A_σ = D_σ T), the Hankel blocks factor through the hidden
state that emits the middle symbol: for prefix p, symbol σ and suffix s,

    H_σ[p, s] = Σ_h a_h(p) O[σ, h] c_h(s),     a_h(p) = (α0ᵀ A_p)_h,  c_h(s) = (T β_s)_h,

a three-view model (prefix, symbol, suffix) whose middle view carries O. The four stages:

1. Hankel blocks H, H_σ (the P×Σ×S tensor, never formed densely) and their pair
   marginals M21[σ, p] = Σ_s H_σ[p, s], M23[σ, s] = Σ_p H_σ[p, s], H̄ = Σ_σ H_σ.
2. Symmetrisation onto the symbol view (Anandkumar et al. 2014, §3.3): R1 = M23 H̄⁺,
   R3 = M21 (H̄ᵀ)⁺, M2 = R1 M21ᵀ = O diag(w) Oᵀ, and whitening of M2.
3. The robust tensor power method on the whitened k×k×k tensor M3(WᵀR1, W, WᵀR3) gives
   the columns of O up to scale (normalised to sum 1: emissions given no stop); optionally
   refined by alternating least squares on the whole tensor (``n_refine``).
4. From the prefix view Ã = M21ᵀ (Oᵀ)⁺ = A diag(1/e): e = Ã⁺ H[:, ε] (as H[:, ε] = A 1),
   stop = 1 − Ã⁺ H̄[:, ε] / e (as H̄[:, ε] = A (1 − stop)) and α_ε = Ã[ε] ⊙ e; from the
   suffix view C ∝ M23ᵀ (Oᵀ)⁺, scaled so that C[ε] = 1: T by least squares from
   C[τs'] = T (O[τ] ⊙ C[s']) over the suffixes τs' whose tail s' is in the basis.
   Every distribution (π, rows of T, each state's emissions with its stop probability) is
   then projected onto the simplex (Duchi et al. 2008).

It uses the prefix statistic f^p(x) = P(string starts with x), for which β_ε = 1 and
α_ε = π, or the substring statistic f^s(x) = expected occurrences of x, which is f^p with
α0ᵀ replaced by ᾱᵀ = α0ᵀ (I − A)⁻¹ (Balle, Carreras, Luque & Quattoni 2014): the same O,
T and stop, from every position of every string, and π = ᾱ − ((1 − stop) ⊙ ᾱ)ᵀ T, as
A = diag(1 − stop) T.
"""

from __future__ import annotations

import numpy as np

from ..base import Estimator
from ..linalg import project_simplex, robust_tensor_power, whitening
from ..metrics import LanguageModelMixin
from .hmm import EOS, HMM

REFINE_TOL = 1e-6


class TensorHMM(Estimator, LanguageModelMixin):
    """HMM learned by the tensor method of moments. Requires ``n_states <= |Σ|``.

    Parameters
    ----------
    n_states : number of hidden states k (at most the alphabet size: O must have rank k), or
        "auto": chosen among ``hmm_selection.GRID`` up to ``max_states`` and the alphabet size
        by the mean log-likelihood of a held-out ``validation_fraction`` (statistics counted
        once on the rest), then refitted on the whole corpus.
    statistic : "substring" (every position: on planted HMMs with 10^5 strings its errors
        of O and T were 1.5-4 times smaller than the prefix statistic's) or "prefix" (the
        strings' beginnings only).
    basis : a ``HankelBasis`` (empty string first in P and S) or None for the most frequent
        prefixes/suffixes of the statistic in the training corpus (``n_prefixes``,
        ``n_suffixes``, ``max_length``).
    n_starts, n_iter : L and N of the robust tensor power method.
    n_refine : at most this many alternating-least-squares sweeps refining O on the whole
        P×Σ×S tensor after the power method (0: the plain method of §3.3). On planted HMMs
        with 10^5 strings it cuts the error of O by about a third and that of T by half.
    random_state : seed of the tensor power method's random starts (and of the held-out split).
    floor : the language-model floor of the fitted ``HMM`` (see ``HMM``); "auto" chooses it
        among ``hmm_selection.FLOORS`` with the number of states (1e-6 with a fixed n_states).

    Attributes: ``model_`` (an ``HMM``), ``weights_`` (the tensor eigenvalues), ``n_refine_``
    (refinement sweeps run).
    """

    def __init__(self, n_states: int = 5, statistic: str = "substring", basis=None, n_prefixes: int = 200,
                 n_suffixes: int = 200, max_length: int = 3, n_starts: int = 20, n_iter: int = 100,
                 n_refine: int = 300, random_state=None, floor="auto", max_states: int = 20,
                 validation_fraction: float = 0.2):
        self.n_states = n_states
        self.statistic = statistic
        self.basis = basis
        self.n_prefixes = n_prefixes
        self.n_suffixes = n_suffixes
        self.max_length = max_length
        self.n_starts = n_starts
        self.n_iter = n_iter
        self.n_refine = n_refine
        self.random_state = random_state
        self.floor = floor
        self.max_states = max_states
        self.validation_fraction = validation_fraction

    def statistics(self, corpus):
        """The Hankel statistics this estimator uses (counted once, reusable with ``fit_statistics``)."""
        from ..counting import HankelBasis, hankel_statistics

        basis = self.basis
        if basis is None:
            basis = HankelBasis.from_corpus(corpus, self.statistic, self.n_prefixes, self.n_suffixes, self.max_length)
        return hankel_statistics(corpus, basis, self.statistic)

    def fit(self, corpus) -> "TensorHMM":
        self.selection_scores_ = None
        if self.n_states != "auto":
            return self.fit_statistics(self.statistics(corpus), corpus.vocabulary)
        from functools import cache

        from .hmm_selection import FLOORS, candidate_states, resolve_floor, select_n_states

        count, params = cache(self.statistics), self.get_params(deep=False)  # the fit part is counted once

        def fit_k(k, part):
            return type(self)(**{**params, "n_states": k}).fit_statistics(count(part), part.vocabulary)

        k, floor, scores = select_n_states(fit_k, corpus, candidate_states(self.max_states, len(np.unique(corpus.symbols))),
                                           self.validation_fraction, self.random_state,
                                           FLOORS if self.floor == "auto" else (resolve_floor(self.floor),))
        self.fit_statistics(self.statistics(corpus), corpus.vocabulary, n_states=k)
        self.model_.floor = self.floor_ = floor
        self.selection_scores_ = scores
        return self

    def fit_statistics(self, stats, vocabulary=None, n_states: int | None = None) -> "TensorHMM":
        """Fit from prefix or substring ``HankelStatistics`` (basis with () first); ``vocabulary`` sizes the
        model; ``n_states`` overrides the hyper-parameter (used by "auto")."""
        basis, k = stats.basis, self.n_states if n_states is None else n_states
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"n_states must be a positive integer or 'auto', got {k!r}")
        alphabet = basis.alphabet
        if np.any(alphabet == EOS):
            raise ValueError("the basis alphabet must not contain EOS (id 1): stopping is not a symbol")
        if k > len(alphabet):
            raise ValueError(f"TensorHMM needs n_states <= alphabet size: {k} states for {len(alphabet)} symbols "
                             "(the emission matrix must have rank n_states)")
        if basis.prefixes[0] != () or basis.suffixes[0] != ():
            raise ValueError("the basis must have the empty string first among prefixes and suffixes")
        if min(basis.n_prefixes, basis.n_suffixes) < k:
            raise ValueError(f"the basis has {basis.n_prefixes}x{basis.n_suffixes} entries, fewer than {k} states")
        if stats.statistic not in ("prefix", "substring"):
            raise ValueError(f"TensorHMM works on prefix or substring statistics, got {stats.statistic!r}")
        blocks = _Blocks(stats)
        O, self.weights_ = _emissions(blocks, k, self.n_starts, self.n_iter, self.random_state)
        O, self.n_refine_ = _refine(blocks, O, self.n_refine, REFINE_TOL)
        initial, trans, emissions, stop = _other_parameters(blocks, O, basis, alphabet, stats.statistic)
        n_symbols = len(vocabulary) if vocabulary is not None else int(alphabet.max()) + 1
        full = np.zeros((k, n_symbols))
        full[:, alphabet] = emissions
        from .hmm_selection import resolve_floor

        self.n_states_, self.floor_ = int(k), resolve_floor(self.floor)
        self.model_ = HMM(initial, trans, full, stop, vocabulary, self.floor_)
        return self

    def event_log_probs(self, corpus):
        return self.model_.event_log_probs(corpus)

    def sequence_log_probs(self, corpus):
        return self.model_.sequence_log_probs(corpus)


class _Blocks:
    """Stage 1: the dense Hankel pieces the method reads (H, H̄ = Σ_σ H_σ, M21, M23) and the H_σ."""

    def __init__(self, stats):
        self.H = stats.H.toarray()
        self.Hs = stats.H_sigma
        self.Hbar = sum(self.Hs).toarray()
        self.M21 = np.stack([np.asarray(h.sum(axis=1)).ravel() for h in self.Hs])  # |Σ| x |P|
        self.M23 = np.stack([np.asarray(h.sum(axis=0)).ravel() for h in self.Hs])  # |Σ| x |S|


def _emissions(b: _Blocks, k: int, n_starts: int, n_iter: int, random_state) -> tuple[np.ndarray, np.ndarray]:
    """Stages 2-3: O (|Σ| x k, columns = emission distributions given no stop) and the tensor weights."""
    U, s, Vt = np.linalg.svd(b.Hbar, full_matrices=False)
    U, s, Vt = U[:, :k], np.maximum(s[:k], s[0] * 1e-12), Vt[:k]
    R1 = (b.M23 @ Vt.T / s) @ U.T
    R3 = (b.M21 @ U / s) @ Vt
    W, B = whitening(R1 @ b.M21.T, k)
    G1, G3 = W.T @ R1, W.T @ R3
    slices = np.stack([G1 @ (h @ G3.T) for h in b.Hs])  # |Σ| x k x k
    Tw = np.einsum("sj,sil->ijl", W, slices)
    Tw = sum(Tw.transpose(p) for p in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]) / 6
    weights, V = robust_tensor_power(Tw, k, n_starts, n_iter, random_state=random_state)
    return _columns_on_simplex(B @ V), weights


def _columns_on_simplex(O: np.ndarray) -> np.ndarray:
    """Each column (a direction known up to scale and sign) as a distribution: signed so it
    sums positive, normalised, projected onto the simplex."""
    O = O * np.where(O.sum(0) < 0, -1.0, 1.0)
    return project_simplex((O / np.maximum(O.sum(0), 1e-300)).T).T


def _refine(b: _Blocks, O: np.ndarray, n_iter: int, tol: float) -> tuple[np.ndarray, int]:
    """O refined by alternating least squares on the rank-k CP model H_σ = A diag(O_σ) Cᵀ of
    the whole P×Σ×S tensor (Kolda & Bader 2009, §3.4), started from the tensor power method's
    O; stops when no entry of the normalised O moves more than ``tol``. Returns (O, iterations)."""
    A, C = b.M21.T @ np.linalg.pinv(O.T), b.M23.T @ np.linalg.pinv(O.T)
    for it in range(n_iter):
        new = np.stack([np.einsum("ph,ph->h", A, h @ C) for h in b.Hs]) @ np.linalg.pinv((A.T @ A) * (C.T @ C))
        A = sum(h @ (C * new[i]) for i, h in enumerate(b.Hs)) @ np.linalg.pinv((new.T @ new) * (C.T @ C))
        C = sum(h.T @ (A * new[i]) for i, h in enumerate(b.Hs)) @ np.linalg.pinv((new.T @ new) * (A.T @ A))
        new = _columns_on_simplex(new)
        moved = np.abs(new - O).max()
        O = new
        if moved < tol:
            return O, it + 1
    return O, n_iter


def _other_parameters(b: _Blocks, O: np.ndarray, basis, alphabet, statistic: str):
    """Stage 4: (π, T, emissions k x |Σ|, stop) given O, every distribution on its simplex."""
    A_tilde = b.M21.T @ np.linalg.pinv(O.T)  # A diag(1/e)
    A_pinv = np.linalg.pinv(A_tilde)
    e = A_pinv @ b.H[:, 0]  # H[:, ε] = A 1
    stop = 1.0 - (A_pinv @ b.Hbar[:, 0]) / e  # H̄[:, ε] = A (1 - stop)
    C = b.M23.T @ np.linalg.pinv(O.T)  # C diag(1/g), and C[ε] = 1
    C = C / C[0]
    trans = project_simplex(_transitions_from_suffixes(C, O * (1.0 - stop), basis, alphabet))
    emit_stop = project_simplex(np.column_stack([O.T * (1.0 - stop)[:, None], stop]))
    alpha = A_tilde[0] * e  # π for the prefix statistic, ᾱ for the substring one
    if statistic == "substring":
        alpha = alpha - (emit_stop[:, :-1].sum(1) * alpha) @ trans
    return project_simplex(alpha), trans, emit_stop[:, :-1], emit_stop[:, -1]


def _transitions_from_suffixes(C, O, basis, alphabet) -> np.ndarray:
    """T by least squares from C[τs', h] = Σ_h' T[h, h'] O[τ, h'] C[s', h'] for every
    suffix τs' of the basis whose tail s' is in the basis too (s' = ε gives C[τ] = (T Oᵀ)ᵀ)."""
    index = {s: i for i, s in enumerate(basis.suffixes)}
    column = {int(a): i for i, a in enumerate(alphabet)}
    rows, targets = [], []
    for i, s in enumerate(basis.suffixes):
        tail = index.get(s[1:]) if s else None
        if tail is not None and s[0] in column:
            rows.append(O[column[s[0]]] * C[tail])
            targets.append(C[i])
    if len(rows) < C.shape[1]:
        raise ValueError("the suffix basis must contain the single symbols to estimate transitions")
    return np.linalg.lstsq(np.array(rows), np.array(targets), rcond=None)[0].T
