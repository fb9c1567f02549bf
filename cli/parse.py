"""`seqspectral parse ...`: train a dependency parser; parse 1-best or n-best."""

from __future__ import annotations

import sys
import time

from seqspectral.bounds import option_type

from ._common import (MAX_PARSE_WORDS, add_treebank_options, at_most, epoch_progress, leaf_parser,
                      positive_int, predict_treebank, read_treebank, say, stdin_names, treebank_reading, warn)

HELP = ("dependency parsing (first or second order; projective by Eisner's algorithm or non-projective by maximum "
        "spanning trees; k-best) with a label classifier")
#: --tags: (use_xpos, use_feats, use_lemma); LEMMA only with all, since no toolkit step predicts it
TAGS = {"upos": (False, False, False), "upos+xpos": (True, False, False), "upos+feats": (False, True, False),
        "all": (True, True, True)}
_TAGS_HELP = ("tag columns with features (default all); at run time the input must have them filled: upos: UPOS "
              "(tag run with a UPOS tagger gives it); upos+xpos: UPOS and XPOS (two taggers, --field upos and xpos); "
              "upos+feats: UPOS and FEATS (no toolkit step predicts FEATS: gold or another tool's); all: all three "
              "and LEMMA (gold or another tool's; the other choices read no LEMMA)")


def _count(text: str) -> int:
    """An argparse type: an integer of at least 0."""
    import argparse

    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected an integer of at least 0, not {text!r}")
    return int(text)


def register(sub) -> None:
    p = sub.add_parser("parse", help=HELP)
    psub = p.add_subparsers(dest="parse_command", metavar="SUBCOMMAND")
    psub.required = True

    t = leaf_parser(psub, "train", help="train a parser on a CoNLL-U treebank and save it")
    t.add_argument("train", metavar="TRAIN.conllu", help="training treebank")
    t.add_argument("-o", "--output", required=True, metavar="PARSER", help="parser file to write (.npz, atomically)")
    t.add_argument("--order", type=int, default=1, choices=[1, 2],
                   help="factorisation order (1: arcs; 2: arcs and adjacent siblings)")
    t.add_argument("--decoder", default="auto", choices=("auto", "projective", "nonprojective"),
                   help="projective (Eisner) or nonprojective (maximum spanning trees; order 2: the projective parse "
                        "rearranged); auto (default): nonprojective when more than 1%% of the training arcs cross, "
                        "the choice and the share printed and kept in the parser file")
    t.add_argument("--prune-heads", type=_count, default=10, metavar="K",
                   help="order 2: per word, the K heads a first-order pruner scores best are kept, with the pruner's "
                        "tree and in training the gold head; sibling parts are scored over kept arcs only (default "
                        "10; 0: no pruning, every part scored)")
    t.add_argument("--epochs", type=positive_int, default=10, metavar="N", help="training epochs (default 10)")
    t.add_argument("--dev", default=None, metavar="DEV.conllu",
                   help="treebank parsed after every epoch (dev UAS); the best epoch's weights are kept")
    t.add_argument("--tags", default="all", choices=tuple(TAGS), help=_TAGS_HELP)
    t.add_argument("--update", default="pa", choices=("pa", "perceptron"),
                   help="online step: passive-aggressive (1-best MIRA) or perceptron (default pa)")
    roots = t.add_mutually_exclusive_group()
    roots.add_argument("--several-roots", dest="single_root", action="store_const", const=False, default="auto",
                       help="let several words attach to the root (default: only when a training tree has several)")
    roots.add_argument("--single-root", dest="single_root", action="store_const", const=True,
                       help="exactly one word on the root, as UD requires")
    t.add_argument("--hash-bits", type=at_most(30), default=23, metavar="B", help="2**B feature weights (default 23)")
    t.add_argument("--random-state", type=int, default=0, metavar="S", help="seed of the sentence order")
    add_treebank_options(t)
    t.set_defaults(handler=run_train, max_words=MAX_PARSE_WORDS)

    r = leaf_parser(psub, "run", help="parse a CoNLL-U file (or raw text, with --tagger): 1-best, or the k best "
                                      "trees as n-best CoNLL-U")
    r.add_argument("parser", metavar="PARSER", help="parser file written by parse train")
    r.add_argument("input", metavar="FILE.conllu",
                   help="sentences to parse, - for standard input (tags are read; HEAD may be _, any heads are "
                        "replaced; raw text is tokenised)")
    r.add_argument("-o", "--output", required=True, metavar="OUT.conllu",
                   help="file to write (atomically; - for standard output): the input as it was, HEAD and DEPREL "
                        "replaced")
    r.add_argument("--tagger", action="append", default=[], metavar="TAGGER",
                   help="tag the input with this tagger (tag train) before parsing, filling its column; repeatable")
    r.add_argument("-k", type=option_type("k"), default=None, metavar="K",
                   help="write the K best trees of each sentence as n-best CoNLL-U (DESIGN.md)")
    r.add_argument("--folds", type=option_type("folds"), default=None, metavar="F",
                   help="jackknife FILE (a treebank): each of F folds parsed by a parser with PARSER's "
                        "settings trained on the other folds")
    add_treebank_options(r, inherit=True, output=True)
    r.set_defaults(handler=run_parse, max_words=MAX_PARSE_WORDS)


