"""CCA word embeddings ("eigenwords"): the word view against its left and right contexts.

Dhillon, Foster & Ungar, "Multi-View Learning of Word Embeddings via CCA" (NIPS 2011,
LR-MVL) and "Eigenwords: Spectral Word Embeddings" (JMLR 16, 2015, which collects the
one-step, two-step and LR-MVL algorithms); Dhillon, Rodu, Foster & Ungar, "Two Step CCA"
(ICML 2012).

One-step CCA (OSCCA). With W the one-hot word of each token, C its context (2h one-hot
slots, :mod:`.views`), and the view covariances approximated by their diagonals,

    Ω = D_w^(-1/2) (WᵀC)^∘α D_c^(-1/2),   D_w = diag(WᵀW)^α + κ,  D_c = diag(CᵀC)^α + κ,

and the embeddings are the k leading left singular vectors of Ω (a randomized truncated
SVD, Halko, Martinsson & Tropp 2011, as scikit-learn's ``randomized_svd`` computes it:
:mod:`seqspectral.linalg.randomized_svd`; in float32, with ``n_iter`` power iterations). α = ``count_power`` transforms the counts: α = 1 is the
papers' CCA; α = 1/2, the variance-stabilising transform of Poisson counts, is the choice
of Stratos, Collins & Hsu ("Model-based word embeddings from decompositions of count
matrices", ACL 2015). κ = ``smoothing`` is a ridge added to the diagonal covariances
(canonical ridge): it shrinks the rows of the rarest words and keeps empty rows finite.

Two-step CCA (TSCCA; LR-MVL's left/right split): first CCA between the left and the right
context, Ω_lr = D_l^(-1/2) (LᵀR)^∘α D_r^(-1/2), giving Φ_l = D_l^(-1/2) U_lr and
Φ_r = D_r^(-1/2) V_lr (``context_dim`` columns); the reduced context ("state") of a token
is S = [LΦ_l, RΦ_r]; then CCA of the word against S, with SᵀS computed exactly from the
counts: Ω = D_w^(-1/2) WᵀS (SᵀS + κI)^(-1/2) with D_w = diag(WᵀW) + κ.

Word vectors (the context-oblivious U): the rows of the left singular vectors U_k scaled
to unit length (as Stratos et al. do: a row's norm mostly reflects the word's frequency).
Context-specific token vectors: the canonical variate of a token's context,
Σ_slots P[context feature], with P = D_c^(-1/2) V_k (one step) or
blockdiag(Φ_l, Φ_r) (SᵀS + κI)^(-1/2) V_k (two steps).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from seqspectral.base import Estimator, either, integer, one_of, real, seed
from seqspectral.corpus import Corpus, Vocabulary
from seqspectral.linalg.whitening import whitening

from . import views as _views
from .vocabulary import build_vocabulary, normalise, word_counts, word_map

METHODS = ("one-step", "two-step")


class CCAEmbeddings(Estimator):
    """CCA word embeddings of dimension ``n_components`` from a window of ``window`` words each side.

    ``fit(corpus)`` takes a :class:`~seqspectral.corpus.Corpus` of words (or a list of
    them, counted one after the other and added); ``fit_counts(counts, vocabulary)`` takes
    :class:`~.views.ViewCounts` summed elsewhere (shards). Words seen fewer than
    ``min_count`` times, or beyond the ``max_vocab`` most frequent, share the vector of
    ``<unk>``. ``lowercase`` and ``digits`` (every digit written 0) normalise forms.
    """

    kind = "cca_embeddings"
    _parameter_checks = {
        "n_components": integer(1),
        "window": integer(1),
        "min_count": integer(1),
        "max_vocab": either(one_of(None), integer(1)),
        "method": one_of(*METHODS),
        "context_dim": either(one_of(None), integer(1)),
        "count_power": real(0, 1, open_low=True),
        "smoothing": real(0),
        "lowercase": one_of(True, False),
        "digits": one_of(True, False),
        "chunk_tokens": integer(1),
        "n_iter": integer(0),
        "random_state": seed,
        "progress": one_of(True, False),
    }

    def __init__(self, n_components=50, *, window=2, min_count=2, max_vocab=None, method="one-step", context_dim=None,
                 count_power=0.5, smoothing=1.0, lowercase=False, digits=False,
                 chunk_tokens=_views.CHUNK_TOKENS, n_iter=4, random_state=0, progress=False):
        self.n_components = n_components
        self.window = window
        self.min_count = min_count
        self.max_vocab = max_vocab
        self.method = method
        self.context_dim = context_dim
        self.count_power = count_power
        self.smoothing = smoothing
        self.lowercase = lowercase
        self.digits = digits
        self.chunk_tokens = chunk_tokens
        self.n_iter = n_iter
        self.random_state = random_state
        self.progress = progress

    # -- fitting -------------------------------------------------------------------------
    def fit(self, corpus, y=None):
        """Count the views of ``corpus`` (a Corpus or a list of them) and fit."""
        self._validate_params()
        corpora = [corpus] if isinstance(corpus, Corpus) else list(corpus)
        vocabulary = self.build_vocabulary(corpora)
        counts = None
        bar = _progress_bar(sum(c.n_tokens for c in corpora), self.progress)
        for c in corpora:
            part = self.count(c, vocabulary, progress=bar.update)
            counts = part if counts is None else counts + part
        bar.close()
        return self.fit_counts(counts, vocabulary)

    def build_vocabulary(self, corpora) -> Vocabulary:
        """The embedding vocabulary of ``corpora`` under this estimator's cut-offs."""
        counts = word_counts(corpora, self.lowercase, self.digits)
        return build_vocabulary(counts, self.min_count, self.max_vocab)

    def count(self, corpus: Corpus, vocabulary: Vocabulary, progress=None) -> _views.ViewCounts:
        """The view counts of one corpus (or shard) in ``vocabulary``; shards' counts add."""
        return _views.count_views(corpus, word_map(corpus, vocabulary, self.lowercase, self.digits), len(vocabulary),
                                  self.window, context_pairs=self.method == "two-step",
                                  chunk_tokens=self.chunk_tokens, progress=progress)

    def fit_counts(self, counts: _views.ViewCounts, vocabulary: Vocabulary):
        """Fit from view counts already summed (``count`` of every shard, added)."""
        self._validate_params()
        if counts.window != self.window or counts.n_words != len(vocabulary):
            raise ValueError("the view counts were made with another window or vocabulary")
        if counts.n_tokens == 0:
            raise ValueError("no tokens to learn embeddings from")
        if self.method == "two-step" and not counts.has_context_pairs:
            raise ValueError("the two-step CCA needs view counts with context pairs (count with method='two-step')")
        k = min(self.n_components, len(vocabulary) - 1)
        if self.method == "one-step":
            omega, context_scale = self._one_step_matrix(counts)
            U, d, Vt = self._svd(omega, k)
            projection = context_scale[:, None] * Vt.T
        else:
            U, d, projection = self._two_step(counts, k)
        self.vocabulary_ = vocabulary
        self.word_vectors_ = _unit_rows(U, counts.word_totals > 0)
        self.singular_values_ = d
        self.context_projection_ = projection
        self.n_tokens_ = counts.n_tokens
        return self

    def scaled_cross_covariance(self, counts: _views.ViewCounts) -> sp.csr_matrix:
        """The matrix Ω whose singular vectors are the (one-step) embeddings."""
        return self._one_step_matrix(counts)[0]

    def _one_step_matrix(self, counts):
        a, kappa = self.count_power, self.smoothing
        d_w = _inverse_sqrt(counts.word_totals ** a + kappa)
        d_c = _inverse_sqrt(counts.context_totals ** a + kappa)
        return _scale(counts.word_context, a, d_w, d_c), d_c

    def _two_step(self, counts, k):
        a, kappa = self.count_power, self.smoothing
        half = counts.window * counts.n_words
        totals = counts.context_totals
        d_l, d_r = _inverse_sqrt(totals[:half] ** a + kappa), _inverse_sqrt(totals[half:] ** a + kappa)
        U1, _, V1t = self._svd(_scale(counts.left_right, a, d_l, d_r), min(self.context_dim or self.n_components, half - 1))
        phi_l, phi_r = d_l[:, None] * U1, d_r[:, None] * V1t.T  # step 1 (Φ_l, Φ_r)
        cw = counts.word_context
        cross = np.hstack([cw[:, :half] @ phi_l, cw[:, half:] @ phi_r])  # WᵀS
        ll = phi_l.T @ (counts.context_covariance("left") @ phi_l)
        rr = phi_r.T @ (counts.context_covariance("right") @ phi_r)
        lr = phi_l.T @ (counts.left_right @ phi_r)
        state_cov = np.block([[ll, lr], [lr.T, rr]]) + kappa * np.eye(2 * phi_l.shape[1])  # SᵀS + κI
        whiten, _ = whitening(state_cov, len(state_cov))  # W with WᵀSᵀSW = I: (SᵀS)^(-1/2) up to a rotation
        omega = _inverse_sqrt(counts.word_totals + kappa)[:, None] * cross @ whiten
        U, d, Vt = np.linalg.svd(omega, full_matrices=False)
        k = min(k, len(d))
        U, d, Vt = U[:, :k], d[:k], Vt[:k]
        to_state = whiten @ Vt.T  # (2·context_dim, k)
        c = phi_l.shape[1]
        projection = np.vstack([phi_l @ to_state[:c], phi_r @ to_state[c:]])
        return U, d, projection

    def _svd(self, matrix, k):
        """Randomized truncated SVD (Halko, Martinsson & Tropp 2011) in float32: the
        singular vectors of a count matrix need no more, and it halves the memory traffic."""
        from seqspectral.linalg.randomized_svd import randomized_svd

        rng_seed = int(np.random.default_rng(self.random_state).integers(2**31 - 1))
        U, d, Vt = randomized_svd(matrix.astype(np.float32), k, n_iter=self.n_iter, random_state=rng_seed)
        return U.astype(np.float64), d.astype(np.float64), Vt.astype(np.float64)

    # -- use -----------------------------------------------------------------------------
    @property
    def words_(self) -> list[str]:
        """The words with a vector, ``<unk>`` first (the boundary ``</s>`` is not a word)."""
        self._check_fitted()
        symbols = self.vocabulary_.symbols
        return [symbols[0]] + symbols[Vocabulary.N_RESERVED:]

    def word_ids(self, words) -> np.ndarray:
        """Embedding ids of ``words`` (normalised like the training corpus; unknown -> 0)."""
        self._check_fitted()
        get = self.vocabulary_.id
        return np.array([get(normalise(w, self.lowercase, self.digits)) for w in words], dtype=np.int64)

    def transform(self, words) -> np.ndarray:
        """The (context-oblivious) vectors of ``words``; unknown words get ``<unk>``'s."""
        ids = self.word_ids(words)
        return self.word_vectors_[ids]

    def token_vectors(self, corpus: Corpus) -> np.ndarray:
        """The context-specific vector of every token of ``corpus`` ((n_tokens, n_components))."""
        self._check_fitted()
        table = word_map(corpus, self.vocabulary_, self.lowercase, self.digits)
        features = _views.token_context_features(corpus, table, len(self.vocabulary_), self.window)
        return self.context_projection_[features].sum(axis=1)

    def write_word2vec(self, path, binary: bool = False) -> None:
        """Write the word vectors (``<unk>`` first) in word2vec format."""
        from .word2vec_format import write_word2vec

        keep = np.r_[0, np.arange(Vocabulary.N_RESERVED, len(self.vocabulary_))]
        write_word2vec(path, self.words_, self.word_vectors_[keep], binary=binary)

    # -- model files ---------------------------------------------------------------------
    def to_state(self):
        self._check_fitted()
        header = {"params": self.json_params(), "vocabulary": self.vocabulary_.to_json(), "n_tokens": self.n_tokens_}
        arrays = {"word_vectors": self.word_vectors_, "singular_values": self.singular_values_,
                  "context_projection": self.context_projection_}
        return header, arrays

    @classmethod
    def schema(cls, header):
        from seqspectral.serialize import Member, Schema, size, vocabulary_size

        n = vocabulary_size(header["vocabulary"])
        rows = 2 * size(header["params"]["window"], "window", 1, 1000) * n
        return Schema({"word_vectors": Member("f", (n, "dim")), "singular_values": Member("f", ("dim",)),
                       "context_projection": Member("f", (rows, "dim"))})

    @classmethod
    def from_state(cls, header, arrays):
        params = dict(header["params"])
        if "dim" in params:  # written before the estimators shared one vocabulary
            params["n_components"] = params.pop("dim")
        params = {k: v for k, v in params.items() if k in cls._get_param_names()}
        if not isinstance(params.get("random_state", 0), (int, type(None))):
            params.pop("random_state")
        model = cls(**params)
        model.vocabulary_ = Vocabulary.from_json(header["vocabulary"])
        model.word_vectors_ = np.asarray(arrays["word_vectors"], dtype=np.float64)
        model.singular_values_ = np.asarray(arrays["singular_values"], dtype=np.float64)
        model.context_projection_ = np.asarray(arrays["context_projection"], dtype=np.float64)
        model.n_tokens_ = int(header["n_tokens"])
        n, k = model.word_vectors_.shape
        if n != len(model.vocabulary_) or model.context_projection_.shape != (2 * model.window * n, k):
            raise ValueError("array shapes do not match the vocabulary and window")
        return model


def _inverse_sqrt(x: np.ndarray) -> np.ndarray:
    """x^(-1/2), 0 where x is 0 (a row or column with no counts stays empty)."""
    out = np.zeros_like(x, dtype=np.float64)
    np.divide(1.0, np.sqrt(x), out=out, where=x > 0)
    return out


def _scale(counts: sp.csr_matrix, power: float, rows: np.ndarray, cols: np.ndarray) -> sp.csr_matrix:
    """diag(rows) counts^∘power diag(cols)."""
    m = counts.power(power) if power != 1 else counts.copy()
    return (sp.diags(rows) @ m @ sp.diags(cols)).tocsr()


def _unit_rows(U: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """U's rows scaled to unit length; rows of words never seen (the boundary) are 0."""
    norms = np.linalg.norm(U, axis=1, keepdims=True)
    return np.divide(U, norms, out=np.zeros_like(U), where=(norms > 0) & seen[:, None])


def _progress_bar(total: int, enabled: bool):
    from ..progress import stage

    return stage("counting", total, "token", enabled, unit_scale=True)
