"""FEATS re-decided from each word's dependency relation, after parsing.

Some treebanks mark features that the word's function in the sentence decides: the Turkish
Web Treebank gives a bare noun ``Case=Nom`` as a subject (``nsubj``, ``csubj``) and
``Case=Bare`` as a compound member or an object, one against 2,652 and 4,799 to 5 in its
training split. A tagger reading the words alone confuses them where the parser, which sees
the sentence's structure, labels the word right; and MLAS counts a content word right only
when both its relation and its features are.

:class:`RelationFeatures` learns, per feature name ``F``, how often each value of ``F`` is gold
for a key (the word's predicted UPOS, its relation, the features tagger's value of ``F`` or its
absence), from the training words' jackknifed tags and gold relations. After parsing, the
tagger's value of ``F`` is replaced by the key's most frequent gold value (or removed, when
that is absence) if that value was gold at least ``min_count`` times and more often than the
tagger's own. ``min_count="auto"`` chooses among :data:`MIN_COUNTS` (``0``: no rule) the one
with the best accuracy of whole FEATS values (as sets of pairs: their order aside) on dev, read
with the parser's predicted relations.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace

import numpy as np

from seqspectral.base import Estimator

from . import token_classifier as tc
from .features import _by_name

#: the ``min_count`` tried by ``min_count="auto"`` (0: no rule at all, the tagger's FEATS kept)
MIN_COUNTS = (0, 3, 10, 30, 100)
#: ``min_count="auto"`` without dev
DEFAULT_MIN_COUNT = 10


def _min_count(value):
    if value == "auto" or isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return None
    return '"auto" or an integer >= 0 (0: no rule)'


class RelationFeatures(Estimator):
    """Re-decides FEATS values from each word's UPOS, DEPREL and predicted value (module
    docstring). Parameter: ``min_count`` (``"auto"``: chosen on dev). Fitted: ``rules_``
    ({(name, upos, deprel, predicted value): value}; ``""``: absent), ``order_`` (each
    name's usual place in a bundle), ``min_count_`` and ``dev_accuracy_`` ({min_count: dev
    accuracy of whole FEATS values as sets}, empty without dev)."""

    kind = "relation_features"
    _parameter_checks = {"min_count": _min_count}

    def __init__(self, *, min_count="auto"):
        self.min_count = min_count

    def fit(self, sentences, predicted, dev=None, dev_predicted=None):
        """Learn from ``sentences`` (gold FEATS and DEPREL) and ``predicted`` (the same
        sentences with the taggers' UPOS and FEATS, jackknifed); with ``dev`` (gold) and
        ``dev_predicted`` (tagged and parsed: predicted DEPREL) ``min_count="auto"`` is chosen
        on dev."""
        self._validate_params()
        sentences, predicted = list(sentences), list(predicted)
        if [len(s) for s in sentences] != [len(p) for p in predicted]:
            raise ValueError("the predicted sentences are not the gold ones (their lengths differ)")
        place: dict = defaultdict(list)
        for s in sentences:
            for v in tc.column_of(s, "feats"):
                names = list(_by_name(v))
                for i, n in enumerate(names):
                    place[n].append(i / len(names))
        self.order_ = {n: float(np.mean(p)) for n, p in sorted(place.items())}
        counts: dict = defaultdict(Counter)
        for s, p in zip(sentences, predicted):
            for gold, upos, deprel, tagged in zip(tc.column_of(s, "feats"), p.upos, s.deprels, tc.column_of(p, "feats")):
                gold, tagged = _by_name(gold), _by_name(tagged)
                for n in self.order_:
                    counts[(n, upos, deprel, tagged.get(n, ""))][gold.get(n, "")] += 1
        self._counts = counts
        self.dev_accuracy_ = {}
        if self.min_count != "auto":
            self.min_count_ = self.min_count
        elif dev is None:
            self.min_count_ = DEFAULT_MIN_COUNT
        else:
            gold = [v for s in dev for v in tc.column_of(s, "feats")]
            for m in MIN_COUNTS:
                self.rules_ = self._rules(m)
                pred = [v for s in self.tag(dev_predicted) for v in tc.column_of(s, "feats")]
                self.dev_accuracy_[m] = 100.0 * float(np.mean([set(a.split("|")) == set(b.split("|"))
                                                               for a, b in zip(pred, gold)]))
            self.min_count_ = max(MIN_COUNTS, key=lambda m: (self.dev_accuracy_[m], -m))
        self.rules_ = self._rules(self.min_count_)
        del self._counts
        return self

    def _rules(self, min_count: int) -> dict:
        if min_count == 0:
            return {}
        rules = {}
        for key, gold in self._counts.items():
            (best, n), = gold.most_common(1)
            if best != key[3] and n >= min_count and n > gold[key[3]]:
                rules[key] = best
        return rules

    def tag(self, sentences) -> list:
        """Copies of ``sentences`` (predicted UPOS, FEATS and DEPREL) with FEATS re-decided."""
        self._check_fitted()
        if not self.rules_:
            return list(sentences)
        return [replace(s, feats=[self._value(v, u, d) for v, u, d in zip(tc.column_of(s, "feats"), s.upos,
                                                                          s.deprels)]) for s in sentences]

    def _value(self, value: str, upos: str, deprel: str) -> str:
        pairs = _by_name(value)
        changed = False
        for n in self.order_:
            new = self.rules_.get((n, upos, deprel, pairs.get(n, "")))
            if new is not None:
                changed = True
                if new:
                    pairs[n] = new
                else:
                    del pairs[n]
        if not changed:
            return value
        order = sorted(pairs, key=lambda n: self.order_.get(n, 1.0))
        return "|".join(f"{n}={v}" for n in order for v in pairs[n].split("|")) or "_"

    # -- model files -----------------------------------------------------------------------
    def to_state(self):
        self._check_fitted()
        return {"params": self.json_params(), "order": self.order_, "min_count": self.min_count_,
                "dev_accuracy": [[m, a] for m, a in self.dev_accuracy_.items()],
                "rules": [[*key, value] for key, value in sorted(self.rules_.items())]}, {}

    @classmethod
    def schema(cls, header):
        from seqspectral.serialize import Schema

        rules = header["rules"]
        if not isinstance(rules, list) or not all(
                isinstance(r, list) and len(r) == 5 and all(isinstance(x, str) for x in r) for r in rules):
            raise ValueError("the rules are not a list of [name, upos, deprel, predicted, value] strings")
        return Schema({})

    @classmethod
    def from_state(cls, header, arrays):
        model = cls(**header["params"])
        model.order_ = {str(n): float(x) for n, x in header["order"].items()}
        model.min_count_ = int(header["min_count"])
        model.dev_accuracy_ = {int(m): float(a) for m, a in header["dev_accuracy"]}
        model.rules_ = {tuple(r[:4]): r[4] for r in header["rules"]}
        return model
