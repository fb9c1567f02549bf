"""Gold trees against copies with one word re-attached: the pairs on which a tree model's
ranking is measured (``evaluation/tree_model.py``) and chosen (``selection="ranking"``)."""

from __future__ import annotations

import numpy as np

from seqspectral.corpus.sequences import Corpus


def reattached_copies(corpus, copies: int = 1, random_state=0) -> tuple[Corpus, np.ndarray]:
    """``(trees, index)``: for every sentence of at least 3 words with a movable word,
    ``copies`` trees in which one word (not a root; seeded choice) hangs from another head
    outside its own subtree — so the copy is still a tree — and ``index``, the sentence each
    copy came from."""
    if corpus.heads is None:
        raise ValueError("re-attaching words needs trees (a corpus with heads)")
    rng = np.random.default_rng(random_state)
    heads_out, index = [], []
    for j in range(len(corpus)):
        a, b = corpus.offsets[j], corpus.offsets[j + 1]
        heads = corpus.heads[a:b].astype(np.int64)
        n = b - a
        if n < 3:
            continue
        in_subtree = np.zeros((n, n), bool)  # in_subtree[u, t]: u is t or one of t's descendants
        for u in range(n):
            t = u
            while t >= 0:
                in_subtree[u, t] = True
                t = heads[t] - 1
        allowed = ~in_subtree & (np.arange(n)[:, None] != heads[None, :] - 1)  # [u, t]: u may become t's head
        movable = np.flatnonzero((heads > 0) & allowed.any(axis=0))
        if len(movable) == 0:
            continue
        for _ in range(copies):
            t = rng.choice(movable)
            new = heads.copy()
            new[t] = rng.choice(np.flatnonzero(allowed[:, t])) + 1
            heads_out.append(new)
            index.append(j)
    index = np.array(index, dtype=np.int64)
    sub = corpus.subset(index)
    heads = np.concatenate(heads_out).astype(corpus.heads.dtype) if heads_out else corpus.heads[:0]
    return Corpus(sub.symbols, sub.offsets, sub.vocabulary, heads), index
