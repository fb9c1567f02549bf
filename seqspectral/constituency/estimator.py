"""What the three grammars share: binarising the treebank, the symbol tables and the plain
PCFG, parsing and k-best lists, and the model file.

A grammar is fitted on cleaned phrase-structure trees (``nltk.Tree``, as
:func:`seqspectral.constituency.treebank.read_bracketed` gives them) and parses lists of
words into trees of the same kind (debinarised).
"""

from __future__ import annotations

import numpy as np

from ..base import Estimator, either, integer, one_of, real
from .encoding import SymbolTables, count_trees
from .grammar import MEMBER_ARRAYS, LatentGrammar, assemble, maximum_likelihood
from .moments import layout
from .transform import binarise


class GrammarEstimator(Estimator):
    """Base of the grammars (no hyper-parameters of its own). Subclasses set ``kind`` and
    ``_latent_weights(source, counts, tables, coarse, dev) -> [(states, rule_weights,
    lex_weights, root_weights), ...]`` (one set of latent weights, or several decoded
    together; ``source``: :mod:`.sources`)."""

    _parameter_checks = {"vertical": integer(1, 4), "horizontal": either(one_of(None), integer(0)),
                         "rare": integer(0), "threshold": real(0.0, 1.0)}

    def fit(self, trees, dev=None):
        """Fit on phrase-structure ``trees``; ``dev`` (trees) is where ``"auto"`` values are chosen."""
        from .sources import InMemoryTrees

        self._validate_params()
        trees = list(trees)
        if not trees:
            raise ValueError("no trees to learn a grammar from")
        return self._fit_source(InMemoryTrees(binarise(t, self.vertical, self.horizontal) for t in trees), dev)

    def fit_sharded(self, shards, read, dev=None, *, workers: int | None = None, scheduler=None, progress=None):
        """Fit on the trees of ``shards``, each read by ``read(shard)`` (picklable) where it is
        counted: here, on ``workers`` processes or on a Dask ``scheduler``; the same grammar
        whatever the workers (every statistic is an exact sum over trees)."""
        from .sources import ShardedTrees

        self._validate_params()
        return self._fit_source(ShardedTrees(shards, read, self.vertical, self.horizontal, workers=workers,
                                             scheduler=scheduler, progress=progress), dev)

    def _fit_source(self, source, dev):
        counts = source.count(count_trees)
        tables = SymbolTables.from_counts(counts, self.rare)
        coarse = maximum_likelihood(counts, tables)
        self.grammar_ = assemble(tables, coarse, self._latent_weights(source, counts, tables, coarse, dev))
        self.n_states_ = _most_states(self.grammar_)
        return self

    # -- parsing --------------------------------------------------------------------------
    def parse(self, sentences, tags=None, *, max_length: int | None = None, n_jobs: int = 2, pruning: bool = True,
              progress=None):
        """One tree per sentence (a list of words): coarse-to-fine, minimum-Bayes-risk,
        debinarised. ``tags``: a tag per word (None: the grammar's own); sentences longer
        than ``max_length`` and sentences without a parse get flat trees, counted in
        ``last_report_`` (a :class:`~.parser.ParseReport`)."""
        from .parser import parse

        self._check_fitted()
        trees, self.last_report_ = parse(self.grammar_, sentences, tags, threshold=self.threshold if pruning else 0.0,
                                         latent=self._has_latent_states(), max_length=max_length, n_jobs=n_jobs,
                                         progress=progress)
        return trees

    def kbest(self, sentences, k: int, tags=None, *, max_length: int | None = None, n_jobs: int = 2,
              pruning: bool = True, progress=None):
        """Up to ``k`` ``(tree, score)`` per sentence, best first (:func:`.parser.kbest`)."""
        from .parser import kbest

        self._check_fitted()
        lists, self.last_report_ = kbest(self.grammar_, sentences, k, tags,
                                         threshold=self.threshold if pruning else 0.0,
                                         latent=self._has_latent_states(), max_length=max_length, n_jobs=n_jobs,
                                         progress=progress)
        return lists

    def _has_latent_states(self) -> bool:
        return True

    def _select(self, source, counts, tables, coarse, dev, grid: dict, candidates):
        """The latent weights of ``grid``'s values of best held-out F1, chosen through
        :func:`seqspectral.selection.select_and_refit`: on ``dev`` trees, else on a seeded
        held-out part of the training trees, the chosen values then refitted on all of them.
        ``candidates(source, counts, tables, coarse)`` prepares what the candidates share
        and returns ``weights(**values)``; sets ``selection_``."""
        from ..selection import grid_search, held_out_split, select_and_refit
        from .parser import parse
        from .transform import debinarise

        if dev is not None:
            split = (source, list(dev), "dev")
        elif hasattr(source, "subset"):
            fit_idx, held_idx, on = held_out_split(np.arange(len(source)), None, self.random_state)
            split = (source.subset(fit_idx), [debinarise(source.binarised[i]) for i in held_idx], on)
        else:
            raise ValueError("'auto' values on sharded trees are chosen on dev trees: give dev")
        chosen = {}

        def choose(part, held, on):
            fitted = (counts, tables, coarse) if part is source else _plain(part, self.rare)
            weights = candidates(part, *fitted)
            sentences = [t.leaves() for t in held]

            def score(**values):
                chosen[tuple(values.items())] = members = weights(**values)
                g = assemble(fitted[1], fitted[2], members)
                return bracket_f1(held, parse(g, sentences, threshold=self.threshold, progress=False)[0])

            result = grid_search(grid, score, on)
            chosen["weights"] = chosen[tuple(result.chosen.items())] if part is source else None
            chosen["values"] = result.chosen
            return result

        def refit(train, held):
            chosen["weights"] = candidates(source, counts, tables, coarse)(**chosen["values"])

        self.selection_ = select_and_refit(source, dev, self.random_state, choose, refit, split=split)
        return chosen["weights"]

    # -- model files ----------------------------------------------------------------------
    def to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        self._check_fitted()
        g = self.grammar_
        header = {"params": self.json_params(), "tables": g.tables.to_json(), "binary_scale": g.binary_scale,
                  "members": len(g.members),
                  "selection": None if self.selection_ is None else self.selection_.to_json(),
                  **self._extra_state()}
        return header, g.to_arrays()

    def _extra_state(self) -> dict:
        return {}

    @classmethod
    def schema(cls, header: dict):
        from seqspectral.serialize import Member, Schema, size

        tables = header["tables"]
        labels, words = size(len(tables["labels"]), "labels"), size(len(tables["words"]), "word classes")
        member = dict(zip(MEMBER_ARRAYS, (Member("iu", (labels,), values=(1, 1 << 12)), Member("f", (None,)),
                                          Member("f", (None,)), Member("f", (None,)))))
        return Schema({"binary": Member("iu", ("binary_rules", 3), values=(0, labels)),
                       "lexical": Member("iu", ("lexical_rules", 2), values=(0, max(labels, words))),
                       "rule_prob": Member("f", ("binary_rules",)), "lex_prob": Member("f", ("lexical_rules",)),
                       "root_prob": Member("f", (labels,)),
                       **{name if k == 0 else f"{name}_{k}": m for k in range(header.get("members", 1))
                          for name, m in member.items()}})

    @classmethod
    def from_state(cls, header: dict, arrays: dict[str, np.ndarray]):
        from seqspectral.selection import SelectionResult

        model = cls(**header["params"])
        model.grammar_ = LatentGrammar.from_arrays(header["tables"], header["binary_scale"], arrays)
        g = model.grammar_
        for states, *weights in g.members:
            _, rule_off, lex_off, state_off, _ = layout(g.tables, states)
            if [len(w) for w in weights] != [rule_off[-1], lex_off[-1], state_off[-1]]:
                raise ValueError("the weights do not match the rules and states")
        model.n_states_ = _most_states(g)
        model.selection_ = None if header.get("selection") is None else SelectionResult.from_json(header["selection"])
        for key, value in cls._extra_from_state(header).items():
            setattr(model, key, value)
        return model

    @classmethod
    def _extra_from_state(cls, header: dict) -> dict:
        return {}


