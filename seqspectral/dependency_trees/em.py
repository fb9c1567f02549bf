"""The likelihood twin of the spectral tree model: the same latent dependency model
(:mod:`seqspectral.dependency_trees.planted`) fitted by EM.

E-step: upward-downward message passing over every tree (inside β and outside α with
rescaling; :func:`_kernels.latent_expected_counts`), giving the expected root-state,
left/right transition (head state x dependent state) and emission counts. M-step: each
normalised (plus ``smoothing`` per cell). EM stops when the per-word log-likelihood gains
less than ``tol`` or after ``max_iter`` iterations.

Starts: ``"random"`` (Dirichlet(1) π and transitions, emissions the training unigram
frequencies times Dirichlet(1) noise) or ``"spectral"``: the parameters read off a fitted
:class:`~seqspectral.dependency_trees.spectral.SpectralTreeModel` of the same k with ``shrinkage=0`` (the
consistent estimator, whose operators have the structure read off here). Its operators share
the eigenvectors of G: the K_L[a] = G diag((G T_L)_a) G^{-1} are diagonalised together
(one eigen-decomposition of a random combination), each column scaled so that
c_1 G = 1^T (the emissions then sum to one); then O = d G (S4 of the spectral module), T_d = G^{-1} E_d G,
π = G^{-1} c_∞, each clipped to small positive values and normalised.

Unknown symbols get, in every state, the mean emission probability of the words seen
once (as the spectral model's UNK vector); the columns are renormalised.
"""

from __future__ import annotations

import numpy as np

from seqspectral.base import Estimator, either, integer, one_of, real, seed
from seqspectral.corpus.vocabulary import Vocabulary
from seqspectral.progress import stage

from . import _kernels
from .layout import tree_layout
from .planted import LatentTreeModel
from .topology import ValenceModel

_TINY = 1e-6


