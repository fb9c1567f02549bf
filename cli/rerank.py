"""`seqspectral rerank ...`: train an n-best reranker and apply it to parser or tagger
n-best lists."""

from __future__ import annotations

import sys

from ._common import leaf_parser, positive_int

HELP = ("rerank n-best lists — parses (baseline or context tree features + parser score + tree-model / LM "
        "log-probabilities) or tag sequences (tagger score + LM log-probabilities)")

_CANDIDATES = """\
candidates: parses (parse run -k K) are described by hashed tree features (--templates) and the
parser's score; tag sequences (tag run -k K) by the tagger's score. Both take real-valued
features from --tree-model (parses) and --lm (the LM's log-probability of the candidate's
tags, read as the LM's training file was: its column and tagset). rerank apply reads from the
reranker file which kind it reranks and which features it needs; give it the same --lm /
--tree-model files, in the same order."""


def register(sub) -> None:
    p = sub.add_parser("rerank", help=HELP, description=HELP)
    rsub = p.add_subparsers(dest="rerank_command", metavar="SUBCOMMAND")
    rsub.required = True

    t = leaf_parser(rsub, "train", help="train a reranker on n-best lists and their gold sentences",
                    epilog=_CANDIDATES)
    t.add_argument("nbest", metavar="NBEST.conllu",
                   help="n-best CoNLL-U (parse run / tag run -k K; ideally --folds F for training data)")
    t.add_argument("--gold", required=True, metavar="GOLD.conllu",
                   help="the gold sentences, one per list, in order")
    t.add_argument("-o", "--output", required=True, metavar="RERANKER",
                   help="reranker file to write (.npz, atomically)")
    t.add_argument("--candidates", choices=("parses", "tags"), default="parses",
                   help="what the lists hold: parses (losses: wrong heads) or tag sequences (losses: wrong tags "
                        "in --field) (default parses)")
    t.add_argument("--field", choices=("upos", "xpos"), default="upos",
                   help="--candidates tags: the tagged column (default upos)")
    t.add_argument("--templates", choices=("baseline", "context"), default="baseline",
                   help="--candidates parses: hashed tree features — baseline: the paper's POS triples (left "
                        "modifier x head x right modifier, modifier x head x grandparent); context: these plus "
                        "grandparent, sibling, valency and subtree-size templates (default baseline)")
    t.add_argument("--epochs", type=positive_int, default=10, metavar="N", help="perceptron epochs (default 10)")
    t.add_argument("--dev", default=None, metavar="DEV.nbest.conllu",
                   help="n-best lists of held-out sentences: the epoch with the lowest loss there is kept")
    t.add_argument("--dev-gold", default=None, metavar="DEV.conllu", help="the gold sentences of --dev")
    t.add_argument("--random-state", type=int, default=0, metavar="S", help="seed of the list order (default 0)")
    _scorer_options(t)
    t.set_defaults(handler=run_train)

    a = leaf_parser(rsub, "apply", help="choose one candidate per n-best list", epilog=_CANDIDATES)
    a.add_argument("reranker", metavar="RERANKER", help="reranker file written by rerank train")
    a.add_argument("nbest", metavar="NBEST.conllu", help="n-best CoNLL-U to rerank (the kind the reranker was "
                   "trained on)")
    a.add_argument("-o", "--output", required=True, metavar="BEST.conllu",
                   help="1-best CoNLL-U: every input sentence, in order, exactly once (atomically); a list "
                        "that cannot be reranked gives its rank-1 candidate and is reported")
    _scorer_options(a)
    a.set_defaults(handler=run_apply)
    register_build(rsub)


def _scorer_options(parser) -> None:
    parser.add_argument("--tree-model", action="append", default=[], metavar="TREE",
                        help="parses: a tree model (tree train) whose log p(words | tree) is a feature (and its "
                             "topology term); repeatable")
    parser.add_argument("--no-topology", action="store_true", help="leave out the tree models' topology terms")
    parser.add_argument("--lm", action="append", default=[], metavar="MODEL",
                        help="a sequence language model (lm train) whose log-probability of the candidate's tags "
                             "is a feature; repeatable")
    parser.add_argument("--quiet", action="store_true", help="no report on standard error")


