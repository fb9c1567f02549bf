"""`seqspectral grammar ...`: train a phrase-structure grammar (Markovised PCFG, spectral
L-PCFG, EM L-PCFG) on a bracketed treebank; parse sentences into trees with it."""

from __future__ import annotations

import json
import sys
import time

from ._common import STDIN, STDOUT, at_most, leaf_parser, note, positive_int, text_encoding, wrote

HELP = "phrase-structure grammars: a Markovised PCFG, the spectral latent-variable PCFG and its EM twin; parsing"
KINDS = ("markov_pcfg", "spectral_lpcfg", "em_lpcfg")
METHODS = ("spectral", "pcfg", "em")
MAX_STATES = 256  # latent states per nonterminal
#: sentences parsed per library call: an interrupt waits for one chunk, not the whole file
PARSE_CHUNK = 64


def register(sub) -> None:
    p = sub.add_parser("grammar", help=HELP)
    gsub = p.add_subparsers(dest="grammar_command", metavar="SUBCOMMAND")
    gsub.required = True

    t = leaf_parser(gsub, "train", help="learn a grammar from bracketed trees and save it",
                    description="Learn a grammar from Penn Treebank style trees (read with the standard clean-up: "
                                "no -NONE- elements, function tags or X -> X chains; an empty root label named "
                                "ROOT) and write it as a model file.")
    t.add_argument("train", metavar="TRAIN", nargs="+",
                   help="training trees: bracketed files, folders or zips of .mrg files (- for standard input); "
                        "several are read one after the other, or counted in shards with --workers / --scheduler")
    t.add_argument("-o", "--output", required=True, metavar="GRAMMAR",
                   help="model file to write (.npz, atomically; - for standard output)")
    t.add_argument("--method", default="spectral", choices=METHODS,
                   help="spectral: latent-variable PCFG by the method of moments (Cohen et al. 2012, 2013; default); "
                        "pcfg: Markovised PCFG, maximum likelihood, no latent states; em: the same latent-variable "
                        "PCFG trained by inside-outside EM (Matsuzaki et al. 2005)")
    t.add_argument("--states", dest="n_states", type=_states, default=None, metavar="K|auto",
                   help="spectral, em: latent states per nonterminal (default: the grammar's); auto: chosen on --dev "
                        f"(at most {MAX_STATES})")
    t.add_argument("--max-states", type=at_most(MAX_STATES), default=None, metavar="K",
                   help="spectral, em: the most latent states --states auto tries (default: the grammar's)")
    t.add_argument("--spectrum-cutoff", type=_cutoff, default=None, metavar="X|auto",
                   help="spectral: each nonterminal keeps the states whose singular values are at least X times its "
                        "largest (0: all, up to --states; default: the grammar's); auto: chosen on --dev")
    t.add_argument("--features", default=None, choices=("rules", "rich"),
                   help="spectral: the inside/outside tree features — rules: the rules around the node and the words "
                        "beside its span (Cohen et al. 2012); rich: also tags, words and lengths at the span's edges "
                        "(Cohen et al. 2013's kind; no better on the WSJ sample) (default: the grammar's)")
    t.add_argument("--grammars", dest="n_grammars", type=at_most(256), default=None, metavar="K",
                   help="spectral: learn K grammars, each from its own SVD made noisy by --dropout, and parse with "
                        "the mean of their constituent marginals (Narayan & Cohen 2015; parsing takes about K times "
                        "as long; default: the grammar's)")
    t.add_argument("--dropout", type=_probability, default=None, metavar="P",
                   help="spectral, with --grammars K > 1: each feature occurrence is dropped with probability P "
                        "before each grammar's SVD (one grammar has no noise; default: the grammar's)")
    t.add_argument("--label-states", type=_count, default=None, metavar="N",
                   help="spectral: then choose the states of each of the N most frequent nonterminals in turn on "
                        "--dev (Narayan & Cohen 2016's greedy search; 0: none; default: the grammar's)")
    t.add_argument("--pair-backoff", type=_unit, default=None, metavar="V",
                   help="spectral: weight of the pairwise back-off in the smoothing of the rule tensors (Cohen et al. "
                        "2013; 0: the rank-one back-off alone; default: the grammar's)")
    t.add_argument("--dev", default=None, metavar="DEV",
                   help="held-out trees on which 'auto' values are chosen (default: a seeded 20%% of the training "
                        "trees, the grammar then refitted on all of them)")
    t.add_argument("--vertical", type=at_most(4), default=None, metavar="V",
                   help="vertical Markovisation: labels carry V-1 ancestors (1: none; default: the grammar's)")
    t.add_argument("--horizontal", type=_horizontal, default=None, metavar="H|all",
                   help="horizontal Markovisation: the binarised nodes remember H siblings (all: every one; "
                        "default: the grammar's)")
    t.add_argument("--rare", type=_count, default=None, metavar="N",
                   help="words seen at most N times in training are also learnt as their signature (capitalisation, "
                        "digits, suffix), which unknown words are read as (default: the grammar's)")
    t.add_argument("--threshold", type=_probability, default=None, metavar="P",
                   help="coarse-to-fine pruning when parsing: spans whose plain-PCFG posterior is below P are not "
                        "parsed with latent states (default: the grammar's)")
    t.add_argument("--max-iter", type=positive_int, default=None, metavar="N", help="em: iterations at most")
    t.add_argument("--random-state", type=int, default=None, metavar="S",
                   help="spectral, em: seed of the held-out part of 'auto' choices without --dev; em: and of the start")
    _reading_options(t)
    t.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="count the training files in shards on N local processes (the same grammar whatever N)")
    t.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="count the shards on a Dask cluster, given its scheduler's address "
                        "(pip install seqspectral[distributed])")
    t.add_argument("--json", action="store_true", help="print what was trained as one JSON object")
    t.add_argument("--quiet", action="store_true", help="no progress or summary on standard error")
    t.set_defaults(handler=run_train)

    r = leaf_parser(gsub, "parse", help="parse sentences into phrase-structure trees, one a line",
                    description="Parse each sentence (the words of bracketed trees, or a text file of one tokenised "
                                "sentence a line) with a grammar, coarse-to-fine, decoding the tree of the most "
                                "expected correct constituents; write one tree a line, in the input's bracket style. "
                                "A sentence the grammar cannot parse, or longer than --max-length, gets a flat tree "
                                "(counted in the summary): every input sentence has its line.")
    r.add_argument("grammar", metavar="GRAMMAR", help="model file written by grammar train")
    r.add_argument("input", metavar="INPUT", help="sentences: bracketed trees or text (- for standard input)")
    r.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="file to write the trees to (atomically; - for standard output)")
    r.add_argument("--input-format", default="auto", choices=("auto", "bracketed", "text"),
                   help="bracketed: trees, their words parsed; text: one sentence a line, words separated by white "
                        "space; auto: bracketed when the file looks so (default)")
    r.add_argument("--tags", default="grammar", choices=("grammar", "gold"),
                   help="grammar: the grammar tags the words itself (default); gold: use the input trees' tags")
    r.add_argument("--max-length", type=positive_int, default=None, metavar="N",
                   help="sentences of more than N words get a flat tree instead of a parse (counted)")
    r.add_argument("--no-pruning", action="store_true", help="parse every span with latent states (slower)")
    r.add_argument("--jobs", type=at_most(256), default=2, metavar="N", help="sentences parsed at once (default 2)")
    r.add_argument("--encoding", default="utf-8", metavar="NAME", type=text_encoding,
                   help="text encoding of the input and the output (default utf-8)")
    r.add_argument("--json", action="store_true",
                   help="print the summary (counts, flat trees given) as one JSON object on standard output "
                        "(then -o must be a file)")
    r.add_argument("--quiet", action="store_true", help="no progress or summary on standard error")
    r.set_defaults(handler=run_parse)


