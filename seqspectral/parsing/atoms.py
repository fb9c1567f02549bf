"""Sentences as the flat atom table the parser's kernels read.

Every sentence of ``n`` words becomes ``n + 1`` rows — row 0 the artificial root, rows
1..n the words — of an int64 table with one column per atom (:data:`COLUMNS`): the
lower-cased form, the lemma, UPOS, XPOS, the form's 5-character prefix and 3-character
suffix, and the FEATS column (``_`` when the sentence has none; a column a model does not read,
the lemma or XPOS, is ``_`` in every row), each as a stable 32-bit
string hash (CRC-32), so a model needs no vocabulary and an
unseen word is just an atom with no weight; then the form's coarse and fine word clusters
(:class:`~seqspectral.embeddings.clusters.WordClusters`; 0 without clusters). ``offsets[i]`` is the root row of sentence
``i``. Negative ids mark the root row and the positions before and after a sentence.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

COLUMNS = ("word", "lemma", "upos", "xpos", "prefix", "suffix", "feats", "cluster_coarse", "cluster_fine")
ROOT, BEFORE, AFTER = -1, -2, -3


@dataclass
class AtomTable:
    """``atoms`` (rows × len(COLUMNS), int64) and ``offsets`` (sentences + 1, int64)."""

    atoms: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        """Words per sentence (the root row not counted)."""
        return np.diff(self.offsets) - 1


def encode(sentences, lemma: bool = True, xpos: bool = True, clusters=None) -> AtomTable:
    """The atom table of ``sentences`` (anything with ``forms``, ``lemmas``, ``upos``, ``xpos``,
    ``feats``); without ``lemma`` / ``xpos`` that column reads ``_`` whatever the sentence has;
    ``clusters`` (fitted word clusters, or None) fills the cluster columns."""
    cache: dict[str, int] = {}

    def h(s: str) -> int:
        v = cache.get(s)
        if v is None:
            v = cache[s] = zlib.crc32(s.encode("utf-8"))
        return v

    lengths = np.array([len(s.forms) + 1 for s in sentences], dtype=np.int64)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    atoms = np.full((int(offsets[-1]), len(COLUMNS)), ROOT, dtype=np.int64)
    rows = []
    for s in sentences:
        rows.append([ROOT] * len(COLUMNS))
        feats = s.feats if s.feats is not None else ["_"] * len(s.forms)
        lemmas = s.lemmas if lemma else ["_"] * len(s.forms)
        xposes = s.xpos if xpos else ["_"] * len(s.forms)
        for form, lem, upos, x, fs in zip(s.forms, lemmas, s.upos, xposes, feats):
            low = form.lower()
            rows.append([h(low), h(lem), h(upos), h(x), h(low[:5]), h(low[-3:]), h(fs), 0, 0])
    if rows:
        atoms[:] = np.array(rows, dtype=np.int64)
    if clusters is not None and rows:
        words = np.ones(len(atoms), dtype=bool)
        words[offsets[:-1]] = False
        atoms[words, len(COLUMNS) - 2:] = clusters.ids([w for s in sentences for w in s.forms])
    return AtomTable(atoms, offsets)


def flat_heads(sentences) -> np.ndarray:
    """The heads of ``sentences`` laid out like an atom table (0 in every root row)."""
    return np.concatenate([np.concatenate(([0], s.heads)) for s in sentences]).astype(np.int32) \
        if len(sentences) else np.zeros(0, np.int32)
