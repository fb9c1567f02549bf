"""Bracketed (Penn Treebank style) treebanks in and out, as :class:`nltk.Tree`: the corpus
format ``bracketed`` (the grammars import it as :mod:`seqspectral.constituency.treebank`).

A source is a file (one or many trees; ``.mrg`` or any name), a folder (its ``.mrg`` files,
recursively, sorted by path) or a zip file (its ``.mrg`` members sorted by name, such as
NLTK's ``treebank.zip``); ``-`` is standard input. Trees are read with the standard clean-up,
each step an option that is on by default: ``-NONE-`` elements and the constituents they
leave empty removed (``remove_empty``), function tags and indices removed (``NP-SBJ-1`` →
``NP``, ``NP=2`` → ``NP``; labels that begin with ``-`` such as ``-NONE-`` and ``-LRB-`` are
kept; ``strip_functions``), ``X → X`` unary chains collapsed into one ``X``
(``collapse_unary``) and an empty root label (PTB's ``( (S ...) )``) named ``root_label``
(``ROOT``, as the Berkeley parser names it; ``None`` keeps it empty).

The brackets are parsed here rather than by ``nltk.Tree.fromstring`` so that every error
names its line: a bracket never closed, a closing bracket without an opening one, words
outside any bracket, an empty bracket or tree, a word beside brackets, a bracket without a
label inside a tree, and a tree left without words by the clean-up each raise
:class:`~seqspectral.corpus.errors.CorpusFormatError` naming the file and line (with
``errors="skip"`` the tree is dropped and counted, one
:class:`~seqspectral.corpus.errors.SkippedRecordsWarning` a file). In a file, a bracket
opened at the start of a line while a tree is still open starts a new tree: the open one is
reported as never closed at its first line, not at the end of the file.

:func:`write_bracketed` writes one tree a line, atomically, in the input's bracket style
(an empty root label where the input had one).
"""

from __future__ import annotations

import bisect
import re
import sys
import zipfile
from pathlib import Path

import numpy as np

from seqspectral.io import atomic_open

from .errors import CorpusFormatError, CorpusOptionError, ErrorPolicy
from .nltk_corpora import universal_mapping
from .nltk_modules import nltk_module
from .sequences import Corpus
from .tagsets import tag_mapping
from .textfile import DEFAULT_ENCODING, decode
from .vocabulary import Vocabulary

Tree = nltk_module("tree").Tree  # nltk.Tree, without NLTK's package initialiser

#: the extension of a treebank file in a folder or a zip (the Penn Treebank's, NLTK's)
EXTENSION = ".mrg"
#: the label the clean-up gives to a root bracket without one
ROOT = "ROOT"
#: the part-of-speech tag of an empty element (trace, null complementiser)
EMPTY_ELEMENT = "-NONE-"

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_FUNCTION_TAG = re.compile(r"[-=]")


class Treebank(list):
    """A list of :class:`nltk.Tree` read from one source, with where each tree came from
    (``origins``: ``(file, line)``, for messages) and the input's bracket style
    (``empty_root``: its root brackets had no label; :func:`write_bracketed` writes them so)."""

    def __init__(self, trees=(), origins=(), empty_root: bool = False):
        super().__init__(trees)
        self.origins = list(origins)
        self.empty_root = empty_root


def bracketed_files(path) -> list[str]:
    """The files ``path`` holds, in reading order: ``[path]`` for a file, the ``.mrg`` files
    of a folder (relative paths, recursively, sorted) or of a zip file (member names, sorted)."""
    path = Path(path)
    if path.is_dir():
        names = sorted(p.relative_to(path).as_posix() for p in path.rglob(f"*{EXTENSION}") if p.is_file())
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = sorted(n for n in z.namelist() if n.endswith(EXTENSION))
    else:
        return [str(path)]
    if not names:
        raise CorpusFormatError(path, None, f"no {EXTENSION} files in it (a bracketed treebank's files end in "
                                            f"{EXTENSION})")
    return names


def read_bracketed(
    path,
    *,
    files: list[str] | None = None,
    encoding: str = DEFAULT_ENCODING,
    errors: str = "raise",
    remove_empty: bool = True,
    strip_functions: bool = True,
    collapse_unary: bool = True,
    root_label: str | None = ROOT,
) -> Treebank:
    """The trees of ``path`` (a file, a folder, a zip, ``-``), cleaned up (module docstring).

    ``files`` picks some of the files of a folder or zip (names from :func:`bracketed_files`,
    read in the order given): a split by file. ``errors="skip"`` drops malformed trees,
    counted in a SkippedRecordsWarning, instead of raising CorpusFormatError.
    """
    options = dict(remove_empty=remove_empty, strip_functions=strip_functions, collapse_unary=collapse_unary,
                   root_label=root_label)
    treebank = Treebank()
    for name, data in _sources(path, files):
        policy = ErrorPolicy(name, errors)
        parse_bracketed(decode(name, data, encoding), name, policy, treebank, **options)
        policy.finish()
    return treebank


