"""`seqspectral lm ...`: train, score, evaluate and inspect sequence language models."""

from __future__ import annotations

import json
import sys

from seqspectral.lm import METHODS

FORMATS = ["auto", "conllu", "conllx", "malttab", "pautomac", "text", "brown"]


def register(sub) -> None:
    p = sub.add_parser("lm", help="symbol-sequence language models (POS tags, PAutomaC, ...)")
    lsub = p.add_subparsers(dest="lm_command", metavar="SUBCOMMAND")
    lsub.required = True

    t = lsub.add_parser("train", help="train a model and save it")
    t.add_argument("train", metavar="TRAIN")
    t.add_argument("-o", "--output", required=True, metavar="MODEL")
    t.add_argument("--method", required=True, choices=METHODS)
    t.add_argument("--states", default="auto", type=_states, metavar="N|auto",
                   help="number of states, or 'auto' to choose it on --dev (else on 10%% of TRAIN)")
    t.add_argument("--basis-length", type=_positive_int, default=None, metavar="L",
                   help="longest prefix/suffix of the Hankel basis (default: the method's)")
    t.add_argument("--order", type=_positive_int, default=3, help="n-gram order of --method ngram (default 3)")
    t.add_argument("--n-iter", type=_positive_int, default=None, help="EM iterations of em / em-tensor (default: the learner's)")
    _reading_args(t)
    t.add_argument("--dev", default=None, metavar="DEV", help="held-out file for --states auto and smoothing")
    t.add_argument("--random-state", type=int, default=0, metavar="S")
    t.add_argument("--quiet", action="store_true", help="no progress bars, no summary")
    t.set_defaults(handler=run_train)

    s = lsub.add_parser("score", help="probability of every sequence, one per line")
    s.add_argument("model", metavar="MODEL")
    s.add_argument("test", metavar="TEST")
    s.add_argument("-o", "--output", default=None, metavar="OUT")
    s.add_argument("--log", action="store_true", help="log10 probabilities (never underflow)")
    s.add_argument("--format", default=None, choices=FORMATS, help="default: the training file's")
    s.set_defaults(handler=run_score)

    e = lsub.add_parser("eval", help="perplexity, WER and (with --solution) PAutomaC score")
    e.add_argument("model", metavar="MODEL")
    e.add_argument("test", metavar="TEST")
    e.add_argument("--solution", default=None, metavar="SOL", help="PAutomaC solution file (true probabilities)")
    e.add_argument("--format", default=None, choices=FORMATS, help="default: the training file's")
    e.add_argument("--json", action="store_true")
    e.set_defaults(handler=run_eval)

    i = lsub.add_parser("info", help="kind, method, vocabulary, hyper-parameters")
    i.add_argument("model", metavar="MODEL")
    i.add_argument("--json", action="store_true")
    i.set_defaults(handler=run_info)


def _reading_args(p) -> None:
    p.add_argument("--format", default="auto", choices=FORMATS)
    p.add_argument("--field", default="upos", choices=["upos", "xpos", "form"])
    p.add_argument("--tagset", default=None, choices=["universal12"])


def _states(text: str):
    return "auto" if text == "auto" else _positive_int(text, "a positive integer or 'auto'")


def _positive_int(text: str, expected: str = "a positive integer") -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise _argparse_error(f"expected {expected}, got {text!r}")
    return value


def _argparse_error(message: str):
    import argparse

    return argparse.ArgumentTypeError(message)


def _read(path, reading: dict, vocabulary=None):
    from seqspectral.corpus.readers import read_corpus

    return read_corpus(path, format=reading.get("format", "auto"), field=reading.get("field", "upos"),
                       tagset=reading.get("tagset"), vocabulary=vocabulary)


def _read_test(lm, args):
    reading = dict(lm.training.get("reading", {}))
    if args.format is not None:
        reading["format"] = args.format
    return _read(args.test, reading, vocabulary=lm.vocabulary)


def _report_unknown(corpus, path) -> None:
    import numpy as np

    n = int(np.sum(corpus.symbols == 0))
    if n:
        print(f"seqspectral: note: {path}: {n} token(s) unseen in training read as <unk>", file=sys.stderr)


def run_train(args) -> int:
    from seqspectral.lm import save_lm, timed, train_lm

    verbose = not args.quiet and sys.stderr.isatty()
    reading = {"format": args.format, "field": args.field, "tagset": args.tagset}
    (train, dev), read_seconds = timed(lambda: _read_pair(args, reading))
    try:
        lm, fit_seconds = timed(train_lm, train, args.method, n_states=args.states, dev=dev, basis_length=args.basis_length,
                                random_state=args.random_state, verbose=verbose, order=args.order, n_iter=args.n_iter)
    except ValueError as e:  # a learner refusing its hyper-parameters or data (e.g. more states than symbols)
        if getattr(e, "user_facing", False):
            raise
        from .main import UsageError

        raise UsageError(f"{args.method}: {e}") from None
    save_lm(args.output, lm, {"file": args.train, "dev": args.dev, "reading": reading,
                              "read_seconds": round(read_seconds, 3), "fit_seconds": round(fit_seconds, 3)})
    if not args.quiet:
        chosen = ", ".join(f"{k}={v}" for k, v in lm.params.items() if k in ("n_states", "order", "k", "regularization", "floor"))
        if "mixture" in lm.selection:
            mix = lm.selection["mixture"]
            chosen += f", mixed with an add-{mix['k']:g} {mix['order']}-gram at weight {1 - mix['weight']:.2f}"
        print(f"{args.method}: {len(train)} sequences, {train.n_tokens} tokens, {len(lm.vocabulary) - 2} symbols; "
              f"{chosen}; read {read_seconds:.2f} s, fit {fit_seconds:.2f} s -> {args.output}")
    return 0


def _read_pair(args, reading):
    train = _read(args.train, reading)
    dev = None
    if args.dev is not None:
        dev = _read(args.dev, reading, vocabulary=train.vocabulary)
        _report_unknown(dev, args.dev)
    return train, dev


def run_score(args) -> int:
    import numpy as np

    from seqspectral.io import atomic_open
    from seqspectral.lm import load_lm

    lm, _ = load_lm(args.model)
    corpus = _read_test(lm, args)
    _report_unknown(corpus, args.test)
    log_probs = lm.model.sequence_log_probs(corpus)
    values = log_probs / np.log(10.0) if args.log else np.exp(log_probs)
    text = "".join(f"{v:.10g}\n" for v in values.tolist())
    if args.output is None:
        sys.stdout.write(text)
    else:
        with atomic_open(args.output, "w") as f:
            f.write(text)
    return 0


def run_eval(args) -> int:
    from seqspectral.lm import evaluate_lm, load_lm

    lm, _ = load_lm(args.model)
    corpus = _read_test(lm, args)
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

    lm, header = load_lm(args.model)
    symbols = lm.vocabulary.symbols[2:]
    info = {
        "kind": header["kind"],
        "method": lm.method,
        "params": lm.params,
        "unknown_probability": lm.model.unknown_probability,
        "vocabulary_size": len(symbols),
        "vocabulary": symbols,
        "selection": lm.selection,
        "training": lm.training,
    }
    if args.json:
        print(json.dumps(info))
    else:
        for key, value in info.items():
            if isinstance(value, list):
                value = " ".join(value) if len(value) <= 60 else " ".join(value[:60]) + f" ... (+{len(value) - 60})"
            elif isinstance(value, dict):
                value = ", ".join(f"{k}={v}" for k, v in value.items())
            print(f"{key:20s} {value}")
    return 0
