"""Baum-Welch (EM) for HMMs over finite strings, with stopping probabilities.

Every sequence is read with one stop event at its end, emitted from the EOS column of
the extended emission matrix, so EM fits a distribution over finite strings (not an
infinite stream): the E-step is the scaled forward-backward of ``_hmm_kernels`` over the
flat corpus (in parallel chunks when large); the M-step normalises the expected counts.
"""

from __future__ import annotations

import sys

import numpy as np

from ..base import Estimator
from ..metrics import LanguageModelMixin
from . import _hmm_kernels
from .hmm import EOS, HMM

INITS = ("random", "tensor")
#: tokens x states² from which the E-step runs in parallel chunks (below, thread start-up dominates)
PARALLEL_WORK = 5e7


class BaumWelchHMM(Estimator, LanguageModelMixin):
    """HMM by maximum likelihood (Baum-Welch), the best of ``n_init`` runs.

    Parameters
    ----------
    n_states : number of hidden states, or "auto": chosen among ``hmm_selection.GRID`` up to
        ``max_states`` by the mean log-likelihood of a held-out ``validation_fraction`` of
        the corpus (same budget per candidate), then refitted on all of it by one more EM
        run started from the chosen candidate's model.
    n_iter : maximum EM iterations per run.
    tol : a run stops when the mean log-likelihood per sequence improves by less than this.
    n_init : number of runs (restarts); the one with the highest log-likelihood is kept.
    init : "random" (Dirichlet-perturbed starts) or "tensor" (``TensorHMM`` estimates with
        min(n_states, |Σ|) states, mixed 90/10 with a uniform model over the seen symbols;
        each run uses another tensor seed; beyond |Σ| states the tensor states are split
        into randomly perturbed copies): EM-Tensor (Balle, Hamilton & Pineau 2014, §3.3).
    random_state : seed of the random starts.
    progress : show a progress bar with the current log-likelihood; None = when stderr is a terminal.
    floor : the language-model floor of the fitted ``HMM`` (see ``HMM``); "auto" chooses it
        among ``hmm_selection.FLOORS`` with the number of states (1e-6 with a fixed n_states).

    Attributes
    ----------
    model_ : the fitted ``HMM``.
    log_likelihood_ : its mean log-likelihood per training sequence.
    history_ : total log-likelihood at every iteration of the kept run (non-decreasing).
    n_iter_ : iterations of the kept run.
    n_states_ : the number of states used; ``selection_scores_`` {k: held-out score} with "auto".
    """

    def __init__(self, n_states: int = 5, n_iter: int = 100, tol: float = 1e-4, n_init: int = 1,
                 init: str = "random", random_state=None, progress: bool | None = None, floor="auto",
                 max_states: int = 20, validation_fraction: float = 0.2):
        self.n_states = n_states
        self.n_iter = n_iter
        self.tol = tol
        self.n_init = n_init
        self.init = init
        self.random_state = random_state
        self.progress = progress
        self.floor = floor
        self.max_states = max_states
        self.validation_fraction = validation_fraction

    def fit(self, corpus, initial_model: HMM | None = None) -> "BaumWelchHMM":
        """Run EM on ``corpus``; ``initial_model`` (optional) replaces the starts."""
        if self.init not in INITS:
            raise ValueError(f"init must be one of {INITS}, got {self.init!r}")
        if len(corpus) == 0:
            raise ValueError("cannot fit an HMM on an empty corpus")
        from .hmm_selection import FLOORS, candidate_states, resolve_floor, select_n_states

        k, floor = self.n_states, resolve_floor(self.floor)
        self.selection_scores_ = None
        if k == "auto" and initial_model is None:
            params, fitted = {**self.get_params(deep=False), "floor": 0.0}, {}

            def fit_k(k, part):
                fitted[k] = type(self)(**{**params, "n_states": k}).fit(part)
                return fitted[k]

            k, floor, self.selection_scores_ = select_n_states(
                fit_k, corpus, candidate_states(self.max_states), self.validation_fraction, self.random_state,
                FLOORS if self.floor == "auto" else (resolve_floor(self.floor),))
            initial_model = fitted[k].model_  # the refit on all of the corpus starts from the chosen model
        elif initial_model is not None:
            k = initial_model.n_states
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"n_states must be a positive integer or 'auto', got {self.n_states!r}")
        rng = np.random.default_rng(self.random_state)
        if initial_model is not None:
            starts = [initial_model]
        elif self.init == "tensor":
            starts = _tensor_starts(corpus, k, self.n_init, rng)
        else:
            starts = [_random_start(corpus, k, _n_symbols(corpus), rng) for _ in range(self.n_init)]
        show = sys.stderr.isatty() if self.progress is None else self.progress
        best = None
        for run, start in enumerate(starts):
            model, history = em(corpus, start, self.n_iter, self.tol, show, f"EM run {run + 1}/{len(starts)}")
            ll = float(model.exact_log_probs(corpus).mean())
            if best is None or ll > best[0]:
                best = (ll, model, history)
        self.log_likelihood_, self.model_, history = best
        self.model_.vocabulary, self.model_.floor = corpus.vocabulary, floor
        self.n_states_, self.floor_ = int(k), floor
        self.history_ = np.array(history)
        self.n_iter_ = len(history)
        return self

    def event_log_probs(self, corpus):
        return self.model_.event_log_probs(corpus)

    def sequence_log_probs(self, corpus):
        return self.model_.sequence_log_probs(corpus)


