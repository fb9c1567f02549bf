"""What every command that reads a corpus shares: the reading options (one list of formats,
one list of fields, from the library), reading with warnings and notes on stderr, and
standard input as ``-``."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path

from seqspectral.bounds import BOUNDS

#: the reading options recorded in a model file and inherited by the commands that use it
INHERITED = ("format", "field", "tagset", "encoding")
DEFAULTS = {"format": "auto", "field": "upos", "tagset": None, "encoding": "utf-8", "errors": "raise"}
STDIN = STDOUT = "-"


def positive_int(text: str, expected: str = "a positive integer") -> int:
    """An argparse type: an integer of at least 1."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def at_most(high: int, expected: str = "a positive integer"):
    """An argparse type: an integer from 1 to ``high`` — options whose size sets memory or
    time are bounded, so that a typo is a usage error naming the option, not hours of work
    or gigabytes of memory."""

    def check(text: str) -> int:
        import argparse

        value = positive_int(text, expected)
        if value > high:
            raise argparse.ArgumentTypeError(f"expected {expected} of at most {high}, got {text!r}")
        return value

    check.__name__ = "bounded integer"
    return check


#: the bounds of the options whose size sets memory or time (the table: seqspectral.bounds)
MAX_K = BOUNDS["k"].high  # -k: candidates per sentence
MAX_WINDOW = BOUNDS["window"].high  # embed --window: context words each side
MAX_BASIS_LENGTH = BOUNDS["basis_length"].high  # lm --basis-length
MAX_DIM = BOUNDS["dim"].high  # --dim of embeddings and tree models
MAX_PARSE_WORDS = BOUNDS["words"].high  # words of a sentence the O(n^3) parsers take
WORKERS_PER_CPU = 4
#: sentences decoded per kernel call by parse/tag run (a signal is handled between calls)
PREDICT_CHUNK = 128


def text_encoding(name: str) -> str:
    """An argparse type: the name of a text encoding Python knows (not a bytes codec such as base64)."""
    import argparse
    import codecs

    try:
        info = codecs.lookup(name)
    except LookupError:
        raise argparse.ArgumentTypeError(f"unknown text encoding {name!r}") from None
    if not getattr(info, "_is_text_encoding", True):
        raise argparse.ArgumentTypeError(f"{name!r} is not a text encoding")
    return name


def megabytes(text: str) -> float:
    """An argparse type: a size in MB, at least one KB, finite."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 1 / 1024 <= value <= 1 << 30:
        raise argparse.ArgumentTypeError(f"expected a size in MB from 0.001 to {1 << 30}, got {text!r}")
    return value


def leaf_parser(sub, name: str, **kwargs):
    """A subcommand parser that reports unknown arguments with its own usage (see main)."""
    parser = sub.add_parser(name, **kwargs)
    parser.set_defaults(leaf_parser=parser)
    return parser


def add_reading_options(parser, inherit: bool = False, field: str = "upos") -> None:
    """``--format --field --tagset --encoding --errors``; with ``inherit`` the first four
    default to what the model's training file was read with; else ``--field`` to ``field``."""
    from seqspectral.corpus import FIELDS, FORMATS
    from seqspectral.corpus.tagsets import TAGSETS

    given = " (default: as the training file was read)" if inherit else ""
    d = (lambda name: None) if inherit else {**DEFAULTS, "field": field}.get
    parser.add_argument("--format", default=d("format"), choices=("auto", *FORMATS),
                        help="file format; auto: by the file's name, else by its first lines (what was "
                             f"detected is printed){given or ' (default: auto)'}")
    parser.add_argument("--field", default=d("field"), choices=FIELDS,
                        help=f"treebank column read as the symbols{given or f' (default: {field})'}")
    parser.add_argument("--tagset", default=d("tagset"), choices=sorted(TAGSETS),
                        help=f"fold the tags: universal12 maps UD's 17 UPOS tags to 12{given}")
    parser.add_argument("--encoding", default=d("encoding"), metavar="NAME", type=text_encoding,
                        help="text encoding of the input (e.g. latin-1 for the CoNLL-2007 files; a UTF-8 "
                             f"byte-order mark is skipped){given or ' (default: utf-8)'}")
    parser.add_argument("--errors", default="raise", choices=("raise", "skip"),
                        help="skip: drop malformed sentences or strings (their count is printed) instead of "
                             "stopping at the first (default: raise)")


def reading_of(args, inherited=None) -> dict:
    """The reading options: given on the command line, else ``inherited`` (a model's
    :class:`~seqspectral.corpus.Reading`), else the defaults."""
    inherited = inherited.to_json() if inherited is not None else {}
    reading = {}
    for name in (*INHERITED, "errors"):
        value = getattr(args, name, None)
        reading[name] = value if value is not None else inherited.get(name, DEFAULTS[name])
    return reading


