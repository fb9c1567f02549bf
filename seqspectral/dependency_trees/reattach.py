"""Gold trees against copies with one word re-attached: the pairs on which a tree model's
ranking is measured (``evaluation/tree_model.py``) and chosen (``selection="ranking"``)."""

from __future__ import annotations

import numpy as np

from seqspectral.corpus.sequences import Corpus

from .layout import tree_layout


def reattached_copies(corpus, copies: int = 1, random_state=0) -> tuple[Corpus, np.ndarray]:
    """``(trees, index)``: for every sentence of at least 3 words with a movable word,
    ``copies`` trees in which one word (not a root; seeded choice) hangs from another head
    outside its own subtree — so the copy is still a tree — and ``index``, the sentence each
    copy came from. Linear in a sentence's length per copy (subtree sizes from the top-down
    order, one subtree walked per copy)."""
    lay = tree_layout(corpus)  # a clear error for a corpus without trees or with a broken one
    rng = np.random.default_rng(random_state)
    heads_out, index = [], []
    for j in range(len(corpus)):
        lo, hi = int(corpus.offsets[j]), int(corpus.offsets[j + 1])
        n = hi - lo
        if n < 3:
            continue
        heads = corpus.heads[lo:hi].astype(np.int64)
        size = np.ones(n, np.int64)  # subtree sizes, bottom-up
        for i in lay.order[lo:hi][::-1]:
            if lay.parent[i] >= 0:
                size[lay.parent[i] - lo] += size[i - lo]
        # t may move when some word is neither in its subtree nor its head
        movable = np.flatnonzero((heads > 0) & (n - size - 1 > 0))
        if len(movable) == 0:
            continue
        for _ in range(copies):
            t = rng.choice(movable)
            allowed = np.ones(n, bool)
            allowed[heads[t] - 1] = False
            stack = [lo + t]
            while stack:  # t's subtree may not become its head
                i = stack.pop()
                allowed[i - lo] = False
                stack.extend(lay.child_list[lay.child_start[i]:lay.child_start[i + 1]].tolist())
            new = heads.copy()
            new[t] = rng.choice(np.flatnonzero(allowed)) + 1
            heads_out.append(new)
            index.append(j)
    index = np.array(index, dtype=np.int64)
    sub = corpus.subset(index)
    heads = np.concatenate(heads_out).astype(corpus.heads.dtype) if heads_out else corpus.heads[:0]
    return Corpus(sub.symbols, sub.offsets, sub.vocabulary, heads), index