def _sources(path, files):
    """``(name for messages, bytes)`` of each file to read."""
    if str(path) == "-":
        yield "<stdin>", sys.stdin.buffer.read()
        return
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(2, "No such file or directory", str(path))
    names = bracketed_files(path) if files is None else files
    if path.is_dir():
        for name in names:
            yield str(path / name), (path / name).read_bytes()
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            for name in names:
                try:
                    data = z.read(name)
                except KeyError:
                    raise CorpusFormatError(path, None, f"no member {name!r}") from None
                yield f"{path}:{name}", data
    else:
        yield str(path), path.read_bytes()


def parse_bracketed(text: str, name: str = "<string>", policy: ErrorPolicy | None = None,
                    into: Treebank | None = None, **options) -> Treebank:
    """The trees of ``text`` (the contents of the file ``name``) appended to ``into``, cleaned
    up by ``options`` (those of :func:`read_bracketed`); malformed ones go to ``policy``."""
    policy = policy or ErrorPolicy(name)
    into = Treebank() if into is None else into
    breaks = [m.start() for m in re.finditer("\n", text)]

    def line(offset: int) -> int:
        return bisect.bisect_right(breaks, offset) + 1

    stack: list = []  # open brackets: [label, children, offset]
    start = bad = None  # the offset of the open tree's first bracket; whether it was reported
    expect_label = False

    def fail(offset: int, message: str) -> None:
        nonlocal bad
        if not bad:
            bad = True
            policy.bad(line(offset), message)

    for m in _TOKEN.finditer(text):
        token, offset = m.group(), m.start()
        if expect_label:
            expect_label = False
            if token not in "()":
                stack[-1][0] = token
                continue
        if token == "(":
            if stack and (offset == 0 or text[offset - 1] == "\n"):
                fail(start, "a bracket opened here is not closed before the next tree begins at line "
                            f"{line(offset)}")
                stack = []
            if not stack:
                start, bad = offset, False
            stack.append(["", [], offset])
            expect_label = True
        elif token == ")":
            if not stack:
                policy.bad(line(offset), "a closing bracket without an opening one")
                continue
            label, children, opened = stack.pop()
            node = _node(label, children, opened, not stack, fail)
            if stack:
                stack[-1][1].append(node)
            elif not bad:
                _add(into, node, name, line(start), fail, start, options)
        elif stack:
            stack[-1][1].append(token)
        else:
            policy.bad(line(offset), f"text outside any bracket: {token!r}")
    if stack:
        fail(start, "a bracket opened here is never closed")
    return into


def _node(label: str, children: list, offset: int, is_root: bool, fail):
    """The Tree of a closed bracket, or None (reported to ``fail``) when it is malformed."""
    words = sum(isinstance(c, str) for c in children)
    if not children:
        fail(offset, "an empty tree" if is_root and not label else f"an empty bracket ({label})")
    elif not label and not is_root:
        fail(offset, "a bracket without a label inside a tree")
    elif words and (words > 1 or len(children) > 1):
        fail(offset, f"several words, or words beside brackets, in one bracket ({label} "
                     f"{' '.join(c if isinstance(c, str) else '(...)' for c in children)[:60]})")
    elif not is_root or not words:
        return Tree(label, children)
    else:
        fail(offset, f"a word with no part-of-speech bracket at the root ({label} {children[0]})")
    return None


def _add(into: Treebank, tree, name: str, line: int, fail, start: int, options: dict) -> None:
    if tree is None:
        return
    empty_root = tree.label() == ""
    cleaned = clean_tree(tree, **options)
    if cleaned is None or not cleaned.leaves():
        fail(start, "a tree without words" + (" (only empty elements)" if tree.leaves() else ""))
        return
    into.empty_root = into.empty_root or empty_root
    into.append(cleaned)
    into.origins.append((name, line))


def clean_tree(tree: Tree, *, remove_empty: bool = True, strip_functions: bool = True,
               collapse_unary: bool = True, root_label: str | None = ROOT) -> Tree | None:
    """A cleaned-up copy of ``tree`` (module docstring), or None when nothing is left."""
    cleaned = _clean(tree, remove_empty, strip_functions, collapse_unary)
    if cleaned is not None and cleaned.label() == "" and root_label is not None:
        cleaned.set_label(root_label)
    return cleaned


