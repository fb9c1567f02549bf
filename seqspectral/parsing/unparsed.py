"""Reading sentences to be parsed: a treebank file whose HEAD column may be ``_`` (not parsed
yet); such a sentence is read with heads ``NO_HEAD``, which the parser replaces and the
writer writes back as ``_``."""

from __future__ import annotations


def read_unparsed(path, errors: str = "raise", encoding: str = "utf-8", format: str = "conllu") -> list:
    """The sentences of a treebank file (``format``: conllu, conllx, malttab) to parse."""
    from seqspectral.corpus import Reading

    return Reading(format=format, encoding=encoding).read_sentences(path, errors, heads_required=False)