class _Kind:
    """How lists of one kind of candidate are checked, described and scored."""

    def __init__(self, name: str):
        self.name = name
        if name == "tags":
            from seqspectral.tagging import reranking as module

            self.problem, self.rerank = module.list_problem, module.rerank_tags
        else:
            from seqspectral.reranking import parses as module

            self.problem, self.rerank = module.list_problem, module.rerank_parses
        self.module = module

    def features(self, lists, scorers, templates: str):
        if self.name == "tags":
            return self.module.tag_features(lists, scorers)
        return self.module.parse_features(lists, scorers, templates)

    def losses(self, lists, gold, field: str):
        if self.name == "tags":
            return self.module.tag_losses(lists, gold, field)
        return self.module.head_losses(lists, gold)


def _scorers(args, kind: str) -> list:
    from seqspectral import serialize
    from seqspectral.reranking import CorpusScorer, tree_model_scorers

    from .main import UsageError

    if kind == "tags" and args.tree_model:
        raise UsageError("--tree-model scores parses, not tag sequences")
    scorers = []
    for i, path in enumerate(args.tree_model, 1):
        prefix = "tree" if i == 1 else f"tree{i}"
        scorers += tree_model_scorers(serialize.load(path), prefix, topology=not args.no_topology)
    for i, path in enumerate(args.lm, 1):
        scorers.append(CorpusScorer(serialize.load(path), "lm:log_prob" if i == 1 else f"lm{i}:log_prob"))
    return scorers


def _report(problems, path: str, quiet: bool) -> None:
    if problems and not quiet:
        first, reason = problems[0]
        print(f"seqspectral: warning: {path}: {len(problems)} n-best list(s) cannot be reranked "
              f"(first: list {first + 1}: {reason})", file=sys.stderr)


def _valid(kind: _Kind, nbest_path: str, gold_path: str, quiet: bool):
    """The lists of ``nbest_path`` that can be reranked and their gold sentences."""
    from seqspectral.corpus import read_conllu, read_nbest
    from seqspectral.reranking.lists import aligned_valid

    lists, gold = read_nbest(nbest_path), read_conllu(gold_path)
    valid, problems = aligned_valid(lists, gold, kind.problem)
    _report(problems, nbest_path, quiet)
    return [lists[i] for i in valid], [gold[i] for i in valid]


def run_train(args) -> int:
    from seqspectral import serialize
    from seqspectral.reranking import Reranker

    from .main import UsageError

    if bool(args.dev) != bool(args.dev_gold):
        raise UsageError("--dev and --dev-gold go together")
    kind = _Kind(args.candidates)
    scorers = _scorers(args, kind.name)
    lists, gold = _valid(kind, args.nbest, args.gold, args.quiet)
    dev = None
    if args.dev:
        dev_lists, dev_gold = _valid(kind, args.dev, args.dev_gold, args.quiet)
        dev = (kind.features(dev_lists, scorers, args.templates), kind.losses(dev_lists, dev_gold, args.field))
    reranker = Reranker(epochs=args.epochs, random_state=args.random_state).fit(
        kind.features(lists, scorers, args.templates), kind.losses(lists, gold, args.field), dev=dev)
    serialize.save(args.output, reranker)
    if not args.quiet:
        chosen = f", kept epoch {reranker.selection_.chosen['epochs']}" if hasattr(reranker, "selection_") else ""
        print(f"seqspectral: trained on {len(lists)} lists of {kind.name}, features {', '.join(reranker.dense_names_)}"
              f"{chosen}; wrote {args.output}", file=sys.stderr)
    return 0


def run_apply(args) -> int:
    from seqspectral import serialize
    from seqspectral.corpus import read_nbest, write_conllu
    from seqspectral.tagging.reranking import BASE

    reranker = serialize.load(args.reranker, kind="reranker")
    kind = _Kind("tags" if reranker.dense_names_[:1] == [BASE] else "parses")
    lists = read_nbest(args.nbest)
    best, problems = kind.rerank(reranker, lists, _scorers(args, kind.name))
    _report(problems, args.nbest, args.quiet)
    write_conllu(args.output, best)
    return 0


