"""Reading a corpus file as encoded symbols the one way the workflows read it: the format
detected (and said, when the content decided), the readers' warnings and the count of
skipped records collected as data, a file with nothing to read refused naming it."""

from __future__ import annotations

import warnings


class CorpusInput:
    """A corpus file read as ``reading`` (a :class:`~seqspectral.corpus.Reading`), its
    symbols encoded in ``vocabulary`` (None: a new one). After reading, ``format`` is the
    format read, ``n_skipped`` the malformed records skipped, ``notes`` and ``warnings`` the
    messages for the user. Messages call the file ``name`` (default ``path``); ``local``
    is where its bytes are (standard input copied to a file, say)."""

    def __init__(self, path, reading, vocabulary=None, name: str | None = None):
        self.path, self.reading, self.vocabulary = str(path), reading, vocabulary
        self.name = name or self.path
        self.empty_ok = False  # True: a file with nothing to read is an empty corpus (corpus stats)
        self.format: str | None = None
        self.n_skipped = 0
        self.notes: list[str] = []
        self.warnings: list[str] = []

    def read(self):
        """The whole corpus."""
        (corpus,) = self.chunks(whole=True)
        return corpus

    def chunks(self, whole: bool = False):
        """The corpus as consecutive corpora: block by block where the format allows it
        (PAutomaC: memory follows a block, not the file), else in one piece."""
        from seqspectral.corpus import CorpusFormatError, CorpusWarning, detect, iter_pautomac, read_corpus

        from .reading import InputError

        reading, path = self.reading, self.path
        self.format = reading.format
        if self.format == "auto":
            detection = detect(path, reading.encoding)
            self.format = detection.format
            if detection.by_content:
                self.notes.append(f"{self.name}: read as {self.format} ({detection.reason}); if it is not, give "
                                  "--format")
        n_tokens = 0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CorpusWarning)
            try:
                if self.format == "pautomac" and reading.tagset is None and not whole:
                    parts = iter_pautomac(path, self.vocabulary, reading.errors, reading.encoding)
                else:
                    parts = [read_corpus(path, format=self.format, field=reading.field, tagset=reading.tagset,
                                         vocabulary=self.vocabulary, errors=reading.errors, encoding=reading.encoding)]
                for part in parts:
                    n_tokens += part.n_tokens
                    if len(part) or whole:
                        yield part
            except CorpusFormatError as e:
                if self.name == path:
                    raise
                raise CorpusFormatError(self.name, e.line, e.reason) from None
        self._collect(caught)
        if n_tokens == 0 and not self.empty_ok:  # an input with nothing to read is bad input (not to corpus stats)
            raise InputError(f"{self.name}: no {'symbols' if self.format == 'pautomac' else 'words'} to read"
                             + (f" (all {self.n_skipped} malformed ones skipped)" if self.n_skipped else ""))

    def _collect(self, caught) -> None:
        from seqspectral.corpus import CorpusWarning, SkippedRecordsWarning

        for w in caught:
            if not isinstance(w.message, CorpusWarning):  # not the readers': as Python would have shown it
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
                continue
            if isinstance(w.message, SkippedRecordsWarning):
                self.n_skipped += w.message.n_skipped
            self.warnings.append(str(w.message).replace(self.path, self.name))
