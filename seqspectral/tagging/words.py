"""Sentences as the flat word-type table the tagger's kernels read.

Every distinct form of a batch of sentences is described once, in Python, by a row of
int64 atoms (:data:`COLUMNS`): the form, its lower case, its 1-4-character prefixes and
suffixes (of the lower case), its shape (``Xxxx``, ``dd-dd``: letters as X/x, digits as
d, runs collapsed) and a bit field of flags (digit, hyphen, capitalised, all capitals, no
letter or digit), and the coarse and fine word clusters of the form
(:class:`~seqspectral.embeddings.clusters.WordClusters`; 0 without clusters). Strings become
stable 32-bit CRC-32 hashes, so a model needs no
vocabulary: an unseen word is a row of atoms of which some (affixes, shape) have weights.
The tokens are then int32 type ids plus int64 sentence offsets; the token features are
built from these in Numba (:func:`._kernels.token_slots`), with no Python loop per token
beyond looking its form up.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from itertools import accumulate, chain, count, repeat
from operator import attrgetter

import numpy as np

#: the most hash bits a tagging model may have (its ``hash_bits`` check)
WIDEST_BITS = 26
COLUMNS = ("form", "lower", "prefix1", "prefix2", "prefix3", "prefix4",
           "suffix1", "suffix2", "suffix3", "suffix4", "shape", "flags", "cluster_coarse", "cluster_fine")
DIGIT, HYPHEN, CAPITALISED, ALL_CAPS, NO_ALNUM = 1, 2, 4, 8, 16


@dataclass
class WordTable:
    """``atoms`` (types × len(COLUMNS), int64), ``types`` (one int32 type id per token),
    ``offsets`` (sentences + 1, int64): sentence ``i`` is ``types[offsets[i]:offsets[i+1]]``,
    and ``forms`` (the form of each type id); ``slots``: the tokens' feature rows at
    :data:`WIDEST_BITS`, made once for every model that reads the table (a narrower model masks
    them: a slot's low bits do not depend on the mask)."""

    atoms: np.ndarray
    types: np.ndarray
    offsets: np.ndarray
    forms: list[str]
    slots: np.ndarray | None = field(default=None, repr=False)


def _hash(s: str) -> int:
    return zlib.crc32(_utf8(s))


def _utf8(s: str) -> bytes:
    return s.encode("utf-8", "surrogatepass")


_RUNS = re.compile(r"(.)\1+", re.DOTALL)


def shape(form: str) -> str:
    """Letters as X / x, digits as d, other characters as themselves, runs collapsed."""
    out = []
    for ch in form:
        c = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def flags(form: str) -> int:
    """The flag bits of ``form`` (module docstring)."""
    bits = DIGIT * any(c.isdigit() for c in form) | HYPHEN * ("-" in form)
    bits |= CAPITALISED * form[:1].isupper() | ALL_CAPS * (form.isupper() and len(form) > 1)
    return bits | NO_ALNUM * (not any(c.isalnum() for c in form))


def _classed_flags(classed: str, mark: str) -> int:
    """The flags but ``ALL_CAPS`` of the words whose characters, by classes, are ``classed``
    (:func:`atom_rows`: a digit is ``d`` there and nothing else is, a capital letter ``X``, a
    capital that is no letter or digit, Ⓐ, is ``mark``, every other character no letter or
    digit stays itself)."""
    return (DIGIT * ("d" in classed) | HYPHEN * ("-" in classed) | CAPITALISED * (classed[:1] in ("X", mark))
            | NO_ALNUM * (not any(c.isalnum() for c in classed)))


def atom_rows(words: list[str]) -> np.ndarray:
    """The atoms of each word type (words × the columns of :data:`COLUMNS` but the clusters,
    int64): :func:`shape` and :func:`flags` of each word and the hashes, computed a column at
    a time (C-level ``map`` and ``str.translate`` over the batch, shapes and flags worked out
    once per distinct string of character classes; the CRC-32 of every form, lower case, affix
    and shape in one Numba pass over their code points, :func:`._strings.crc32_spans`): no
    Python call per word (one per word type was a tenth of tagging's time)."""
    from ._strings import code_points, crc32_spans

    n = len(words)
    low = list(map(str.lower, words))
    chars = set("".join(words))
    mark = next(c for c in map(chr, count(0xE000)) if c not in chars and not c.isalnum())  # private use
    classes = {ord(c): (mark if not c.isalnum() else "X") if c.isupper() else "x" if c.isalpha() else
               "d" if c.isdigit() else c for c in chars}
    classed = list(map(str.translate, words, repeat(classes)))
    distinct = set(classed)  # far fewer than the words
    collapsed = {c: _RUNS.sub(r"\1", c.replace(mark, "X")) for c in distinct}  # the shape: X for any capital
    flat, at = code_points(words + low + list(map(collapsed.__getitem__, classed)))
    start, end = at[:-1].reshape(3, n), at[1:].reshape(3, n)  # forms, lower cases, shapes
    ls, le = start[1], end[1]
    starts = [start[0], ls, *(ls,) * 4, *(np.maximum(le - k, ls) for k in range(1, 5)), start[2]]
    ends = [end[0], le, *(np.minimum(ls + k, le) for k in range(1, 5)), *(le,) * 4, end[2]]
    out = np.empty((n, len(COLUMNS) - 2), dtype=np.int64)
    out[:, :-1] = crc32_spans(flat, np.concatenate(starts), np.concatenate(ends)).reshape(len(starts), n).T
    by_class = {c: _classed_flags(c, mark) for c in distinct}
    out[:, -1] = np.fromiter(map(by_class.__getitem__, classed), dtype=np.int64, count=n)
    out[:, -1] |= ALL_CAPS * (np.fromiter(map(str.isupper, words), dtype=bool, count=n)
                              & (np.fromiter(map(len, words), dtype=np.int64, count=n) > 1))
    return out


def type_ids(form_lists) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Each token's type id (int32, the types numbered in order of first occurrence), the
    sentence offsets (int64) and the distinct forms."""
    lengths = np.fromiter(map(len, form_lists), dtype=np.int64, count=len(form_lists))
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids, distinct = numbered(list(chain.from_iterable(form_lists)))
    return ids.astype(np.int32), offsets, distinct


def numbered(items: list) -> tuple[np.ndarray, list]:
    """Each item's number (int64), the distinct items numbered in order of first occurrence,
    and those items (no Python call per item)."""
    distinct = list(dict.fromkeys(items))
    index = dict(zip(distinct, range(len(distinct))))
    return np.fromiter(map(index.__getitem__, items), dtype=np.int64, count=len(items)), distinct


def encode(form_lists, clusters=None) -> WordTable:
    """The word table of sentences given as lists of forms (``clusters``: fitted word clusters
    or None)."""
    types, offsets, distinct = type_ids(form_lists)
    atoms = np.zeros((len(distinct), len(COLUMNS)), dtype=np.int64)
    if distinct:
        atoms[:, :-2] = atom_rows(distinct)
        if clusters is not None:
            atoms[:, -2:] = clusters.ids(distinct)
    return WordTable(atoms, types, offsets, distinct)


def per_sentence(names, ids: np.ndarray, sentences) -> list[list[str]]:
    """The flat class ids of every token of ``sentences`` as each sentence's list of names."""
    return split(list(map(names.__getitem__, ids.tolist())), sentences)


def split(flat: list, sentences) -> list[list]:
    """``flat``, one value per token of ``sentences``, as each sentence's list (slices made at
    C level: no Python call per sentence)."""
    ends = list(accumulate(map(len, map(attrgetter("forms"), sentences))))
    return list(map(flat.__getitem__, map(slice, [0, *ends[:-1]], ends)))


def with_slots(form_lists, clusters, table: WordTable | None = None) -> WordTable:
    """The word table of sentences given as lists of forms (``table``: theirs, already made by
    :func:`encode` with the same clusters) with its ``slots`` made."""
    from ._kernels import token_slots

    table = encode(form_lists, clusters) if table is None else table
    if table.slots is None:
        table.slots = token_slots(table.atoms, table.types, table.offsets, (1 << WIDEST_BITS) - 1,
                                  clusters is not None)
    return table


def word_slots(form_lists, clusters, hash_bits: int, table: WordTable | None = None) -> tuple[np.ndarray, WordTable]:
    """The tagger's feature rows of every token (:func:`._kernels.token_slots`, 2**hash_bits
    rows) and the word table they come from (``table`` as :func:`with_slots`)."""
    table = with_slots(form_lists, clusters, table)
    return table.slots & np.int32((1 << hash_bits) - 1), table