def em(corpus, model: HMM, n_iter: int, tol: float, progress: bool = False, desc: str = "EM") -> tuple[HMM, list[float]]:
    """Baum-Welch from ``model``: (final model, total log-likelihood before each M-step).

    The log-likelihood at iteration t is that of the model the t-th M-step starts from;
    stops after ``n_iter`` M-steps or when the mean per-sequence gain is below ``tol``.
    """
    from tqdm.auto import tqdm

    n = len(corpus)
    parallel = corpus.n_tokens * model.n_states ** 2 >= PARALLEL_WORK
    start, trans, emit = model.initial.copy(), model.transitions.copy(), model.extended_emissions()
    if emit.shape[1] <= corpus.symbols.max(initial=0):
        raise ValueError(f"the corpus has symbol ids beyond the model's {emit.shape[1]} columns")
    history: list[float] = []
    bar = tqdm(total=n_iter, desc=desc, disable=not progress, leave=False)
    for _ in range(n_iter):
        args = (corpus.symbols, corpus.offsets, EOS, start, trans, emit)
        if parallel:
            ll, c_start, c_trans, c_emit = _hmm_kernels.expected_counts_parallel(*args, min(n, 64))
        else:
            ll, c_start, c_trans, c_emit = _hmm_kernels.expected_counts(*args)
        if not np.isfinite(ll):
            raise ValueError("a training sequence has probability 0 under the starting model")
        history.append(float(ll))
        bar.update(1)
        bar.set_postfix(loglik=f"{ll / n:.4f}")
        start = c_start / c_start.sum()
        trans = _normalise_rows(c_trans, trans)
        emit = _normalise_rows(c_emit, emit)
        if len(history) > 1 and (history[-1] - history[-2]) / n < tol:
            break
    bar.close()
    stop = emit[:, EOS].copy()
    emit[:, EOS] = 0.0
    return HMM(start, trans, emit, stop, model.vocabulary), history


def _n_symbols(corpus) -> int:
    """Emission columns: the vocabulary's size, or the largest id + 1 without one."""
    return len(corpus.vocabulary) if corpus.vocabulary is not None else int(corpus.symbols.max(initial=1)) + 1


def _normalise_rows(counts: np.ndarray, previous: np.ndarray) -> np.ndarray:
    """Rows of ``counts`` normalised; a row with no expected count keeps its previous value."""
    sums = counts.sum(1, keepdims=True)
    return np.where(sums > 0, counts / np.where(sums > 0, sums, 1.0), previous)


def _random_start(corpus, n_states: int, n_symbols: int, rng) -> HMM:
    """Dirichlet(1) initial and transition rows; emissions = the corpus's symbol and stop
    frequencies times a random factor in [0.5, 1.5], so unseen symbols stay at 0."""
    freq = np.bincount(corpus.symbols, minlength=n_symbols).astype(np.float64)[:n_symbols]
    freq[EOS] = len(corpus)
    emit = freq[None, :] * rng.uniform(0.5, 1.5, size=(n_states, n_symbols))
    emit /= emit.sum(1, keepdims=True)
    stop = emit[:, EOS].copy()
    emit[:, EOS] = 0.0
    return HMM(rng.dirichlet(np.ones(n_states)), rng.dirichlet(np.ones(n_states), size=n_states), emit, stop)


def _tensor_starts(corpus, n_states: int, n_init: int, rng, smoothing: float = 0.1) -> list[HMM]:
    """``n_init`` TensorHMM estimates (different power-method seeds), mixed with
    ``smoothing`` of a uniform model over the seen symbols (so EM can move every parameter
    and is not held by the moment estimates' exact zeros).

    The tensor method allows at most |Σ| states; for more, each of its states is split
    into copies (``_split_states``)."""
    from .tensor_hmm import TensorHMM

    seen = np.zeros(_n_symbols(corpus))
    seen[np.unique(corpus.symbols)] = 1.0
    seen[EOS] = 1.0
    seen /= seen.sum()
    m = min(n_states, int(np.count_nonzero(seen)) - 1)
    estimator = TensorHMM(m)
    stats = estimator.statistics(corpus)
    starts = []
    for _ in range(n_init):
        t = estimator.set_params(random_state=int(rng.integers(2**31))).fit_statistics(stats, corpus.vocabulary).model_
        initial, trans, ext = t.initial, t.transitions, t.extended_emissions()
        if n_states > m:
            initial, trans, ext = _split_states(initial, trans, ext, n_states, rng)
        k = n_states
        mix = lambda a, b: (1 - smoothing) * a + smoothing * b  # noqa: E731
        ext = mix(ext, seen[None, :])
        stop = ext[:, EOS].copy()
        ext[:, EOS] = 0.0
        starts.append(HMM(mix(initial, np.full(k, 1 / k)), mix(trans, np.full((k, k), 1 / k)), ext, stop))
    return starts


def _split_states(initial, trans, ext, k: int, rng):
    """A k-state model whose state j copies state j mod m of the given m-state one: the
    mass entering a state is shared among its copies and every entry is multiplied by an
    Exp(1) factor, then rows renormalised (each row a Dirichlet-like draw around the
    tensor's), so EM can tell the copies apart at once instead of breaking near-symmetry
    slowly (a jitter of ±10% did worse on held-out PAutomaC data)."""
    m = len(initial)
    owner = np.arange(k) % m
    share = 1.0 / np.bincount(owner, minlength=m)[owner]

    def noisy(a):
        a = a * rng.exponential(size=a.shape)
        return a / a.sum(-1, keepdims=True)

    return (noisy(initial[owner] * share), noisy(trans[np.ix_(owner, owner)] * share[None, :]), noisy(ext[owner]))
