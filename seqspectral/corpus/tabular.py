"""One engine for the tab-separated treebank formats (CoNLL-U, CoNLL-X, Malt-TAB).

A file is read once into blocks (one per sentence, blank-line separated); each token line
is split by its format's ``split`` function into a list of columns, ids and heads are
checked as integers, and trees are validated for the whole file at once
(one compiled pass, ``tree_defects``). Every defect is reported with the
file and the line through an :class:`~seqspectral.corpus.errors.ErrorPolicy`.

Several words attached to the root are accepted in every format (CoNLL-X allows them;
CoNLL-2007 Basque has them in 39% of sentences); for CoNLL-U, whose guidelines allow one,
their count is reported by a :class:`~seqspectral.corpus.errors.SeveralRootsWarning`.
Cycles and heads out of range are always refused.
"""

from __future__ import annotations

import codecs
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .errors import CorpusOptionError, ErrorPolicy, SeveralRootsWarning
from .options import FIELDS
from .sentence import NO_HEAD, Sentence, Source
from .sequences import Corpus
from .tagsets import tag_mapping
from .textfile import DEFAULT_ENCODING, iter_lines
from .dependency_trees import head_problem
from .vocabulary import Vocabulary


#: the columns a Sentence holds (the others are kept in its Source)
_MODELLED = {"id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc"}

#: the id a layout gives a word whose id is its position (no id column)
IMPLICIT = -1


class BadLine(Exception):
    """Raised by a layout's ``split`` for a malformed token line (message without location)."""


@dataclass(frozen=True)
class Layout:
    """How one format lays a token out: ``split(line) -> (id, columns)`` or BadLine.

    ``columns`` is the list of the line's column strings and ``index`` names their
    positions (``form lemma upos xpos head deprel``, optionally ``feats deps misc``); the
    id is the word's 1-based integer id, None for lines that are no word (multiword
    tokens, empty nodes), or :data:`IMPLICIT` when ids are positions (Malt-TAB). Rows are
    lists, not dicts: a file of a million words is read without a million dicts.
    ``comments``: whether lines starting with ``#`` outside a token are comments.
    ``warn_several_roots``: whether sentences with several root attachments are counted
    in a warning.
    """

    name: str
    split: Callable[[str], tuple]
    index: dict
    comments: bool
    parse_comment: Callable[[str], list] | None = None
    warn_several_roots: bool = False


class Block(NamedTuple):
    line: int  # first line of the sentence (its first comment or token)
    comments: list[str]
    rows: list[list[str]]  # the columns of each word, named by the layout's ``index``
    lines: list[int]  # line of each word
    heads: list[int]
    others: list[tuple[int, str]]  # lines that are no word: (words before it, line)


def iter_blocks(path, layout: Layout, policy: ErrorPolicy, encoding: str = DEFAULT_ENCODING,
                heads_required: bool = True) -> Iterator[Block]:
    """The sentences of ``path`` as blocks of parsed rows; bad sentences go to ``policy``.
    Without ``heads_required`` a HEAD of ``_`` is read as :data:`NO_HEAD`."""
    split = layout.split
    head_column = layout.index["head"]
    comments, rows, lines, heads, others = [], [], [], [], []
    start = 0
    bad = False
    for lineno, line in enumerate(iter_lines(path, encoding), 1):
        if not line or line.isspace():
            if (rows or comments) and not bad:
                yield Block(start, comments, rows, lines, heads, others)
            if rows or comments or others or bad:
                comments, rows, lines, heads, others = [], [], [], [], []
                bad = False
            start = 0
            continue
        if not start:
            start = lineno
        if bad:
            continue
        if layout.comments and line[0] == "#":
            if rows:
                policy.bad(lineno, "comment line inside a sentence")
                bad = True
            else:
                comments.append(line)
            continue
        try:
            word, row = split(line)
            if word is None:  # multiword token or empty node: kept for the writer
                others.append((len(rows), line))
                continue
            if word != IMPLICIT and word != len(rows) + 1:
                raise BadLine(f"word id {word} where {len(rows) + 1} was expected")
            try:
                head = int(row[head_column])
            except ValueError:
                if heads_required or row[head_column] != "_":
                    raise BadLine(f"non-integer head {row[head_column]!r}") from None
                head = NO_HEAD
            else:
                if not 0 <= head < 1 << 31:  # larger cannot be a word of the sentence, nor fit the head arrays
                    raise BadLine(f"head {row[head_column]} out of range")
        except BadLine as e:
            policy.bad(lineno, str(e))
            bad = True
            continue
        rows.append(row)
        lines.append(lineno)
        heads.append(head)
    if (rows or comments) and not bad:
        yield Block(start, comments, rows, lines, heads, others)


