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


#: the bounds of the options whose size sets memory or time
MAX_K = BOUNDS["k"].high  # -k: candidates per sentence (the table: seqspectral.bounds)
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
    from seqspectral.corpus import FIELDS, format_names
    from seqspectral.corpus.tagsets import TAGSETS

    given = " (default: as the training file was read)" if inherit else ""
    # None: not given, so :func:`reading_of` keeps the inherited value or Reading's default (the
    # Reading is not built here: its dataclass would import ``inspect`` at every start)
    d = (lambda name: None) if inherit else (lambda name: field if name == "field" else None)
    parser.add_argument("--format", default=d("format"), choices=("auto", *format_names()),
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


def reading_of(args, inherited=None):
    """The :class:`~seqspectral.corpus.Reading` of the options: given on the command line, else
    ``inherited`` (a model's Reading), else the defaults."""
    from seqspectral.corpus import Reading

    given = {name: getattr(args, name, None) for name in (*INHERITED, "errors")}
    reading = inherited.recorded() if inherited is not None else Reading()
    return reading.updated(**given)


class Input:
    """A corpus file as a command reads it (``-``: standard input), through
    :class:`seqspectral.workflows.corpora.CorpusInput`: its notes and warnings printed
    (unless ``quiet``), errors about standard input named ``<stdin>``. After reading,
    ``format`` and ``n_skipped`` hold the format read and the malformed records skipped."""

    def __init__(self, path: str, reading, vocabulary=None, quiet: bool = False, empty_ok: bool = False):
        self.path, self.reading, self.vocabulary, self.quiet = path, reading, vocabulary, quiet
        self.empty_ok = empty_ok  # corpus stats: an empty file is an empty corpus
        self.format: str | None = None
        self.n_skipped = 0

    def read(self):
        """The whole corpus."""
        (corpus,) = self.chunks(whole=True)
        return corpus

    def chunks(self, whole: bool = False):
        """The corpus as consecutive corpora (:meth:`CorpusInput.chunks`)."""
        from seqspectral.workflows.corpora import CorpusInput

        with _local_file(self.path) as local:
            source = CorpusInput(local, self.reading, self.vocabulary, name="<stdin>" if self.path == STDIN else None)
            source.empty_ok = self.empty_ok
            try:
                yield from source.chunks(whole)
            finally:
                self.format, self.n_skipped = source.format, source.n_skipped
                for message in source.notes if not self.quiet else ():
                    note(message)
                for message in source.warnings if not self.quiet else ():
                    warn(message)


def read_input(path: str, reading, vocabulary=None, quiet: bool = False, empty_ok: bool = False):
    """``(corpus, n_skipped, format)`` of ``path`` read whole (see :class:`Input`); with
    ``empty_ok`` a file with nothing to read is an empty corpus, not an error."""
    source = Input(path, reading, vocabulary, quiet, empty_ok)
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

    with tempfile.TemporaryDirectory() as directory:
        local = Path(directory) / "stdin"
        with open(local, "wb") as f:  # a block at a time: an n-best file of gigabytes is not held in memory
            shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
        try:
            yield str(local)
        except CorpusFormatError as e:  # every message about the input names it as the user did, not its copy
            raise CorpusFormatError("<stdin>", e.line, e.reason.replace(str(local), "<stdin>")) from None
        except ValueError as e:
            if str(local) not in str(e):
                raise
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


def sharding_of(args, paths):
    """The :class:`~seqspectral.workflows.training.Sharding` of ``--workers``, ``--scheduler``
    and ``--shard-mb`` (checked: one of the first two, workers bounded by the CPUs, files not -)."""
    from seqspectral.workflows.training import Sharding

    from .main import UsageError

    if args.workers is not None and args.scheduler is not None:
        raise UsageError("give --workers or --scheduler, not both")
    cpus = os.cpu_count() or 1
    if args.workers is not None and args.workers > WORKERS_PER_CPU * cpus:
        raise UsageError(f"--workers {args.workers}: at most {WORKERS_PER_CPU * cpus} on this machine of {cpus} CPUs")
    if STDIN in paths:
        raise UsageError("sharded counting reads files where they lie: give file names, not -")
    return Sharding(args.workers, args.scheduler, args.shard_mb, progress=not getattr(args, "quiet", False))


def add_treebank_options(parser, inherit: bool = False, output: bool = False, phrase: bool = False) -> None:
    """``--format``, ``--encoding``, ``--errors``, ``--quiet`` (and with ``output``
    ``--output-encoding``): how ``parse``, ``tag``, ``evaluate`` and ``rerank`` read
    treebanks; with ``inherit`` the encoding defaults to the model's training file's; with
    ``phrase`` ``--format`` offers ``bracketed`` too (phrase-structure trees, for ``show``)."""
    from seqspectral.corpus import format_names
    from seqspectral.corpus.options import SPLITS

    # the formats read as sentences (text: raw text, tokenised, where no heads are needed)
    parser.add_argument("--format", default="auto",
                        choices=("auto", *format_names(sentences=True), *(("bracketed",) if phrase else ())),
                        help="treebank format; auto: by the file's name, else by its first lines; text: raw text, "
                             "tokenised (NLTK Punkt + Treebank tokeniser) where no heads are needed"
                             + ("; bracketed: phrase-structure trees (standard input too: auto takes it as "
                                "bracketed when its first character is '(')" if phrase else "") + " (default auto)")
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


def treebank_reading(args, inherited=None):
    """The :class:`~seqspectral.corpus.Reading` of ``args`` (the encoding, if not given, that
    of ``inherited``: the Reading a model or build recorded)."""
    from seqspectral.corpus import Reading

    encoding = args.encoding or (inherited.encoding if inherited is not None else None)
    return Reading(format=args.format, errors=args.errors).updated(encoding=encoding,
                                                                   text_split=getattr(args, "text_split", None))


def read_treebank(path: str, args, heads_required: bool = True, reading=None, name: str | None = None,
                  nbest: bool = False) -> list:
    """The sentences of a treebank file (``-``: standard input) read as ``reading`` (default:
    :func:`treebank_reading` of ``args``) by :func:`seqspectral.workflows.read_sentences`;
    without ``heads_required`` HEAD may be ``_`` and a text file is raw text, tokenised. Its
    notes and warnings are printed; messages call the file ``name`` (default: ``path``); an
    n-best file is refused unless ``nbest``."""
    from seqspectral.workflows import read_sentences

    reading = reading or treebank_reading(args)
    shown = "<stdin>" if (name or path) == STDIN else (name or path)
    with _local_file(path) as local:
        read = read_sentences(local, reading, heads_required, name=shown, max_words=getattr(args, "max_words", None),
                              nbest=nbest)
    say(read, args.quiet)
    return read.sentences


@contextmanager
def stdin_names(*paths):
    """``(paths, names)``: the paths (None kept; ``-``: standard input copied to a file) and
    what messages call them (:mod:`seqspectral.workflows.training`'s ``names``)."""
    from .main import UsageError

    if [p for p in paths if p is not None].count(STDIN) > 1:
        raise UsageError("only one input can be - (standard input)")
    given = next((p for p in paths if p == STDIN), None)
    with _local_file(given or "") as local:
        yield [local if p == STDIN else p for p in paths], ({local: "<stdin>"} if given else {})


def say(read, quiet: bool) -> None:
    """Print what reading (or training from) files said: its notes and warnings."""
    for message in read.notes if not quiet else ():
        note(message)
    for message in read.warnings if not quiet else ():
        warn(message)


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
