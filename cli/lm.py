"""`seqspectral lm ...`: train, score, evaluate and inspect sequence language models."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ._common import (MAX_BASIS_LENGTH, add_reading_options, add_sharding_options, at_most, leaf_parser, note,
                      positive_int, reading_of, say, sharding_of, stdin_names, warn)

HELP = "symbol-sequence language models (POS tags, PAutomaC, ...)"
#: sequences scored per chunk by `lm score` (an interrupt is delivered between chunks)
SCORE_CHUNK = 5_000
#: unknown-token shares of a test file: warn above the first; refuse above the second
#: (unless --allow-unknown), the file is then not data of the model's kind
UNKNOWN_WARN, UNKNOWN_REFUSE = 0.2, 0.9


def register(sub) -> None:
    from seqspectral.lm import METHODS

    p = sub.add_parser("lm", help=HELP)
    lsub = p.add_subparsers(dest="lm_command", metavar="SUBCOMMAND")
    lsub.required = True

    methods = "\n".join(f"  {name:20s}{what}" for name, what in METHODS.items())
    t = leaf_parser(lsub, "train", help="train a model and save it", formatter_class=argparse.RawDescriptionHelpFormatter,
                    epilog=f"methods:\n{methods}")
    t.add_argument("train", metavar="TRAIN", nargs="+",
                   help="training corpus (- for standard input); several files, or --workers/--scheduler, count "
                        "byte-range shards where they are read: the held-out part and the Hankel basis then come "
                        "from the first shard (spectral methods, convex and n-grams only)")
    t.add_argument("-o", "--output", required=True, metavar="MODEL",
                   help="model file to write (.npz; checked before training, written atomically)")
    t.add_argument("--method", required=True, choices=list(METHODS), metavar="METHOD",
                   help="the learner (see the list below)")
    t.add_argument("--states", default="auto", type=_states, metavar="N|auto",
                   help="number of states, or 'auto' to choose it on --dev (else on a held-out 20%% of TRAIN)")
    t.add_argument("--basis-length", type=at_most(MAX_BASIS_LENGTH), default=None, metavar="L",
                   help="longest prefix/suffix of the Hankel basis (default: the method's)")
    t.add_argument("--order", type=positive_int, default=3, help="n-gram order of --method ngram (default 3)")
    t.add_argument("--max-iter", "--n-iter", dest="max_iter", type=positive_int, default=None, help="EM iterations of em / em-tensor (default: the learner's)")
    add_reading_options(t)
    t.add_argument("--dev", default=None, metavar="DEV",
                   help="held-out file for the choices (states, floor, smoothing, mixture weight); must not be empty")
    t.add_argument("--random-state", type=int, default=0, metavar="S",
                   help="seed of the random choices (held-out split, initialisations); same seed, same model")
    t.add_argument("--allow-unknown", action="store_true", help="accept a --dev file whose tokens are nearly all unknown")
    add_sharding_options(t)
    t.add_argument("--json", action="store_true", help="print what was chosen as one JSON object")
    t.add_argument("--quiet", action="store_true", help="no progress bars, notes or summary")
    _plot_option(t)
    t.set_defaults(handler=run_train)

    s = leaf_parser(lsub, "score", help="probability of every sequence, one per line, in order")
    s.add_argument("model", metavar="MODEL", help="model file written by lm train")
    s.add_argument("test", metavar="TEST", help="sequences to score (- for standard input)")
    s.add_argument("-o", "--output", default=None, metavar="OUT",
                   help="file to write (atomically; nothing is left if interrupted); default: standard output")
    s.add_argument("--log", action="store_true", help="log10 probabilities (never underflow)")
    add_reading_options(s, inherit=True)
    s.add_argument("--allow-unknown", action="store_true", help="score a file whose tokens are nearly all unknown")
    s.set_defaults(handler=run_score)

    e = leaf_parser(lsub, "eval", help="perplexity, WER and (with --solution) PAutomaC score",
                    epilog="perplexity: exp of the mean negative natural-log probability of the events (every token "
                           "and one stop per sequence); wer: word error rate, the share of events that are not the "
                           "model's most likely next event after the same prefix; pautomac_score: the PAutomaC "
                           "competition's perplexity of the model's sequence probabilities weighted by the true ones")
    e.add_argument("model", metavar="MODEL", help="model file written by lm train")
    e.add_argument("test", metavar="TEST", help="test sequences (- for standard input)")
    e.add_argument("--solution", default=None, metavar="SOL", help="PAutomaC solution file (true probabilities)")
    add_reading_options(e, inherit=True)
    e.add_argument("--allow-unknown", action="store_true", help="evaluate a file whose tokens are nearly all unknown")
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.set_defaults(handler=run_eval)

    i = leaf_parser(lsub, "info", help="method, what was chosen (with warnings), vocabulary, training data")
    i.add_argument("model", metavar="MODEL", help="model file written by lm train")
    i.add_argument("--json", action="store_true", help="print one JSON object")
    _plot_option(i)
    i.set_defaults(handler=run_info)


def _plot_option(parser) -> None:
    parser.add_argument("--plot", metavar="FILE", default=None,
                        help="also write a plot (.png, .svg or .pdf) of the Hankel singular values and the held-out "
                             "score of every candidate tried, the choice marked (needs matplotlib: "
                             "pip install \"seqspectral[plot]\")")


def _check_plot(args) -> None:
    """Before any work: the plot's path can be written and matplotlib is there."""
    if args.plot is None:
        return
    from seqspectral.display.plots import MissingPlotDependency, pyplot
    from seqspectral.io import check_output_path

    from .main import UsageError

    check_output_path(args.plot)
    try:
        pyplot()
    except MissingPlotDependency as e:
        raise UsageError(str(e)) from None