def _tree_check(word_lines: list[list[int]], heads: np.ndarray, offsets: np.ndarray, policy: ErrorPolicy,
                layout: Layout, several: list | None = None, defects=None) -> np.ndarray:
    """Indices of the sentences whose heads form a tree (one or several root attachments);
    the others go to ``policy``. Sentences with several root attachments are added to
    ``several`` (count, first line) when given, else warned of here. ``defects``:
    ``tree_defects``'s result when it is known (found by the compiled pass's threads)."""
    from ._kernels import tree_defects
    from .chunks import sequence_ranges, thread_map

    heads = np.ascontiguousarray(heads, dtype=np.int64)
    if defects is None:
        defects = _joined(thread_map(lambda r: tree_defects(heads[offsets[r[0]]:offsets[r[1]]],
                                                            offsets[r[0]:r[1] + 1] - offsets[r[0]], True),
                                     sequence_ranges(offsets)))
    bad, roots = defects
    for i in np.flatnonzero(bad).tolist():
        word, reason = head_problem(heads[offsets[i]:offsets[i + 1]], several_roots=True)
        policy.bad(word_lines[i][word - 1], f"not a tree: {reason}")
    kept = np.flatnonzero(~bad)
    if layout.warn_several_roots and len(heads):
        many = np.flatnonzero(roots[kept] > 1)
        if len(many) and several is not None:
            several[0] += len(many)
            several[1] = several[1] or word_lines[int(kept[many[0]])][0]
        elif len(many):
            warnings.warn(SeveralRootsWarning(policy.path, len(many), word_lines[int(kept[many[0]])][0]), stacklevel=4)
    return kept


def _joined(defects: list) -> tuple[np.ndarray, np.ndarray]:
    """``tree_defects``'s results for consecutive runs of sentences, as one."""
    if not defects:
        return np.zeros(0, bool), np.zeros(0, np.int64)
    return np.concatenate([b for b, _ in defects]), np.concatenate([r for _, r in defects])


def _offsets(lengths) -> np.ndarray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def read_sentences(path, layout: Layout, errors: str = "raise", encoding: str = DEFAULT_ENCODING,
                   heads_required: bool = True) -> list[Sentence]:
    """Every well-formed sentence of ``path`` with all its columns and comments. Without
    ``heads_required`` a sentence whose HEADs are all ``_`` (not parsed yet) is read with
    heads :data:`NO_HEAD`."""
    return list(iter_sentences(path, layout, errors, encoding, heads_required=heads_required))


def iter_sentences(path, layout: Layout, errors: str = "raise", encoding: str = DEFAULT_ENCODING,
                   chunk: int = 4096, heads_required: bool = True) -> Iterator[Sentence]:
    """:func:`read_sentences` one at a time: memory grows with ``chunk`` sentences (trees
    are checked ``chunk`` at a time), not with the file."""
    policy = ErrorPolicy(path, errors)
    several = [0, None]  # sentences with several root attachments, the first one's line
    blocks = []
    for block in iter_blocks(path, layout, policy, encoding, heads_required):
        if block.rows:
            blocks.append(block)
        if len(blocks) == chunk:
            yield from _sentences(blocks, policy, layout, several)
            blocks = []
    yield from _sentences(blocks, policy, layout, several)
    if several[0]:
        warnings.warn(SeveralRootsWarning(policy.path, several[0], several[1]), stacklevel=2)
    policy.finish()


