"""`seqspectral rerank ...`: train an n-best reranker and apply it to parser or tagger
n-best lists."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

from seqspectral.bounds import BOUNDS, option_type

from ._common import (STDIN, _local_file, add_treebank_options, leaf_parser, output_encoding, positive_int,
                      read_treebank, treebank_reading, warn)

HELP = ("rerank n-best lists — parses (baseline or context tree features + parser score + tree-model / LM "
        "log-probabilities) or tag sequences (tagger score + LM log-probabilities)")

_CANDIDATES = """\
candidates: parses (parse run -k K) are described by hashed tree features (--templates) and the
parser's score; tag sequences (tag run -k K) by the tagger's score. Both take real-valued
features from --tree-model (parses) and --lm (the LM's log-probability of the candidate's
tags, read as the LM's training file was: its column and tagset). The parser's (tagger's)
score is the anchor: the reranker starts from its ranking, and that ranking is one of the
candidates of the held-out choice of the anchor weight and the epochs (on --dev, else on
20% of the training lists held out). A candidate scores its held-out gain over that ranking
less --margin standard errors (paired over lists), so the reranker leaves the 1-best only
for a gain above the noise of the held-out lists, and is never below it there. NBEST may
be - (standard input). The reranker file records what it ranks and the scorer models (path, content hash):
rerank apply needs no --tree-model / --lm (given, they must be the same models)."""

def register(sub) -> None:
    p = sub.add_parser("rerank", help=HELP, description=HELP)
    rsub = p.add_subparsers(dest="rerank_command", metavar="SUBCOMMAND")
    rsub.required = True

    t = leaf_parser(rsub, "train", help="train a reranker on n-best lists and their gold sentences",
                    epilog=_CANDIDATES)
    t.add_argument("nbest", metavar="NBEST.conllu",
                   help="n-best CoNLL-U (parse run / tag run -k K; ideally --folds F for training data; - for "
                        "standard input)")
    t.add_argument("--gold", required=True, metavar="GOLD.conllu",
                   help="the gold sentences, one per list, in order")
    t.add_argument("-o", "--output", required=True, metavar="RERANKER",
                   help="reranker file to write (.npz, atomically)")
    t.add_argument("--candidates", choices=("parses", "tags"), default="parses",
                   help="what the lists hold: parses (losses: wrong heads) or tag sequences (losses: wrong tags "
                        "in --field) (default parses)")
    t.add_argument("--field", choices=("upos", "xpos"), default="upos",
                   help="--candidates tags: the tagged column (default upos)")
    t.add_argument("--templates", choices=("baseline", "context", "lexical"), default="context",
                   help="--candidates parses: hashed tree features — context: grandparent, sibling, valency and "
                        "subtree-size templates over words and POS, and the baseline ones (default); lexical: "
                        "those and word / XPOS grandparent and sibling templates and the modifier's outermost "
                        "dependent on its head's side (a nominal's preposition); baseline: the paper's POS "
                        "triples only (left modifier x head x right modifier, modifier x head x grandparent), "
                        "for reproduction")
    t.add_argument("--epochs", type=positive_int, default=10, metavar="N",
                   help="at most N perceptron epochs (default 10; 0..N chosen on held-out lists)")
    t.add_argument("--dev", default=None, metavar="DEV.nbest.conllu",
                   help="n-best lists of held-out sentences for the choice (default: 20%% of the training lists, "
                        "seeded, then refitted on all)")
    t.add_argument("--dev-gold", default=None, metavar="DEV.conllu", help="the gold sentences of --dev")
    t.add_argument("--margin", type=float, default=2.0, metavar="Z",
                   help="standard errors of the held-out gain a model needs over the 1-best ranking to be chosen "
                        "(default 2; 0: the plain held-out best)")
    t.add_argument("--feature-set", choices=("auto", "base", "scorers"), default="auto",
                   help="auto: keep the --tree-model / --lm features only if the best model with them beats the best "
                        "without them on the held-out lists by --margin standard errors (default); base: without "
                        "them; scorers: with them")
    t.add_argument("--runs", type=positive_int, default=1, metavar="N",
                   help="train N perceptrons, each visiting the lists in its own seeded order (--random-state, "
                        "+1, ...) with its own held-out choice, and average their weights; N times the fit's CPU "
                        "(default 1; 3 on EWT dev: 85.08 UAS against 84.83-84.92 for each alone)")
    t.add_argument("--random-state", type=int, default=0, metavar="S",
                   help="seed of the held-out lists and the list order (default 0)")
    t.add_argument("--json", action="store_true", help="print what was chosen and the held-out figures as JSON")
    _scorer_options(t, quiet=False)
    add_treebank_options(t)  # how --gold and --dev-gold are read (n-best files are CoNLL-U, in that encoding)
    t.set_defaults(handler=run_train)

    a = leaf_parser(rsub, "apply", help="choose one candidate per n-best list", epilog=_CANDIDATES)
    a.add_argument("reranker", metavar="RERANKER", help="reranker file written by rerank train")
    a.add_argument("nbest", metavar="NBEST.conllu", help="n-best CoNLL-U to rerank (the kind the reranker was "
                   "trained on; - for standard input)")
    a.add_argument("-o", "--output", required=True, metavar="BEST.conllu",
                   help="1-best CoNLL-U: every input sentence, in order, exactly once (atomically); a list "
                        "that cannot be reranked (an error such as a cycle) gives its rank-1 candidate and is "
                        "counted")
    a.add_argument("--json", action="store_true", help="print the counts of lists as JSON")
    _scorer_options(a, quiet=False)
    add_treebank_options(a, inherit=True, output=True)
    a.set_defaults(handler=run_apply)
    register_build(rsub)


def _scorer_options(parser, quiet: bool = True) -> None:
    parser.add_argument("--tree-model", action="append", default=[], metavar="TREE",
                        help="parses: a tree model (tree train) whose log p(words | tree) is a feature (and its "
                             "topology term); repeatable (apply: default the reranker's own)")
    parser.add_argument("--no-topology", action="store_true", help="leave out the tree models' topology terms")
    parser.add_argument("--lm", action="append", default=[], metavar="MODEL",
                        help="a sequence language model (lm train) whose log-probability of the candidate's tags "
                             "is a feature; repeatable (apply: default the reranker's own)")
    if quiet:
        parser.add_argument("--quiet", action="store_true", help="no report on standard error")


def _scorers(tree_models, lms, topology: bool, kind: str) -> list:
    """Scorers of the model files, each with its source (option, path, content hash)."""
    import hashlib
    import os

    from seqspectral import serialize
    from seqspectral.reranking import CorpusScorer, tree_model_scorers

    from .main import UsageError

    if kind == "tags" and tree_models:
        raise UsageError("--tree-model scores parses, not tag sequences")
    scorers = []
    for option, paths in (("tree_model", tree_models), ("lm", lms)):
        for i, path in enumerate(paths, 1):
            model = serialize.load(path, serialize.TREE_MODEL_KINDS if option == "tree_model" else serialize.LANGUAGE_MODEL_KINDS)
            with open(path, "rb") as f:
                digest = hashlib.file_digest(f, "sha256").hexdigest()
            source = {"option": option, "index": i, "path": os.path.abspath(path), "sha256": digest}
            if option == "tree_model":
                scorers += tree_model_scorers(model, "tree" if i == 1 else f"tree{i}", topology, source)
            else:
                scorers.append(CorpusScorer(model, "lm:log_prob" if i == 1 else f"lm{i}:log_prob", source=source))
    return scorers


def _recorded_scorers(reranker, kind: str) -> list:
    """The scorers the reranker was trained with, from the files it recorded."""
    import os

    from .main import UsageError

    paths = {"tree_model": {}, "lm": {}}
    for name, source in reranker.sources_.items():
        paths[source["option"]][source["index"]] = source["path"]
    for option, by_index in paths.items():
        for path in by_index.values():
            if not os.path.isfile(path):
                flag = "--" + option.replace("_", "-")
                raise UsageError(f"the reranker was trained with {path}, which is not there: give it with {flag}")
    topology = any(n.endswith(":topology") for n in reranker.dense_names_)
    return _scorers([p for _, p in sorted(paths["tree_model"].items())], [p for _, p in sorted(paths["lm"].items())],
                    topology, kind)


@contextmanager
def nbest_file(path: str):
    """``path``, or for ``-`` standard input copied to a temporary file (:func:`_local_file`);
    a format error in it names ``<stdin>``."""
    from seqspectral.corpus import CorpusFormatError

    with _local_file(path) as local:
        try:
            yield local
        except CorpusFormatError as e:
            if local == path:
                raise
            raise CorpusFormatError("<stdin>", e.line, e.reason) from None


def _progress(args):
    from ._common import note

    return None if args.quiet else note


def _passed_through(problems) -> dict:
    """``--json``'s count of lists passed through, by reason."""
    from collections import Counter

    return {"passed_through": len(problems),
            "reasons": dict(Counter(reason.split(":")[0] for _, reason in problems))}


def _report(problems, path: str, quiet: bool) -> None:
    if problems and not quiet:
        first, reason = problems[0]
        print(f"seqspectral: warning: {path}: {len(problems)} n-best list(s) cannot be reranked and are passed "
              f"through (first: list {first + 1}: {reason})", file=sys.stderr)


def run_train(args) -> int:
    import json

    from seqspectral import serialize
    from seqspectral.reranking import Reranker
    from seqspectral.reranking.files import KINDS, read_training_lists
    from seqspectral.workflows.training import fit_reranker

    from .main import UsageError

    if bool(args.dev) != bool(args.dev_gold):
        raise UsageError("--dev and --dev-gold go together")
    kind = KINDS[args.candidates]
    scorers = _scorers(args.tree_model, args.lm, not args.no_topology, kind.name)

    reading = treebank_reading(args)

    def lists(nbest, gold):
        sentences = read_treebank(gold, args, heads_required=kind.name == "parses", reading=reading)
        with nbest_file(nbest) as local:
            out = read_training_lists(kind, local, sentences, scorers, args.templates, args.field,
                                      progress=_progress(args), encoding=reading.encoding)
        _report(out.problems, nbest, args.quiet)
        return out

    if [args.nbest, args.gold, args.dev, args.dev_gold].count(STDIN) > 1:
        raise UsageError("only one input can be - (standard input)")
    if args.margin < 0:
        raise UsageError(f"--margin must be at least 0, not {args.margin:g}")
    train = lists(args.nbest, args.gold)
    dev = lists(args.dev, args.dev_gold) if args.dev else None
    from seqspectral.progress import stage
    from seqspectral.reranking.reranker import ANCHOR_GRID

    params = dict(epochs=args.epochs, margin=args.margin, feature_set=args.feature_set, runs=args.runs,
                  random_state=args.random_state)
    steps = args.runs * len(Reranker(**params).feature_sets(train.features)) * (1 + args.epochs * len(ANCHOR_GRID))
    # the progress rule: a bar on a terminal, a line per epoch of every anchor otherwise, nothing with --quiet
    with stage("rerank train", steps, "step", show=not args.quiet) as bar:
        reranker = fit_reranker(  # apply reads its n-best lists in the same encoding (its reading_)
            train, dev, reading, **params,
            on_epoch=lambda r: bar.step(f"{r['feature_set']} features, anchor {r['anchor']:g}, epoch {r['epoch']}: "
                                        f"held-out loss {r['held_out_loss']:g}, gain bound "
                                        f"{r['held_out_gain_bound']:.1f}"))
    serialize.save(args.output, reranker)
    held = reranker.held_out_
    measure = "UAS" if kind.name == "parses" else f"{args.field} accuracy"
    if args.json:
        print(json.dumps({"lists": train.n_lists, **_passed_through(train.problems),
                          "dev_lists": dev.n_lists if dev else None,
                          **({"dev_" + k: v for k, v in _passed_through(dev.problems).items()} if dev else {}),
                          "ranks": kind.name, "templates": reranker.templates_, "features": reranker.dense_names_,
                          "dropped_features": reranker.dropped_names_, "chosen": reranker.selection_.chosen,
                          "held_out": held}))
    if not args.quiet:
        chosen = reranker.selection_.chosen
        print(f"seqspectral: trained on {train.n_lists - len(train.problems)} lists of {kind.name}, features "
              f"{', '.join(reranker.dense_names_)}"
              + (f" (dropped by the held-out choice: {', '.join(reranker.dropped_names_)})"
                 if reranker.dropped_names_ else "")
              + f"; chose anchor {chosen['anchor']:g}, {chosen['epochs']} epoch(s) "
              f"on {held['lists']} lists ({held['on']}): held-out {measure} 1-best {held['base_accuracy']:.2f}, "
              f"reranked {held['reranked_accuracy']:.2f}; wrote {args.output}", file=sys.stderr)
    return 0


def run_apply(args) -> int:
    import json

    from seqspectral import serialize
    from seqspectral.corpus import Reading, write_treebank
    from seqspectral.reranking.files import KINDS, rerank_file
    from seqspectral.workflows.training import require_content

    reranker = serialize.load(args.reranker, kind="reranker")
    if reranker.ranks_ not in KINDS:  # trained in Python on features of no candidate kind
        from .main import UsageError

        raise UsageError(f"{args.reranker}: a reranker of features, not of parses or tag sequences: it cannot read "
                         "n-best files")
    kind = KINDS[reranker.ranks_]
    if args.tree_model or args.lm:
        scorers = _scorers(args.tree_model, args.lm, not args.no_topology, kind.name)
    else:
        scorers = _recorded_scorers(reranker, kind.name)
    reading = treebank_reading(args, getattr(reranker, "reading_", None))
    count = [0]
    with nbest_file(args.nbest) as local:
        require_content(local, Reading(format="conllu"))
        best, problems = rerank_file(reranker, kind, local, scorers, progress=_progress(args),
                                     encoding=reading.encoding)

        def counted():
            for sentence in best:
                count[0] += 1
                yield sentence

        write_treebank(args.output, counted(), output_encoding(args, reading))
    _report(problems, args.nbest, args.quiet)
    if args.json:
        print(json.dumps({"lists": count[0], **_passed_through(problems), "ranks": kind.name}))
    return 0


# -- rerank build / rerank run: one command from a treebank to reranked parses ----------------------
def register_build(rsub) -> None:
    b = leaf_parser(rsub, "build", help="from a treebank to a reranker in one command: taggers, parser, jackknifed "
                    "n-best lists, per-fold tree models, reranker (stages kept in DIR: run again to resume)")
    b.add_argument("train", metavar="TRAIN.conllu", help="training treebank")
    b.add_argument("--dev", default=None, metavar="DEV.conllu",
                   help="held-out treebank: every epoch and feature choice is made there, and the report's figures")
    b.add_argument("-o", "--output", required=True, metavar="DIR", help="build directory (created; finished stages "
                   "with the same inputs and options are kept)")
    b.add_argument("--order", type=int, default=2, choices=[1, 2],
                   help="parser order (default 2: arcs and adjacent siblings, pruned by a first-order parser; with "
                        "--tags predicted the column tries are first order and the kept parser second order)")
    b.add_argument("--decoder", default="auto", choices=("auto", "projective", "nonprojective"),
                   help="the parser's decoder (parse train --decoder; default auto: non-projective when more than 1%% "
                        "of the training arcs cross)")
    # the build's sizes are checked by BuildOptions.check against the bounds table (seqspectral.bounds), as
    # the values a build directory carries are
    b.add_argument("-k", type=positive_int, default=50, metavar="K", help="candidates per n-best list (default 50)")
    b.add_argument("--folds", type=positive_int, default=3, metavar="F", help="jackknifing folds (default 3)")
    b.add_argument("--tags", choices=("gold", "predicted"), default="gold",
                   help="gold: the parser reads the treebank's tag columns as given; predicted: it is trained on "
                        "jackknifed predicted UPOS/XPOS (no FEATS), for untagged input (default gold)")
    b.add_argument("--tag-folds", type=positive_int, default=3, metavar="F",
                   help="--tags predicted: folds of the jackknifed training tags (default 3)")
    b.add_argument("--clusters-from", action="append", default=[], metavar="CORPUS",
                   help="unlabelled text (any corpus file; brown: NLTK's Brown corpus) for word-cluster features of "
                        "the taggers and the parser: k-means of CCA word vectors of it and the treebank's words, "
                        "stored in their model files (repeatable; default none)")
    b.add_argument("--templates", choices=("baseline", "context", "lexical"), default="lexical",
                   help="the reranker's hashed tree features (see rerank train --templates; default lexical: "
                        "the best measured on EWT dev)")
    b.add_argument("--reranker-runs", type=positive_int, default=1, metavar="N",
                   help="perceptrons averaged in the reranker, each visiting the lists in its own order (see "
                        "rerank train --runs; default 1: 3 gain +0.16 UAS / +0.08 LAS on EWT dev for 3x the "
                        "fit's CPU, under the +0.2 a default needs)")
    b.add_argument("--field", choices=("upos", "xpos", "form", "none"), default="upos",
                   help="column the spectral tree model reads; none: no tree model (default upos)")
    b.add_argument("--spectral", choices=("global", "direction"), default="global",
                   help="tree-model features: global log p(words | tree) + topology term; direction: also the "
                        "per-word conditional log-probabilities summed by side of the head (default global)")
    b.add_argument("--epochs", type=positive_int, default=None, metavar="N",
                   help="at most N epochs for the taggers, the parser and the reranker (default 10, 10 and 20)")
    b.add_argument("--hash-bits", type=int, default=23, metavar="B",
                   help="2**B feature weights of every parser (default 23; 18 suit a few hundred sentences)")
    b.add_argument("--workers", type=positive_int, default=1, metavar="N",
                   help="processes for the jackknifing folds (default 1)")
    b.add_argument("--json", action="store_true", help="print the report (report.json) on standard output")
    add_treebank_options(b)
    b.set_defaults(handler=run_build, outputs=())  # DIR may exist: running again resumes

    r = leaf_parser(rsub, "run", help="tag what is untagged, parse k-best, rerank, write CoNLL-U")
    r.add_argument("build", metavar="DIR", help="directory written by rerank build")
    r.add_argument("input", metavar="FILE.conllu", help="sentences to parse (HEAD may be _; empty tag columns "
                   "the parser reads are predicted)")
    r.add_argument("-o", "--output", required=True, metavar="OUT.conllu", help="file to write (atomically)")
    r.add_argument("-k", type=option_type("k"), default=None, metavar="K",
                   help="write the K best candidates by the reranker's score as n-best CoNLL-U")
    add_treebank_options(r, output=True)
    r.set_defaults(handler=run_run, max_words=BOUNDS["words"].high)  # the parser's time: the cube of the length


def run_build(args) -> int:
    import json

    from seqspectral.io import check_output_path
    from seqspectral.workflows import BuildOptions, build

    from ._common import note, warn
    from .main import UsageError

    if os.path.exists(args.output) and not os.path.isdir(args.output):
        raise UsageError(f"{args.output}: exists and is not a directory")
    if not os.path.isdir(args.output):  # a new build directory: its parent must exist and be writable
        check_output_path(args.output)
    epochs = {} if args.epochs is None else dict.fromkeys(("parser_epochs", "tagger_epochs", "reranker_epochs"),
                                                          args.epochs)
    options = BuildOptions(order=args.order, k=args.k, folds=args.folds, tags=args.tags, tag_folds=args.tag_folds,
                           clusters_from=tuple(args.clusters_from), templates=args.templates,
                           field="" if args.field == "none" else args.field, spectral=args.spectral,
                           parser_hash_bits=args.hash_bits, reranker_runs=args.reranker_runs, **epochs,
                           parser_params={} if args.decoder == "auto" else {"decoder": args.decoder})
    report = build(args.output, args.train, args.dev, options, reading=treebank_reading(args), workers=args.workers,
                   progress=not args.quiet, on_note=None if args.quiet else note)
    for message in report["warnings"] if not args.quiet else ():
        warn(message)
    if args.json:
        print(json.dumps(report, indent=1))
    if not args.quiet:
        dev = (f"dev UAS: parser 1-best {report['parser_dev']['uas']:.2f}, reranked "
               f"{report['reranked_dev']['uas']:.2f} (oracle {report['dev_oracle_uas']:.2f}); "
               if "reranked_dev" in report else "")
        print(f"seqspectral: rerank build: {dev}{report['total_cpu_s']:.0f} CPU s; wrote {args.output}",
              file=sys.stderr)
    return 0


def run_run(args) -> int:
    from seqspectral.corpus import write_nbest, write_treebank
    from seqspectral.workflows import Pipeline

    pipeline = Pipeline.load(args.build)
    reading = treebank_reading(args, pipeline.reading)  # the build's encoding unless told otherwise
    sentences = read_treebank(args.input, args, heads_required=False, reading=reading)
    profile = getattr(pipeline.parser, "input_profile_", None)
    given = set(pipeline.columns(sentences).get("given", ()))
    for problem in profile.problems(sentences) if profile is not None and not args.quiet else ():
        if any(f" {c.upper()} values were never seen" in problem for c in given):  # empty ones are predicted
            warn(f"{'<stdin>' if args.input == STDIN else args.input}: {problem}; the build's parser reads it as "
                 "given: expect poor trees (another tag set?)")
    out, columns = pipeline.run_with_columns(sentences, args.k)
    (write_nbest if args.k else write_treebank)(args.output, out, output_encoding(args, reading))
    if not args.quiet:
        said = "; ".join(f"{how}: {', '.join(c.upper() for c in cols)}" for how, cols in columns.items() if cols)
        print(f"seqspectral: tag columns read by the parser — {said}; wrote {len(sentences)} sentences to "
              f"{args.output}", file=sys.stderr)
    return 0