def _most_states(grammar: LatentGrammar) -> int:
    return max(int(states.max()) for states, *_ in grammar.members)


def _plain(source, rare: int):
    """(counts, tables, plain PCFG) of a source of binarised trees."""
    counts = source.count(count_trees)
    tables = SymbolTables.from_counts(counts, rare)
    return counts, tables, maximum_likelihood(counts, tables)


def bracket_f1(gold, predicted) -> float:
    """Labelled bracket F1 (percent) of ``predicted`` trees against ``gold``: every
    constituent above the preterminals, by label and word span (the held-out score of the
    grammars' choices; ``evaluate`` scores with EVALB's conventions)."""
    from collections import Counter

    matched = n_gold = n_predicted = 0
    for g, p in zip(gold, predicted):
        a, b = Counter(_brackets(g)), Counter(_brackets(p))
        matched += sum((a & b).values())
        n_gold += sum(a.values())
        n_predicted += sum(b.values())
    return 200.0 * matched / (n_gold + n_predicted) if n_gold + n_predicted else 0.0


def _brackets(tree):
    out = []

    def walk(node, start):
        if isinstance(node, str):
            return start + 1
        stop = start
        for child in node:
            stop = walk(child, stop)
        if not (len(node) == 1 and isinstance(node[0], str)):
            out.append((node.label(), start, stop))
        return stop

    walk(tree, 0)
    return out
