"""The one treebank writer: sentences back to CoNLL-U (or CoNLL-X) as they were read.

A sentence read from a file carries its :class:`~seqspectral.corpus.sentence.Source`
(comment lines, multiword-token and empty-node lines, unmodelled columns); the writer
puts every such line back where it was and rebuilds each word line from the sentence's
columns, so a file read and written unchanged comes out byte for byte (with ``\\n`` line
ends), and a command that predicts some columns (HEAD and DEPREL, UPOS, ...) changes
those and nothing else. Comments come back verbatim unless the sentence's ``metadata``
changed them: a changed value is rewritten as ``# key = value`` in its place, a removed
key drops its line, a new key is added after the others.

Sentences read from CoNLL-X are written as CoNLL-X (PHEAD and PDEPREL kept, the comment
lines as they were: CoNLL-X has no metadata, so ``metadata`` is written only when such a
sentence is written as CoNLL-U, after its comments); every other sentence (read from
CoNLL-U or Malt-TAB, or built in code) as CoNLL-U.
"""

from __future__ import annotations

from collections.abc import Iterable

from seqspectral.io import atomic_open

from .sentence import NO_HEAD, Sentence
from .textfile import DEFAULT_ENCODING, check_encoding


def write_treebank(path, sentences: Iterable[Sentence], encoding: str = DEFAULT_ENCODING,
                   format: str | None = None) -> None:
    """Write ``sentences`` to ``path`` (``-``: standard output) atomically, each as it was
    read (see the module's docstring); ``format="conllu"`` writes CoNLL-U whatever the source."""
    encoding = check_encoding(encoding)
    with atomic_open(path, encoding=encoding) as f:
        for sentence in sentences:
            text = format_sentence(sentence, format)
            try:
                text.encode(encoding)
            except UnicodeEncodeError as e:
                raise UnwritableTextError(f"{path}: {text[e.start:e.end]!r} (in the sentence starting "
                                          f"{' '.join(sentence.forms[:5])!r}) cannot be written in {encoding}; "
                                          f"choose another output encoding (e.g. utf-8)") from None
            f.write(text)


def write_conllu(path, sentences: Iterable[Sentence], encoding: str = DEFAULT_ENCODING) -> None:
    """Write ``sentences`` as CoNLL-U (a CoNLL-X sentence is converted), otherwise as
    :func:`write_treebank`."""
    write_treebank(path, sentences, encoding, format="conllu")


class UnwritableTextError(ValueError):
    """Text the output encoding cannot represent (the command line exits with status 2)."""

    user_facing = True


def format_sentence(sentence: Sentence, format: str | None = None) -> str:
    """One sentence block: comments, token lines, the blank line after it."""
    source = sentence.source
    if format is None:
        format = "conllx" if source is not None and source.format == "conllx" else "conllu"
    out = _comments(sentence, format)
    others = source.others if source is not None and format == source.format else ()
    rest = source.rest if source is not None and source.format == format else None
    n = len(sentence)
    heads = ["_" if h == NO_HEAD else h for h in sentence.heads.tolist()]
    if format == "conllu":
        columns = [sentence.forms, sentence.lemmas, sentence.upos, sentence.xpos, sentence.feats or ["_"] * n,
                   heads, sentence.deprels, sentence.deps or ["_"] * n, sentence.misc or ["_"] * n]
    else:
        columns = [sentence.forms, sentence.lemmas, sentence.upos, sentence.xpos, sentence.feats or ["_"] * n,
                   heads, sentence.deprels, rest or ["_\t_"] * n]
    k = 0
    for i, values in enumerate(zip(*columns), 1):
        while k < len(others) and others[k][0] < i:
            out.append(others[k][1])
            k += 1
        line = "\t".join([str(i)] + [str(v) if str(v) else "_" for v in values])
        if "\n" in line or line.count("\t") != 9:
            raise ValueError(f"word {i} of a sentence has a tab or newline inside a column: {values!r}")
        out.append(line)
    out.extend(line for _, line in others[k:])
    out.append("")
    return "\n".join(out) + "\n"


def _comment(key: str, value: str | None) -> str:
    return f"# {key}" if value is None else f"# {key} = {value}"


def _comments(sentence: Sentence, format: str) -> list[str]:
    """The comment lines: the source's as they were where ``metadata`` still says the same."""
    from .conllu_format import parse_comment

    metadata, source = sentence.metadata, sentence.source
    if source is not None and source.format != "conllu":  # comments that hold no metadata, as they were
        return list(source.comments) + ([_comment(k, v) for k, v in metadata.items()] if format == "conllu" else [])
    out: list[str] = []
    done: set[str] = set()
    for raw in source.comments if source is not None else ():
        pairs = parse_comment(raw)
        if all(k in metadata and k not in done and metadata[k] == v for k, v in pairs):
            out.append(raw)
        else:
            out.extend(_comment(k, metadata[k]) for k, _ in pairs if k in metadata and k not in done)
        done.update(k for k, _ in pairs)
    out.extend(_comment(k, v) for k, v in metadata.items() if k not in done)
    return out
