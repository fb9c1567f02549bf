"""The likelihood twin of the spectral tree model: the same latent dependency model
(:mod:`seqspectral.trees.planted`) fitted by EM.

E-step: upward-downward message passing over every tree (inside β and outside α with
rescaling; :func:`_kernels.latent_expected_counts`), giving the expected root-state,
left/right transition (head state x dependent state) and emission counts. M-step: each
normalised (plus ``smoothing`` per cell). EM stops when the per-word log-likelihood gains
less than ``tol`` or after ``n_iter`` iterations.

Starts: ``"random"`` (Dirichlet(1) π and transitions, emissions the training unigram
frequencies times Dirichlet(1) noise) or ``"spectral"``: the parameters read off a fitted
:class:`~seqspectral.trees.spectral.SpectralTreeModel` of the same k with ``shrinkage=0`` (the
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

from seqspectral.base import Estimator, integer, one_of, real, seed
from seqspectral.corpus.vocabulary import Vocabulary
from seqspectral.progress import stage

from . import _kernels
from .layout import tree_layout
from .planted import LatentTreeModel
from .topology import ValenceModel

_TINY = 1e-6


class EMTreeModel(Estimator):
    """EM for the latent dependency model; ``model_`` is the fitted
    :class:`~seqspectral.trees.planted.LatentTreeModel`; ``log_likelihoods_`` the
    per-word training log-likelihood after each E-step, ``n_iter_`` the iterations run,
    ``converged_``, ``topology_`` (the optional valence term). ``progress``: the iterations
    with the log-likelihood, as in :mod:`seqspectral.progress`."""

    kind = "em_tree_model"
    _parameter_checks = {"n_states": integer(1), "n_iter": integer(0), "tol": real(0),
                         "init": one_of("random", "spectral"), "smoothing": real(0), "random_state": seed,
                         "progress": one_of(None, True, False)}

    def __init__(self, n_states: int = 16, *, n_iter: int = 200, tol: float = 1e-4, init: str = "random",
                 smoothing: float = 1e-6, random_state=0, progress: bool | None = None):
        self.n_states = n_states
        self.n_iter = n_iter
        self.tol = tol
        self.init = init
        self.smoothing = smoothing
        self.random_state = random_state
        self.progress = progress

    def fit(self, corpus) -> "EMTreeModel":
        """Run EM on the trees of ``corpus`` (a Corpus with heads and a vocabulary)."""
        self._validate_params()
        lay = tree_layout(corpus)
        n_symbols = len(corpus.vocabulary)
        unigram = np.bincount(corpus.symbols, minlength=n_symbols).astype(np.float64)
        pi, left, right, emission = (self._spectral_start(corpus) if self.init == "spectral"
                                     else self._random_start(unigram))
        history = []
        converged = False
        n_tokens = max(corpus.n_tokens, 1)
        with stage("tree EM", self.n_iter, "iteration", self.progress) as bar:
            for _ in range(self.n_iter):
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
        self.model_ = LatentTreeModel(pi, left, right, emission, corpus.vocabulary)
        self.log_likelihoods_ = np.array(history)
        self.n_iter_ = len(history)
        self.converged_ = converged
        self.topology_ = ValenceModel().fit(corpus)
        return self

    def _random_start(self, unigram):
        rng = np.random.default_rng(self.random_state)
        m = self.n_states
        pi = rng.dirichlet(np.ones(m))
        left, right = rng.dirichlet(np.ones(m), size=m).T, rng.dirichlet(np.ones(m), size=m).T
        emission = _normalise((unigram + _TINY)[:, None] * rng.dirichlet(np.ones(m), size=len(unigram)))
        return pi, left, right, emission

    def _spectral_start(self, corpus):
        from .spectral import SpectralTreeModel

        spectral = SpectralTreeModel(self.n_states, shrinkage=0.0).fit(corpus)  # consistent: shared eigenvectors
        rng = np.random.default_rng(self.random_state)
        theta = rng.standard_normal(self.n_states)
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
                  "vocabulary": m.vocabulary.to_json(), "reading": getattr(self, "reading_", None),
                  "topology": self.topology_.to_state()[0]}
        arrays = {"pi": m.pi, "left": m.left, "right": m.right, "emission": m.emission,
                  "log_likelihoods": self.log_likelihoods_}
        arrays.update({f"topology/{k}": v for k, v in self.topology_.to_state()[1].items()})
        return header, arrays

    @classmethod
    def from_state(cls, header: dict, arrays: dict[str, np.ndarray]) -> "EMTreeModel":
        params = header["params"]
        model = cls(params["n_states"], n_iter=params["n_iter"], tol=params["tol"], init=params["init"],
                    smoothing=params["smoothing"],
                    random_state=params["random_state"] if not isinstance(params["random_state"], str) else 0)
        model.model_ = LatentTreeModel(arrays["pi"], arrays["left"], arrays["right"], arrays["emission"],
                                       Vocabulary.from_json(header["vocabulary"]))
        model.log_likelihoods_ = arrays["log_likelihoods"]
        model.n_iter_ = header["n_iter_run"]
        model.converged_ = header["converged"]
        model.reading_ = header.get("reading")
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
