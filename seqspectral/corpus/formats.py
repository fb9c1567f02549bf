"""The file formats the toolkit reads, each one entry of one registry.

A :class:`Format` says everything the rest of the toolkit asks of a format: its name (what
``--format`` takes), the file names that are it (extensions, a name pattern, a directory),
how its first lines are recognised (``sniff``), how it is read as an encoded
:class:`~seqspectral.corpus.Corpus` (``read_corpus``) and, if at all, as sentences
(``read_sentences``), whether its files hold trees (``treebank``) and where a byte range of
it may be cut for sharded counting (``shard``). Adding a format is one :func:`register` call.

Detection (:func:`~seqspectral.corpus.readers.detect`) asks the names first, then the sniffers
in the order of registration; ``text`` comes last and takes any file.
"""

from __future__ import annotations

import re
from collections import namedtuple

from .errors import CorpusOptionError

#: ``Format.shard``: a byte range ends after a blank line, or after any line end
SHARD_AT_BLANK_LINE, SHARD_AT_LINE_END = "blank-line", "line-end"


class Format(namedtuple("Format", "name read_corpus read_sentences sniff extensions name_pattern directory treebank "
                                 "shard contents", defaults=(None, None, (), None, False, False, None, None))):
    """One file format.

    - ``name``: what ``--format`` takes and a model file records;
    - ``read_corpus(path, field, tagset, vocabulary, errors, encoding)``: one column as a Corpus;
    - ``read_sentences(path, errors, encoding, heads_required, text_split)``: every column kept
      (None, the default: the format holds no sentences to tag or parse);
    - ``sniff(lines)``: given the first non-blank lines of a file (up to 64 KB), the reason
      they are this format, or None (default None: never by its lines);
    - ``extensions``: file-name endings that are this format (lower case, with the dot);
    - ``name_pattern``: a regular expression a (lower-cased) file name matches in full;
    - ``directory``: a directory is read as this format;
    - ``treebank``: its sentences carry trees (HEAD), so it can train a parser or a tree model;
    - ``shard``: :data:`SHARD_AT_BLANK_LINE`, :data:`SHARD_AT_LINE_END`, or None (read whole);
    - ``contents(path)``: why a directory or zip file is this format by what it holds, or None
      (a format with it claims only the directories it says so of).

    (A named tuple, not a dataclass: the command line's option lists read the registry, and
    ``dataclasses`` imports ``inspect``, a tenth of a command's start-up.)
    """

    __slots__ = ()

    def by_name(self, path) -> str | None:
        """Why ``path``'s name (or being a directory) says it is this format, or None."""
        from pathlib import Path

        path = Path(path)
        name = path.name.lower()
        if self.contents is not None:
            reason = self.contents(path)
            if reason or path.is_dir():
                return reason
        if self.directory and path.is_dir():
            return "a directory"
        if self.name_pattern and re.fullmatch(self.name_pattern, name):
            return f"the name {path.name}"
        suffix = path.suffix.lower()
        if suffix and suffix in self.extensions:
            return f"the extension {path.suffix}"
        return None


_REGISTRY: dict[str, Format] = {}
#: the format a file is read as when no name or sniffer claims it
FALLBACK = "text"


def register(fmt: Format, before: str | None = FALLBACK) -> Format:
    """Add ``fmt`` to the registry; its sniffer is asked before that of ``before`` (default
    the fallback, ``text``; None: last). A name registered twice is an error."""
    if fmt.name in _REGISTRY or fmt.name == "auto":
        raise ValueError(f"a format named {fmt.name!r} is already registered")
    items = list(_REGISTRY.items())
    at = next((i for i, (name, _) in enumerate(items) if name == before), len(items))
    items.insert(at, (fmt.name, fmt))
    _REGISTRY.clear()
    _REGISTRY.update(items)
    return fmt