# -- rerank build / rerank run: one command from a treebank to reranked parses ----------------------
def register_build(rsub) -> None:
    from ._common import add_treebank_options

    b = leaf_parser(rsub, "build", help="from a treebank to a reranker in one command: taggers, parser, jackknifed "
                    "n-best lists, per-fold tree models, reranker (stages kept in DIR: run again to resume)")
    b.add_argument("train", metavar="TRAIN.conllu", help="training treebank")
    b.add_argument("--dev", default=None, metavar="DEV.conllu",
                   help="held-out treebank: every epoch and feature choice is made there, and the report's figures")
    b.add_argument("-o", "--output", required=True, metavar="DIR", help="build directory (created; finished stages "
                   "with the same inputs and options are kept)")
    b.add_argument("--order", type=int, default=1, choices=[1, 2], help="parser order (default 1)")
    b.add_argument("-k", type=positive_int, default=50, metavar="K", help="candidates per n-best list (default 50)")
    b.add_argument("--folds", type=positive_int, default=3, metavar="F", help="jackknifing folds (default 3)")
    b.add_argument("--tags", choices=("gold", "predicted"), default="gold",
                   help="gold: the parser reads the treebank's tag columns as given; predicted: it is trained on "
                        "jackknifed predicted UPOS/XPOS (no FEATS), for untagged input (default gold)")
    b.add_argument("--templates", choices=("baseline", "context"), default="context",
                   help="the reranker's hashed tree features (default context)")
    b.add_argument("--field", choices=("upos", "xpos", "form", "none"), default="upos",
                   help="column the spectral tree model reads; none: no tree model (default upos)")
    b.add_argument("--spectral", choices=("global", "direction"), default="global",
                   help="tree-model features: global log p(words | tree) + topology term; direction: also the "
                        "per-word conditional log-probabilities summed by side of the head (default global)")
    b.add_argument("--workers", type=positive_int, default=1, metavar="N",
                   help="processes for the jackknifing folds (default 1)")
    b.add_argument("--json", action="store_true", help="print the report (report.json) on standard output")
    add_treebank_options(b)
    b.set_defaults(handler=run_build)

    r = leaf_parser(rsub, "run", help="tag what is untagged, parse k-best, rerank, write CoNLL-U")
    r.add_argument("build", metavar="DIR", help="directory written by rerank build")
    r.add_argument("input", metavar="FILE.conllu", help="sentences to parse (HEAD may be _; empty tag columns "
                   "the parser reads are predicted)")
    r.add_argument("-o", "--output", required=True, metavar="OUT.conllu", help="file to write (atomically)")
    r.add_argument("-k", type=positive_int, default=None, metavar="K",
                   help="write the K best candidates by the reranker's score as n-best CoNLL-U")
    add_treebank_options(r)
    r.set_defaults(handler=run_run)


def _reading(args) -> dict:
    return {"format": args.format, "encoding": args.encoding, "errors": args.errors}


def run_build(args) -> int:
    import json

    from seqspectral.reranking.build import BuildOptions, Progress, build

    from .main import UsageError

    options = BuildOptions(order=args.order, k=args.k, folds=args.folds, tags=args.tags, templates=args.templates,
                           field="" if args.field == "none" else args.field, spectral=args.spectral)
    try:
        options.check()
    except ValueError as e:
        raise UsageError(str(e)) from None
    report = build(args.output, args.train, args.dev, options, reading=_reading(args), workers=args.workers,
                   progress=Progress(quiet=args.quiet))
    if args.json:
        print(json.dumps(report, indent=1))
    if not args.quiet and "reranked_dev" in report:
        print(f"seqspectral: dev UAS: parser 1-best {report['parser_dev']['uas']:.2f}, reranked "
              f"{report['reranked_dev']['uas']:.2f} (oracle {report['dev_oracle_uas']:.2f}); {report['total_cpu_s']:.0f} "
              f"CPU s; wrote {args.output}", file=sys.stderr)
    return 0


def run_run(args) -> int:
    from seqspectral.corpus import write_conllu, write_nbest
    from seqspectral.reranking.build import Built, run

    from ._common import read_treebank
    from .main import UsageError

    try:
        built = Built(args.build)
    except FileNotFoundError as e:
        raise UsageError(str(e)) from None
    sentences = read_treebank(args.input, args, heads_required=False)
    out, columns = run(built, sentences, args.k)
    (write_nbest if args.k else write_conllu)(args.output, out)
    if not args.quiet:
        said = "; ".join(f"{how}: {', '.join(c.upper() for c in cols)}" for how, cols in columns.items() if cols)
        print(f"seqspectral: tag columns read by the parser — {said}; wrote {len(sentences)} sentences to "
              f"{args.output}", file=sys.stderr)
        if columns["missing"]:
            print(f"seqspectral: warning: the parser was trained with {', '.join(columns['missing']).upper()} "
                  "features, which the input lacks and nothing predicts (build with --tags predicted for untagged "
                  "input)", file=sys.stderr)
    return 0
