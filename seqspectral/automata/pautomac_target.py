"""The target machines of PAutomaC (``<n>.pautomac_model.txt``) as weighted automata.

The file lists, per block, ``(indices) probability`` lines: ``I:`` initial states,
``F:`` final (stopping) probabilities, ``S:`` symbol probabilities ``(state,symbol)``
and ``T:`` transitions ``(state,symbol,state)`` (Verwer, Eyraud & de la Higuera 2012).
In state q the machine stops with probability F(q), otherwise emits a with probability
S(q,a) (the S of a state sum to 1) and moves to q' with probability T(q,a,q'), so the
operator of symbol a is ``A_a[q, q'] = (1 - F(q)) S(q, a) T(q, a, q')``. HMMs, PFAs and
DPFAs of the competition all use this one format.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..corpus.errors import CorpusFormatError
from ..corpus.textfile import read_utf8
from ..corpus.vocabulary import Vocabulary

_HEADER = re.compile(r"^([IFST]):")
_ENTRY = re.compile(r"^\(\s*(\d+(?:\s*,\s*\d+)*)\s*\)\s+(\S+)$")
_ARITY = {"I": 1, "F": 1, "S": 2, "T": 3}


def read_pautomac_target(path, vocabulary: Vocabulary | None = None):
    """The PAutomaC target machine at ``path`` as a ``WeightedAutomaton`` (floor 0).

    PAutomaC symbol ``a`` is the vocabulary symbol ``str(a)``; with no ``vocabulary``
    one is made with symbols "0".."m-1" in numeric order (id a + 2), m the largest
    symbol used plus one — pass the test corpus's vocabulary to score that corpus.
    """
    from .wfa import WeightedAutomaton

    path = Path(path)
    entries: dict[str, list[tuple[tuple[int, ...], float]]] = {b: [] for b in _ARITY}
    block = None
    for lineno, line in enumerate(read_utf8(path).splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        header = _HEADER.match(line)
        if header:
            block = header.group(1)
            continue
        entry = _ENTRY.match(line)
        if block is None or entry is None:
            raise CorpusFormatError(path, lineno, f"expected a block header (I:, F:, S:, T:) or '(indices) probability', got {line[:60]!r}")
        index = tuple(int(i) for i in entry.group(1).split(","))
        try:
            p = float(entry.group(2))
        except ValueError:
            raise CorpusFormatError(path, lineno, f"not a probability: {entry.group(2)!r}") from None
        if len(index) != _ARITY[block] or not 0.0 <= p <= 1.0:
            raise CorpusFormatError(path, lineno, f"a {block}: entry needs {_ARITY[block]} indices and a probability in [0, 1]")
        entries[block].append((index, p))
    if not entries["I"] or not entries["T"]:
        raise CorpusFormatError(path, None, "not a PAutomaC model: no I: or T: block")

    all_states = [ix[0] for b in entries for ix, _ in entries[b]] + [ix[2] for ix, _ in entries["T"]]
    n_states = max(all_states) + 1
    symbols = [ix[1] for b in ("S", "T") for ix, _ in entries[b]]
    if vocabulary is None:
        vocabulary = Vocabulary(str(a) for a in range(max(symbols) + 1))
    ids = {a: vocabulary.id(str(a)) for a in set(symbols)}
    missing = sorted(a for a, i in ids.items() if i == Vocabulary.UNK_ID)
    if missing:
        raise ValueError(f"{path}: symbols {missing[:10]} are not in the vocabulary")

    initial = np.zeros(n_states)
    final = np.zeros(n_states)
    emit = np.zeros((n_states, len(vocabulary)))
    operators = np.zeros((len(vocabulary), n_states, n_states))
    for (q,), p in entries["I"]:
        initial[q] = p
    for (q,), p in entries["F"]:
        final[q] = p
    for (q, a), p in entries["S"]:
        emit[q, ids[a]] = p
    for (q, a, r), p in entries["T"]:
        operators[ids[a], q, r] += p
    operators *= (emit.T * (1.0 - final))[:, :, None]
    return WeightedAutomaton(initial, final, operators, vocabulary, floor=0.0)