def get_format(name: str) -> Format:
    """The registered format ``name`` (a CorpusOptionError naming the choices otherwise)."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise CorpusOptionError(f"unknown format {name!r}; expected auto or one of {', '.join(_REGISTRY)}") from None


def format_names(treebank: bool | None = None, sentences: bool | None = None, shardable: bool | None = None) -> tuple:
    """The registered formats' names, in detection order; optionally only those that are (or
    are not) treebanks, read as sentences, or cut into byte ranges."""
    return tuple(name for name, f in _REGISTRY.items()
                 if (treebank is None or f.treebank == treebank)
                 and (sentences is None or (f.read_sentences is not None) == sentences)
                 and (shardable is None or (f.shard is not None) == shardable))


def registered() -> tuple:
    """Every registered :class:`Format`, in detection order."""
    return tuple(_REGISTRY.values())


# -- the toolkit's own formats ----------------------------------------------------------------------
def _tabular_sniff(conllu: bool):
    def sniff(lines: list) -> str | None:
        tokens = [line for line in lines if not line.startswith("#")]
        if not tokens or not all(line.count("\t") == 9 for line in tokens[:20]):
            return None
        marked = len(tokens) < len(lines) or any(not line.split("\t", 1)[0].isdigit() for line in tokens)
        if conllu and marked:
            return "10 tab-separated columns with comment lines or multiword ids"
        if not conllu and not marked:
            return "10 tab-separated columns, no comment lines or multiword ids"
        return None

    return sniff


def _malttab_sniff(lines: list) -> str | None:
    tokens = [line for line in lines if not line.startswith("#")][:20]
    if tokens and all(len(p := line.split("\t")) in (3, 4) and p[2].isdigit() for line in tokens):
        return "3 or 4 tab-separated columns with an integer third"
    return None


_INTEGERS = re.compile(r"\d+(?:[ \t]+\d+)*")


def _pautomac_sniff(lines: list) -> str | None:
    lines = lines[:20]
    if lines and all(_INTEGERS.fullmatch(line.strip()) for line in lines):
        header, rows = lines[0].split(), [line.split() for line in lines[1:]]
        if len(header) == 2 and all(int(r[0]) == len(r) - 1 for r in rows):
            return "a two-integer header and length-prefixed lines"
    return None


def _treebank(read):
    """A treebank reader with the signature of ``Format.read_sentences`` (``text_split`` unused)."""
    def read_sentences(path, errors="raise", encoding="utf-8", heads_required=True, text_split=None):
        return read(path, errors=errors, encoding=encoding, heads_required=heads_required)

    return read_sentences


def _raw_text_sentences(path, errors="raise", encoding="utf-8", heads_required=True, text_split="paragraphs"):
    from .rawtext import read_raw_text

    if heads_required:
        raise CorpusOptionError(f"{path}: raw text, which holds no trees; give a treebank (or --format)")
    return read_raw_text(path, text_split or "paragraphs", encoding)


def _reader(module: str, name: str):
    """The reader ``name`` of the submodule ``module``, imported when first called (so that
    the registry, which the command line's option lists read, costs no reader's imports)."""
    def read(*args, **kwargs):
        import importlib

        return getattr(importlib.import_module(f"{__package__}.{module}"), name)(*args, **kwargs)

    read.__name__ = read.__qualname__ = name
    return read


#: the start of bracketed trees: an opening bracket, a label or none, another opening bracket
_BRACKETED = re.compile(r"\s*\(\s*(?:[^\s()]+\s*)?\(")


def _bracketed_sniff(lines: list) -> str | None:
    if _BRACKETED.match("\n".join(lines[:5])):
        return "an opening bracket, a label or none, and another opening bracket"
    return None


def _holds_mrg(path) -> str | None:
    """A directory or zip file that holds bracketed treebank files (``.mrg``)."""
    import zipfile

    if path.is_dir():
        return "a directory of .mrg files" if next(path.rglob("*.mrg"), None) is not None else None
    if path.suffix.lower() == ".zip" and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            return "a zip file of .mrg files" if any(n.endswith(".mrg") for n in z.namelist()) else None
    return None


def _register_builtin() -> None:
    read_conllu, read_conllu_corpus = _reader("conllu_format", "read_conllu"), _reader("conllu_format",
                                                                                          "read_conllu_corpus")
    read_conllx, read_conllx_corpus = _reader("conllx", "read_conllx"), _reader("conllx", "read_conllx_corpus")
    read_malttab, read_malttab_corpus = _reader("conllx", "read_malttab"), _reader("conllx", "read_malttab_corpus")
    read_brown, read_pautomac, read_text = (_reader("nltk_corpora", "read_brown"), _reader("pautomac", "read_pautomac"),
                                            _reader("text", "read_text"))

    def pautomac_corpus(path, field="upos", tagset=None, vocabulary=None, errors="raise", encoding="utf-8"):
        if tagset is not None:
            raise CorpusOptionError("a tagset does not apply to PAutomaC files")
        return read_pautomac(path, vocabulary=vocabulary, errors=errors, encoding=encoding)

    def text_corpus(path, field="upos", tagset=None, vocabulary=None, errors="raise", encoding="utf-8"):
        return read_text(path, vocabulary=vocabulary, tagset=tagset, encoding=encoding)

    def brown_corpus(path, field="upos", tagset=None, vocabulary=None, errors="raise", encoding="utf-8"):
        return read_brown(path, field=field, tagset=tagset, vocabulary=vocabulary)

    for fmt in (
        Format("conllu", read_conllu_corpus, _treebank(read_conllu), _tabular_sniff(True), (".conllu",),
               treebank=True, shard=SHARD_AT_BLANK_LINE),
        Format("conllx", read_conllx_corpus, _treebank(read_conllx), _tabular_sniff(False), (".conll", ".conllx"),
               treebank=True, shard=SHARD_AT_BLANK_LINE),
        Format("malttab", read_malttab_corpus, _treebank(read_malttab), _malttab_sniff, (".dp", ".malt", ".tab"),
               treebank=True, shard=SHARD_AT_BLANK_LINE),
        Format("pautomac", pautomac_corpus, sniff=_pautomac_sniff, name_pattern=r".*\.pautomac\.(train|test)",
               shard=SHARD_AT_LINE_END),
        Format("bracketed", _reader("bracketed", "read_bracketed_corpus"), sniff=_bracketed_sniff,
               extensions=(".mrg",), directory=True, contents=_holds_mrg),  # phrase-structure trees; before brown
        Format("brown", brown_corpus, directory=True, name_pattern=r"brown\.zip"),
    ):
        register(fmt, before=None)
    register(Format("text", text_corpus, _raw_text_sentences, sniff=lambda lines: "no treebank or PAutomaC layout "
                    "in its first lines", shard=SHARD_AT_LINE_END), before=None)


_register_builtin()
