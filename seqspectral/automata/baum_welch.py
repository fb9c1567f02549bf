"""Baum-Welch (EM) for HMMs over finite strings, with stopping probabilities.

Every sequence is read with one stop event at its end, emitted from the EOS column of
the extended emission matrix, so EM fits a distribution over finite strings (not an
infinite stream): the E-step is the scaled forward-backward of ``_hmm_kernels`` over the
flat corpus; the M-step normalises the expected counts.
"""

from __future__ import annotations


import numpy as np

from ..base import either, integer, one_of, real, seed
from ..progress import stage
from ..selection import STATE_GRID
from . import _hmm_kernels
from .hankel_learner import FLOOR_CHECK
from .hmm import EOS, HMM
from .learner import SelectingLearner

INITS = ("random", "tensor")


class BaumWelchHMM(SelectingLearner):
    """HMM by maximum likelihood (Baum-Welch), the best of ``n_init`` runs.

    Parameters
    ----------
    n_states : number of hidden states, or "auto": chosen among ``selection.STATE_GRID`` up
        to ``max_states`` by held-out log-likelihood (``SelectingLearner``: one EM fit per
        size on the fit part, same budget), then refitted on all of the corpus by one more EM
        run started from the chosen candidate's model.
    max_iter : maximum EM iterations per run.
    tol : a run stops when the mean log-likelihood per sequence improves by less than this.
    n_init : number of runs (restarts); the one with the highest log-likelihood is kept.
    init : "random" (Dirichlet-perturbed starts) or "tensor" (``TensorHMM`` estimates with
        min(n_states, |Σ|) states, mixed 90/10 with a uniform model over the seen symbols;
        each run uses another tensor seed; beyond |Σ| states the tensor states are split
        into randomly perturbed copies): EM-Tensor (Balle, Hamilton & Pineau 2014, §3.3).
    random_state : seed of the random starts and of the held-out split.
    progress : progress of each EM run with its log-likelihood (:mod:`seqspectral.progress`; None: a bar on a
        terminal only).
    floor : the language-model floor of the fitted ``HMM`` (see ``HMM``), or "auto".

    Attributes
    ----------
    model_ : the fitted ``HMM``.
    log_likelihood_ : its mean log-likelihood per training sequence.
    history_ : total log-likelihood at every iteration of its last EM run (non-decreasing).
    n_iter_ : iterations of that run; ``converged_`` whether it stopped by ``tol`` before ``max_iter``.
    n_states_, floor_, selection_ : as for every ``SelectingLearner``.
    """

    _swept = "n_states"
    _parameter_checks = {
        "n_states": either(one_of("auto"), integer(1, 100_000)), "max_iter": integer(1), "tol": real(),
        "n_init": integer(1), "init": one_of(*INITS), "random_state": seed, "floor": FLOOR_CHECK,
        "max_states": integer(1, 100_000),
    }

    def __init__(self, n_states="auto", *, max_iter: int = 100, tol: float = 1e-4, n_init: int = 1,
                 init: str = "random", random_state=0, progress: bool | None = None, floor="auto",
                 max_states: int = 64):
        self.n_states = n_states
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.init = init
        self.random_state = random_state
        self.progress = progress
        self.floor = floor
        self.max_states = max_states

    def _grid(self, corpus):
        return [k for k in STATE_GRID if k <= self.max_states] or [self.max_states]

    def _candidates(self, corpus, extra=None):
        self._runs = {}

        def fit_k(k):
            rng = np.random.default_rng(self.random_state)
            if k > corpus.n_tokens:
                from ..selection import CandidateFailed

                raise CandidateFailed(f"{k} states for {corpus.n_tokens} training tokens")
            if self.init == "tensor":
                starts = _tensor_starts(corpus, k, self.n_init, rng)
            else:
                starts = [random_start(corpus, k, _n_symbols(corpus), rng) for _ in range(self.n_init)]
            self._runs[k] = self._best_run(corpus, starts)
            return self._runs[k][0]

        return fit_k

    def _refit(self, corpus, added):
        start = _covering(self._runs[self.n_states_][0], corpus)
        self._runs[self.n_states_] = self._best_run(corpus, [start])
        return self._runs[self.n_states_][0]

    def fit_from(self, corpus, model: HMM) -> "BaumWelchHMM":
        """EM on ``corpus`` started from ``model`` (its number of states; an explicit floor)."""
        if self.floor == "auto":
            raise ValueError("fit_from needs an explicit floor, not 'auto'")
        self._validate_params()
        self._runs, self.selection_ = {model.n_states: self._best_run(corpus, [model])}, None
        self.model_ = self._runs[model.n_states][0].with_floor(float(self.floor))
        self._finish(model.n_states, self.floor)
        return self

    def _finish(self, value, floor) -> None:
        super()._finish(value, floor)
        _, self.log_likelihood_, history = self._runs[value]
        self.history_, self.n_iter_ = np.array(history), len(history)
        self.converged_ = self.n_iter_ < self.max_iter

    def _best_run(self, corpus, starts) -> tuple[HMM, float, list]:
        """(model, mean log-likelihood per sequence, history) of the best EM run from ``starts``."""
        best = None
        for run, start in enumerate(starts):
            model, history = em(corpus, start, self.max_iter, self.tol, self.progress, f"EM run {run + 1}/{len(starts)}")
            ll = float(model.exact_log_probs(corpus).mean())
            if best is None or ll > best[1]:
                best = (model.with_vocabulary(corpus.vocabulary), ll, history)
        return best


