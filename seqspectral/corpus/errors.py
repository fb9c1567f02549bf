"""The one error type every reader raises for malformed input."""

from __future__ import annotations


class CorpusFormatError(ValueError):
    """A malformed record in an input file; the message names the file and the line."""

    def __init__(self, path, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.reason = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")
