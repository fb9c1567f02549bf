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
    from seqspectral.progress import stage
    from seqspectral.reranking import Reranker

    from .main import UsageError

    if bool(args.dev) != bool(args.dev_gold):
        raise UsageError("--dev and --dev-gold go together")
    kind = _Kind(args.candidates)
    scorers = _scorers(args, kind.name)
    lists, gold = _valid(kind, args.nbest, args.gold, args.quiet)
    dev = None
    with stage("features", None, "list", not args.quiet) as bar:
        if args.dev:
            dev_lists, dev_gold = _valid(kind, args.dev, args.dev_gold, args.quiet)
            dev = (kind.features(dev_lists, scorers, args.templates), kind.losses(dev_lists, dev_gold, args.field))
            bar.update(len(dev_lists))
        features = kind.features(lists, scorers, args.templates)
        bar.update(len(lists))
    with stage("reranker training", args.epochs, "epoch", not args.quiet) as bar:
        reranker = Reranker(epochs=args.epochs, random_state=args.random_state).fit(
            features, kind.losses(lists, gold, args.field), dev=dev)
        bar.update(args.epochs)
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
