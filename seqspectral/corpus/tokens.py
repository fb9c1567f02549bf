"""White-space separated tokens of a byte buffer, numbered in one compiled pass.

The readers of plain text and of NLTK's tagged corpora give every distinct symbol a
provisional code in order of first appearance (then ``Vocabulary.encode_codes``). Doing that
token by token in Python costs about a microsecond a token; here one Numba pass
(``split_tokens``) finds the tokens and their sequences, and a second (``number_parts``)
hashes and numbers them through a hash table whose matches are checked byte for byte, so
the result never depends on the hash.
"""

from __future__ import annotations

import numpy as np

#: the part of each token kept: the token, the word of ``word/tag``, its tag (upper-cased)
WHOLE, WORD, TAG = 0, 1, 2


def distinct_strings(arena: np.ndarray, bounds: np.ndarray, fold_case: bool = False,
                     encoding: str = "utf-8") -> list[str]:
    """The strings ``arena[bounds[k]:bounds[k + 1]]`` (as ``number_parts`` returns them),
    decoded all at once: each followed by a line feed, which none holds."""
    distinct = np.insert(arena, bounds[1:], 10).tobytes().decode(encoding).split("\n")[:-1]
    return [s.upper() for s in distinct] if fold_case else distinct


def numbered_tokens(data, part: int = WHOLE, text_lines: bool = True):
    """``(distinct, codes, lengths, bad)``: the distinct strings in order of first appearance,
    each token's index among them, the tokens of each sequence, and the offset of the first
    bad byte (-1: none; ``split_tokens`` says which are bad). ``data`` (bytes or a uint8 array)
    is UTF-8 (or ASCII). A large buffer is read on several threads, cut at line feeds
    (:mod:`seqspectral.corpus.chunks`); the result is the same."""
    from ._kernels import number_parts, split_tokens
    from .chunks import HASH_MASK, chunk_bounds, joined_numbering, thread_map

    buf = np.frombuffer(data, dtype=np.uint8)
    fold_case = part == TAG

    def read(chunk):
        piece = buf[chunk[0]:chunk[1]]
        starts, ends, lengths, bad = split_tokens(piece, part, text_lines)
        return lengths, bad, None if bad >= 0 else number_parts(piece, starts, ends, fold_case, HASH_MASK)

    bounds = chunk_bounds(buf, (b"\n",))
    chunks = thread_map(read, list(zip(bounds[:-1].tolist(), bounds[1:].tolist())))
    for (lengths, bad, _), start in zip(chunks, bounds.tolist()):
        if bad >= 0:
            return [], np.zeros(0, np.int64), lengths, int(start + bad)
    lengths = np.concatenate([c[0] for c in chunks])
    codes, arena, distinct_bounds = joined_numbering([c[2] for c in chunks])
    return distinct_strings(arena, distinct_bounds, fold_case), codes, lengths, -1
