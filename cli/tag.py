"""`seqspectral tag ...`: train a tagger of one column (UPOS, XPOS, FEATS, LEMMA) or of every
column the treebank has; tag 1-best or n-best."""

from __future__ import annotations

import sys
import time

from seqspectral.bounds import option_type

from ._common import (add_treebank_options, at_most, epoch_progress, leaf_parser, positive_int, predict_treebank,
                      read_treebank, say, stdin_names, treebank_reading)

HELP = ("tagging: UPOS and XPOS (averaged perceptron, Viterbi and k-best Viterbi over tag bigrams), FEATS "
        "(feature bundles) and LEMMA (edit scripts), one column or all of them")
FIELDS = ("upos", "xpos", "feats", "lemma")
#: what a column's model is called in messages
MODEL_OF = {"upos": "UPOS tagger", "xpos": "XPOS tagger", "feats": "features tagger", "lemma": "lemmatiser"}
#: the model-file kinds tag run reads
KINDS = ("tagger", "features_tagger", "lemmatiser", "column_taggers")


def register(sub) -> None:
    p = sub.add_parser("tag", help=HELP)
    tsub = p.add_subparsers(dest="tag_command", metavar="SUBCOMMAND")
    tsub.required = True

    t = leaf_parser(tsub, "train", help="train a tagger of one column, or of every column the treebank has "
                                        "(--field all), on a CoNLL-U file and save it")
    t.add_argument("train", metavar="TRAIN.conllu", help="training sentences (CoNLL-U)")
    t.add_argument("-o", "--output", required=True, metavar="TAGGER", help="tagger file to write (.npz, atomically)")
    t.add_argument("--field", default="upos", choices=(*FIELDS, "all"),
                   help="the column to tag: upos, xpos (Viterbi taggers), feats (features tagger: one class per "
                        "bundle, or per feature with --feats-unit feature), lemma (lemmatiser: edit scripts), or all: every one of them the treebank fills "
                        "(UPOS, XPOS, FEATS, LEMMA in that order, each reading the columns before it; the columns "
                        "left out are named) (default upos)")
    t.add_argument("--dev", default=None, metavar="DEV.conllu",
                   help="sentences tagged after every epoch; the epoch with the best accuracy is kept")
    t.add_argument("--feats-unit", choices=("bundle", "feature"), default="bundle",
                   help="--field feats: one class per whole FEATS value (bundle), or one decision per feature name "
                        "(feature; can write bundles never seen whole) (default bundle: better on EWT and Turkish "
                        "dev, docs/tagging.md)")
    t.add_argument("--epochs", type=positive_int, default=10, metavar="N", help="perceptron epochs (default 10)")
    t.add_argument("--runs", type=positive_int, default=1, metavar="R",
                   help="upos, xpos: perceptrons trained side by side, each on its own sentence order, their weights "
                        "averaged (rerank build uses 3; default 1)")
    t.add_argument("--hash-bits", type=at_most(26), default=None, metavar="B",
                   help="2**B feature rows, one weight per row and tag, for the UPOS/XPOS taggers (default 19); "
                        "2**B weights of (feature, class) pairs for FEATS and LEMMA (default 20)")
    t.add_argument("--clusters", default=None, metavar="CLUSTERS",
                   help="word clusters (a word_clusters model file, e.g. DIR/clusters.npz of rerank build "
                        "--clusters-from) read as features by every model and saved inside it")
    t.add_argument("--random-state", type=int, default=0, metavar="S", help="seed of the sentence order")
    add_treebank_options(t)
    t.set_defaults(handler=run_train)

    r = leaf_parser(tsub, "run", help="tag a CoNLL-U file or raw text: 1-best, or the k best tag sequences as "
                                      "n-best CoNLL-U")
    r.add_argument("tagger", metavar="TAGGER", help="tagger file written by tag train")
    r.add_argument("input", metavar="FILE.conllu", help="sentences to tag, - for standard input (the tagger's "
                   "columns are replaced; raw text is tokenised)")
    r.add_argument("-o", "--output", required=True, metavar="OUT.conllu",
                   help="file to write (atomically; - for standard output): the input as it was, the columns replaced")
    r.add_argument("-k", type=option_type("k"), default=None, metavar="K",
                   help="write the K best tag sequences of each sentence as n-best CoNLL-U (DESIGN.md; a UPOS, "
                        "XPOS or features tagger: its K best FEATS columns)")
    r.add_argument("--folds", type=option_type("folds"), default=None, metavar="F",
                   help="jackknife FILE (training data): each of F folds tagged by a tagger with TAGGER's "
                        "settings trained on the other folds")
    add_treebank_options(r, inherit=True, output=True)
    r.set_defaults(handler=run_tag)


