"""Plain text: one sequence per line, symbols separated by white space.

Any line ending (LF, CR LF, CR) ends a line; a UTF-8 byte-order mark is dropped. A blank line is an empty sequence (every line comes out, in order); the newline that
ends the last line does not start another one.
"""

from __future__ import annotations

import codecs

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
    """Each line of ``path`` as one sequence of its white-space separated symbols.

    A UTF-8 file (or an ASCII one in an encoding that writes ASCII as ASCII) is read in one
    compiled pass over its bytes, which checks them to be UTF-8 (no decoding of the file);
    another encoding is decoded first. A file with bytes that are not UTF-8 (reported at their
    line) or white space beyond ASCII (no-break space, ...) is split line by line in Python.
    """
    data = mapped_bytes(path)
    name = check_encoding(encoding)
    if name == "utf-8" or (data.max(initial=0) < 128 and _ASCII.encode(name) == _ASCII.encode("ascii")):
        buf = data[3:] if name == "utf-8" and data[:3].tobytes() == codecs.BOM_UTF8 else data  # the bytes are the text
    else:
        buf = decode(path, data.tobytes(), encoding).encode("utf-8")
    distinct, codes, lengths, unusual = numbered_tokens(buf)
    if unusual >= 0:
        distinct, codes, lengths = _by_lines(decode(path, data.tobytes(), encoding))
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids, vocabulary = Vocabulary.encode_codes(distinct, codes, vocabulary, tag_mapping(tagset))
    return Corpus(ids, offsets, vocabulary)


#: the ASCII characters: in an encoding that writes them as ASCII, an ASCII file is its text
_ASCII = "".join(map(chr, range(128)))


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