class Input:
    """A corpus file as a command reads it (``-``: standard input): the format detected
    (and said, when the content decided), the readers' warnings printed, errors about
    standard input named ``<stdin>``. After reading, ``format`` and ``n_skipped`` hold
    the format read and the number of malformed records skipped."""

    def __init__(self, path: str, reading: dict, vocabulary=None, quiet: bool = False):
        self.path, self.reading, self.vocabulary, self.quiet = path, reading, vocabulary, quiet
        self.empty_ok = False  # corpus stats: an empty file is an empty corpus
        self.format: str | None = None
        self.n_skipped = 0

    def read(self):
        """The whole corpus."""
        (corpus,) = self.chunks(whole=True)
        return corpus

    def _empty(self) -> Exception:
        from .main import UsageError

        return UsageError(f"{self.path}: no {'symbols' if self.format == 'pautomac' else 'words'} to read"
                          + (f" (all {self.n_skipped} malformed ones skipped)" if self.n_skipped else ""))

    def chunks(self, whole: bool = False):
        """The corpus as consecutive corpora: block by block where the format allows it
        (PAutomaC: memory follows a block, not the file), else in one piece."""
        import warnings

        from seqspectral.corpus import CorpusFormatError, CorpusWarning, detect, iter_pautomac, read_corpus

        reading = self.reading
        with _local_file(self.path) as local:
            self.format = reading["format"]
            if self.format == "auto":
                detection = detect(local, reading["encoding"])
                self.format = detection.format
                if detection.by_content and not self.quiet:
                    note(f"{self.path}: read as {self.format} ({detection.reason}); if it is not, give --format")
            n_tokens = 0
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", CorpusWarning)
                try:
                    if self.format == "pautomac" and reading["tagset"] is None and not whole:
                        parts = iter_pautomac(local, self.vocabulary, reading["errors"], reading["encoding"])
                    else:
                        parts = [read_corpus(local, format=self.format, field=reading["field"],
                                             tagset=reading["tagset"], vocabulary=self.vocabulary,
                                             errors=reading["errors"], encoding=reading["encoding"])]
                    for part in parts:
                        n_tokens += part.n_tokens
                        if len(part) or whole:
                            yield part
                except CorpusFormatError as e:
                    if local == self.path:
                        raise
                    raise CorpusFormatError("<stdin>", e.line, e.reason) from None
            self._report(caught, local)
            if n_tokens == 0 and not self.empty_ok:  # an input with nothing to read is bad input (not to stats)
                raise self._empty()

    def _report(self, caught, local: str) -> None:
        import warnings

        from seqspectral.corpus import CorpusWarning, SkippedRecordsWarning

        for w in caught:
            if not isinstance(w.message, CorpusWarning):  # not the readers': as Python would have shown it
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
                continue
            if isinstance(w.message, SkippedRecordsWarning):
                self.n_skipped += w.message.n_skipped
            if not self.quiet:
                warn(str(w.message) if local == self.path else str(w.message).replace(local, "<stdin>"))


def read_input(path: str, reading: dict, vocabulary=None, quiet: bool = False, empty_ok: bool = False):
    """``(corpus, n_skipped, format)`` of ``path`` read whole (see :class:`Input`); with
    ``empty_ok`` a file with no words is an empty corpus, not an error."""
    source = Input(path, reading, vocabulary, quiet)
    source.empty_ok = empty_ok
    corpus = source.read()
    return corpus, source.n_skipped, source.format


@contextmanager
def _local_file(path: str):
    """``path`` itself, or for ``-`` a temporary copy of standard input (read twice: detection, reading)."""
    if path != STDIN:
        yield path
        return
    import shutil
    import tempfile

    from seqspectral.corpus import CorpusFormatError
    from seqspectral.corpus.errors import CorpusOptionError

    from .main import UsageError

    with tempfile.TemporaryDirectory() as directory:
        local = Path(directory) / "stdin"
        with open(local, "wb") as f:  # a block at a time: an n-best file of gigabytes is not held in memory
            shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
        try:
            yield str(local)
        except CorpusFormatError as e:  # every message about the input names it as the user did
            raise CorpusFormatError("<stdin>", e.line, e.reason) from None
        except (CorpusOptionError, UsageError) as e:
            raise type(e)(str(e).replace(str(local), "<stdin>")) from None


def note(message: str) -> None:
    print(f"seqspectral: note: {message}", file=sys.stderr)


def warn(message: str) -> None:
    print(f"seqspectral: warning: {message}", file=sys.stderr)


