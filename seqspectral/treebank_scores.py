"""Scores of predicted trees and tags against gold sentences, and of n-best files read as a
stream (the 1-best and the oracle, best-in-list, figures).

Punctuation (left out with ``punct=False``) is a word whose gold UPOS is ``PUNCT`` (UD), or,
``by="form"`` (CoNLL-X and Malt-TAB, whose tag sets are not UD's), whose form is made of
Unicode punctuation characters only, the rule of the CoNLL-X shared task's ``eval.pl``.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict

import numpy as np

PUNCT_RULES = ("upos", "form")


class AlignmentError(ValueError):
    """Gold and predicted files that do not hold the same sentences."""

    user_facing = True


def punctuation(sentence, by: str = "upos") -> np.ndarray:
    """Which words of ``sentence`` are punctuation (see the module's docstring)."""
    if by == "upos":
        return np.array([u == "PUNCT" for u in sentence.upos], dtype=bool)
    return np.array([all(unicodedata.category(c).startswith("P") for c in f) for f in sentence.forms], dtype=bool)


class AttachmentCounts:
    """Counts for UAS, LAS, complete (labelled) match and LAS per gold relation, added one
    sentence at a time."""

    def __init__(self, punct: bool = True, by: str = "upos"):
        if by not in PUNCT_RULES:
            raise ValueError(f"punctuation rule must be one of {', '.join(PUNCT_RULES)}, not {by!r}")
        self.punct, self.by = punct, by
        self.words = self.head_ok = self.label_ok = self.sentences = self.complete = self.complete_labeled = 0
        self.relations: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # words, right head, right label

    def scored(self, gold) -> np.ndarray:
        return np.ones(len(gold), dtype=bool) if self.punct else ~punctuation(gold, self.by)

    def right(self, gold, heads, deprels) -> tuple[np.ndarray, np.ndarray]:
        """Per scored word of ``gold``: right head, right head and label."""
        scored = self.scored(gold)
        head = (np.asarray(gold.heads) == np.asarray(heads)) & scored
        return head, head & np.array([a == b for a, b in zip(gold.deprels, deprels)], dtype=bool)

    def add(self, gold, heads, deprels) -> None:
        head, label = self.right(gold, heads, deprels)
        scored = self.scored(gold)
        n = int(scored.sum())
        self.words += n
        self.head_ok += int(head.sum())
        self.label_ok += int(label.sum())
        self.sentences += 1
        self.complete += int(head.sum()) == n
        self.complete_labeled += int(label.sum()) == n
        for rel, s, h, lab in zip(gold.deprels, scored.tolist(), head.tolist(), label.tolist()):
            if s:
                counts = self.relations[rel]
                counts[0] += 1
                counts[1] += h
                counts[2] += lab

    def scores(self) -> dict:
        """``uas``, ``las``, ``complete``, ``complete_labeled`` (percentages), ``n_sentences``,
        ``n_words`` (scored) and ``per_relation`` (gold DEPREL: ``n``, ``uas``, ``las``)."""
        pct = lambda a, b: 100.0 * a / b if b else 0.0  # noqa: E731
        return {"uas": pct(self.head_ok, self.words), "las": pct(self.label_ok, self.words),
                "complete": pct(self.complete, self.sentences),
                "complete_labeled": pct(self.complete_labeled, self.sentences),
                "n_sentences": self.sentences, "n_words": self.words,
                "per_relation": {rel: {"n": n, "uas": pct(h, n), "las": pct(lab, n)}
                                 for rel, (n, h, lab) in sorted(self.relations.items())}}


def check_aligned(i: int, gold, forms, names: tuple[str, str], where: str = "") -> None:
    if len(gold) != len(forms) or gold.forms != list(forms):
        sent_id = gold.metadata.get("sent_id")
        raise AlignmentError(
            f"sentence {i + 1} ({names[0]} line {gold.line}{f' sent_id {sent_id}' if sent_id else ''}"
            f"{', ' + names[1] + ' ' + where if where else ''}) differs: {len(gold)} words vs {len(forms)}"
            + ("" if len(gold) != len(forms) else ", other word forms"))


def attachment_scores(gold, pred, *, punct: bool = True, by: str = "upos",
                      names: tuple[str, str] = ("gold", "predicted")) -> dict:
    """:meth:`AttachmentCounts.scores` of the sentences ``pred`` against ``gold`` (same
    sentences, same words, in the same order)."""
    gold, pred = list(gold), list(pred)
    if len(gold) != len(pred):
        raise AlignmentError(f"{names[0]} has {len(gold)} sentences but {names[1]} has {len(pred)}")
    counts = AttachmentCounts(punct, by)
    for i, (g, p) in enumerate(zip(gold, pred)):
        check_aligned(i, g, p.forms, names, f"line {p.line}")
        counts.add(g, p.heads, p.deprels)
    return counts.scores()


def nbest_scores(gold, path, *, punct: bool = True, by: str = "upos", encoding: str = "utf-8",
                 names: tuple[str, str] = ("gold", "n-best")) -> dict:
    """``one_best`` and ``oracle`` (the candidate with most right heads, then labels, of each
    list) attachment scores of the n-best file ``path`` against ``gold``, the file read one
    candidate at a time; ``n_lists`` and ``mean_candidates``."""
    from seqspectral.corpus.conllu_format import CONLLU, parse_comment
    from seqspectral.corpus.errors import ErrorPolicy
    from seqspectral.corpus.tabular import iter_blocks

    gold = list(gold)
    first, oracle = AttachmentCounts(punct, by), AttachmentCounts(punct, by)
    column = CONLLU.index
    best = None  # (right heads, right labels, heads, deprels) of the best candidate of the current list
    i, n_candidates = -1, 0

    def close():
        if best is not None:
            oracle.add(gold[i], best[2], best[3])

    for block in iter_blocks(path, CONLLU, ErrorPolicy(path, "raise"), encoding):
        meta = dict(pair for c in block.comments for pair in parse_comment(c))
        if "nbest_rank" not in meta:
            raise AlignmentError(f"{path}:{block.line}: a sentence without # nbest_rank: not an n-best file")
        forms = [r[column["form"]] for r in block.rows]
        heads, deprels = block.heads, [r[column["deprel"]] for r in block.rows]
        if meta["nbest_rank"] == "1":
            close()
            i += 1
            if i >= len(gold):
                raise AlignmentError(f"{names[1]} has more lists than the {len(gold)} sentences of {names[0]}")
            check_aligned(i, gold[i], forms, names, f"line {block.line}")
            first.add(gold[i], heads, deprels)
            best = None
        elif i < 0 or forms != gold[i].forms:
            raise AlignmentError(f"{path}:{block.line}: a candidate whose words are not those of its list's first")
        head, label = oracle.right(gold[i], heads, deprels)
        key = (int(head.sum()), int(label.sum()))
        if best is None or key > best[:2]:
            best = (*key, heads, deprels)
        n_candidates += 1
    close()
    if i + 1 != len(gold):
        raise AlignmentError(f"{names[0]} has {len(gold)} sentences but {names[1]} has {i + 1} lists")
    return {"one_best": first.scores(), "oracle": oracle.scores(), "n_lists": i + 1,
            "mean_candidates": n_candidates / max(i + 1, 1)}


def tag_scores(gold, pred, field: str = "upos", names: tuple[str, str] = ("gold", "predicted")) -> dict:
    """``accuracy`` and ``complete`` (percentages of words and of whole sentences with the
    right ``field`` tag), ``n_sentences``, ``n_words`` and ``per_tag`` (gold tag: ``n``,
    ``accuracy``)."""
    gold, pred = list(gold), list(pred)
    if len(gold) != len(pred):
        raise AlignmentError(f"{names[0]} has {len(gold)} sentences but {names[1]} has {len(pred)}")
    right = words = complete = 0
    per_tag: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for i, (g, p) in enumerate(zip(gold, pred)):
        check_aligned(i, g, p.forms, names, f"line {p.line}")
        ok = [a == b for a, b in zip(g.column(field), p.column(field))]
        right += sum(ok)
        words += len(ok)
        complete += all(ok)
        for tag, hit in zip(g.column(field), ok):
            per_tag[tag][0] += 1
            per_tag[tag][1] += hit
    pct = lambda a, b: 100.0 * a / b if b else 0.0  # noqa: E731
    return {"accuracy": pct(right, words), "complete": pct(complete, len(gold)), "n_sentences": len(gold),
            "n_words": words, "per_tag": {t: {"n": n, "accuracy": pct(h, n)} for t, (n, h) in sorted(per_tag.items())}}


# -- the CoNLL 2018 shared task's metrics (Zeman et al. 2018, section 2.3) ----------------------
#: the relations of content words (CLAS, MLAS, BLEX score these) and of function words (their
#: "functional children" enter MLAS), as the shared task's ``conll18_ud_eval.py`` lists them
CONTENT_RELATIONS = frozenset({
    "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative", "expl", "dislocated", "advcl", "advmod",
    "discourse", "nmod", "appos", "nummod", "acl", "amod", "conj", "fixed", "flat", "compound", "list",
    "parataxis", "orphan", "goeswith", "reparandum", "root", "dep"})
FUNCTIONAL_RELATIONS = frozenset({"aux", "cop", "mark", "det", "clf", "case", "cc"})
#: the features UFeats compares (the rest of FEATS is left out)
UNIVERSAL_FEATURES = frozenset({
    "PronType", "NumType", "Poss", "Reflex", "Foreign", "Abbr", "Gender", "Animacy", "Number", "Case", "Definite",
    "Degree", "VerbForm", "Mood", "Tense", "Aspect", "Voice", "Evident", "Polarity", "Person", "Polite"})
CONLL18_METRICS = ("Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "CLAS", "MLAS", "BLEX")
TAG_METRICS = CONLL18_METRICS[:6]


def universal_features(feats: str) -> str:
    """The universal features of a FEATS value, sorted, ``|``-joined (``""`` for none)."""
    return "|".join(sorted(f for f in feats.split("|") if f.split("=", 1)[0] in UNIVERSAL_FEATURES))


class _Words:
    """The columns of one sentence as the shared task compares them: universal features,
    relations without subtypes, and each word's functional children (in word order)."""

    def __init__(self, s):
        self.upos, self.xpos, self.lemmas = s.upos, s.xpos, s.lemmas
        self.feats = [universal_features(f) for f in s.feats] if s.feats is not None else [""] * len(s)
        self.heads = s.heads.tolist()
        self.parsed = len(s) == 0 or min(self.heads) >= 0
        self.relations = [d.split(":")[0] for d in s.deprels]
        self.content = [r in CONTENT_RELATIONS for r in self.relations]
        self.children = [[] for _ in range(len(s))]
        for j, (h, r) in enumerate(zip(self.heads, self.relations)):
            if h > 0 and r in FUNCTIONAL_RELATIONS:
                self.children[h - 1].append((j, r, self.upos[j], self.feats[j]))


class Conll18Counts:
    """The counts behind every metric of :data:`CONLL18_METRICS` (``correct``, ``gold``,
    ``system``, ``aligned`` words), added one pair of sentences at a time. The words are the
    gold tokenisation's (the same words in both files), so every word is aligned; CLAS, MLAS
    and BLEX count the gold words with a content relation (``gold``, ``aligned``) and the
    predicted words with one (``system``), so they are F1 scores as the shared task's."""

    def __init__(self):
        self.counts = {m: [0, 0, 0, 0] for m in CONLL18_METRICS}
        self.parsed = True

    def _add(self, metric, correct, gold, system, aligned):
        c = self.counts[metric]
        c[0] += correct
        c[1] += gold
        c[2] += system
        c[3] += aligned

    def add(self, gold, pred) -> None:
        g, p = _Words(gold), _Words(pred)
        n = len(gold)
        same = {k: [a == b for a, b in zip(getattr(g, k), getattr(p, k))] for k in ("upos", "xpos", "feats")}
        lemma = [a == "_" or a == b for a, b in zip(g.lemmas, p.lemmas)]
        self._add("Words", n, n, n, n)
        for metric, right in (("UPOS", same["upos"]), ("XPOS", same["xpos"]), ("UFeats", same["feats"]),
                              ("AllTags", [a and b and c for a, b, c in zip(same["upos"], same["xpos"], same["feats"])]),
                              ("Lemmas", lemma)):
            self._add(metric, sum(right), n, n, n)
        self.parsed &= g.parsed and p.parsed
        if not self.parsed:
            return
        head = [a == b for a, b in zip(g.heads, p.heads)]
        label = [h and a == b for h, a, b in zip(head, g.relations, p.relations)]
        self._add("UAS", sum(head), n, n, n)
        self._add("LAS", sum(label), n, n, n)
        content = [j for j in range(n) if g.content[j]]
        n_gold, n_system = len(content), sum(p.content)
        self._add("CLAS", sum(label[j] for j in content), n_gold, n_system, n_gold)
        self._add("MLAS", sum(label[j] and same["upos"][j] and same["feats"][j] and g.children[j] == p.children[j]
                              for j in content), n_gold, n_system, n_gold)
        self._add("BLEX", sum(label[j] and lemma[j] for j in content), n_gold, n_system, n_gold)

    def scores(self) -> dict:
        """Per metric (the attachment ones only when both files have trees): ``correct``,
        ``gold``, ``system``, ``aligned`` and ``precision``, ``recall``, ``f1``,
        ``aligned_accuracy`` (None for Words) as percentages."""
        out = {}
        for metric in CONLL18_METRICS if self.parsed else TAG_METRICS:
            correct, gold, system, aligned = self.counts[metric]
            out[metric] = {"correct": correct, "gold": gold, "system": system, "aligned": aligned,
                           "precision": 100.0 * correct / system if system else 0.0,
                           "recall": 100.0 * correct / gold if gold else 0.0,
                           "f1": 200.0 * correct / (system + gold) if system + gold else 0.0,
                           "aligned_accuracy": None if metric == "Words" else
                           100.0 * correct / aligned if aligned else 0.0}
        return out


def conll18_scores(gold, pred, names: tuple[str, str] = ("gold", "predicted")) -> dict:
    """:meth:`Conll18Counts.scores` of ``pred`` against ``gold`` (the same sentences and words,
    in the same order)."""
    gold, pred = list(gold), list(pred)
    if len(gold) != len(pred):
        raise AlignmentError(f"{names[0]} has {len(gold)} sentences but {names[1]} has {len(pred)}")
    counts = Conll18Counts()
    for i, (g, p) in enumerate(zip(gold, pred)):
        check_aligned(i, g, p.forms, names, f"line {p.line}")
        counts.add(g, p)
    return counts.scores()
