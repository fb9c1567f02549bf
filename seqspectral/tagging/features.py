"""The morphological features tagger: FEATS predicted per word, one class per feature bundle
or one decision per feature.

``unit="bundle"`` (the default: better on EWT dev; per feature is better on Turkish dev, see
docs/tagging.md, and ``rerank build`` tries both on its own dev): each
word's bundle (the whole FEATS value, ``Number=Plur|Person=3``) is chosen by the per-token
averaged perceptron of :mod:`.token_classifier` among the bundles seen with the word's UPOS
in training (all bundles for a UPOS never seen). ``unit="feature"``: for every feature name
seen with the word's UPOS, its value (or its absence) is chosen among the values seen with
that UPOS, each name a decision of its own with the same classifier; the chosen pairs make
the bundle, names in their usual order in training (a name given twice in one bundle, as
some non-UD treebanks do, is one decision whose value is the list of its values). Both read
the tagger's features and the sentence's UPOS and XPOS. Training reads the gold UPOS and
XPOS; tagging reads the ones the sentences have (predicted by the taggers before it).
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import chain, repeat

import numpy as np

from seqspectral.base import Estimator, integer, one_of, seed
from seqspectral.corpus.columns import has_column
from seqspectral.corpus.errors import CorpusFormatError
from seqspectral.perceptron import dense_from_state, epoch_selection, sparse_schema, sparse_state

from . import model_files, token_classifier as tc
from .words import split

#: a FEATS value: ``_`` or ``Name=Value`` pairs joined by ``|`` (names and values without ``=``,
#: ``|`` or spaces; UD's stricter letter rules are not required: treebanks outside UD use others)
#: the tag columns the features tagger reads (never FEATS itself)
READS = ("upos", "xpos")
FEATS_VALUE = re.compile(r"_|[^=|\s]+=[^=|\s]+(\|[^=|\s]+=[^=|\s]+)*")


def word_line(sentence, i: int) -> int | None:
    """The line of word ``i`` (0-based) of a sentence read from a file."""
    if sentence.line is None:
        return None
    source = sentence.source
    if source is None:
        return sentence.line + i
    return sentence.line + len(source.comments) + i + sum(1 for before, _ in source.others if before <= i)


def check_feats(sentences, path) -> None:
    """Raise :class:`~seqspectral.corpus.errors.CorpusFormatError` (file and line) at the first
    FEATS value that is not ``Name=Value|...`` or ``_``."""
    for s in sentences:
        for i, value in enumerate(s.feats or ()):
            if not FEATS_VALUE.fullmatch(value):
                raise CorpusFormatError(path, word_line(s, i), f"FEATS {value!r} of word {i + 1} is not "
                                                               "Name=Value|Name=Value... or _")


class FeaturesTagger(Estimator):
    """Tags the FEATS column of CoNLL-U sentences (one class per feature bundle).

    Parameters: ``unit`` (``bundle`` or ``feature``, module docstring); ``epochs`` of the
    perceptron (the best on dev kept when dev is given); ``hash_bits`` (2**hash_bits weights, shared by every (feature, bundle) pair);
    ``clusters`` (fitted :class:`~seqspectral.embeddings.clusters.WordClusters`, as the
    tagger's); ``random_state`` (the order words are visited in each epoch).
    """

    kind = "features_tagger"
    field = "feats"
    _parameter_checks = {"unit": one_of("bundle", "feature"), "epochs": integer(1), "hash_bits": integer(8, 26),
                         "clusters": lambda v: None if v is None or hasattr(v, "ids") else
                         "fitted word clusters or None",
                         "random_state": seed}

    def __init__(self, *, unit="bundle", epochs=10, hash_bits=20, clusters=None, random_state=0):
        self.unit = unit
        self.epochs = epochs
        self.hash_bits = hash_bits
        self.clusters = clusters
        self.random_state = random_state

    # -- the decisions ---------------------------------------------------------------------
    def _items(self, sentences):
        """Every decision of ``sentences``: its token (row of the feature matrix), its
        candidate classes and, with ``unit="feature"``, its feature name (index into
        ``names_``; with bundles, the token's candidate list, :meth:`_groups`)."""
        upos = list(chain.from_iterable(s.upos for s in sentences))
        if self.unit == "bundle":
            groups, group_of = self._groups(upos)
            return np.arange(len(upos)), groups.take(group_of), group_of
        groups = {u: [(n, np.asarray(ids, dtype=np.int32)) for n, ids in named] for u, named in self.by_upos_.items()}
        every = [(n, np.asarray(ids, dtype=np.int32)) for n, ids in self._all_values()]
        tokens, names, candidates = [], [], []
        for t, u in enumerate(upos):
            for n, ids in groups.get(u, every):
                tokens.append(t)
                names.append(n)
                candidates.append(ids)
        return np.asarray(tokens, dtype=np.int64), tc.Candidates.of(candidates), np.asarray(names, dtype=np.int64)

    def _groups(self, upos) -> tuple:
        """``unit="bundle"``: the candidate lists (each UPOS's bundles, then every bundle, for a
        UPOS never seen) and each token's list (``upos``: the tokens' UPOS)."""
        groups = tc.Candidates.of([*self.by_upos_.values(), np.arange(len(self.classes_))])
        row = {u: j for j, u in enumerate(self.by_upos_)}
        return groups, np.fromiter(map(row.get, upos, repeat(len(row))), dtype=np.int64, count=len(upos))

    def _all_values(self):
        """(name, class ids of its values) of every feature name (for a UPOS never seen)."""
        by_name: dict = {}
        for c, (n, _) in enumerate(self.classes_):
            by_name.setdefault(self.names_.index(n), []).append(c)
        return sorted(by_name.items())

    def _gold(self, sentences, names) -> np.ndarray:
        """The gold class of every decision (-1 for a value the tagger does not know)."""
        index = {b: i for i, b in enumerate(self.classes_)}
        values = [v for s in sentences for v in tc.column_of(s, "feats")]
        if self.unit == "bundle":
            return np.array([index.get(v, -1) for v in values], dtype=np.int32)
        tokens, _, which = names
        split = {v: _by_name(v) for v in set(values)}
        return np.array([index.get((self.names_[n], split[values[t]].get(self.names_[n], "")), -1)
                         for t, n in zip(tokens.tolist(), which.tolist())], dtype=np.int32)

    def _bundles(self, sentences, classes, items) -> list[str]:
        """Each token's FEATS value from the classes chosen for its decisions."""
        if self.unit == "bundle":
            return list(map(self.classes_.__getitem__, classes.tolist()))
        chosen = [[] for _ in range(sum(len(s) for s in sentences))]
        for t, c in zip(items[0].tolist(), classes.tolist()):
            name, value = self.classes_[c]
            if value:
                chosen[t].append((self.order_[name], name, value))
        return ["|".join(f"{n}={v}" for _, n, joined in sorted(pairs) for v in joined.split("|")) if pairs else "_"
                for pairs in chosen]

    # -- training --------------------------------------------------------------------------
    def fit(self, sentences, dev=None, on_epoch=None):
        """Train on ``sentences`` (their FEATS, with their gold UPOS and XPOS as features);
        with ``dev`` the epoch of the best dev accuracy (whole FEATS values) is kept
        (``selection_``)."""
        self._validate_params()
        sentences = list(sentences)
        if not has_column(sentences, "feats"):
            raise ValueError("the training sentences have no FEATS (the column is _ throughout)")
        pairs = sorted({(u, v) for s in sentences for u, v in zip(s.upos, tc.column_of(s, "feats"))})
        if self.unit == "bundle":
            self.classes_ = sorted({v for _, v in pairs})
            index = {b: i for i, b in enumerate(self.classes_)}
            self.by_upos_ = {}
            for u, v in pairs:
                self.by_upos_.setdefault(u, []).append(index[v])
        else:
            self._fit_names(pairs, [v for s in sentences for v in tc.column_of(s, "feats")])
        slots, _ = tc.token_features(sentences, self.clusters, self.hash_bits, columns=READS)
        items = self._items(sentences)
        held = None
        if dev:
            dev = list(dev)
            gold = [v for s in dev for v in tc.column_of(s, "feats")]
            dev_items = self._items(dev)
            dev_slots = tc.token_features(dev, self.clusters, self.hash_bits, columns=READS)[0][dev_items[0]]
            held = (dev_slots, dev_items[1], lambda pred: 100.0 * float(np.mean(
                [a == b for a, b in zip(self._bundles(dev, pred, dev_items), gold)])))
        run = tc.train(slots[items[0]], items[1], self._gold(sentences, items), epochs=self.epochs,
                       hash_bits=self.hash_bits, random_state=self.random_state, dev=held, on_epoch=on_epoch)
        self.history_, self.weights_ = run.history, run.model
        self.selection_ = epoch_selection(run)
        return self

    def _fit_names(self, pairs, values) -> None:
        """``unit="feature"``: the names (``names_``, ``order_``: their usual place), the
        (name, value) classes (value "" for absent) and UPOS -> [(name, its classes)]."""
        place: dict = {}
        for v in set(values):
            names = list(_by_name(v))
            for i, n in enumerate(names):
                place.setdefault(n, []).append(i / len(names))
        self.names_ = sorted(place)
        self.order_ = {n: float(np.mean(place[n])) for n in self.names_}
        seen: dict = {u: {} for u, _ in pairs}  # a UPOS seen only without features makes no decision
        for u, v in pairs:
            split = _by_name(v)
            for n in self.names_:
                if n in split or n in seen[u]:
                    seen[u].setdefault(n, set()).add(split.get(n, ""))
        for u, named in seen.items():
            for n, vals in named.items():
                vals.add("")  # a name seen with a UPOS may always be absent
        self.classes_ = sorted({(n, v) for named in seen.values() for n, vals in named.items() for v in vals})
        index = {c: i for i, c in enumerate(self.classes_)}
        self.by_upos_ = {u: [(self.names_.index(n), sorted(index[(n, v)] for v in vals))
                             for n, vals in sorted(named.items())] for u, named in sorted(seen.items())}

    # -- tagging ---------------------------------------------------------------------------
    def predict(self, sentences, table=None) -> list[list[str]]:
        """The FEATS of every word of every sentence (their UPOS and XPOS read as they are;
        ``table``: their word table, if made already)."""
        self._check_fitted()
        sentences = list(sentences)
        slots, table = tc.token_features(sentences, self.clusters, self.hash_bits, table, READS)
        if self.unit == "bundle":  # a word type's tokens of one UPOS share its own features' sums
            groups, group_of = self._groups(list(chain.from_iterable(s.upos for s in sentences)))
            items = None
            classes = tc.classify(slots, groups, self.weights_, self.hash_bits, group_of,
                                  tc.word_keys(table.types, group_of, len(groups.offsets) - 1))
        else:
            items = self._items(sentences)
            classes = tc.classify(slots[items[0]], items[1], self.weights_, self.hash_bits)
        return split(self._bundles(sentences, classes, items), sentences)

    def kbest(self, sentences, k: int) -> list:
        """The ``k`` best FEATS columns of every sentence as
        :class:`~seqspectral.corpus.NBestList` (fewer when there are fewer), scored by the sum of
        their decisions' scores (the words' choices are independent:
        :func:`.token_classifier.kbest_choices`)."""
        from seqspectral.corpus.nbest import NBestList

        self._check_fitted()
        if int(k) < 1:
            raise ValueError(f"k must be at least 1, not {k}")
        sentences = list(sentences)
        slots, _ = tc.token_features(sentences, self.clusters, self.hash_bits, None, READS)
        tokens, candidates, names = items = self._items(sentences)
        scores = tc.candidate_scores(slots[tokens], candidates, self.weights_, self.hash_bits)
        starts = np.concatenate([[0], np.cumsum([len(s) for s in sentences])])
        bounds = np.searchsorted(tokens, starts)  # a sentence's decisions are contiguous
        lists = []
        for i, s in enumerate(sentences):
            a, b = int(bounds[i]), int(bounds[i + 1])
            spans = [(candidates.offsets[j], candidates.offsets[j + 1]) for j in range(a, b)]
            best = tc.kbest_choices([scores[x:y] for x, y in spans], int(k))
            out = []
            for _, picked in best:
                classes = np.array([candidates.classes[x + p] for (x, _), p in zip(spans, picked)], dtype=np.int32)
                sub = (tokens[a:b] - starts[i], None, names[a:b])
                out.append(replace(s, feats=self._bundles([s], classes, sub)))
            lists.append(NBestList(s.metadata.get("sent_id") or str(i + 1), out, [v for v, _ in best]))
        return lists

    def tag(self, sentences, table=None) -> list:
        """Copies of ``sentences`` with FEATS predicted."""
        sentences = list(sentences)
        return [replace(s, feats=f) for s, f in zip(sentences, self.predict(sentences, table))]

    def score(self, sentences) -> float:
        """Accuracy (%) of whole FEATS values on ``sentences``."""
        sentences = list(sentences)
        pred = [v for p in self.predict(sentences) for v in p]
        gold = [v for s in sentences for v in tc.column_of(s, "feats")]
        return 100.0 * float(np.mean([a == b for a, b in zip(pred, gold)])) if gold else 0.0

    # -- model files -----------------------------------------------------------------------
    def to_state(self):
        if self.unit == "bundle":
            header = {"bundles": self.classes_, "by_upos": self.by_upos_}
        else:
            header = {"names": self.names_, "order": self.order_, "classes": [list(c) for c in self.classes_],
                      "by_upos": {u: [[n, ids] for n, ids in named] for u, named in self.by_upos_.items()}}
        return model_files.state(self, header, sparse_state("weights", self.weights_))

    @classmethod
    def schema(cls, header):
        classes = header["bundles"] if "bundles" in header else header["classes"]
        if not isinstance(classes, list) or not classes or not all(
                isinstance(x, str) or isinstance(x, list) and len(x) == 2 and all(isinstance(y, str) for y in x)
                for x in classes):
            raise ValueError("the bundles are not a non-empty list of strings (or of name-value pairs)")
        return model_files.schema(header, sparse_schema("weights", model_files.hash_bits(header)))

    @classmethod
    def from_state(cls, header, arrays):
        tagger = model_files.restore(cls, header, arrays)
        if tagger.unit == "bundle":
            tagger.classes_ = list(header["bundles"])
            tagger.by_upos_ = {str(u): [int(b) for b in ids] for u, ids in header["by_upos"].items()}
            listed = [b for ids in tagger.by_upos_.values() for b in ids]
        else:
            tagger.names_ = [str(n) for n in header["names"]]
            tagger.order_ = {str(n): float(x) for n, x in header["order"].items()}
            tagger.classes_ = [(str(n), str(v)) for n, v in header["classes"]]
            tagger.by_upos_ = {str(u): [(int(n), [int(b) for b in ids]) for n, ids in named]
                               for u, named in header["by_upos"].items()}
            listed = [b for named in tagger.by_upos_.values() for _, ids in named for b in ids]
            if set(tagger.order_) != set(tagger.names_) or any(
                    not 0 <= n < len(tagger.names_) for named in tagger.by_upos_.values() for n, _ in named):
                raise ValueError("a UPOS lists a feature name the tagger does not have")
        if any(not 0 <= b < len(tagger.classes_) for b in listed):
            raise ValueError("a UPOS lists a bundle the tagger does not have")
        tagger.weights_ = dense_from_state("weights", arrays, 1 << tagger.hash_bits)
        return tagger

def _by_name(value: str) -> dict:
    """A FEATS value as name -> value (a name given twice: its values joined by ``|``, which no
    value has)."""
    out: dict = {}
    if value != "_":
        for pair in value.split("|"):
            name, _, v = pair.partition("=")
            out[name] = f"{out[name]}|{v}" if name in out else v
    return out
