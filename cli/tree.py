"""`seqspectral tree ...`: train and apply the latent-variable dependency-tree model."""

from __future__ import annotations

import json
import sys
import time

from ._common import INHERITED, add_reading_options, leaf_parser, note, positive_int, read_input, reading_of

HELP = "spectral latent-variable dependency-tree model (p(words | tree), per tree)"
KINDS = ("spectral_tree_model", "em_tree_model")


def register(sub) -> None:
    p = sub.add_parser("tree", help=HELP)
    tsub = p.add_subparsers(dest="tree_command", metavar="SUBCOMMAND")
    tsub.required = True

    t = leaf_parser(tsub, "train", help="train a tree model on a treebank and save it")
    t.add_argument("train", metavar="TRAIN",
                   help="training treebank (CoNLL-U, CoNLL-X, Malt-TAB; - for standard input)")
    t.add_argument("-o", "--output", required=True, metavar="TREE", help="model file to write (.npz, atomically)")
    t.add_argument("--method", default="spectral", choices=("spectral", "em"),
                   help="spectral: method of moments (default); em: EM (upward-downward message passing)")
    t.add_argument("--dim", type=positive_int, default=None, metavar="K",
                   help="hidden dimensions / states (default: the number of symbols with --representation "
                        "identity, else 16)")
    t.add_argument("--representation", default=None, choices=("identity", "svd"),
                   help="U for the spectral method: identity (one dimension per tag) or svd of the child-parent "
                        "bigram (default: identity for up to 40 symbols, else svd)")
    t.add_argument("--embeddings", default=None, metavar="EMB.txt",
                   help="word2vec file (e.g. from seqspectral embed) whose vectors form U")
    t.add_argument("--floor", type=float, default=1e-3,
                   help="spectral floor factor: node factors below floor x word frequency are floored (default 1e-3)")
    t.add_argument("--n-iter", type=positive_int, default=200, help="EM iterations at most (default 200)")
    t.add_argument("--init", default="random", choices=("random", "spectral"),
                   help="EM start: random (default) or the parameters read off the spectral solution "
                        "(fewer iterations on planted data; on EWT UPOS it ends 1.3%% lower)")
    t.add_argument("--random-state", type=int, default=0, metavar="S", help="seed of EM's start")
    add_reading_options(t)
    t.add_argument("--json", action="store_true", help="print what was trained as one JSON object")
    t.add_argument("--quiet", action="store_true", help="no summary")
    t.set_defaults(handler=run_train)

    s = leaf_parser(tsub, "score", help="natural-log p(words | tree) of every tree, one per line, in order")
    s.add_argument("model", metavar="TREE", help="model file written by tree train")
    s.add_argument("test", metavar="FILE", help="trees to score (an n-best file: candidate by candidate)")
    s.add_argument("-o", "--output", default=None, metavar="OUT", help="file to write (atomically); default stdout")
    s.add_argument("--topology", action="store_true",
                   help="add the topology term (per-word valence) as a second column / JSON list")
    add_reading_options(s, inherit=True)
    s.add_argument("--json", action="store_true", help="print one JSON object (log_probs, counts)")
    s.set_defaults(handler=run_score)


def _check_trees(corpus, path: str, fmt: str) -> None:
    """A usage error naming ``path`` unless every sentence of ``corpus`` is a tree."""
    from seqspectral.trees import TreeError, tree_layout

    from .main import UsageError

    if corpus.heads is None:
        raise UsageError(f"{path}: no trees (read as {fmt}); the tree model needs a treebank or an n-best file")
    try:
        tree_layout(corpus)
    except TreeError as e:
        raise UsageError(f"{path}: {e}") from None


def run_train(args) -> int:
    from seqspectral import serialize
    from seqspectral.io import check_output_path

    from .main import UsageError

    check_output_path(args.output)
    reading = reading_of(args)
    t0 = time.perf_counter()
    train, n_skipped, fmt = read_input(args.train, reading, quiet=args.quiet)
    _check_trees(train, args.train, fmt)
    if args.method == "em" and (args.embeddings or args.representation):
        raise UsageError("--embeddings and --representation apply to --method spectral only")
    if args.method == "spectral":
        from seqspectral.trees import SpectralTreeModel

        representation = args.representation
        if args.embeddings is not None:
            from seqspectral.embeddings.word2vec_format import read_word2vec

            representation = read_word2vec(args.embeddings, encoding=reading["encoding"])
        elif representation is None:
            representation = "identity" if len(train.vocabulary) <= 40 else "svd"
        model = SpectralTreeModel(args.dim, representation=representation, floor=args.floor)
    else:
        from seqspectral.trees import EMTreeModel

        model = EMTreeModel(args.dim or 16, n_iter=args.n_iter, init=args.init, random_state=args.random_state)
    model.fit(train)
    model.reading_ = {**{k: reading[k] for k in INHERITED}, "format": fmt}
    serialize.save(args.output, model)
    seconds = time.perf_counter() - t0
    summary = {"model": args.output, "method": args.method, "n_sentences": len(train), "n_tokens": train.n_tokens,
               "n_skipped": n_skipped, "seconds": round(seconds, 3)}
    if args.method == "spectral":
        summary.update(dim=model.representation_info_["dim"], representation=model.representation_info_["kind"],
                       n_events=model.n_events_)
        if "n_covered" in model.representation_info_:
            summary["embedding_coverage"] = model.representation_info_["n_covered"] / len(train.vocabulary)
    else:
        summary.update(dim=model.n_states, n_iter=model.n_iter_, converged=model.converged_,
                       train_log_likelihood_per_word=float(model.log_likelihoods_[-1]))
    if args.json:
        print(json.dumps(summary))
    elif not args.quiet:
        for key, value in summary.items():
            print(f"{key:22s} {value}", file=sys.stderr)
    return 0


def run_score(args) -> int:
    import numpy as np

    from seqspectral import serialize
    from seqspectral.io import atomic_open

    model = serialize.load(args.model, kind=KINDS)
    vocabulary = model.vocabulary_ if hasattr(model, "vocabulary_") else model.model_.vocabulary
    reading = reading_of(args, getattr(model, "reading_", None) or {})
    corpus, _, fmt = read_input(args.test, reading, vocabulary=vocabulary)
    _check_trees(corpus, args.test, fmt)
    if hasattr(model, "tree_scores"):
        scores = model.tree_scores(corpus)
        log_probs, n_floored = scores.log_prob, scores.n_floored
    else:
        log_probs, n_floored = model.log_probs(corpus), 0
    topology = model.topology_log_probs(corpus) if args.topology else None
    n_unknown = int(np.sum(corpus.symbols == 0))
    if n_unknown:
        note(f"{args.test}: {n_unknown} token(s) unseen in training, read as <unk>")
    if n_floored:
        note(f"{n_floored} of {corpus.n_tokens} node factors floored (non-positive or tiny spectral estimates)")
    if args.json:
        result = {"log_probs": log_probs.tolist(), "n_trees": len(corpus), "n_tokens": corpus.n_tokens,
                  "n_unknown": n_unknown, "n_floored": n_floored,
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
