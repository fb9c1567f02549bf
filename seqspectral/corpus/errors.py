"""The one error type every reader raises for malformed input, and the skip policy."""

from __future__ import annotations

import warnings
from pathlib import Path


class CorpusFormatError(ValueError):
    """A malformed record in an input file; the message names the file and the line."""

    def __init__(self, path, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.reason = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class CorpusOptionError(ValueError):
    """A reader asked for something the file or format cannot give (unknown format,
    field or tagset); the command line reports it with exit status 2."""

    user_facing = True


class CorpusWarning(UserWarning):
    """Something a reader accepted but the user should hear about (the command line prints it)."""


class SkippedRecordsWarning(CorpusWarning):
    """Issued once per file read with ``errors="skip"`` that had malformed records."""

    def __init__(self, path, n_skipped: int, first: CorpusFormatError):
        self.path = str(path)
        self.n_skipped = n_skipped
        self.first = first
        super().__init__(f"{self.path}: skipped {n_skipped} malformed record(s); first: {first}")


class SeveralRootsWarning(CorpusWarning):
    """A CoNLL-U file had sentences with several words attached to the root (UD allows one)."""

    def __init__(self, path, n_sentences: int, first_line: int):
        self.path = str(path)
        self.n_sentences = n_sentences
        super().__init__(f"{self.path}: {n_sentences} sentence(s) with several root attachments, read as they are "
                         f"(UD allows one; first at line {first_line})")


class ErrorPolicy:
    """``errors="raise"`` raises at the first bad record; ``"skip"`` counts them.

    Call :meth:`bad` for every malformed record (it raises or returns), then
    :meth:`finish` once, which warns with the count when records were skipped.
    """

    def __init__(self, path, errors: str = "raise"):
        if errors not in ("raise", "skip"):
            raise CorpusOptionError(f"errors must be 'raise' or 'skip', not {errors!r}")
        self.path = Path(path)
        self.skip = errors == "skip"
        self.n_skipped = 0
        self.first: CorpusFormatError | None = None

    def bad(self, line: int | None, message: str) -> None:
        error = CorpusFormatError(self.path, line, message)
        if not self.skip:
            raise error
        self.n_skipped += 1
        if self.first is None:
            self.first = error

    def finish(self) -> int:
        if self.n_skipped:
            warnings.warn(SkippedRecordsWarning(self.path, self.n_skipped, self.first), stacklevel=3)
        return self.n_skipped
