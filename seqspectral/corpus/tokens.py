"""White-space separated tokens of a byte buffer, numbered in one compiled pass.

The readers of plain text and of NLTK's tagged corpora give every distinct symbol a
provisional code in order of first appearance (then ``Vocabulary.encode_codes``). Doing that
token by token in Python costs about a microsecond a token; here one Numba pass
(``split_tokens``) finds the tokens and their sequences, and a second (``number_parts``)
numbers them through a hash table whose matches are checked byte for byte, so the result
never depends on the hash.
"""

from __future__ import annotations

import numpy as np

#: the part of each token kept: the token, the word of ``word/tag``, its tag (upper-cased)
WHOLE, WORD, TAG = 0, 1, 2


def numbered_parts(data: bytes, buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, fold_case: bool = False,
                   encoding: str = "utf-8") -> tuple[list[str], np.ndarray]:
    """``(distinct, codes)`` of the parts ``data[starts[t]:ends[t]]``, none holding a line feed
    (``buf``: ``data`` as uint8): the distinct strings in order of first appearance (decoded with ``encoding``,
    upper-cased when ``fold_case``) and each part's index among them."""
    from ._kernels import joined_parts, number_parts, part_hashes

    codes, firsts = number_parts(buf, starts, ends, part_hashes(buf, starts, ends, fold_case), fold_case)
    # the parts hold no line break (white-space separated tokens, columns of a line)
    distinct = joined_parts(buf, starts, ends, firsts, 10).tobytes().decode(encoding).split("\n")[:-1]
    return [s.upper() for s in distinct] if fold_case else distinct, codes


def numbered_tokens(data: bytes, part: int = WHOLE, text_lines: bool = True):
    """``(distinct, codes, lengths, bad)``: the distinct strings in order of first appearance,
    each token's index among them, the tokens of each sequence, and the offset of the first
    bad byte (-1: none; ``split_tokens`` says which are bad). ``data`` is UTF-8 (or ASCII)."""
    from ._kernels import split_tokens

    buf = np.frombuffer(data, dtype=np.uint8)
    starts, ends, lengths, bad = split_tokens(buf, part, text_lines)
    if bad >= 0:
        return [], np.zeros(0, np.int64), lengths, int(bad)
    distinct, codes = numbered_parts(data, buf, starts, ends, part == TAG)
    return distinct, codes, lengths, -1
