"""Raw text into sentences to tag and parse: NLTK's Punkt sentence splitter, trained
unsupervised on the text itself (no downloaded model), and its Penn Treebank word
tokeniser.

``split="paragraphs"``: paragraphs are separated by blank lines, their lines joined, and
Punkt splits each into sentences; ``split="lines"``: every non-blank line is one sentence.
Forms are the text's own characters (the tokeniser's spans, so quotes stay as typed);
each sentence gets ``# sent_id``, ``# text`` and, first in a paragraph, ``# newpar``;
``SpaceAfter=No`` in MISC marks a token followed directly by the next. Heads are
``NO_HEAD`` and the other columns ``_`` until a tagger and a parser fill them.
"""

from __future__ import annotations

import re

import numpy as np

from .options import SPLITS
from .sentence import NO_HEAD, Sentence, Source
from .textfile import DEFAULT_ENCODING, read_text_file

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def read_raw_text(path, split: str = "paragraphs", encoding: str = DEFAULT_ENCODING) -> list[Sentence]:
    """The sentences of the plain-text file ``path``, tokenised."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    return sentences_of_text(read_text_file(path, encoding), split)


def sentences_of_text(text: str, split: str = "paragraphs") -> list[Sentence]:
    """The sentences of raw ``text``, tokenised (as :func:`read_raw_text` tokenises a file)."""
    from .nltk_modules import nltk_module

    TreebankWordTokenizer = nltk_module("tokenize.treebank").TreebankWordTokenizer
    PunktSentenceTokenizer = nltk_module("tokenize.punkt").PunktSentenceTokenizer

    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    if split == "lines":
        paragraphs = [[line.strip()] for line in text.split("\n") if line.strip()]
    else:
        joined = [" ".join(p.split()) for p in _PARAGRAPH_BREAK.split(text) if p.strip()]
        punkt = PunktSentenceTokenizer(" ".join(joined))  # trained on the text itself
        paragraphs = [[p[a:b] for a, b in punkt.span_tokenize(p)] for p in joined]
    words = TreebankWordTokenizer()
    out = []
    for paragraph in paragraphs:
        for k, sentence in enumerate(paragraph):
            spans = list(words.span_tokenize(sentence))
            if not spans:
                continue
            out.append(_sentence(sentence, spans, len(out) + 1, first_in_paragraph=k == 0 and split == "paragraphs"))
    return out


def _sentence(text: str, spans: list[tuple[int, int]], number: int, first_in_paragraph: bool) -> Sentence:
    n = len(spans)
    forms = [text[a:b] for a, b in spans]
    glued = [i + 1 < n and spans[i + 1][0] == b for i, (_, b) in enumerate(spans)]
    metadata = ({"newpar": None} if first_in_paragraph else {}) | {"sent_id": str(number), "text": text}
    return Sentence(forms=forms, lemmas=["_"] * n, upos=["_"] * n, xpos=["_"] * n,
                    heads=np.full(n, NO_HEAD, dtype=np.int32), deprels=["_"] * n, metadata=metadata,
                    misc=["SpaceAfter=No" if g else "_" for g in glued] if any(glued) else None,
                    source=Source("conllu"))