def add_sharding_options(parser, default_mb: float = 64.0) -> None:
    """``--workers``, ``--scheduler`` and ``--shard-mb``: where a command counts its input files."""
    parser.add_argument("--workers", type=positive_int, default=None, metavar="N",
                        help="count byte-range shards of the input files on N local processes")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="count the shards on a Dask cluster, given its scheduler's address "
                             "(pip install seqspectral[distributed])")
    parser.add_argument("--shard-mb", type=megabytes, default=default_mb, metavar="MB",
                        help=f"about this many MB of a file per shard (default {default_mb:g})")


def shards_of(paths, args, reading: dict):
    """``(shards, where)``: the byte-range shards of ``paths`` for ``args.workers`` (a
    multiple of them) and the keyword arguments that send counting there."""
    from seqspectral.counting.shards import shard_files

    from .main import UsageError

    if args.workers is not None and args.scheduler is not None:
        raise UsageError("give --workers or --scheduler, not both")
    cpus = os.cpu_count() or 1
    if args.workers is not None and args.workers > WORKERS_PER_CPU * cpus:
        raise UsageError(f"--workers {args.workers}: at most {WORKERS_PER_CPU * cpus} on this machine of {cpus} CPUs")
    if STDIN in paths:
        raise UsageError("sharded counting reads files where they lie: give file names, not -")
    for path in paths:
        require_content(path, reading)
    shards = shard_files(paths, int(args.shard_mb * 2 ** 20), reading["format"], reading["encoding"],
                         workers=args.workers or 1)
    where = {"workers": args.workers, "scheduler": args.scheduler,
             "progress": not getattr(args, "quiet", False)}
    return shards, where


def require_content(path: str, reading: dict) -> None:
    """The rule of :class:`Input` for a file counted in shards: refuse it, naming it, when it
    holds no sentence (only blank lines, comments, or a PAutomaC header). Reads up to the
    first sentence."""
    from seqspectral.corpus import detect

    from .main import UsageError

    fmt = detect(path, reading["encoding"]).format if reading["format"] == "auto" else reading["format"]
    skip = 1 if fmt == "pautomac" else 0
    with open(path, encoding=reading["encoding"], errors="replace") as f:
        for line in f:
            text = line.strip()
            if not text or (fmt in ("conllu", "conllx") and text.startswith("#")):
                continue
            if skip:
                skip -= 1
                continue
            if fmt != "pautomac" or len(text.split()) > 1:  # a PAutomaC line: length, then symbols
                return
    raise UsageError(f"{path}: no {'symbols' if fmt == 'pautomac' else 'words'} to read")


#: the formats ``parse`` and ``tag`` read (text: raw text, tokenised, where no heads are needed)
TREEBANK_FORMATS = ("auto", "conllu", "conllx", "malttab", "text")


def add_treebank_options(parser, inherit: bool = False, output: bool = False) -> None:
    """``--format``, ``--encoding``, ``--errors``, ``--quiet`` (and with ``output``
    ``--output-encoding``): how ``parse``, ``tag``, ``evaluate`` and ``rerank`` read
    treebanks; with ``inherit`` the encoding defaults to the model's training file's."""
    from seqspectral.corpus.rawtext import SPLITS

    parser.add_argument("--format", default="auto", choices=TREEBANK_FORMATS,
                        help="treebank format; auto: by the file's name, else by its first lines; text: raw text, "
                             "tokenised (NLTK Punkt + Treebank tokeniser) where no heads are needed (default auto)")
    parser.add_argument("--text-split", default="paragraphs", choices=SPLITS,
                        help="raw text: paragraphs (blank-line separated, split into sentences by Punkt trained on "
                             "the text) or lines (one sentence per line) (default paragraphs)")
    parser.add_argument("--encoding", default=None, metavar="NAME", type=text_encoding,
                        help="text encoding of the input (e.g. latin-1 for the CoNLL-2007 files; default "
                             + ("the model's training file's, else utf-8)" if inherit else "utf-8)"))
    if output:
        parser.add_argument("--output-encoding", default=None, metavar="NAME", type=text_encoding,
                            help="text encoding of the output (default: the input's)")
    parser.add_argument("--errors", default="raise", choices=("raise", "skip"),
                        help="skip: drop malformed sentences (their count is printed) instead of stopping")
    parser.add_argument("--quiet", action="store_true", help="no progress or summary on standard error")


def treebank_reading(args, model=None):
    """The :class:`~seqspectral.corpus.Reading` of ``args`` (the encoding, if not given, the
    one ``model``'s training file was read with)."""
    from seqspectral.corpus import Reading

    inherited = getattr(model, "reading_", None)
    encoding = args.encoding or (inherited.encoding if inherited is not None else None)
    return Reading(format=args.format).updated(encoding=encoding)


