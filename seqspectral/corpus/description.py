"""``describe``: the figures of ``seqspectral corpus stats`` for any Corpus, in linear memory."""

from __future__ import annotations

import numpy as np

from .sequences import Corpus
from .dependency_trees import nonprojective


def describe(corpus: Corpus) -> dict:
    """Sequences, tokens, distinct symbols and lengths; for a treebank also the number of
    non-projective sentences and of sentences with several root attachments.

    Time and memory are linear in the number of tokens (projectivity by one bottom-up
    pass per sentence, see :func:`~seqspectral.corpus.dependency_trees.nonprojective`).
    """
    lengths = corpus.lengths
    counts = np.bincount(corpus.symbols) if corpus.n_tokens else np.zeros(0, np.int64)
    result = {
        "n_sequences": len(corpus),
        "n_tokens": corpus.n_tokens,
        "vocabulary_size": int(np.count_nonzero(counts)),
        "length_min": int(lengths.min()) if len(lengths) else 0,
        "length_median": float(np.median(lengths)) if len(lengths) else 0.0,
        "length_max": int(lengths.max()) if len(lengths) else 0,
    }
    if corpus.heads is not None:
        sentence = np.repeat(np.arange(len(corpus)), lengths)
        n_roots = np.bincount(sentence[corpus.heads == 0], minlength=len(corpus))
        result["n_nonprojective"] = int(nonprojective(corpus.heads, corpus.offsets).sum())
        result["n_several_roots"] = int(np.sum(n_roots > 1))
    return result