def _write_plot(args, lm) -> None:
    from seqspectral.display.plots import selection_plot

    spectrum = lm.training.get("hankel_singular_values")
    try:
        trained_on = Path(str(lm.training.get("file", ""))).name
        selection_plot(args.plot, lm.selection, spectrum, title=f"{lm.method}" + (f" on {trained_on}" if trained_on else ""))
    except ValueError as e:
        from .main import UsageError

        raise UsageError(f"{getattr(args, 'model', args.output)}: {e}") from None


def _states(text: str):
    return "auto" if text == "auto" else positive_int(text, "a positive integer or 'auto'")


def _refuse_unknown(corpus, path: str, allow: bool) -> None:
    """Refuse ``path`` when nearly all its tokens are unknown to the model (data of another kind)."""
    import numpy as np

    from .main import UsageError

    share = int(np.sum(corpus.symbols == 0)) / max(corpus.n_tokens, 1)
    if share > UNKNOWN_REFUSE and not allow:
        raise UsageError(f"{path}: {share:.0%} of the tokens are unknown to the model: data of another kind, or "
                         f"another --field/--format? (--allow-unknown to go on)")


def _report_unknown(n_unknown: int, n_tokens: int, path: str, quiet: bool = False) -> None:
    """Say how many tokens were unknown: a note, or a warning above ``UNKNOWN_WARN``."""
    if not n_unknown or quiet:
        return
    share = n_unknown / n_tokens
    message = f"{path}: {n_unknown} token(s) ({share:.1%}) unseen in training, read as <unk>"
    if share > UNKNOWN_WARN:
        warn(message)
    else:
        note(message)


def _check_unknown(corpus, path: str, allow: bool, quiet: bool = False) -> None:
    import numpy as np

    _refuse_unknown(corpus, path, allow)
    _report_unknown(int(np.sum(corpus.symbols == 0)), corpus.n_tokens, path, quiet)


def run_train(args) -> int:
    from seqspectral.io import check_output_path
    from seqspectral.lm import save_lm
    from seqspectral.workflows.training import train_lm

    check_output_path(args.output)
    _check_plot(args)
    verbose = not args.quiet  # progress on stderr, also when piped: convex and EM take minutes
    sharded = len(args.train) > 1 or args.workers is not None or args.scheduler is not None
    sharding = sharding_of(args, args.train) if sharded else None
    params = dict(n_states=args.states, basis_length=args.basis_length, random_state=args.random_state,
                  order=args.order)
    if not sharded:
        params.update(verbose=verbose, max_iter=args.max_iter)
    with stdin_names(*args.train, args.dev) as (paths, names):
        try:
            trained = train_lm(paths[:-1] if sharded else paths[0], args.method, dev=paths[-1],
                               reading=reading_of(args), sharding=sharding, names=names,
                               check_dev=lambda corpus, name: _check_unknown(corpus, name, args.allow_unknown,
                                                                             args.quiet), **params)
        except ValueError as e:  # a learner refusing its hyper-parameters or data
            if getattr(e, "user_facing", False):
                raise
            from .main import UsageError

            raise UsageError(f"{args.method}: {e}") from None
    say(trained, args.quiet)
    lm = trained.model
    save_lm(args.output, lm)  # no timings: equal runs give equal files
    if args.plot is not None:
        _write_plot(args, lm)
    read_seconds, fit_seconds = trained.read_seconds, trained.fit_seconds
    summary = {**lm.summary(), "n_sequences": lm.training["n_sequences"], "n_tokens": lm.training["n_tokens"],
               "n_symbols": len(lm.vocabulary) - 2, "read_seconds": round(read_seconds, 2),
               "fit_seconds": round(fit_seconds, 2), "output": args.output}
    if args.json:
        print(json.dumps(summary))
    elif not args.quiet:
        print(f"{args.method}: {summary['n_sequences']} sequences, {summary['n_tokens']} tokens, "
              f"{summary['n_symbols']} symbols; {_chosen(summary)}; read {read_seconds:.2f} s, "
              f"fit {fit_seconds:.2f} s -> {args.output}")
        for w in summary["warnings"]:
            warn(w)
    return 0