def read_treebank(path: str, args, heads_required: bool = True, reading=None, name: str | None = None) -> list:
    """The sentences of a treebank file (``-``: standard input) read as ``reading`` (default:
    :func:`treebank_reading` of ``args``); without ``heads_required`` HEAD may be ``_`` and a
    text file is raw text, tokenised. Reader warnings are printed; messages call the file
    ``name`` (default: ``path``)."""
    import warnings

    from seqspectral.corpus import CorpusFormatError, CorpusWarning, detect

    from .main import UsageError

    reading = reading or treebank_reading(args)
    if os.path.isdir(path):
        raise UsageError(f"{path}: a directory; give a treebank file")
    shown = "<stdin>" if (name or path) == STDIN else (name or path)
    with _local_file(path) as local, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CorpusWarning)
        if reading.format == "auto":
            detection = detect(local, reading.encoding)
            if detection.by_content and not args.quiet:
                note(f"{name or path}: read as {detection.format} ({detection.reason}); if it is not, give --format")
            reading = reading.updated(format=detection.format)
        try:
            sentences = reading.read_sentences(local, args.errors, heads_required, getattr(args, "text_split", None)
                                               or "paragraphs")
        except CorpusFormatError as e:
            if local == shown:
                raise
            raise CorpusFormatError(shown, e.line, e.reason) from None
    for w in caught:
        if isinstance(w.message, CorpusWarning) and not args.quiet:
            warn(str(w.message).replace(local, shown))
    if not sentences:
        raise UsageError(f"{shown}: no sentences")
    if getattr(args, "max_words", None) is not None:
        from seqspectral.bounds import check_sentences

        check_sentences(sentences, shown, limit=args.max_words)
    return sentences


def output_encoding(args, reading) -> str:
    """``--output-encoding``, else the input's."""
    return getattr(args, "output_encoding", None) or reading.encoding


def wrote(path: str) -> str:
    return "standard output" if path == STDOUT else path


def read_nbest_lists(path: str, encoding: str = "utf-8") -> list:
    """The n-best lists of ``path`` (``-``: standard input); none is bad input, as for every
    command's input."""
    from seqspectral.corpus import read_nbest

    from .main import UsageError

    with _local_file(path) as local:
        lists = read_nbest(local, encoding=encoding)
    if not lists:
        raise UsageError(f"{path}: no n-best lists")
    return lists


@contextmanager
def epoch_progress(args, desc: str, measure: str, percent: bool = False):
    """The training callback of ``desc`` (``parse train``): every epoch a step of one
    :mod:`seqspectral.progress` stage (a bar on a terminal, one line per epoch otherwise,
    nothing with ``--quiet``) noting the train and (if any) dev ``measure`` of the record (keys
    ``train_<measure>``, ``dev_<measure>``); the line gives that epoch's seconds."""
    from seqspectral.progress import stage

    label = "" if percent else f" {measure.upper()}"
    unit = "%" if percent else ""

    def figure(record, part: str) -> str:
        return f"{part}{label} {record[f'{part}_{measure}']:.2f}{unit}" if f"{part}_{measure}" in record else ""

    with stage(desc, total=args.epochs, unit="epoch", show=not args.quiet) as bar:
        yield lambda record: bar.step(", ".join(filter(None, (figure(record, "train"), figure(record, "dev")))))


def predict_treebank(args, model, sentences, jackknife, one_best, verb: str, reading=None) -> int:
    """``run`` of ``parse`` and ``tag``: ``model``'s 1-best output (``one_best(sentences)``), its
    ``--k``-best lists, or with ``--folds`` the jackknifed output of models with its settings trained
    on the other folds; written to ``--output`` (n-best CoNLL-U, or the sentences as they were
    read with the predicted columns replaced) in the output encoding, with a one-line report."""
    import time

    from seqspectral.corpus import write_nbest, write_treebank

    from .main import UsageError

    if args.folds and not 2 <= args.folds <= len(sentences):
        raise UsageError(f"--folds must be in 2..{len(sentences)} (the sentences of {args.input}), not {args.folds}")
    start = time.perf_counter()
    if args.folds:
        result = jackknife(model, sentences, args.folds, args.k, progress=not args.quiet)
    else:  # in chunks: an interrupt waits for one chunk's kernel, not the whole file's
        decode = (lambda part: model.kbest(part, args.k)) if args.k else one_best
        result = [r for i in range(0, len(sentences), PREDICT_CHUNK) for r in decode(sentences[i:i + PREDICT_CHUNK])]
    elapsed = time.perf_counter() - start
    (write_nbest if args.k else write_treebank)(args.output, result, output_encoding(args, reading or
                                                                                     treebank_reading(args, model)))
    if not args.quiet:
        print(f"seqspectral: {verb} {len(sentences)} sentences in {elapsed:.2f} s; wrote {wrote(args.output)}",
              file=sys.stderr)
    return 0