def run_train(args) -> int:
    from seqspectral import serialize
    from seqspectral.tagging import ColumnTaggers, FeaturesTagger, Lemmatiser
    from seqspectral.corpus.columns import has_column
    from seqspectral.tagging.features import check_feats
    from seqspectral.workflows.training import train_tagger

    from .main import UsageError

    clusters = serialize.load(args.clusters, kind="word_clusters") if args.clusters else None
    common = {"epochs": args.epochs, "clusters": clusters, "random_state": args.random_state}
    if args.hash_bits is not None:
        common["hash_bits"] = args.hash_bits
    start = time.process_time()
    if args.field in ("upos", "xpos"):  # the workflows layer's tagger, as rerank build trains it
        with epoch_progress(args, "tag train", "accuracy", percent=True) as on_epoch, \
                stdin_names(args.train, args.dev) as (paths, names):
            trained = train_tagger(paths[0], dev=paths[1], reading=treebank_reading(args), names=names,
                                   on_epoch=on_epoch, field=args.field, runs=args.runs, **common)
        say(trained, args.quiet)
        model, n_sentences = trained.model, trained.n_sentences
    else:
        if args.runs != 1:
            raise UsageError(f"--runs is for the upos and xpos taggers, not --field {args.field}")
        train = read_treebank(args.train, args, heads_required=False)
        dev = read_treebank(args.dev, args, heads_required=False) if args.dev else None
        check_feats(train, args.train)
        if dev:
            check_feats(dev, args.dev)
        if args.field != "all" and not has_column(train, args.field):
            raise UsageError(f"{args.train}: the {args.field.upper()} column is _ throughout: no "
                             f"{MODEL_OF[args.field]} trained")
        if args.field == "all":
            model = ColumnTaggers(**common)
            model.fit(train, dev=dev, stage=lambda f: epoch_progress(args, f"tag train {f}", "accuracy", percent=True))
        else:
            model = FeaturesTagger(unit=args.feats_unit, **common) if args.field == "feats" else Lemmatiser(**common)
            with epoch_progress(args, "tag train", "accuracy", percent=True) as on_epoch:
                model.fit(train, dev=dev, on_epoch=on_epoch)
        model.reading_ = treebank_reading(args).recorded().updated(field="upos")
        n_sentences = len(train)
    serialize.save(args.output, model)
    if not args.quiet:
        print(f"seqspectral: {n_sentences} sentences; {_trained(model, args.field)}; "
              f"{time.process_time() - start:.1f} CPU s; wrote {args.output}", file=sys.stderr)
    return 0


def _trained(model, field: str) -> str:
    """What ``tag train`` made: each model, its classes and kept epoch; the columns left out and why."""
    models = getattr(model, "models_", {field: model})
    parts = []
    for name, m in models.items():
        classes = len(getattr(m, "tags_", None) or getattr(m, "classes_", None) or getattr(m, "scripts_", []))
        unit = {"feats": "bundles" if getattr(m, "unit", "") == "bundle" else "feature values",
                "lemma": "edit scripts"}.get(name, "tags")
        chosen = f", kept epoch {m.selection_.chosen['epochs']}" if m.selection_ is not None else ""
        parts.append(f"{MODEL_OF[name]} ({classes} {unit}{chosen})")
    skipped = [f"no {MODEL_OF[f]}: {why}" for f, why in getattr(model, "skipped_", {}).items()]
    return "trained " + ", ".join(parts) + "".join("; " + s for s in skipped)


def run_tag(args) -> int:
    from seqspectral import serialize
    from seqspectral.tagging.jackknife import jackknife

    from .main import UsageError

    tagger = serialize.load(args.tagger, kind=KINDS)
    if args.k and not hasattr(tagger, "kbest"):
        raise UsageError(f"{args.tagger}: -k needs a UPOS, XPOS or features tagger (tag train --field "
                         f"upos|xpos|feats); this "
                         f"model is a {tagger.kind}")
    reading = treebank_reading(args, getattr(tagger, "reading_", None))
    sentences = read_treebank(args.input, args, heads_required=bool(args.folds), reading=reading)
    return predict_treebank(args, tagger, sentences, jackknife, tagger.tag, "tagged", reading)
