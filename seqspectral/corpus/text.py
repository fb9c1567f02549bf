"""Plain text: one sequence per line, symbols separated by white space.

Any line ending (LF, CR LF, CR) ends a line; a UTF-8 byte-order mark is dropped. A blank line is an empty sequence (every line comes out, in order); the newline that
ends the last line does not start another one.
"""

from __future__ import annotations

import numpy as np

from seqspectral.io import atomic_open

from .sequences import Corpus
from .tagsets import tag_mapping
from .textfile import DEFAULT_ENCODING, read_text_file
from .vocabulary import Vocabulary


def read_text(
    path, vocabulary: Vocabulary | None = None, tagset: str | None = None, encoding: str = DEFAULT_ENCODING
) -> Corpus:
    """Each line of ``path`` as one sequence of its white-space separated symbols."""
    text = read_text_file(path, encoding)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    codes: dict[str, int] = {}
    symbols: list[int] = []
    lengths = np.zeros(len(lines), dtype=np.int64)
    for i, line in enumerate(lines):
        words = line.split()
        lengths[i] = len(words)
        for w in words:
            code = codes.get(w)
            if code is None:
                code = codes[w] = len(codes)
            symbols.append(code)
    offsets = np.zeros(len(lines) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids, vocabulary = Vocabulary.encode_codes(list(codes), np.array(symbols, dtype=np.int64), vocabulary, tag_mapping(tagset))
    return Corpus(ids, offsets, vocabulary)


def write_text(path, corpus: Corpus) -> None:
    """Write each sequence of ``corpus`` (decoded with its vocabulary) on one line."""
    if corpus.vocabulary is None:
        raise ValueError("writing text needs a corpus with a vocabulary")
    decode = corpus.vocabulary.decode
    with atomic_open(path) as f:
        for seq in corpus:
            f.write(" ".join(decode(seq.tolist())) + "\n")
