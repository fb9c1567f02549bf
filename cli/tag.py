"""`seqspectral tag ...`: train a POS tagger; tag 1-best or n-best."""

from __future__ import annotations

import sys
import time

from seqspectral.bounds import option_type

from ._common import (add_treebank_options, at_most, epoch_progress, leaf_parser, positive_int, predict_treebank,
                      read_treebank, say, stdin_names, treebank_reading)

HELP = "part-of-speech tagging (averaged perceptron, Viterbi and k-best Viterbi over tag bigrams)"


def register(sub) -> None:
    p = sub.add_parser("tag", help=HELP)
    tsub = p.add_subparsers(dest="tag_command", metavar="SUBCOMMAND")
    tsub.required = True

    t = leaf_parser(tsub, "train", help="train a tagger on a CoNLL-U file and save it")
    t.add_argument("train", metavar="TRAIN.conllu", help="training sentences (CoNLL-U)")
    t.add_argument("-o", "--output", required=True, metavar="TAGGER", help="tagger file to write (.npz, atomically)")
    t.add_argument("--field", default="upos", choices=("upos", "xpos"), help="the column to tag (default upos)")
    t.add_argument("--dev", default=None, metavar="DEV.conllu",
                   help="sentences tagged after every epoch; the epoch with the best accuracy is kept")
    t.add_argument("--epochs", type=positive_int, default=10, metavar="N", help="perceptron epochs (default 10)")
    t.add_argument("--hash-bits", type=at_most(30), default=19, metavar="B",
                   help="2**B feature rows, one weight per row and tag (default 19)")
    t.add_argument("--random-state", type=int, default=0, metavar="S", help="seed of the sentence order")
    add_treebank_options(t)
    t.set_defaults(handler=run_train)

    r = leaf_parser(tsub, "run", help="tag a CoNLL-U file or raw text: 1-best, or the k best tag sequences as "
                                      "n-best CoNLL-U")
    r.add_argument("tagger", metavar="TAGGER", help="tagger file written by tag train")
    r.add_argument("input", metavar="FILE.conllu", help="sentences to tag, - for standard input (the tagger's "
                   "column is replaced; raw text is tokenised)")
    r.add_argument("-o", "--output", required=True, metavar="OUT.conllu",
                   help="file to write (atomically; - for standard output): the input as it was, the column replaced")
    r.add_argument("-k", type=option_type("k"), default=None, metavar="K",
                   help="write the K best tag sequences of each sentence as n-best CoNLL-U (DESIGN.md)")
    r.add_argument("--folds", type=option_type("folds"), default=None, metavar="F",
                   help="jackknife FILE (training data): each of F folds tagged by a tagger with TAGGER's "
                        "settings trained on the other folds")
    add_treebank_options(r, inherit=True, output=True)
    r.set_defaults(handler=run_tag)


def run_train(args) -> int:
    from seqspectral import serialize
    from seqspectral.workflows.training import train_tagger

    start = time.process_time()
    with epoch_progress(args, "tag train", "accuracy", percent=True) as on_epoch, \
            stdin_names(args.train, args.dev) as (paths, names):
        trained = train_tagger(paths[0], dev=paths[1], reading=treebank_reading(args), names=names, on_epoch=on_epoch,
                               field=args.field, epochs=args.epochs, hash_bits=args.hash_bits,
                               random_state=args.random_state)
    say(trained, args.quiet)
    tagger = trained.model
    serialize.save(args.output, tagger)
    if not args.quiet:
        chosen = f", kept epoch {tagger.selection_.chosen['epochs']}" if tagger.selection_ is not None else ""
        print(f"seqspectral: {trained.n_sentences} sentences, {len(tagger.tags_)} {args.field} tags{chosen}, "
              f"{time.process_time() - start:.1f} CPU s; wrote {args.output}", file=sys.stderr)
    return 0


def run_tag(args) -> int:
    from seqspectral import serialize
    from seqspectral.tagging.jackknife import jackknife

    tagger = serialize.load(args.tagger, kind="tagger")
    reading = treebank_reading(args, getattr(tagger, "reading_", None))
    sentences = read_treebank(args.input, args, heads_required=bool(args.folds), reading=reading)
    return predict_treebank(args, tagger, sentences, jackknife, tagger.tag, "tagged", reading)