def _reading_options(parser) -> None:
    parser.add_argument("--format", default="auto", choices=("auto", "bracketed"),
                        help="treebank format; auto: bracketed trees by the name (.mrg, a folder or zip of them) or "
                             "the first lines (default auto)")
    parser.add_argument("--encoding", default="utf-8", metavar="NAME", type=text_encoding,
                        help="text encoding of the trees (default utf-8)")
    parser.add_argument("--errors", default="raise", choices=("raise", "skip"),
                        help="skip: drop malformed trees (their count is printed) instead of stopping at the first")


def _states(text: str):
    return text if text == "auto" else at_most(MAX_STATES)(text)


def _cutoff(text: str):
    if text == "auto":
        return text
    return _probability(text)


def _horizontal(text: str):
    return text if text == "all" else _count(text)


def _count(text: str) -> int:
    import argparse

    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}")
    return int(text)


def _probability(text: str) -> float:
    return _fraction(text, one=False)


def _unit(text: str) -> float:
    return _fraction(text, one=True)


def _fraction(text: str, one: bool) -> float:
    """A number in [0, 1] (``one``) or [0, 1)."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (0.0 <= value <= 1.0 if one else 0.0 <= value < 1.0):
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1{']' if one else ')'}, not {text!r}")
    return value


def _read_trees(path: str, args, name: str | None = None, detect_format: bool = True, errors: str | None = None):
    """The cleaned trees of ``path`` (``-``: standard input), reader warnings printed; none is
    bad input, and so is a file detected as another format (with ``--format auto``)."""
    import warnings

    from seqspectral.corpus.bracketed import read_bracketed
    from seqspectral.corpus import CorpusWarning, detect

    from .main import UsageError

    if detect_format and args.format == "auto" and path != STDIN:
        detection = detect(path, args.encoding)
        if detection.format != "bracketed":
            raise UsageError(f"{name or path}: not bracketed trees (read as {detection.format}: {detection.reason}); "
                             "grammars learn from Penn Treebank style trees (give --format bracketed if it is)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CorpusWarning)
        trees = read_bracketed(path, encoding=args.encoding, errors=errors or args.errors)
    n_skipped = sum(getattr(w.message, "n_skipped", 0) for w in caught)
    for w in caught:
        if not args.quiet:
            print(f"seqspectral: warning: {w.message}", file=sys.stderr)
    if not trees:
        raise UsageError(f"{name or path}: no trees to read" + (f" (all {n_skipped} malformed ones skipped)"
                                                                  if n_skipped else ""))
    return trees, n_skipped


def _options(args) -> dict:
    from .main import UsageError

    names = ("n_states", "max_states", "spectrum_cutoff", "n_grammars", "dropout", "label_states", "pair_backoff",
             "features",
             "vertical", "horizontal", "rare", "threshold", "max_iter", "random_state")
    given = {name: getattr(args, name) for name in names if getattr(args, name) is not None}
    if given.get("horizontal") == "all":
        given["horizontal"] = None  # the grammars' "every sibling"
    if args.method != "em" and ({"max_iter"} & set(given)):
        raise UsageError("--max-iter applies to --method em")
    if args.method != "spectral" and ({"spectrum_cutoff", "n_grammars", "dropout", "label_states", "pair_backoff",
                                       "features"} & set(given)):
        raise UsageError("--spectrum-cutoff, --grammars, --dropout, --label-states, --pair-backoff and --features "
                         "apply to --method spectral")
    if args.method == "pcfg" and ({"n_states", "max_states", "random_state"} & set(given)):
        raise UsageError("--states, --max-states and --random-state apply to --method spectral and em (a plain PCFG "
                         "has no latent states)")
    return given


def run_train(args) -> int:
    from seqspectral import serialize
    from seqspectral.corpus import Reading

    from .main import UsageError

    options = _options(args)
    if ("auto" in (options.get("n_states"), options.get("spectrum_cutoff")) or options.get("label_states")) and \
            args.dev is None and (args.workers or args.scheduler):
        raise UsageError("'auto' and --label-states with --workers / --scheduler are chosen on --dev DEV: give "
                         "held-out trees")
    start, cpu = time.perf_counter(), time.process_time()
    dev = _read_trees(args.dev, args)[0] if args.dev is not None else None
    sharded = args.workers is not None or args.scheduler is not None
    try:
        if sharded:
            grammar, n_trees, n_skipped = _train_sharded(args, dev, options)
        else:
            trees, n_skipped = [], 0
            for path in args.train:
                part, skipped = _read_trees(path, args)
                trees += part
                n_skipped += skipped
            n_trees = len(trees)
            from seqspectral.constituency import train_grammar
            from seqspectral.progress import stage

            with stage(f"grammar train ({args.method}, {n_trees} trees)", show=not args.quiet):
                grammar = train_grammar(args.method, trees, dev=dev, **options)
    except ValueError as e:
        if getattr(e, "user_facing", False) or type(e).__name__ == "CorpusFormatError":
            raise
        raise UsageError(f"{' '.join(args.train)}: {e}") from None
    grammar.reading_ = Reading(format="bracketed", encoding=args.encoding)
    serialize.save(args.output, grammar)
    summary = {"model": args.output, "method": args.method, "n_trees": n_trees, "n_skipped": n_skipped,
               "n_states": grammar.n_states_, "seconds": round(time.perf_counter() - start, 3),
               "cpu_seconds": round(time.process_time() - cpu, 3)}
    if grammar.selection_ is not None:
        summary["chosen"] = grammar.selection_.chosen
    if args.json:
        print(json.dumps(summary))
    elif not args.quiet:
        print(f"seqspectral: {args.method} grammar from {n_trees} trees ({grammar.n_states_} latent states at most) "
              f"in {summary['seconds']:.1f} s, {summary['cpu_seconds']:.1f} CPU s; wrote {wrote(args.output)}",
              file=sys.stderr)
    return 0


def _train_sharded(args, dev, options):
    """The training files counted in shards (one a file of each source) on workers or a cluster."""
    from functools import partial

    from seqspectral.constituency import train_grammar_sharded
    from seqspectral.corpus.bracketed import bracketed_files, read_files

    from .main import UsageError

    if args.workers is not None and args.scheduler is not None:
        raise UsageError("give --workers or --scheduler, not both")
    if STDIN in args.train:
        raise UsageError("sharded counting reads files where they lie: give file names, not -")
    shards = [(path, (name,)) for path in args.train for name in bracketed_files(path)]
    read = partial(read_files, encoding=args.encoding, errors=args.errors)
    grammar = train_grammar_sharded(args.method, shards, read, dev=dev, workers=args.workers,
                                    scheduler=args.scheduler, progress=not args.quiet, **options)
    return grammar, f"{len(shards)} files", 0


def run_parse(args) -> int:
    from seqspectral import serialize
    from seqspectral.corpus.bracketed import write_bracketed
    from seqspectral.progress import stage

    from .main import UsageError

    if args.json and args.output == STDOUT:
        raise UsageError("--json prints the summary on standard output: write the trees to a file (-o FILE)")
    grammar = serialize.load(args.grammar, kind=KINDS)
    sentences, tags, empty_root = _sentences(args)
    start, cpu = time.perf_counter(), time.process_time()
    trees, report = [], {"latent": 0, "coarse": 0, "chain_lexicon": [], "no_parse": [], "too_long": []}
    with stage("grammar parse", total=len(sentences), unit="sentence", show=not args.quiet) as bar:
        for i in range(0, len(sentences), PARSE_CHUNK):
            chunk = slice(i, i + PARSE_CHUNK)
            trees += grammar.parse(sentences[chunk], None if tags is None else tags[chunk], max_length=args.max_length,
                                   n_jobs=args.jobs, pruning=not args.no_pruning, progress=False)
            part = grammar.last_report_.to_json()
            for key in ("latent", "coarse"):
                report[key] += part[key]
            for key in ("chain_lexicon", "no_parse", "too_long"):
                report[key] += [i + k for k in part[key]]
            bar.update(len(sentences[chunk]))
    write_bracketed(args.output, trees, empty_root=empty_root, encoding=args.encoding)
    summary = {"n_sentences": len(sentences), **report, "seconds": round(time.perf_counter() - start, 3),
               "cpu_seconds": round(time.process_time() - cpu, 3)}
    if args.json:
        print(json.dumps(summary))
    elif not args.quiet:
        flat = []
        if report["no_parse"]:
            flat.append(f"{len(report['no_parse'])} without a parse (sentences {_numbers(report['no_parse'])})")
        if report["too_long"]:
            flat.append(f"{len(report['too_long'])} over --max-length {args.max_length} (sentences "
                        f"{_numbers(report['too_long'])})")
        print(f"seqspectral: parsed {len(sentences)} sentences in {summary['seconds']:.2f} s "
              f"({summary['cpu_seconds']:.2f} CPU s); " + (f"flat trees for {' and '.join(flat)}; " if flat else "")
              + f"wrote {wrote(args.output)}", file=sys.stderr)
    return 0


def _numbers(indices: list[int], most: int = 10) -> str:
    shown = ", ".join(str(i + 1) for i in indices[:most])
    return shown + (", ..." if len(indices) > most else "")


def _sentences(args):
    """``(sentences, tags or None, the input's empty-root style)`` of the input."""
    from seqspectral.corpus.textfile import read_text_file

    from ._common import _local_file
    from .main import UsageError

    with _local_file(args.input) as local:
        shown = "<stdin>" if args.input == STDIN else args.input
        fmt = args.input_format
        if fmt == "auto":
            from seqspectral.corpus import detect

            fmt = "bracketed" if detect(local, args.encoding).format == "bracketed" else "text"
            if not args.quiet and args.input != STDIN and not local.endswith(".mrg"):
                note(f"{shown}: read as {fmt}; if it is not, give --input-format")
        if fmt == "bracketed":
            trees, _ = _read_trees(local, args, name=shown, detect_format=False, errors="raise")
            sentences = [t.leaves() for t in trees]
            tags = [[tag for _, tag in t.pos()] for t in trees] if args.tags == "gold" else None
            return sentences, tags, trees.empty_root
        if args.tags == "gold":
            raise UsageError(f"{shown}: --tags gold needs bracketed trees (their tags); this is text")
        lines = read_text_file(local, args.encoding).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        sentences = [line.split() for line in lines]
        for number, words in enumerate(sentences, 1):
            if not words:
                from seqspectral.corpus import CorpusFormatError

                raise CorpusFormatError(shown, number, "an empty line: a sentence needs words (one sentence a line)")
        if not sentences:
            raise UsageError(f"{shown}: no sentences")
        return sentences, None, False
