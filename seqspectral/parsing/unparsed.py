"""Reading sentences to be parsed: CoNLL-U whose HEAD column may be ``_`` (not parsed yet).

The corpus reader insists on trees, so a word without a head gets a placeholder one (the
word before it; the first word on the root), which the parser then replaces. Lines stay
where they are, so errors still name the file's own lines.
"""

from __future__ import annotations

import tempfile
from pathlib import Path


def _with_placeholder_heads(text: str) -> tuple[str, int]:
    out, n = [], 0
    for line in text.split("\n"):
        cells = line.split("\t")
        if len(cells) == 10 and cells[0].isdigit() and cells[6] == "_":
            cells[6] = str(int(cells[0]) - 1)
            line = "\t".join(cells)
            n += 1
        out.append(line)
    return "\n".join(out), n


def read_unparsed(path, errors: str = "raise") -> list:
    """The sentences of a CoNLL-U file to parse; missing heads get placeholders."""
    from seqspectral.corpus import CorpusFormatError, read_conllu

    data = Path(path).read_bytes()
    text = data.decode("utf-8", errors="surrogateescape")
    fixed, n = _with_placeholder_heads(text)
    if n == 0:
        return read_conllu(path, errors=errors)
    with tempfile.TemporaryDirectory() as directory:
        local = Path(directory) / Path(path).name
        local.write_bytes(fixed.encode("utf-8", errors="surrogateescape"))
        try:
            return read_conllu(local, errors=errors)
        except CorpusFormatError as e:
            raise CorpusFormatError(path, e.line, e.reason) from None