def _sentences(blocks: list[Block], policy: ErrorPolicy, layout: Layout, several: list) -> list[Sentence]:
    """The sentences of ``blocks`` whose heads form trees or are all :data:`NO_HEAD` (the
    others go to ``policy``); ``several`` counts those with several root attachments when
    the layout warns of them."""
    unparsed = [b for b in blocks if NO_HEAD in b.heads]
    for b in unparsed:
        if any(h != NO_HEAD for h in b.heads):
            policy.bad(b.lines[b.heads.index(NO_HEAD)], "HEAD _ in a sentence whose other words have heads")
    unparsed = [b for b in unparsed if all(h == NO_HEAD for h in b.heads)]
    blocks = [b for b in blocks if NO_HEAD not in b.heads]
    offsets = _offsets([len(b.rows) for b in blocks])
    heads = np.fromiter((h for b in blocks for h in b.heads), dtype=np.int64, count=int(offsets[-1]))
    parsed = [(blocks[i], heads[offsets[i]:offsets[i + 1]])
              for i in _tree_check([b.lines for b in blocks], heads, offsets, policy, layout, several)]
    rest = sorted(i for name, i in layout.index.items() if name not in _MODELLED)
    sentences = []
    for b, b_heads in sorted(parsed + [(b, np.full(len(b.rows), NO_HEAD)) for b in unparsed], key=lambda p: p[0].line):
        metadata = {}
        if layout.parse_comment is not None:
            for comment in b.comments:
                metadata.update(layout.parse_comment(comment))
        rows = b.rows
        column = layout.index
        sentences.append(
            Sentence(
                forms=[r[column["form"]] for r in rows],
                lemmas=[r[column["lemma"]] for r in rows],
                upos=[r[column["upos"]] for r in rows],
                xpos=[r[column["xpos"]] for r in rows],
                heads=b_heads,
                deprels=[r[column["deprel"]] for r in rows],
                metadata=metadata,
                feats=_optional(rows, column.get("feats")),
                deps=_optional(rows, column.get("deps")),
                misc=_optional(rows, column.get("misc")),
                line=b.line,
                source=_source(layout, b, rest),
            )
        )
    return sentences


def _source(layout: Layout, block: Block, rest: list[int]) -> Source:
    """The block's comments, non-word lines and unmodelled columns (see :class:`Source`)."""
    columns = ["\t".join(r[i] for i in rest) for r in block.rows] if rest else []
    unmodelled = tuple(columns) if any(c.strip("_\t") for c in columns) else None
    return Source(layout.name, tuple(block.comments), tuple(block.others), unmodelled)


def _optional(rows: list[list[str]], column: int | None) -> list[str] | None:
    """The column's values, None when the format has no such column or all are ``_``."""
    if column is None:
        return None
    values = [r[column] for r in rows]
    return None if all(v == "_" for v in values) else values


def read_encoded(
    path,
    layout: Layout,
    field: str = "upos",
    tagset: str | None = None,
    vocabulary: Vocabulary | None = None,
    errors: str = "raise",
    encoding: str = DEFAULT_ENCODING,
) -> Corpus:
    """The ``field`` column of ``path`` straight into an encoded Corpus with heads.

    CoNLL-U and CoNLL-X files in an ASCII-compatible encoding are read in one compiled pass
    over their bytes (:func:`_one_pass`); a file with a line that pass does not take (a
    defect, an unusual layout) is read line by line, where the defect is reported. Either
    way symbols get provisional codes on first sight, and the vocabulary (most frequent
    first) and the final ids come from one remapping table.
    """
    if field not in FIELDS:
        raise CorpusOptionError(f"unknown field {field!r}; expected one of {', '.join(FIELDS)}")
    policy = ErrorPolicy(path, errors)
    read = _one_pass(path, layout, field, encoding) or _line_by_line(path, layout, field, policy, encoding)
    distinct, symbols, heads, word_lines, lengths, defects = read
    offsets = _offsets(lengths)
    keep = _tree_check(word_lines, heads, offsets, policy, layout, defects=defects)
    policy.finish()
    if len(keep) < len(word_lines):
        kept = Corpus(symbols, offsets, None, heads).subset(keep)
        symbols, offsets, heads = kept.symbols, kept.offsets, kept.heads
    ids, vocabulary = Vocabulary.encode_codes(distinct, symbols, vocabulary, tag_mapping(tagset))
    return Corpus(ids, offsets, vocabulary, heads)


def _line_by_line(path, layout: Layout, field: str, policy: ErrorPolicy, encoding: str):
    """(distinct symbols, codes, heads, word lines, sentence lengths, None) by ``iter_blocks``."""
    codes: dict[str, int] = {}
    symbols: list[int] = []
    heads: list[int] = []
    word_lines: list[list[int]] = []
    lengths: list[int] = []
    column = layout.index[field]
    for b in iter_blocks(path, layout, policy, encoding):
        if not b.rows:
            continue
        for r in b.rows:
            s = r[column]
            code = codes.get(s)
            if code is None:
                code = codes[s] = len(codes)
            symbols.append(code)
        heads.extend(b.heads)
        word_lines.append(b.lines)
        lengths.append(len(b.rows))
    return list(codes), np.array(symbols, dtype=np.int64), np.array(heads, dtype=np.int64), word_lines, lengths, None


