"""Inputs refused when they are the wrong kind, one line naming the file and what it is (exit
status 2): an n-best file where sentences are expected, an empty column a command learns
from, a sentence too long for the command. The commands call these after reading."""

from __future__ import annotations

from ._common import STDIN


def shown(path: str) -> str:
    """The name a message gives the input: the path as the user gave it, ``<stdin>`` for ``-``."""
    return "<stdin>" if path == STDIN else path


def is_nbest(sentences) -> bool:
    """Whether ``sentences`` are n-best candidates (``# nbest_rank`` comments, as ``parse run -k``
    and ``tag run -k`` write them)."""
    for sentence in sentences[:1]:
        comments = sentence.source.comments if sentence.source is not None else ()
        if any(c.startswith("# nbest_rank") for c in comments):
            return True
    return False


def refuse_nbest(sentences, path: str, expected: str = "sentences") -> None:
    """Refuse an n-best file given where ``expected`` (sentences, gold trees) are."""
    from .main import UsageError

    if is_nbest(sentences):
        raise UsageError(f"{shown(path)}: an n-best file (candidates with # nbest_rank), not {expected}; "
                         "rerank it (rerank apply) or evaluate it as PRED")


def refuse_empty_column(sentences, path: str, column: str, command: str) -> None:
    """Refuse training on a column that is ``_`` (or empty) for every word: raw text, an
    untagged treebank."""
    from .main import UsageError

    if all(v in ("_", "") for s in sentences for v in s.column(column)):
        raise UsageError(f"{shown(path)}: no {column.upper()} tags (_ for every word: raw text or an untagged "
                         f"treebank), nothing for {command} to learn; give a treebank tagged in that column")
