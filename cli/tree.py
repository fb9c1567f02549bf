"""`seqspectral tree ...`: train and apply the latent-variable dependency-tree model."""

from __future__ import annotations

import json
import sys
import time

from ._common import (add_reading_options, add_sharding_options, leaf_parser, note, positive_int,
                      read_input, reading_of, say, sharding_of, stdin_names)

HELP = "spectral latent-variable dependency-tree model (p(words | tree), per tree)"
KINDS = ("spectral_tree_model", "em_tree_model")


def register(sub) -> None:
    p = sub.add_parser("tree", help=HELP)
    tsub = p.add_subparsers(dest="tree_command", metavar="SUBCOMMAND")
    tsub.required = True

    t = leaf_parser(tsub, "train", help="train a tree model on a treebank and save it",
                    epilog="embedding_coverage (with --embeddings): the share of the model's vocabulary that has a "
                           "vector in the embeddings file (the others share its <unk> vector, or the mean of the "
                           "found ones)")
    t.add_argument("train", metavar="TRAIN", nargs="+",
                   help="training treebank(s) (CoNLL-U, CoNLL-X, Malt-TAB; - for standard input); several files "
                        "are counted one after the other, or in shards with --workers / --scheduler")
    t.add_argument("-o", "--output", required=True, metavar="TREE", help="model file to write (.npz, atomically)")
    t.add_argument("--method", default="spectral", choices=("spectral", "em"),
                   help="spectral: method of moments (default); em: EM (upward-downward message passing)")
    t.add_argument("--states", "--dim", dest="n_states", type=_states, default=None, metavar="K",
                   help="hidden states k (default: the number of symbols with --representation identity, else 16); "
                        "em: also auto, chosen on --dev (else on a held-out 20%% of TRAIN)")
    t.add_argument("--representation", default=None, choices=("identity", "svd"),
                   help="U for the spectral method: identity (one dimension per tag) or svd of the child-parent "
                        "bigram (default: identity for up to 40 symbols, else svd)")
    t.add_argument("--embeddings", default=None, metavar="EMB.txt",
                   help="word2vec file (e.g. from seqspectral embed) whose vectors form U")
    for name, what in (("floor", "floor of a word's conditional, times its training frequency"),
                       ("ridge", "Tikhonov weight of the moments' inverses, relative to their largest singular value "
                                 "(0: pseudo-inverses)"),
                       ("shrinkage", "weight of the head's own word among the contexts (0: the consistent estimator)")):
        t.add_argument(f"--{name}", type=_real_or_auto, default=None, metavar="X|auto",
                       help=f"spectral: {what} (default: SpectralTreeModel's, chosen on EWT); auto: chosen on --dev, "
                            "else on a held-out 20%% of TRAIN")
    t.add_argument("--selection", default="likelihood", choices=("likelihood", "ranking"),
                   help="what 'auto' values maximise on the held-out trees: likelihood (per-word log-likelihood, "
                        "default) or ranking (share of trees scored above a copy with one word re-attached: for a "
                        "reranker's feature)")
    t.add_argument("--dev", default=None, metavar="DEV",
                   help="held-out trees on which 'auto' values are chosen (needed with --workers / --scheduler)")
    t.add_argument("--max-iter", "--n-iter", dest="max_iter", type=positive_int, default=200,
                   help="EM iterations at most (default 200)")
    t.add_argument("--init", default="random", choices=("random", "spectral"),
                   help="EM start: random (default) or the parameters read off the spectral solution "
                        "(fewer iterations on planted data; on EWT UPOS it ends 1.3%% lower)")
    t.add_argument("--random-state", type=int, default=0, metavar="S", help="seed of EM's start")
    add_reading_options(t)
    add_sharding_options(t)
    t.add_argument("--json", action="store_true", help="print what was trained as one JSON object")
    t.add_argument("--quiet", action="store_true", help="no summary")
    t.set_defaults(handler=run_train)

    s = leaf_parser(tsub, "score", help="natural-log p(words | tree) of every tree, one per line, in order",
                    epilog="n_floored: words whose spectral conditional probability was negative or tiny and was "
                           "raised to the floor; n_reset: tree nodes whose belief state came out non-positive or not "
                           "finite and was reset to the start state (both are the spectral estimate's known "
                           "failure modes; many mean too little data for the chosen dimension)")
    s.add_argument("model", metavar="TREE", help="model file written by tree train")
    s.add_argument("test", metavar="FILE", help="trees to score (an n-best file: candidate by candidate)")
    s.add_argument("-o", "--output", default=None, metavar="OUT", help="file to write (atomically); default stdout")
    s.add_argument("--topology", action="store_true",
                   help="add the topology term (per-word valence) as a second column / JSON list")
    add_reading_options(s, inherit=True)
    s.add_argument("--json", action="store_true", help="print one JSON object (log_probs, counts)")
    s.set_defaults(handler=run_score)


def _states(text: str):
    from seqspectral.bounds import option_type

    return text if text == "auto" else option_type("tree_dim")(text)


def _real_or_auto(text: str):
    import argparse

    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', not {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative number or 'auto', not {text!r}")
    return value


