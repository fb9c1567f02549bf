"""CoNLL-U as UDPipe 1 reads it (the UDPipe peers of tagging.py and parsing.py)."""

from __future__ import annotations

from pathlib import Path


def udpipe_sentences(path: Path, blank_upos: bool = False) -> list:
    """The sentences of a CoNLL-U file as UDPipe reads them (``blank_upos``: UPOS set to ``_``,
    so nothing of the gold tags can reach a tagger's output)."""
    from ufal.udpipe import InputFormat, ProcessingError, Sentence

    text = path.read_text(encoding="utf-8")
    if blank_upos:
        lines = [line.split("\t") for line in text.split("\n")]
        text = "\n".join("\t".join(c[:3] + ["_"] + c[4:]) if len(c) == 10 else "\t".join(c) for c in lines)
    reader = InputFormat.newConlluInputFormat()
    reader.setText(text)
    out, s, error = [], Sentence(), ProcessingError()
    while reader.nextSentence(s, error):
        out.append(s)
        s = Sentence()
    if error.occurred():
        raise RuntimeError(f"UDPipe cannot read {path}: {error.message}")
    return out