def run_train(args) -> int:
    from seqspectral import serialize
    from seqspectral.workflows.training import train_parser

    use_xpos, use_feats, use_lemma = TAGS[args.tags]
    start = time.process_time()
    with epoch_progress(args, "parse train", "uas") as on_epoch, stdin_names(args.train, args.dev) as (paths, names):
        trained = train_parser(paths[0], dev=paths[1], reading=treebank_reading(args), names=names, on_epoch=on_epoch,
                               order=args.order, decoder=args.decoder, epochs=args.epochs, hash_bits=args.hash_bits,
                               use_xpos=use_xpos, use_feats=use_feats, use_lemma=use_lemma, single_root=args.single_root,
                               update=args.update, prune_heads=args.prune_heads, random_state=args.random_state,
                               max_words=args.max_words)
    say(trained, args.quiet)
    parser = trained.model
    serialize.save(args.output, parser)
    if not args.quiet:
        chosen = f", kept epoch {parser.selection_.chosen['epochs']} (best dev UAS)" \
            if getattr(parser, "selection_", None) is not None else ""
        print(f"seqspectral: {trained.n_sentences} sentences, {parser.crossing_share_:.2f}% of the arcs "
              f"non-projective: {parser.decoder_} decoder{' (auto)' if args.decoder == 'auto' else ''}{chosen}, "
              f"{time.process_time() - start:.1f} CPU s; wrote {args.output}", file=sys.stderr)
    return 0


def run_parse(args) -> int:
    from seqspectral import serialize
    from seqspectral.corpus.columns import ColumnProfile
    from seqspectral.parsing.jackknife import jackknife
    from seqspectral.workflows.pipeline import input_columns

    parser = serialize.load(args.parser, kind="dependency_parser")
    taggers = [serialize.load(path, kind="tagger") for path in args.tagger]
    reading = treebank_reading(args, getattr(parser, "reading_", None))
    sentences = read_treebank(args.input, args, heads_required=bool(args.folds), reading=reading)
    for tagger in taggers:
        sentences = tagger.tag(sentences)
    profile = getattr(parser, "input_profile_", None) or ColumnProfile({})
    # a column read but not profiled (files from before LEMMA was profiled) is checked for being empty
    profile = ColumnProfile({**{c: {} for c in input_columns(parser)}, **profile.counts})
    name = "<stdin>" if args.input == "-" else args.input
    filled = ", ".join(t.field.upper() for t in taggers)
    hint = ("tag the input (--tagger)" if not taggers else
            f"add a tagger of that column (the --tagger given {'fills' if len(taggers) == 1 else 'fill'} {filled})")
    missing = [] if args.folds else profile.missing(sentences)  # --folds trains on the input itself
    if missing:
        from .main import UsageError

        raise UsageError(f"{name}: no {', '.join(c.upper() for c in missing)} values, which the parser reads (parse "
                         f"train --tags): {hint}")
    for problem in profile.problems(sentences) if not args.quiet else ():
        warn(f"{name}: {problem}; the parser reads it (parse train --tags): expect poor trees, or {hint}")
    return predict_treebank(args, parser, sentences, jackknife, parser.parse, "parsed", reading)
