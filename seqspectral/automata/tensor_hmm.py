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

from ..base import either, integer, one_of, seed
from ..linalg import project_simplex, robust_tensor_power, whitening
from ..selection import STATE_GRID, CandidateFailed
from .hankel_learner import FLOOR_CHECK
from .hmm import EOS, HMM
from .learner import SelectingLearner

REFINE_TOL = 1e-6


class TensorHMM(SelectingLearner):
    """HMM learned by the tensor method of moments. Requires ``n_states <= |Σ|``.

    Parameters
    ----------
    n_states : number of hidden states k (at most the alphabet size: O must have rank k), or
        "auto": chosen among ``selection.STATE_GRID`` up to ``max_states`` and the alphabet
        size by held-out log-likelihood (``SelectingLearner``; statistics counted once).
    statistic : "substring" (every position: on planted HMMs with 10^5 strings its errors
        of O and T were 1.5-4 times smaller than the prefix statistic's) or "prefix" (the
        strings' beginnings only).
    basis : a ``HankelBasis`` (empty string first in P and S) or None for the
        ``basis_size`` most frequent prefixes and suffixes of length ≤ ``basis_length``.
    n_starts, n_iter : L and N of the robust tensor power method.
    n_refine : at most this many alternating-least-squares sweeps refining O on the whole
        P×Σ×S tensor after the power method (0: the plain method of §3.3). On planted HMMs
        with 10^5 strings it cuts the error of O by about a third and that of T by half.
    random_state : seed of the tensor power method's random starts and of the held-out split.
    floor : the language-model floor of the fitted ``HMM`` (see ``HMM``), or "auto".
    progress : progress over the swept values on stderr (:mod:`seqspectral.progress`; None: a bar on a
        terminal only).

    Attributes
    ----------
    model_ : the fitted ``HMM``.
    weights_ : the tensor eigenvalues.
    n_refine_ : the refinement sweeps run.
    n_states_, floor_, selection_ : the values used and what selection tried.
    """

    _swept = "n_states"
    _parameter_checks = {
        "n_states": either(one_of("auto"), integer(1)), "statistic": one_of("substring", "prefix"),
        "basis_size": integer(1), "basis_length": integer(1), "n_starts": integer(1), "n_iter": integer(1),
        "n_refine": integer(0), "random_state": seed, "floor": FLOOR_CHECK, "max_states": integer(1),
    }

    def __init__(self, n_states="auto", *, statistic: str = "substring", basis=None, basis_size: int = 200,
                 basis_length: int = 3, n_starts: int = 20, n_iter: int = 100, n_refine: int = 300,
                 random_state=0, floor="auto", max_states: int = 64, progress: bool | None = None):
        self.n_states = n_states
        self.statistic = statistic
        self.basis = basis
        self.basis_size = basis_size
        self.basis_length = basis_length
        self.n_starts = n_starts
        self.n_iter = n_iter
        self.n_refine = n_refine
        self.random_state = random_state
        self.floor = floor
        self.max_states = max_states
        self.progress = progress

    def statistics(self, corpus, basis=None):
        """The Hankel statistics this estimator uses (on ``basis``, else on one built from ``corpus``)."""
        from ..counting import HankelBasis, hankel_statistics

        basis = basis if basis is not None else self.basis
        if basis is None:
            basis = HankelBasis.from_corpus(corpus, self.statistic, self.basis_size, self.basis_size, self.basis_length)
        return hankel_statistics(corpus, basis, self.statistic)

    def _grid(self, corpus):
        n_symbols = len(np.unique(corpus.symbols))
        return [k for k in STATE_GRID if k <= min(self.max_states, n_symbols)] or [min(self.max_states, n_symbols)]

    def _candidates(self, corpus, extra=None):
        self.statistics_ = self.statistics(corpus)
        self._per_state = {}  # k -> (tensor weights, refinement sweeps), adopted by _finish for the chosen k
        return lambda k: self._from_statistics(self.statistics_, corpus.vocabulary, k)

    def _finish(self, value, floor) -> None:
        super()._finish(value, floor)
        self.weights_, self.n_refine_ = self._per_state[value]

    def _refit(self, corpus, added):
        self.statistics_ = self.statistics_ + self.statistics(added, self.statistics_.basis)
        return self._from_statistics(self.statistics_, corpus.vocabulary, self.n_states_)

    def fit_statistics(self, stats, vocabulary=None) -> "TensorHMM":
        """Fit from prefix or substring ``HankelStatistics`` (basis with () first) at an explicit
        ``n_states`` and ``floor``; ``vocabulary`` sizes the model."""
        self._validate_params()
        if self._selects():
            raise ValueError("fit_statistics needs explicit n_states and floor, not 'auto'")
        self.statistics_, self.selection_, self._per_state = stats, None, {}
        self.model_ = self._from_statistics(stats, vocabulary, self.n_states).with_floor(float(self.floor))
        self._finish(self.n_states, self.floor)
        return self

    def _from_statistics(self, stats, vocabulary, k: int) -> HMM:
        """Stages 1-4 of the method (module docstring) at k states; an unfloored ``HMM``."""
        basis = stats.basis
        alphabet = basis.alphabet
        if np.any(alphabet == EOS):
            raise ValueError("the basis alphabet must not contain EOS (id 1): stopping is not a symbol")
        if k > len(alphabet):
            raise CandidateFailed(f"TensorHMM needs n_states <= alphabet size: {k} states for {len(alphabet)} symbols "
                                  "(the emission matrix must have rank n_states)")
        if basis.prefixes[0] != () or basis.suffixes[0] != ():
            raise ValueError("the basis must have the empty string first among prefixes and suffixes")
        if min(basis.n_prefixes, basis.n_suffixes) < k:
            raise CandidateFailed(f"the basis has {basis.n_prefixes}x{basis.n_suffixes} entries, fewer than {k} states")
        if stats.statistic not in ("prefix", "substring"):
            raise ValueError(f"TensorHMM works on prefix or substring statistics, got {stats.statistic!r}")
        blocks = _Blocks(stats)
        O, weights = _emissions(blocks, k, self.n_starts, self.n_iter, self.random_state)
        O, n_refine = _refine(blocks, O, self.n_refine, REFINE_TOL)
        self._per_state[k] = (weights, n_refine)
        initial, trans, emissions, stop = _other_parameters(blocks, O, basis, alphabet, stats.statistic)
        n_symbols = len(vocabulary) if vocabulary is not None else int(alphabet.max()) + 1
        full = np.zeros((k, n_symbols))
        full[:, alphabet] = emissions
        return HMM(initial, trans, full, stop, vocabulary)


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
