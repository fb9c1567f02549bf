"""`seqspectral rerank ...`: train an n-best reranker and apply it to parser n-best lists."""

from __future__ import annotations

import sys

from ._common import leaf_parser

HELP = "rerank parser n-best lists (baseline features + parser score + tree-model / LM log-probabilities)"


def register(sub) -> None:
    p = sub.add_parser("rerank", help=HELP)
    rsub = p.add_subparsers(dest="rerank_command", metavar="SUBCOMMAND")
    rsub.required = True

    t = leaf_parser(rsub, "train", help="train a reranker on n-best lists and their gold trees")
    t.add_argument("nbest", metavar="NBEST.conllu", help="n-best CoNLL-U (parse run -k K, ideally --folds F)")
    t.add_argument("--gold", required=True, metavar="GOLD.conllu",
                   help="the gold trees, one sentence per list, in order")
    t.add_argument("-o", "--output", required=True, metavar="RERANKER",
                   help="reranker file to write (.npz, atomically)")
    t.add_argument("--epochs", type=int, default=10, metavar="N", help="perceptron epochs (default 10)")
    t.add_argument("--dev", default=None, metavar="DEV.nbest.conllu",
                   help="n-best lists of held-out sentences: the epoch with the fewest wrong heads there is kept")
    t.add_argument("--dev-gold", default=None, metavar="DEV.conllu", help="the gold trees of --dev")
    t.add_argument("--random-state", type=int, default=0, metavar="S", help="seed of the list order")
    _scorer_options(t)
    t.set_defaults(handler=run_train)

    a = leaf_parser(rsub, "apply", help="choose one tree per n-best list")
    a.add_argument("reranker", metavar="RERANKER", help="reranker file written by rerank train")
    a.add_argument("nbest", metavar="NBEST.conllu", help="n-best CoNLL-U to rerank")
    a.add_argument("-o", "--output", required=True, metavar="BEST.conllu",
                   help="1-best CoNLL-U: every input sentence, in order, exactly once (atomically)")
    _scorer_options(a)
    a.set_defaults(handler=run_apply)


def _scorer_options(parser) -> None:
    parser.add_argument("--tree-model", action="append", default=[], metavar="TREE",
                        help="tree model (tree train) whose log p(words | tree) is a feature; repeatable")
    parser.add_argument("--no-topology", action="store_true", help="leave out the tree models' topology terms")
    parser.add_argument("--lm", action="append", default=[], metavar="MODEL",
                        help="sequence language model (lm train) scoring the candidates' tags; repeatable")
    parser.add_argument("--quiet", action="store_true", help="no report on standard error")


def _scorers(args) -> list:
    from seqspectral import serialize
    from seqspectral.reranking import CorpusScorer, tree_model_scorers

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


def run_train(args) -> int:
    from seqspectral import serialize
    from seqspectral.corpus import read_conllu, read_nbest
    from seqspectral.reranking import Reranker, head_losses, parse_features
    from seqspectral.reranking.parses import aligned_valid

    from .main import UsageError

    lists = read_nbest(args.nbest)
    gold = read_conllu(args.gold)
    valid, problems = aligned_valid(lists, gold)
    _report(problems, args.nbest, args.quiet)
    lists, gold = [lists[i] for i in valid], [gold[i] for i in valid]
    scorers = _scorers(args)
    dev = None
    if args.dev or args.dev_gold:
        if not (args.dev and args.dev_gold):
            raise UsageError("--dev and --dev-gold go together")
        dev_lists, dev_gold = read_nbest(args.dev), read_conllu(args.dev_gold)
        dev_valid, dev_problems = aligned_valid(dev_lists, dev_gold)
        _report(dev_problems, args.dev, args.quiet)
        dev_lists, dev_gold = [dev_lists[i] for i in dev_valid], [dev_gold[i] for i in dev_valid]
        dev = (parse_features(dev_lists, scorers), head_losses(dev_lists, dev_gold))
    reranker = Reranker(epochs=args.epochs, random_state=args.random_state).fit(
        parse_features(lists, scorers), head_losses(lists, gold), dev=dev)
    serialize.save(args.output, reranker)
    if not args.quiet:
        print(f"seqspectral: trained on {len(lists)} lists, features {', '.join(reranker.dense_names_)}; "
              f"wrote {args.output}", file=sys.stderr)
    return 0


def run_apply(args) -> int:
    from seqspectral import serialize
    from seqspectral.corpus import read_nbest, write_conllu
    from seqspectral.reranking.parses import rerank_parses

    reranker = serialize.load(args.reranker, kind="reranker")
    lists = read_nbest(args.nbest)
    best, problems = rerank_parses(reranker, lists, _scorers(args))
    _report(problems, args.nbest, args.quiet)
    write_conllu(args.output, best)
    return 0
