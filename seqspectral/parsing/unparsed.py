"""Reading sentences to be parsed: CoNLL-U or CoNLL-X whose HEAD column may be ``_`` (not
parsed yet); Malt-TAB files are read as they are.

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


def read_unparsed(path, errors: str = "raise", encoding: str = "utf-8", format: str = "conllu") -> list:
    """The sentences of a treebank file (``format``: conllu, conllx, malttab) to parse;
    missing heads get placeholders."""
    from seqspectral.corpus import CorpusFormatError
    from seqspectral.corpus.conllu_format import read_conllu
    from seqspectral.corpus.conllx import read_conllx, read_malttab

    read = {"conllu": read_conllu, "conllx": read_conllx, "malttab": read_malttab}[format]
    data = Path(path).read_bytes()
    text = data.decode("utf-8", errors="surrogateescape")  # bytes kept as they are, whatever the encoding
    fixed, n = _with_placeholder_heads(text) if format != "malttab" else (text, 0)
    if n == 0:
        return read(path, errors=errors, encoding=encoding)
    with tempfile.TemporaryDirectory() as directory:
        local = Path(directory) / Path(path).name
        local.write_bytes(fixed.encode("utf-8", errors="surrogateescape"))
        try:
            return read(local, errors=errors, encoding=encoding)
        except CorpusFormatError as e:
            raise CorpusFormatError(path, e.line, e.reason) from None