class EMTreeModel(Estimator):
    """EM for the latent dependency model. ``n_states`` may be ``"auto"``: chosen among
    ``selection.STATE_GRID`` up to ``max_states`` by the per-word log-likelihood of held-out
    trees (``dev`` when given to ``fit``, else a seeded 20% of the training trees, then EM
    run again on all of them from the chosen model: ``selection.select_and_refit``).

    Fitted: ``model_`` (the :class:`~seqspectral.dependency_trees.planted.LatentTreeModel`),
    ``n_states_``, ``history_`` (the per-word training log-likelihood after each E-step),
    ``n_iter_`` (iterations run), ``converged_``, ``topology_`` (the optional valence term),
    ``selection_``. ``progress``: each EM run's iterations with the log-likelihood, as in
    :mod:`seqspectral.progress`."""

    kind = "em_tree_model"
    _parameter_checks = {"n_states": either(one_of("auto"), integer(1)), "max_iter": integer(0), "tol": real(0),
                         "init": one_of("random", "spectral"), "smoothing": real(0), "random_state": seed,
                         "max_states": integer(1), "progress": one_of(None, True, False)}

    def __init__(self, n_states=16, *, max_iter: int = 200, tol: float = 1e-4, init: str = "random",
                 smoothing: float = 1e-6, random_state=0, max_states: int = 32,
                 progress: bool | None = None):
        self.n_states = n_states
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.smoothing = smoothing
        self.random_state = random_state
        self.max_states = max_states
        self.progress = progress

    def fit(self, corpus, dev=None) -> "EMTreeModel":
        """Run EM on the trees of ``corpus`` (a Corpus with heads and a vocabulary); with
        ``n_states="auto"`` the number of states is chosen on ``dev`` (else on held-out trees)."""
        from seqspectral.selection import STATE_GRID, grid_search, select_and_refit

        self._validate_params()
        if self.n_states != "auto":
            self._adopt(corpus, *self._em(corpus, self._start(corpus, self.n_states)))
            self.selection_ = None
            return self

        def choose(fit_part, held, on):
            runs = {}

            def score(n_states):
                runs[n_states] = self._em(fit_part, self._start(fit_part, n_states))
                return float(runs[n_states][0].log_probs(held).sum() / max(held.n_tokens, 1))

            grid = [k for k in STATE_GRID if k <= self.max_states] or [self.max_states]
            result = grid_search({"n_states": grid}, score, on)
            self._adopt(fit_part, *runs[result.chosen["n_states"]])
            return result

        def refit(train, held):
            m = self.model_
            self._adopt(train, *self._em(train, (m.pi, m.left, m.right, m.emission)))

        self.selection_ = select_and_refit(corpus, dev, self.random_state, choose, refit)
        return self

    def _start(self, corpus, n_states: int):
        unigram = np.bincount(corpus.symbols, minlength=len(corpus.vocabulary)).astype(np.float64)
        return self._spectral_start(corpus, n_states) if self.init == "spectral" else self._random_start(unigram, n_states)

    def _em(self, corpus, start):
        """EM from ``start`` (π, T_L, T_R, O): (LatentTreeModel, per-word log-likelihoods, converged)."""
        lay = tree_layout(corpus)
        unigram = np.bincount(corpus.symbols, minlength=len(corpus.vocabulary)).astype(np.float64)
        pi, left, right, emission = start
        history = []
        converged = False
        n_tokens = max(corpus.n_tokens, 1)
        with stage(f"tree EM, {len(pi)} states", self.max_iter, "iteration", self.progress) as bar:
            for _ in range(self.max_iter):
                root, tl, tr, o, loglik = _kernels.latent_expected_counts(
                    corpus.symbols, corpus.offsets, *lay, pi, left, right, emission)
                history.append(loglik / n_tokens)
                bar.update()
                bar.set_postfix_str(f"loglik/word={history[-1]:.4f}")
                pi, left, right, emission = (_normalise(a + self.smoothing) for a in (root, tl, tr, o))
                if len(history) > 1 and history[-1] - history[-2] < self.tol:
                    converged = True
                    break
        emission = _with_unknown(emission, unigram)
        return LatentTreeModel(pi, left, right, emission, corpus.vocabulary), np.array(history), converged

    def _adopt(self, corpus, model, history, converged) -> None:
        self.model_, self.n_states_ = model, len(model.pi)
        self.history_, self.n_iter_, self.converged_ = history, len(history), converged
        self.topology_ = ValenceModel().fit(corpus)

    def _random_start(self, unigram, m: int):
        rng = np.random.default_rng(self.random_state)
        pi = rng.dirichlet(np.ones(m))
        left, right = rng.dirichlet(np.ones(m), size=m).T, rng.dirichlet(np.ones(m), size=m).T
        emission = _normalise((unigram + _TINY)[:, None] * rng.dirichlet(np.ones(m), size=len(unigram)))
        return pi, left, right, emission

    def _spectral_start(self, corpus, m: int):
        from .spectral import SpectralTreeModel

        spectral = SpectralTreeModel(m, shrinkage=0.0).fit(corpus)  # consistent: shared eigenvectors
        rng = np.random.default_rng(self.random_state)
        theta = rng.standard_normal(m)
        _, vectors = np.linalg.eig(np.tensordot(theta, spectral.KL_, axes=1))
        vectors = np.real(vectors)
        G = vectors / (spectral.c1_ @ vectors)  # columns scaled so that 1^T G^{-1} G = 1^T: O sums to one
        G_inv = np.linalg.pinv(G)
        clip = lambda a: _normalise(np.maximum(a, _TINY))  # noqa: E731
        emission = np.maximum(spectral.emit_ @ G, _TINY)
        emission[Vocabulary.UNK_ID] = _TINY
        return (clip(G_inv @ spectral.cinf_), clip(G_inv @ spectral.EL_ @ G), clip(G_inv @ spectral.ER_ @ G),
                _normalise(emission))

    # -- scoring -----------------------------------------------------------------------
    def log_probs(self, corpus) -> np.ndarray:
        """The per-item scorer protocol: exact natural-log p(words | tree) per tree."""
        self._check_fitted()
        return self.model_.log_probs(corpus)

    def topology_log_probs(self, corpus) -> np.ndarray:
        """The optional topology term (per-symbol valence), one log-probability per tree."""
        self._check_fitted()
        return self.topology_.log_probs(self.model_.encode(corpus))

    def score(self, corpus) -> float:
        """Mean log p(words | tree) per word (natural log; higher is better)."""
        return float(self.log_probs(corpus).sum() / max(corpus.n_tokens, 1))

    # -- model files -------------------------------------------------------------------
    def to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        self._check_fitted()
        m = self.model_
        header = {"params": self.json_params(), "n_iter_run": self.n_iter_, "converged": self.converged_,
                  "vocabulary": m.vocabulary.to_json(),
                  "topology": self.topology_.to_state()[0],
                  "selection": None if self.selection_ is None else self.selection_.to_json()}
        arrays = {"pi": m.pi, "left": m.left, "right": m.right, "emission": m.emission,
                  "log_likelihoods": self.history_}
        arrays.update({f"topology/{k}": v for k, v in self.topology_.to_state()[1].items()})
        return header, arrays

    @classmethod
    def schema(cls, header: dict):
        from seqspectral.serialize import Member, Schema, vocabulary_size

        n, m = vocabulary_size(header["vocabulary"]), "n_states"  # the fitted number, whatever the parameter
        return Schema({"pi": Member("f", (m,)), "left": Member("f", (m, m)), "right": Member("f", (m, m)),
                       "emission": Member("f", (n, m)), "log_likelihoods": Member("f", (None,), finite=False),
                       **{"topology/stop_adjacent": Member("f", (n, 2)), "topology/stop_further": Member("f", (n, 2))}})

    @classmethod
    def from_state(cls, header: dict, arrays: dict[str, np.ndarray]) -> "EMTreeModel":
        from seqspectral.selection import SelectionResult

        params = header["params"]
        model = cls(params["n_states"], max_iter=params.get("max_iter", params.get("n_iter")),  # n_iter: older files
                    tol=params["tol"], init=params["init"], smoothing=params["smoothing"],
                    random_state=params["random_state"] if not isinstance(params["random_state"], str) else 0,
                    max_states=params.get("max_states", 32))
        model.model_ = LatentTreeModel(arrays["pi"], arrays["left"], arrays["right"], arrays["emission"],
                                       Vocabulary.from_json(header["vocabulary"]))
        model.history_ = arrays["log_likelihoods"]
        model.n_iter_, model.n_states_ = header["n_iter_run"], len(arrays["pi"])
        model.converged_ = header["converged"]
        if header.get("selection") is not None:
            model.selection_ = SelectionResult.from_json(header["selection"])
        model.topology_ = ValenceModel.from_state(
            header["topology"], {k[len("topology/"):]: v for k, v in arrays.items() if k.startswith("topology/")})
        return model


def _normalise(a: np.ndarray) -> np.ndarray:
    """Columns (a vector: the whole) scaled to sum to one."""
    return a / a.sum(axis=0, keepdims=a.ndim > 1)


def _with_unknown(emission: np.ndarray, unigram: np.ndarray) -> np.ndarray:
    """UNK gets the mean emission of the words seen once; columns renormalised."""
    once = np.flatnonzero(unigram == 1)
    out = emission.copy()
    out[Vocabulary.UNK_ID] = emission[once].mean(axis=0) if len(once) else 0.0
    return _normalise(out)
