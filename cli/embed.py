"""`seqspectral embed ...`: CCA word embeddings in word2vec format, and a look at them.

    seqspectral embed CORPUS... -o EMB.txt [--dim K] [--window W] [--min-count N] ...
    seqspectral embed neighbours EMB.txt WORD... [-n 10]

CORPUS is any file ``read_corpus`` reads (CoNLL-U / CoNLL-X forms, plain text one sentence
a line, ``brown.zip`` or an NLTK data directory), several at once; ``brown`` alone (no such
file) is NLTK's Brown corpus found through ``NLTK_DATA``.
"""

from __future__ import annotations

import json
import sys

from ._common import (MAX_DIM, MAX_WINDOW, add_reading_options, add_sharding_options, at_most, positive_int,
                      reading_of, say, sharding_of, stdin_names)

USAGE = ("seqspectral embed CORPUS... -o EMB.txt [--dim K] [--window W] [--min-count N] [options]\n"
         "       seqspectral embed neighbours EMB.txt WORD... [-n N]")


def register(sub) -> None:
    p = sub.add_parser("embed", usage=USAGE, help="CCA word embeddings (word2vec format); 'embed neighbours' to look",
                       description="Learn CCA word embeddings (eigenwords; Dhillon, Foster & Ungar) from corpora "
                                   "and write them in word2vec text format, or show nearest neighbours "
                                   "('seqspectral embed neighbours EMB.txt WORD...').")
    p.add_argument("inputs", nargs="+", metavar="CORPUS", help="corpus files (or: neighbours EMB.txt WORD...)")
    p.add_argument("-o", "--output", metavar="EMB.txt", help="word2vec file to write")
    p.add_argument("--dim", type=at_most(MAX_DIM), default=50, metavar="K", help="dimension (default 50)")
    p.add_argument("--window", type=at_most(MAX_WINDOW), default=2, metavar="W",
                   help="context words each side (default 2)")
    p.add_argument("--min-count", type=positive_int, default=2, metavar="N",
                   help="rarer words share the <unk> vector (default 2)")
    p.add_argument("--max-vocab", type=positive_int, default=None, metavar="V", help="keep the V most frequent words")
    p.add_argument("--method", default="one-step", choices=["one-step", "two-step"],
                   help="two-step: LR-MVL (left/right context CCA first, then the word against it)")
    p.add_argument("--lowercase", action="store_true", help="fold case")
    p.add_argument("--digits", action="store_true", help="write every digit 0")
    p.add_argument("--binary", action="store_true", help="word2vec binary format instead of text")
    p.add_argument("--model", metavar="MODEL", default=None, help="also save the fitted model (token vectors) here")
    p.set_defaults(outputs=("output", "model"))
    add_reading_options(p, field="form")  # words, not tags, unless asked
    add_sharding_options(p)
    p.add_argument("--random-state", type=int, default=0, metavar="S")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    p.add_argument("-n", "--top", type=positive_int, default=10, metavar="N", help="neighbours: how many (default 10)")
    p.add_argument("--json", action="store_true",
                   help="neighbours: print one JSON object (query: [[word, cosine], ...]; missing: [...])")
    p.set_defaults(handler=run)


def run(args) -> int:
    if args.inputs[0] == "neighbours":
        return run_neighbours(args)
    return run_train(args)


def run_train(args) -> int:
    from seqspectral.workflows.training import train_embeddings

    from .main import UsageError

    if not args.output:
        raise UsageError("embed needs -o EMB.txt (the word2vec file to write)")
    sharded = args.workers is not None or args.scheduler is not None
    sharding = sharding_of(args, args.inputs) if sharded else None
    with stdin_names(*args.inputs) as (paths, names):
        trained = train_embeddings(paths, reading=reading_of(args), sharding=sharding, names=names,
                                   **_estimator_params(args))
    say(trained, args.quiet)
    return _write(trained.model, args)


def _write(est, args) -> int:
    from seqspectral.io import output_group

    with output_group():  # both files or neither
        est.write_word2vec(args.output, binary=args.binary)
        if args.model:
            from seqspectral import serialize

            serialize.save(args.model, est)
    if not args.quiet:
        print(f"{args.output}: {len(est.words_):,} words × {est.word_vectors_.shape[1]} "
              f"from {est.n_tokens_:,} tokens ({args.method} CCA, window {args.window})", file=sys.stderr)
    return 0


def _estimator_params(args) -> dict:
    return dict(n_components=args.dim, window=args.window, min_count=args.min_count, max_vocab=args.max_vocab,
                method=args.method, lowercase=args.lowercase, digits=args.digits, random_state=args.random_state,
                progress=not args.quiet)


def run_neighbours(args) -> int:
    import numpy as np

    from seqspectral.embeddings import read_word2vec

    from .main import UsageError

    if len(args.inputs) < 3:
        raise UsageError("usage: seqspectral embed neighbours EMB.txt WORD...")
    path, queries = args.inputs[1], args.inputs[2:]
    words, vectors = read_word2vec(path)
    index = {w: i for i, w in enumerate(words)}
    norms = np.linalg.norm(vectors, axis=1)
    unit = vectors / np.where(norms > 0, norms, 1)[:, None]
    missing, found = [], {}
    for query in queries:
        i = index.get(query, index.get(query.lower()))
        if i is None:
            print(f"seqspectral: {query!r} is not in {path}", file=sys.stderr)
            missing.append(query)
            continue
        sims = unit @ unit[i]
        sims[i] = -np.inf
        found[words[i]] = [(words[j], float(sims[j])) for j in np.argsort(-sims)[:args.top]]
        if not args.json:
            print(f"{words[i]}: " + " ".join(f"{w} ({s:.3f})" for w, s in found[words[i]]))
    if args.json:
        print(json.dumps({"neighbours": found, "missing": missing}, ensure_ascii=False))
    return 2 if missing else 0
