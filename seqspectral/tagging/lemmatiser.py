"""The lemmatiser: edit scripts from form to lemma, chosen per word by a classifier.

Every training pair (form, lemma) gives an edit script (:func:`edit_script`): the case rule
(``keep`` the form's case, or ``lower`` it first), then around the longest substring the
two share, the prefix of the form to remove and the one to put instead, and the same at the
end (``running`` → ``run``: remove ``ning``, add nothing; ``better`` → ``good`` shares
nothing: the whole form is replaced) — the suffix/prefix rewrite classes of UDPipe's
lemmatiser (Straka et al. 2016) and of spaCy's edit trees, flattened to one prefix and one
suffix rule. A script applies to a form that starts and ends with what it removes, so a
word never seen in training gets the scripts of words that end like it.

A word whose (form, UPOS) had one lemma only in training (and was seen ``min_count``
times) gets that lemma; failing that (a UPOS its form never had, often a wrong predicted
one), a word whose form had one lemma only, whatever its UPOS; every other word the script the per-token averaged perceptron of
:mod:`.token_classifier` prefers among the scripts that apply to its form and were seen with
its UPOS (those that apply at all when none was), with the tagger's features and the
sentence's UPOS, XPOS and FEATS.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import chain

import numpy as np

from seqspectral.base import Estimator, integer, seed
from seqspectral.perceptron import dense_from_state, epoch_selection, sparse_schema, sparse_state

from . import model_files, token_classifier as tc
from ._script_kernels import script_matches, word_candidates
from ._strings import code_points
from .words import numbered, split, type_ids
from seqspectral.corpus.columns import has_column

#: a script: (case rule, prefix removed, prefix added, suffix removed, suffix added)
Script = tuple


def _common_substring(a: str, b: str) -> tuple[int, int, int]:
    """(start in ``a``, start in ``b``, length) of the longest common substring (the first)."""
    best = (0, 0, 0)
    prev = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best[2]:
                    best = (i - cur[j], j - cur[j], cur[j])
        prev = cur
    return best


def edit_script(form: str, lemma: str) -> Script:
    """The cheapest script (characters removed plus added; ``lower`` on ties) turning
    ``form`` into ``lemma``."""
    out = None
    for case, source in (("lower", form.lower()), ("keep", form)):
        i, j, n = _common_substring(source, lemma)
        script = (case, source[:i], lemma[:j], source[i + n:], lemma[j + n:]) if n else (case, "", "", source, lemma)
        cost = sum(len(x) for x in script[1:])
        if out is None or cost < out[0]:
            out = (cost, script)
    return out[1]


def apply_script(script: Script, form: str) -> str | None:
    """The lemma ``script`` makes of ``form`` (None when it does not apply)."""
    case, pre_cut, pre_add, suf_cut, suf_add = script
    source = form.lower() if case == "lower" else form
    if len(source) < len(pre_cut) + len(suf_cut) or not source.startswith(pre_cut) or not source.endswith(suf_cut):
        return None
    return pre_add + source[len(pre_cut):len(source) - len(suf_cut)] + suf_add


class Lemmatiser(Estimator):
    """Fills the LEMMA column of CoNLL-U sentences (module docstring).

    Parameters: ``epochs`` (the best on dev kept when dev is given); ``runs`` (perceptrons
    trained side by side in their own orders, their averaged weights averaged, as the
    tagger's); ``hash_bits`` (2**hash_bits
    weights shared by every (feature, script) pair); ``min_count`` (how often a (form, UPOS)
    with one lemma must have been seen for that lemma to be used as it is; 0: never, the
    classifier decides every word); ``clusters`` (as the tagger's); ``random_state``.
    """

    kind = "lemmatiser"
    field = "lemma"
    _parameter_checks = {"epochs": integer(1), "runs": integer(1), "hash_bits": integer(8, 26), "min_count": integer(0),
                         "clusters": lambda v: None if v is None or hasattr(v, "ids") else
                         "fitted word clusters or None",
                         "random_state": seed}

    def __init__(self, *, epochs=10, runs=1, hash_bits=20, min_count=1, clusters=None, random_state=0):
        self.epochs = epochs
        self.runs = runs
        self.hash_bits = hash_bits
        self.min_count = min_count
        self.clusters = clusters
        self.random_state = random_state

    # -- the scripts a word may take -------------------------------------------------------
    def _candidates(self, words) -> tc.Candidates:
        """The candidate scripts of each of ``words``, (form, UPOS) pairs: those that apply to
        its form and were seen with its UPOS in training, or every script that applies when
        there are none (:mod:`._script_kernels`; each distinct pair worked out once)."""
        pair_of, pairs = numbered(list(words))
        form_of, forms = numbered([f for f, _ in pairs])
        upos_row = {u: j for j, u in enumerate(self.by_upos_)}
        upos_of = np.fromiter((upos_row.get(u, -1) for _, u in pairs), dtype=np.int64, count=len(pairs))
        seen = np.zeros((len(upos_row), len(self.scripts_)), dtype=np.bool_)
        for u, j in upos_row.items():
            seen[j, self.by_upos_[u]] = True
        both = [x for f in forms for x in (f.lower(), f)]  # each form lower-cased, then as it is
        matches = script_matches(*code_points(both),
                                 np.array([s[0] == "lower" for s in self.scripts_], dtype=np.bool_),
                                 *code_points([s[1] for s in self.scripts_]), *code_points([s[3] for s in self.scripts_]))
        return tc.Candidates(*word_candidates(matches, form_of, upos_of, seen)).take(pair_of)

    # -- training --------------------------------------------------------------------------
    def fit(self, sentences, dev=None, on_epoch=None):
        """Train on the words of ``sentences`` whose LEMMA is given (not ``_``), with their gold
        UPOS, XPOS and FEATS as features; with ``dev`` the epoch of the best dev accuracy is
        kept (``selection_``)."""
        self._validate_params()
        sentences = list(sentences)
        if not has_column(sentences, "lemma"):
            raise ValueError("the training sentences have no LEMMA (the column is _ throughout)")
        pairs = [(f, u, l) for s in sentences for f, u, l in zip(s.forms, s.upos, s.lemmas) if l != "_"]
        scripts = {p: edit_script(p[0], p[2]) for p in set(pairs)}
        self.scripts_ = sorted(set(scripts.values()))
        index = {sc: i for i, sc in enumerate(self.scripts_)}
        self.by_upos_ = {}
        for (f, u, l), sc in sorted(scripts.items()):
            self.by_upos_.setdefault(u, set()).add(index[sc])
        self.by_upos_ = {u: sorted(ids) for u, ids in self.by_upos_.items()}
        self.lexicon_ = tc.unambiguous([p[:2] for p in pairs], [p[2] for p in pairs], self.min_count)
        self.forms_ = tc.unambiguous([p[0] for p in pairs], [p[2] for p in pairs], self.min_count)
        slots, _ = tc.token_features(sentences, self.clusters, self.hash_bits)
        given = np.array([l != "_" for s in sentences for l in s.lemmas], dtype=bool)
        gold = np.array([index[scripts[(f, u, l)]] if l != "_" else -1 for s in sentences
                         for f, u, l in zip(s.forms, s.upos, s.lemmas)], dtype=np.int32)
        keep = np.flatnonzero(given)
        candidates = self._candidates([(f, u) for s in sentences for f, u, l in zip(s.forms, s.upos, s.lemmas)
                                       if l != "_"])
        held = None
        if dev:
            dev = list(dev)
            dev_gold = [l for s in dev for l in s.lemmas]
            dev_slots = tc.token_features(dev, self.clusters, self.hash_bits)[0]
            dev_forms = [f for s in dev for f in s.forms]
            held = (dev_slots, self._candidates([(f, u) for s in dev for f, u in zip(s.forms, s.upos)]),
                    lambda pred: _accuracy([apply_script(self.scripts_[c], f) for c, f in zip(pred, dev_forms)],
                                           dev_gold))
        run = tc.train(slots[keep], candidates, gold[keep], epochs=self.epochs, hash_bits=self.hash_bits,
                       random_state=self.random_state, dev=held, on_epoch=on_epoch, runs=self.runs)
        self.history_, self.weights_ = run.history, run.model
        self.selection_ = epoch_selection(run)
        return self

    # -- lemmatising -----------------------------------------------------------------------
    def predict(self, sentences, table=None) -> list[list[str]]:
        """The lemma of every word of every sentence (their UPOS, XPOS and FEATS read as they
        are; ``table``: their word table, if made already)."""
        self._check_fitted()
        sentences = list(sentences)
        types, _, forms = type_ids([s.forms for s in sentences]) if table is None else \
            (table.types, None, table.forms)
        upos_of, upos = numbered(list(chain.from_iterable(s.upos for s in sentences)))
        pairs, pair_of = np.unique(types * np.int64(len(upos)) + upos_of, return_inverse=True)  # each distinct
        pair_of = pair_of.ravel()  # (form, UPOS) looked up, its candidates found, its lemmas made once
        words = list(zip(map(forms.__getitem__, (pairs // len(upos)).tolist()),
                         map(upos.__getitem__, (pairs % len(upos)).tolist())))
        known = list(map(self.lexicon_.get, words))
        for i in [i for i, lemma in enumerate(known) if not lemma]:
            known[i] = self.forms_.get(words[i][0])
        flat = np.array(known, dtype=object)[pair_of]
        unsettled = np.flatnonzero([lemma is None for lemma in known])
        if len(unsettled):
            place = np.full(len(words), -1)
            place[unsettled] = np.arange(len(unsettled))
            needed = np.flatnonzero(place[pair_of] >= 0)
            candidates = self._candidates([words[p] for p in unsettled.tolist()])
            slots, _ = tc.token_features(sentences, self.clusters, self.hash_bits, table)
            row = place[pair_of[needed]]  # a (form, UPOS) pair's tokens share its own features' sums
            classes = tc.classify(slots[needed], candidates, self.weights_, self.hash_bits, row, row)
            _, first, inverse = np.unique(pair_of[needed] * (len(self.scripts_) + 1) + classes + 1,
                                          return_index=True, return_inverse=True)
            made = [apply_script(self.scripts_[c], words[p][0]) if c >= 0 else words[p][0]
                    for p, c in zip(pair_of[needed][first].tolist(), classes[first].tolist())]
            flat[needed] = np.array(made, dtype=object)[inverse.ravel()]
        return split(flat.tolist(), sentences)

    def tag(self, sentences, table=None) -> list:
        """Copies of ``sentences`` with LEMMA filled."""
        sentences = list(sentences)
        return [replace(s, lemmas=l) for s, l in zip(sentences, self.predict(sentences, table))]

    def score(self, sentences) -> float:
        """Lemma accuracy (%) over the words whose gold lemma is given."""
        sentences = list(sentences)
        return _accuracy([l for p in self.predict(sentences) for l in p], [l for s in sentences for l in s.lemmas])

    # -- model files -----------------------------------------------------------------------
    def to_state(self):
        return model_files.state(self, {"scripts": [list(s) for s in self.scripts_], "by_upos": self.by_upos_,
                                        "lexicon": [[f, u, l] for (f, u), l in sorted(self.lexicon_.items())],
                                        "forms": sorted(self.forms_.items())},
                                 sparse_state("weights", self.weights_))

    @classmethod
    def schema(cls, header):
        scripts = header["scripts"]
        if not isinstance(scripts, list) or not all(
                isinstance(s, list) and len(s) == 5 and s[0] in ("keep", "lower") and all(isinstance(x, str) for x in s)
                for s in scripts):
            raise ValueError("the edit scripts are not lists of a case rule and four strings")
        return model_files.schema(header, sparse_schema("weights", model_files.hash_bits(header)))

    @classmethod
    def from_state(cls, header, arrays):
        model = model_files.restore(cls, header, arrays)
        model.scripts_ = [tuple(s) for s in header["scripts"]]
        n = len(model.scripts_)
        model.by_upos_ = {str(u): [int(i) for i in ids] for u, ids in header["by_upos"].items()}
        if any(not 0 <= i < n for ids in model.by_upos_.values() for i in ids):
            raise ValueError("a UPOS lists a script the lemmatiser does not have")
        model.lexicon_ = {(str(f), str(u)): str(l) for f, u, l in header["lexicon"]}
        model.forms_ = {str(f): str(l) for f, l in header["forms"]}
        model.weights_ = dense_from_state("weights", arrays, 1 << model.hash_bits)
        return model


def _accuracy(pred, gold) -> float:
    """Accuracy (%) over the words whose gold lemma is given (not ``_``)."""
    pairs = [(p, g) for p, g in zip(pred, gold) if g != "_"]
    return 100.0 * sum(p == g for p, g in pairs) / len(pairs) if pairs else 0.0