def _chosen(summary: dict) -> str:
    """The chosen values of a summary in one line: ``name=value, ...``."""
    skip = {"method", "warnings", "selected_on", "n_sequences", "n_tokens", "n_symbols", "read_seconds",
            "fit_seconds", "output"}
    chosen = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in summary.items() if k not in skip)
    where = f" (chosen on {summary['selected_on']})" if summary.get("selected_on") else ""
    return (chosen or "nothing to choose") + where


def _load_and_open(args):
    """The model of ``args.model`` and ``args.test`` as an Input read as its training file was."""
    from seqspectral.lm import load_lm

    from ._common import Input

    lm = load_lm(args.model)
    return lm, Input(args.test, reading_of(args, lm.reading_), vocabulary=lm.vocabulary)


def run_score(args) -> int:
    """Streams: the test file block by block (PAutomaC) and the scoring chunk by chunk. An
    interrupt is delivered only between chunks, never inside a Numba kernel or its loading."""
    import numpy as np

    from seqspectral.interrupts import deferred_interrupts
    from seqspectral.io import atomic_open, check_output_path

    counts = {"unknown": 0, "tokens": 0}
    with deferred_interrupts() as deferred:
        if args.output is not None:
            check_output_path(args.output)
        lm, source = _load_and_open(args)
        scale = 1.0 / np.log(10.0)

        def write_scores(out) -> None:
            for i, part in enumerate(source.chunks()):
                if i == 0:
                    _refuse_unknown(part, args.test, args.allow_unknown)  # judged on the first block
                counts["unknown"] += int(np.sum(part.symbols == 0))
                counts["tokens"] += part.n_tokens
                for start in range(0, len(part), SCORE_CHUNK):
                    deferred.check()
                    log_probs = lm.model.sequence_log_probs(part[start:start + SCORE_CHUNK])
                    values = log_probs * scale if args.log else np.exp(log_probs)
                    out.write("".join(f"{v:.10g}\n" for v in values.tolist()))

        if args.output is None:
            write_scores(sys.stdout)
        else:
            with atomic_open(args.output, "w") as f:
                write_scores(f)
                deferred.check()  # the last point where stopping leaves nothing behind
        deferred.ignore()  # the output is complete: a signal from here on finds the work done
    _report_unknown(counts["unknown"], counts["tokens"], args.test)
    return 0


def run_eval(args) -> int:
    from seqspectral.interrupts import deferred_interrupts
    from seqspectral.lm import evaluate_lm

    with deferred_interrupts():  # an interrupt is delivered when reading and scoring are done
        lm, source = _load_and_open(args)
        corpus = source.read()
        _check_unknown(corpus, args.test, args.allow_unknown)
        solution = None
        if args.solution is not None:
            from seqspectral.corpus.pautomac import read_pautomac_solution

            solution = read_pautomac_solution(args.solution)
        result = evaluate_lm(lm, corpus, solution)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:16s} {_fmt(value)}")
    return 0


def _fmt(value) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def run_info(args) -> int:
    from seqspectral.lm import load_lm

    _check_plot(args)
    lm = load_lm(args.model)
    if args.plot is not None:
        _write_plot(args, lm)
    symbols = lm.vocabulary.symbols[2:]
    summary = lm.summary()
    info = {
        "kind": lm.kind,
        "method": lm.method,
        "chosen": _chosen(summary),
        "warnings": summary["warnings"],
        "summary": summary,
        "params": lm.params,
        "unknown_probability": lm.model.unknown_probability,
        "vocabulary_size": len(symbols),
        "vocabulary": symbols,
        "training": lm.training,
    }
    if args.json:
        print(json.dumps(info))
        return 0
    for key, value in info.items():
        if key == "summary":
            continue
        if key == "warnings":
            for w in value:
                print(f"{'warning':20s} {w}")
            continue
        if isinstance(value, list):
            value = " ".join(value) if len(value) <= 60 else " ".join(value[:60]) + f" ... (+{len(value) - 60})"
        elif isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items() if k != "hankel_singular_values")
        print(f"{key:20s} {value}")
    return 0
