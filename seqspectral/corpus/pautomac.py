"""PAutomaC files: ``.train``/``.test`` (header ``N k``, then ``len s1 .. slen`` per line)
and ``_solution.txt`` (``N``, then one probability per line); readers and writers.

The reader tokenises the raw bytes in one Numba pass (every token's value and line); the
checks against the header and the encoding are numpy operations, no Python loop over lines.
PAutomaC symbol ``i`` gets id ``i + 2`` (a vocabulary of "0".."k-1" in numeric order).
A UTF-8 byte-order mark is skipped; LF, CR LF and a lone CR end a line. A header declaring
more than ``MAX_ALPHABET`` symbols is refused (the vocabulary would hold them all).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from seqspectral.io import atomic_open

from .errors import CorpusFormatError, ErrorPolicy
from .sequences import Corpus
from .textfile import DEFAULT_ENCODING, ascii_bytes, decode, line_of, read_text_file
from .vocabulary import Vocabulary

#: the largest alphabet a header may declare (PAutomaC's have at most a few dozen symbols)
MAX_ALPHABET = 1 << 20


def _tokens(path, data: bytes, encoding: str):
    """(values, line of each token (0-based), number of lines) of a file of integers
    (``data``: ASCII digits and white space, see :func:`~seqspectral.corpus.textfile.ascii_bytes`)."""
    from ._kernels import integer_tokens

    values, lines, n_lines, bad = integer_tokens(np.frombuffer(data, dtype=np.uint8))
    if bad >= 0:
        line = line_of(data, bad)
        if data[bad:bad + 1].isdigit():
            raise CorpusFormatError(path, line, "an integer too large for a PAutomaC file")
        text = decode(path, data, encoding)  # undecodable bytes are reported as such
        word = text.split("\n")[line - 1]
        raise CorpusFormatError(path, line, f"not a non-negative integer in {word.strip()[:60]!r}")
    return values, lines, n_lines


def read_pautomac(
    path, vocabulary: Vocabulary | None = None, errors: str = "raise", encoding: str = DEFAULT_ENCODING
) -> Corpus:
    """A PAutomaC ``.train``/``.test`` file; lengths and the count are checked against the file.

    Without ``vocabulary`` the corpus has symbols "0".."k-1" (ids 2..k+1), k from the
    header; with one, symbol ``i`` is encoded as ``vocabulary.id(str(i))``.
    """
    data, encoding = ascii_bytes(path, Path(path).read_bytes(), encoding)
    policy = ErrorPolicy(path, errors)
    values, lines, _ = _tokens(path, data, encoding)
    del data  # memory: the token arrays are several times the file's size
    if len(values) == 0:
        policy.finish()
        return Corpus(np.zeros(0, np.int32), np.zeros(1, np.int64), Vocabulary() if vocabulary is None else vocabulary)
    per_line = np.bincount(lines)
    first = np.concatenate(([0], np.cumsum(per_line)[:-1]))  # index of each line's first token
    if lines[0] != 0 or per_line[0] != 2:
        raise CorpusFormatError(path, int(lines[0]) + 1, "the header must be two integers: number of strings, alphabet size")
    n_declared, k = int(values[0]), int(values[1])
    if k > MAX_ALPHABET:
        raise CorpusFormatError(path, 1, f"the header declares an alphabet of {k} symbols; at most {MAX_ALPHABET} are supported")
    data_lines = np.flatnonzero(per_line[1:]) + 1
    length_field = values[first[data_lines]]
    wrong_length = per_line[data_lines] != length_field + 1
    out_of_alphabet = np.zeros(len(per_line), dtype=bool)
    is_symbol = np.ones(len(values), dtype=bool)
    is_symbol[first[data_lines]] = False
    is_symbol[:2] = False
    out_of_alphabet[lines[is_symbol & (values >= k)]] = True
    blank_inside = np.flatnonzero(per_line[1:int(data_lines[-1]) if len(data_lines) else 1] == 0) + 1
    bad = np.zeros(len(per_line), dtype=bool)
    bad[data_lines[wrong_length]] = True
    bad |= out_of_alphabet
    for line in sorted(set(np.flatnonzero(bad).tolist()) | set(blank_inside.tolist())):
        if line in blank_inside:
            policy.bad(line + 1, "blank line (an empty string is written as a line with length 0)")
        elif per_line[line] != values[first[line]] + 1:
            policy.bad(line + 1, f"length field {values[first[line]]} but {per_line[line] - 1} symbols")
        else:
            syms = values[first[line] + 1:first[line] + per_line[line]]
            policy.bad(line + 1, f"symbol {int(syms[syms >= k][0])} outside the alphabet 0..{k - 1} of the header")
    if len(data_lines) != n_declared:
        policy.bad(1, f"the header declares {n_declared} strings but the file has {len(data_lines)}")
    policy.finish()
    good = data_lines[~bad[data_lines]]
    keep_token = ~bad[lines] & is_symbol
    del lines, is_symbol
    offsets = np.zeros(len(good) + 1, dtype=np.int64)
    np.cumsum(per_line[good] - 1, out=offsets[1:])
    raw = values[keep_token].astype(np.int32)  # every symbol is below k <= MAX_ALPHABET
    del values, keep_token
    if vocabulary is None:
        vocabulary = Vocabulary(str(i) for i in range(k))
        symbols = raw
        symbols += Vocabulary.N_RESERVED
    else:
        table = np.array([vocabulary.id(str(i)) for i in range(int(raw.max()) + 1 if len(raw) else 0)], dtype=np.int32)
        symbols = table[raw] if len(raw) else np.zeros(0, np.int32)
    return Corpus(symbols, offsets, vocabulary)


def read_pautomac_solution(path, encoding: str = DEFAULT_ENCODING) -> np.ndarray:
    """The probabilities of a ``_solution.txt`` (first line: their count, checked)."""
    lines = read_text_file(path, encoding).split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return np.zeros(0)
    try:
        n = int(lines[0])
    except ValueError:
        raise CorpusFormatError(path, 1, f"the first line must be the number of probabilities, not {lines[0][:40]!r}") from None
    try:
        probs = np.array(lines[1:], dtype=np.float64)
    except ValueError:
        for i, line in enumerate(lines[1:], 2):
            try:
                float(line)
            except ValueError:
                raise CorpusFormatError(path, i, f"not a number: {line[:40]!r}") from None
        raise
    if len(probs) != n:
        raise CorpusFormatError(path, 1, f"the header declares {n} probabilities but the file has {len(probs)}")
    bad = np.flatnonzero(~(probs >= 0) | ~np.isfinite(probs))
    if len(bad):
        raise CorpusFormatError(path, int(bad[0]) + 2, f"not a probability: {lines[bad[0] + 1]!r}")
    return probs


def write_pautomac(path, corpus: Corpus, alphabet_size: int | None = None) -> None:
    """Write ``corpus`` as a PAutomaC file: id ``i + 2`` is written as symbol ``i``.

    ``alphabet_size`` defaults to the vocabulary's number of real symbols (or the
    largest symbol + 1 without one). UNK/EOS ids cannot be written.
    """
    ids = corpus.symbols
    if len(ids) and int(ids.min()) < Vocabulary.N_RESERVED:
        raise ValueError("the corpus holds UNK or EOS ids, which a PAutomaC file cannot express")
    if alphabet_size is None:
        if corpus.vocabulary is not None:
            alphabet_size = len(corpus.vocabulary) - Vocabulary.N_RESERVED
        else:
            alphabet_size = int(ids.max()) - 1 if len(ids) else 0
    if len(ids) and int(ids.max()) - Vocabulary.N_RESERVED >= alphabet_size:
        raise ValueError(f"symbol ids exceed the alphabet size {alphabet_size}")
    with atomic_open(path) as f:
        f.write(f"{len(corpus)} {alphabet_size}\n")
        for seq in corpus:
            f.write(" ".join(map(str, [len(seq), *(seq - Vocabulary.N_RESERVED).tolist()])) + "\n")


def write_pautomac_solution(path, probabilities) -> None:
    """Write probabilities in the ``_solution.txt`` layout (count, then one per line)."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    with atomic_open(path) as f:
        f.write(f"{len(probabilities)}\n")
        f.writelines(f"{p!r}\n" for p in probabilities.tolist())
