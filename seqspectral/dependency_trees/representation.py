"""The word representation U (n_symbols x k) that projects the tree moments (Dhillon et al.
2012, Sec. 3.2): its k columns are the k hidden dimensions of the spectral model.

* ``"auto"`` (the default) — ``"identity"`` for a vocabulary of at most ``AUTO_IDENTITY_MAX`` ids, else ``"svd"``;
* ``"identity"`` — one column per symbol seen in training (k = the number of tags; only
  for small tag sets);
* ``"svd"`` — the k leading left singular vectors of the child-parent bigram matrix
  B[c, p] (arcs with dependent c and head p, both sides), taken as ``[B, B^T]`` so a
  word's contexts as a dependent and as a head both count (the paper's fallback);
* ``(words, vectors)`` — word embeddings (CCA eigenwords from ``seqspectral embed``): the
  row of a symbol is its vector, looked up as written, then lower-cased; a symbol with no
  vector (and UNK) gets the **shared unknown vector**: the file's own ``<unk>`` vector
  when it has one (``seqspectral embed`` writes it for its rare words), else the mean of
  the vectors of the covered symbols. When the embeddings have more than k dimensions they are reduced to k
  by the SVD of the projected bigram ``[U^T B U, U^T B^T U]``.

Any U works for consistency as long as ``U^T O`` (k x m) has rank m = k; the choice only
changes the constants.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from seqspectral.bounds import BOUNDS
from seqspectral.linalg.svd import truncated_svd

#: the number of hidden dimensions when none is given and the representation does not fix it
DEFAULT_DIM = 16
#: the word of an embedding file whose vector is the shared unknown vector
UNKNOWN = "<unk>"
#: vocabularies larger than this use the randomized SVD for the "svd" representation
RANDOMIZED_ABOVE = 2000
#: refuse the identity representation beyond this many symbols (k^3 operators: the bounds table's)
MAX_IDENTITY = BOUNDS["tree_dim"].high


class RepresentationError(ValueError):
    """A representation that cannot be built (the message says why)."""

    user_facing = True


#: ``"auto"``: the identity representation for vocabularies (reserved ids included) up to this size
AUTO_IDENTITY_MAX = 40


def representation_matrix(representation, stats, vocabulary, dim: int | None) -> tuple[np.ndarray, dict]:
    """(U, info) for ``representation`` over the symbols of ``stats`` (a TreeStatistics);
    ``info`` records what was built (kind, k, embedding coverage)."""
    seen = np.flatnonzero(stats.unigram > 0)
    bigram = (stats.left + stats.right).tocsr().astype(np.float64)
    if isinstance(representation, str) and representation == "auto":
        representation = "identity" if len(vocabulary) <= AUTO_IDENTITY_MAX else "svd"
    if isinstance(representation, str) and representation == "identity":
        if len(seen) > MAX_IDENTITY:
            raise RepresentationError(f"the identity representation needs one dimension per symbol and there are "
                                      f"{len(seen)} (more than {MAX_IDENTITY}): use svd or embeddings")
        if dim is not None and dim < len(seen):
            U = _leading_contexts(bigram, dim)
            return U, {"kind": "identity reduced by svd", "dim": dim}
        U = np.zeros((stats.n_symbols, len(seen)))
        U[seen, np.arange(len(seen))] = 1.0
        return U, {"kind": "identity", "dim": len(seen)}
    if isinstance(representation, str) and representation == "svd":
        k = min(dim or DEFAULT_DIM, len(seen))
        return _leading_contexts(bigram, k), {"kind": "svd", "dim": k}
    if isinstance(representation, str):
        raise RepresentationError(f"unknown representation {representation!r}: identity, svd or (words, vectors)")
    words, vectors = representation
    U0, n_covered = embedding_rows(words, vectors, vocabulary)
    info = {"kind": "embeddings", "embedding_dim": U0.shape[1], "n_covered": n_covered,
            "n_symbols": len(vocabulary)}
    k = U0.shape[1] if dim is None else dim
    if k > U0.shape[1]:
        raise RepresentationError(f"dim {k} exceeds the {U0.shape[1]} dimensions of the embeddings")
    if k < U0.shape[1]:
        projected = U0.T @ (bigram @ U0)
        V, _, _ = np.linalg.svd(np.hstack([projected, projected.T]), full_matrices=False)
        U0 = U0 @ V[:, :k]
    info["dim"] = k
    return U0, info


def embedding_rows(words, vectors, vocabulary) -> tuple[np.ndarray, int]:
    """(rows of the vocabulary's symbols, how many were found); see the module docstring."""
    vectors = np.asarray(vectors, dtype=np.float64)
    index = {w: i for i, w in enumerate(words)}
    lower = {}
    for i, w in enumerate(words):
        lower.setdefault(w.lower(), i)
    rows = np.full(len(vocabulary), -1, np.int64)
    for x, symbol in enumerate(vocabulary.symbols):
        if x < vocabulary.N_RESERVED:
            continue
        rows[x] = index.get(symbol, lower.get(symbol.lower(), -1))
    found = rows >= 0
    if not found.any():
        raise RepresentationError("no symbol of the training corpus has an embedding")
    U = np.empty((len(vocabulary), vectors.shape[1]))
    U[found] = vectors[rows[found]]
    U[~found] = vectors[index[UNKNOWN]] if UNKNOWN in index else vectors[rows[found]].mean(axis=0)
    return U, int(found.sum())


def _leading_contexts(bigram: sp.csr_matrix, k: int) -> np.ndarray:
    """The k leading left singular vectors of ``[B, B^T]``: exact (LAPACK / ARPACK) for
    small vocabularies; for large ones (word forms) the randomized SVD, seeded,
    with 8 power iterations (ARPACK needs seconds on the 20,000-word EWT bigram, this a
    tenth of one)."""
    stacked = sp.hstack([bigram, bigram.T]).tocsr()
    if stacked.shape[0] <= RANDOMIZED_ABOVE:
        U, _, _ = truncated_svd(stacked, k)
    else:
        from seqspectral.linalg.randomized_svd import randomized_svd

        U, _, _ = randomized_svd(stacked, k, n_oversamples=20, n_iter=8, random_state=0)
    return np.ascontiguousarray(U)
