"""Coarse tag mappings applied while reading (``tagset=...``)."""

from __future__ import annotations

from .errors import CorpusOptionError

# The 17 UD UPOS tags folded into 12: NOUN+PROPN, VERB+AUX, CCONJ+SCONJ, PUNCT+SYM, INTJ+X;
# ADJ, ADP, ADV, DET, NUM, PART, PRON are kept.
UNIVERSAL12 = {
    "PROPN": "NOUN",
    "AUX": "VERB",
    "SCONJ": "CCONJ",
    "SYM": "PUNCT",
    "X": "INTJ",
}

TAGSETS = {"universal12": UNIVERSAL12}


def tag_mapping(tagset: str | None) -> dict[str, str] | None:
    """The tag -> coarse tag dictionary of ``tagset`` (tags absent from it are kept), or None."""
    if tagset is None:
        return None
    try:
        return TAGSETS[tagset]
    except KeyError:
        raise CorpusOptionError(f"unknown tagset {tagset!r}; known: {', '.join(sorted(TAGSETS))}") from None
