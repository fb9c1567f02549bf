"""Plain text: one sequence per line, symbols separated by white space.

Any line ending (LF, CR LF, CR) ends a line; a UTF-8 byte-order mark is dropped. A blank line is an empty sequence (every line comes out, in order); the newline that
ends the last line does not start another one.
"""

from __future__ import annotations

import re
import numpy as np

from seqspectral.io import atomic_open

from .sequences import Corpus
from .tagsets import tag_mapping
from .textfile import DEFAULT_ENCODING, check_encoding, decode, mapped_bytes
from .tokens import numbered_tokens
from .vocabulary import Vocabulary


def read_text(
    path, vocabulary: Vocabulary | None = None, tagset: str | None = None, encoding: str = DEFAULT_ENCODING
) -> Corpus:
    """Each line of ``path`` as one sequence of its white-space separated symbols."""
    data = mapped_bytes(path)
    if data.max(initial=0) < 128 and _ASCII.encode(check_encoding(encoding)) == _ASCII.encode("ascii"):  # the bytes are the text
        distinct, codes, lengths, _ = numbered_tokens(data)
    else:
        text = decode(path, data.tobytes(), encoding)
        if _WIDE_SPACE.search(text):  # white space beyond ASCII: Python splits the lines
            distinct, codes, lengths = _by_lines(text)
        else:  # one compiled pass over the bytes (seqspectral.corpus.tokens)
            distinct, codes, lengths, _ = numbered_tokens(text.encode("utf-8"))
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids, vocabulary = Vocabulary.encode_codes(distinct, codes, vocabulary, tag_mapping(tagset))
    return Corpus(ids, offsets, vocabulary)


#: the ASCII characters: in an encoding that writes them as ASCII, an ASCII file is its text
_ASCII = "".join(map(chr, range(128)))
#: the characters beyond ASCII that ``str.split()`` takes for white space
_WIDE_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


def _by_lines(text: str):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    codes: dict[str, int] = {}
    symbols: list[int] = []
    lengths = np.zeros(len(lines), dtype=np.int64)
    for i, line in enumerate(lines):
        words = line.split()
        lengths[i] = len(words)
        symbols += [codes.setdefault(w, len(codes)) for w in words]
    return list(codes), np.array(symbols, dtype=np.int64), lengths


def write_text(path, corpus: Corpus) -> None:
    """Write each sequence of ``corpus`` (decoded with its vocabulary) on one line."""
    if corpus.vocabulary is None:
        raise ValueError("writing text needs a corpus with a vocabulary")
    decode = corpus.vocabulary.decode
    with atomic_open(path) as f:
        for seq in corpus:
            f.write(" ".join(decode(seq.tolist())) + "\n")