def run_train(args) -> int:
    from seqspectral import serialize
    from seqspectral.io import check_output_path
    from seqspectral.workflows.training import train_tree

    from .main import UsageError

    check_output_path(args.output)
    reading = reading_of(args)
    t0 = time.perf_counter()
    if args.method == "em" and (args.embeddings or args.representation or args.selection != "likelihood"):
        raise UsageError("--embeddings, --representation and --selection apply to --method spectral only")
    if args.selection != "likelihood" and "auto" not in (args.floor, args.ridge, args.shrinkage):
        raise UsageError("--selection says how 'auto' values are chosen: give --ridge, --shrinkage or --floor auto")
    sharded = len(args.train) > 1 or args.workers is not None or args.scheduler is not None
    if sharded:
        if args.method == "spectral" and "auto" in (args.floor, args.ridge, args.shrinkage) and args.dev is None:
            raise UsageError("'auto' values with sharded counting are chosen on --dev DEV: give held-out trees")
        if args.method == "em" and (args.workers is not None or args.scheduler is not None):
            raise UsageError("--workers / --scheduler count statistics for --method spectral; EM needs the trees")
    sharding = sharding_of(args, args.train) if sharded else None
    params = _params(args, reading)
    with stdin_names(*args.train, args.dev) as (paths, names):
        try:
            trained = train_tree(paths[:-1] if sharded else paths[0], args.method, dev=paths[-1], reading=reading,
                                 sharding=sharding, names=names, n_states=args.n_states, **params)
        except ValueError as e:
            if getattr(e, "user_facing", False) or not sharded:
                raise
            raise UsageError(f"{' '.join(args.train)}: {e}") from None
    say(trained, args.quiet)
    model, fmt, n_skipped = trained.model, trained.format, trained.n_skipped
    n_sentences, n_tokens = trained.n_sentences, trained.n_tokens
    vocabulary = model.vocabulary_ if hasattr(model, "vocabulary_") else model.model_.vocabulary
    serialize.save(args.output, model)
    seconds = time.perf_counter() - t0
    summary = {"model": args.output, "method": args.method, "n_sentences": n_sentences, "n_tokens": n_tokens,
               "n_skipped": n_skipped, "seconds": round(seconds, 3)}
    if args.method == "spectral":
        summary.update(dim=model.representation_info_["dim"], representation=model.representation_info_["kind"],
                       n_events=model.n_events_, ridge=model.ridge_, shrinkage=model.shrinkage_,
                       floor=model.floor_)
        if "n_covered" in model.representation_info_:
            summary["embedding_coverage"] = model.representation_info_["n_covered"] / len(vocabulary)
    else:
        summary.update(dim=model.n_states_, n_iter=model.n_iter_, converged=model.converged_,
                       train_log_likelihood_per_word=float(model.history_[-1]))
    if model.selection_ is not None:
        summary["chosen_on"] = model.selection_.on
    if args.json:
        print(json.dumps(summary))
    elif not args.quiet:
        for key, value in summary.items():
            print(f"{key:22s} {value}", file=sys.stderr)
    return 0


def _params(args, reading) -> dict:
    """The estimator's hyper-parameters the options give (``n_states`` apart)."""
    if args.method == "em":
        return {"max_iter": args.max_iter, "init": args.init, "random_state": args.random_state,
                "progress": not args.quiet}
    representation = args.representation
    if args.embeddings is not None:
        from seqspectral.embeddings.word2vec_format import read_word2vec

        representation = read_word2vec(args.embeddings, encoding=reading.encoding)
    given = {name: getattr(args, name) for name in ("floor", "ridge", "shrinkage") if getattr(args, name) is not None}
    return {"representation": representation, "selection": args.selection, "random_state": args.random_state,
            **given}


def run_score(args) -> int:
    import numpy as np

    from seqspectral import serialize
    from seqspectral.io import atomic_open
    from seqspectral.workflows.training import check_trees

    model = serialize.load(args.model, kind=KINDS)
    vocabulary = model.vocabulary_ if hasattr(model, "vocabulary_") else model.model_.vocabulary
    reading = reading_of(args, getattr(model, "reading_", None))
    corpus, _, fmt = read_input(args.test, reading, vocabulary=vocabulary)
    check_trees(corpus, args.test, fmt)
    if hasattr(model, "tree_scores"):
        scores = model.tree_scores(corpus)
        log_probs, n_floored, n_reset = scores.log_prob, scores.n_floored, scores.n_reset
    else:
        log_probs, n_floored, n_reset = model.log_probs(corpus), 0, 0
    topology = model.topology_log_probs(corpus) if args.topology else None
    n_unknown = int(np.sum(corpus.symbols == 0))
    if n_unknown:
        note(f"{args.test}: {n_unknown} token(s) unseen in training, read as <unk>")
    if n_floored:
        note(f"{n_floored} of {corpus.n_tokens} words' conditionals floored (negative or tiny spectral weights)")
    if args.json:
        result = {"log_probs": log_probs.tolist(), "n_trees": len(corpus), "n_tokens": corpus.n_tokens,
                  "n_unknown": n_unknown, "n_floored": n_floored, "n_reset": n_reset,
                  "log_prob_per_word": float(log_probs.sum() / max(corpus.n_tokens, 1))}
        if topology is not None:
            result["topology_log_probs"] = topology.tolist()
        text = json.dumps(result) + "\n"
    else:
        columns = [log_probs] if topology is None else [log_probs, topology]
        text = "".join("\t".join(repr(float(c[i])) for c in columns) + "\n" for i in range(len(corpus)))
    if args.output is None:
        sys.stdout.write(text)
    else:
        with atomic_open(args.output) as f:
            f.write(text)
    return 0
