"""White-space separated tokens of a byte buffer, numbered in one compiled pass.

The readers of plain text and of NLTK's tagged corpora give every distinct symbol a
provisional code in order of first appearance (then ``Vocabulary.encode_codes``). Doing that
token by token in Python costs about a microsecond a token; here one Numba pass
(``split_tokens``) finds the tokens, their sequences and a 64-bit hash of each, and a sort of
the hashes numbers them. Two distinct strings sharing a hash are detected (``same_parts``)
and then numbered by a dictionary instead, so the result never depends on the hash.
"""

from __future__ import annotations

import numpy as np

#: the part of each token kept: the token, the word of ``word/tag``, its tag (upper-cased)
WHOLE, WORD, TAG = 0, 1, 2


def numbered_tokens(data: bytes, part: int = WHOLE, text_lines: bool = True):
    """``(distinct, codes, lengths, bad)``: the distinct strings in order of first appearance,
    each token's index among them, the tokens of each sequence, and the offset of the first
    bad byte (-1: none; ``split_tokens`` says which are bad). ``data`` is UTF-8 (or ASCII)."""
    from ._kernels import same_parts, split_tokens

    buf = np.frombuffer(data, dtype=np.uint8)
    starts, ends, hashes, lengths, bad = split_tokens(buf, part, text_lines)
    if bad >= 0:
        return [], np.zeros(0, np.int64), lengths, int(bad)
    _, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    fold = part == TAG
    if not same_parts(buf, starts, ends, first[inverse], fold):  # two strings share a hash
        parts = [data[a:b].upper() if fold else data[a:b] for a, b in zip(starts.tolist(), ends.tolist())]
        index: dict[bytes, int] = {}
        codes = np.array([index.setdefault(p, len(index)) for p in parts], dtype=np.int64)
        return [p.decode("utf-8") for p in index], codes, lengths, -1
    order = np.argsort(first)  # first appearance, as a reader going token by token numbers them
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    distinct = [data[starts[i]:ends[i]].decode("utf-8") for i in first[order].tolist()]
    return [s.upper() for s in distinct] if fold else distinct, rank[inverse], lengths, -1