def _clean(tree: Tree, remove_empty: bool, strip_functions: bool, collapse_unary: bool) -> Tree | None:
    label = tree.label()
    if strip_functions:
        label = function_free(label)
    if len(tree) == 1 and isinstance(tree[0], str):
        return None if remove_empty and tree.label() == EMPTY_ELEMENT else Tree(label, [tree[0]])
    children = [c for c in (_clean(t, remove_empty, strip_functions, collapse_unary) for t in tree) if c is not None]
    if not children:
        return None
    if collapse_unary and len(children) == 1 and children[0].label() == label:
        return children[0]
    return Tree(label, children)


def function_free(label: str) -> str:
    """``label`` without function tags and indices: ``NP-SBJ-1`` → ``NP``, ``NP=2`` → ``NP``;
    a label that begins with ``-`` (``-NONE-``, ``-LRB-``) is kept whole."""
    if label.startswith("-"):
        return label
    return _FUNCTION_TAG.split(label, 1)[0]


def tree_line(tree: Tree, empty_root: bool = False) -> str:
    """``tree`` on one line; with ``empty_root`` a root labelled :data:`ROOT` written with an
    empty label, as the Penn Treebank writes it (``( (S ...))``)."""
    text = tree.pformat(margin=sys.maxsize)
    if empty_root and tree.label() == ROOT:
        text = "(" + text[len(ROOT) + 1:]
    return text


def write_bracketed(path, trees, *, empty_root: bool | None = None, encoding: str = DEFAULT_ENCODING) -> None:
    """Write ``trees`` to ``path`` (``-``: standard output) one a line, atomically; the root
    labels written empty when ``empty_root`` (default: as the input, ``trees.empty_root`` of a
    :class:`Treebank`, else False)."""
    if empty_root is None:
        empty_root = getattr(trees, "empty_root", False)
    with atomic_open(path, "w", encoding=encoding) as f:
        for tree in trees:
            f.write(tree_line(tree, empty_root) + "\n")


#: the fields of a bracketed treebank read as sequences: the words, the tags, the tags mapped
#: to NLTK's universal tagset (``taggers/universal_tagset/en-ptb.map``, as for Brown)
CORPUS_FIELDS = ("form", "xpos", "upos")


def read_bracketed_corpus(path, field: str = "upos", tagset: str | None = None, vocabulary=None,
                          errors: str = "raise", encoding: str = DEFAULT_ENCODING):
    """The words (``form``) or part-of-speech tags (``xpos``; ``upos``: mapped to the
    universal tagset) of the cleaned-up trees of ``path``, one sequence a tree, as an encoded
    :class:`~seqspectral.corpus.Corpus`: the format ``bracketed`` of ``read_corpus``."""
    if field not in CORPUS_FIELDS:
        raise CorpusOptionError(f"a bracketed treebank has the fields {', '.join(CORPUS_FIELDS)}, not {field!r}")
    trees = read_bracketed(path, encoding=encoding, errors=errors)
    sequences = [t.leaves() if field == "form" else [tag for _, tag in t.pos()] for t in trees]
    codes: dict[str, int] = {}
    symbols = np.fromiter((codes.setdefault(s, len(codes)) for seq in sequences for s in seq), dtype=np.int64)
    offsets = np.zeros(len(sequences) + 1, dtype=np.int64)
    np.cumsum([len(seq) for seq in sequences], out=offsets[1:])
    distinct = list(codes)
    if field == "upos":
        near = [Path(path).resolve().parent.parent] if Path(path).resolve().parent.name == "corpora" else []
        try:
            universal = universal_mapping("en-ptb", near)
        except FileNotFoundError:
            raise CorpusOptionError("the field upos of a bracketed treebank needs NLTK's universal tagset "
                                    "(taggers/universal_tagset; set NLTK_DATA), or give the field xpos") from None
        distinct = [universal.get(tag, "X") for tag in distinct]
    ids, vocabulary = Vocabulary.encode_codes(distinct, symbols, vocabulary, tag_mapping(tagset))
    return Corpus(ids, offsets, vocabulary)


def split_by_file(path, train: float = 0.8, dev: float = 0.1) -> dict[str, list[str]]:
    """The files of ``path`` (:func:`bracketed_files`, sorted by name) split in order: the
    first ``train`` of them (rounded down) ``train``, the next ``dev`` (the end rounded down)
    ``dev``, the rest ``test``; NLTK's WSJ sample: 159, 20, 20 of its 199 files."""
    names = bracketed_files(path)
    a, b = int(len(names) * train), int(len(names) * (train + dev))
    return {"train": names[:a], "dev": names[a:b], "test": names[b:]}


def read_files(shard: tuple, **options) -> Treebank:
    """The trees of ``shard`` = ``(source, file names)`` (:func:`read_bracketed` with
    ``files``): a picklable reader of a shard for sharded counting."""
    path, files = shard
    return read_bracketed(path, files=list(files), **options)