class _WordLines:
    """The line of every word, by sentence, as ``_tree_check`` reads them (a few, on demand),
    from each chunk's lines (counted from the chunk's start) and the chunk's first line."""

    def __init__(self, lines: list[np.ndarray], lengths: list[np.ndarray], first_lines: list[int]):
        self.lines, self.first_lines = lines, first_lines
        self.offsets = [_offsets(n) for n in lengths]
        self.sentences = np.cumsum([0] + [len(n) for n in lengths])

    def __len__(self) -> int:
        return int(self.sentences[-1])

    def __getitem__(self, i: int) -> list[int]:
        chunk = int(np.searchsorted(self.sentences, i, side="right")) - 1
        offsets, j = self.offsets[chunk], i - self.sentences[chunk]
        return (self.lines[chunk][offsets[j]:offsets[j + 1]] + self.first_lines[chunk]).tolist()


#: the layouts of the compiled pass (``tabular_words``)
_KERNEL_LAYOUTS = {"conllx": 0, "conllu": 1, "malttab": 2}
#: the column of each field of a Malt-TAB line (word, tag, head[, relation]; no lemma, no feats)
_MALTTAB_COLUMNS = {"form": 0, "upos": 1, "xpos": 1, "head": 2, "deprel": 3}


def _one_pass(path, layout: Layout, field: str, encoding: str):
    """``_line_by_line``'s result (with the trees' defects) from one compiled pass over the bytes
    of a CoNLL-U, CoNLL-X or Malt-TAB file (``tabular_words``), or None when the file is not one
    that pass reads: another field (Malt-TAB's lemma), an encoding whose tabs, digits and line
    breaks are not ASCII bytes, bytes the encoding cannot decode, or a line that needs the
    line-by-line reader's judgement. A large file is read on several threads, cut at blank lines
    (:mod:`seqspectral.corpus.chunks`)."""
    from ._kernels import number_parts, tabular_words, tree_defects
    from .chunks import HASH_MASK, chunk_bounds, joined_numbering, thread_map
    from .textfile import check_encoding, every_byte_decodes, mapped_bytes
    from .tokens import distinct_strings

    name = check_encoding(encoding)
    columns = _MALTTAB_COLUMNS if layout.name == "malttab" else layout.index if layout.name in _KERNEL_LAYOUTS else {}
    if field not in columns or "\t\n#0123456789\r".encode(name) != b"\t\n#0123456789\r":
        return None
    buf = mapped_bytes(path)
    if name == "utf-8" and buf[:3].tobytes() == codecs.BOM_UTF8:
        buf = buf[3:]
    if name != "utf-8" and not every_byte_decodes(name) and buf.max(initial=0) >= 128:  # UTF-8: checked by the pass
        try:
            buf.tobytes().decode(name)
        except UnicodeDecodeError:
            return None
    column, head_column, kind = columns[field], columns["head"], _KERNEL_LAYOUTS[layout.name]

    def read(chunk):
        piece = buf[chunk[0]:chunk[1]]
        starts, ends, heads, lines, lengths, unusual, n_lines = tabular_words(piece, column, head_column, kind,
                                                                              name == "utf-8")
        if unusual:
            return heads, lines, lengths, unusual, n_lines, None, None
        return (heads, lines, lengths, unusual, n_lines, number_parts(piece, starts, ends, False, HASH_MASK),
                tree_defects(heads, _offsets(lengths), True))

    bounds = chunk_bounds(buf, (b"\n\n", b"\n\r\n"))
    chunks = thread_map(read, list(zip(bounds[:-1].tolist(), bounds[1:].tolist())))
    if any(c[3] for c in chunks):
        return None
    codes, arena, distinct_bounds = joined_numbering([c[5] for c in chunks])
    first_lines = np.cumsum([0] + [c[4] for c in chunks[:-1]]).tolist()
    lines = _WordLines([c[1] for c in chunks], [c[2] for c in chunks], first_lines)
    return (distinct_strings(arena, distinct_bounds, encoding=name), codes, np.concatenate([c[0] for c in chunks]),
            lines, np.concatenate([c[2] for c in chunks]), _joined([c[6] for c in chunks]))