def em(corpus, model: HMM, n_iter: int, tol: float, progress: bool | None = False,
       desc: str = "EM") -> tuple[HMM, list[float]]:
    """Baum-Welch from ``model``: (final model, total log-likelihood before each M-step).

    The log-likelihood at iteration t is that of the model the t-th M-step starts from;
    stops after ``n_iter`` M-steps or when the mean per-sequence gain is below ``tol``;
    ``progress`` as in :mod:`seqspectral.progress`.
    """

    n = len(corpus)
    start, trans, emit = model.initial.copy(), model.transitions.copy(), model.extended_emissions()
    if emit.shape[1] <= corpus.symbols.max(initial=0):
        raise ValueError(f"the corpus has symbol ids beyond the model's {emit.shape[1]} columns")
    history: list[float] = []
    bar = stage(desc, n_iter, "iteration", progress)
    for _ in range(n_iter):
        ll, c_start, c_trans, c_emit = _hmm_kernels.expected_counts(corpus.symbols, corpus.offsets, EOS, start, trans, emit)
        if not np.isfinite(ll):
            raise ValueError("a training sequence has probability 0 under the starting model")
        history.append(float(ll))
        bar.update(1)
        bar.set_postfix_str(f"loglik={ll / n:.4f}")
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


def _covering(model: HMM, corpus, weight: float = 1e-3) -> HMM:
    """``model`` with ``weight`` of every state's emissions moved to ``corpus``'s symbol and
    stop frequencies: EM on ``corpus`` can start from it even when ``corpus`` holds symbols
    the model never emits (the refit adds the held-out part, whose symbols the fit part may lack)."""
    emit = model.extended_emissions()
    freq = np.bincount(corpus.symbols, minlength=emit.shape[1]).astype(np.float64)[:emit.shape[1]]
    freq[EOS] = len(corpus)
    emit = (1.0 - weight) * emit + weight * freq[None, :] / freq.sum()
    stop = emit[:, EOS].copy()
    emit[:, EOS] = 0.0
    return HMM(model.initial, model.transitions, emit, stop, model.vocabulary, model.floor)


def random_start(corpus, n_states: int, n_symbols: int, rng) -> HMM:
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
    estimator = TensorHMM(m, floor=0.0)
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
