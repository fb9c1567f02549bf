"""Labelled bracket scores of phrase-structure trees as EVALB computes them (Sekine & Collins
1997, with the January 2006 fixes), figure for figure.

EVALB's algorithm, per sentence: the part-of-speech brackets are words, not constituents; a
word whose tag is a deleted label (COLLINS.prm: punctuation ``, : `` '' .`` and ``-NONE-``) is
dropped, in each file by its own tag; the other brackets get the span of the words they
cover, their label cut at the first ``-`` or ``=`` (function tags), and are deleted when empty
or when their label is a deleted one (``TOP``). Gold and test must then have the same words
(else an *error* sentence, left out of the totals); a test tree with no words is a *skipped*
sentence. Each gold bracket matches the first unmatched test bracket of its span with an
equal label (``EQ_LABEL``: ADVP = PRT), so duplicates match as multisets; a test bracket
crossing a gold one is a crossing. Tagging accuracy counts the kept words whose tags are
equal. The sentence length, for the cut-off (40), counts the gold words except ``-NONE-``.

One departure, optional and on by default in :func:`evalb`: ``top_root`` reads a root
bracket with no label (the Penn Treebank's ``( (S ...))``) or labelled ``ROOT`` as ``TOP``,
so that the root is ignored as COLLINS.prm intends; EVALB itself would count such a root as
a matched bracket in every sentence. With ``top_root=False`` the figures are EVALB's on the
files as they are; with it, EVALB's on the files with those roots written ``TOP``.
Trees are paired in order (EVALB pairs lines; a file of one tree a line is the same).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from seqspectral.corpus.errors import CorpusFormatError

#: a root label ``top_root`` reads as TOP
_ROOTS = ("", "ROOT")
_FUNCTION_TAG = re.compile(r"[-=]")


@dataclass(frozen=True)
class EvalbParameters:
    """The contents of an EVALB parameter (.prm) file; the default is COLLINS.prm."""

    delete_labels: tuple[str, ...] = ("TOP", "-NONE-", ",", ":", "``", "''", ".")
    delete_labels_for_length: tuple[str, ...] = ("-NONE-",)
    equal_labels: tuple[tuple[str, str], ...] = (("ADVP", "PRT"),)
    equal_words: tuple[tuple[str, str], ...] = ()
    labeled: bool = True
    cutoff: int = 40

    def same_label(self, a: str, b: str) -> bool:
        return a == b or (a, b) in self.equal_labels or (b, a) in self.equal_labels

    def same_word(self, a: str, b: str) -> bool:
        return a == b or (a, b) in self.equal_words or (b, a) in self.equal_words


COLLINS = EvalbParameters()


def read_parameter_file(path) -> EvalbParameters:
    """The parameters of an EVALB .prm file (``KEY value`` lines, ``#`` comments; DEBUG and
    MAX_ERROR are accepted and ignored). QUOTE_LABEL (EVALB's re-insertion of mis-tagged
    quotes) is not implemented and is refused."""
    lists: dict[str, list] = {"DELETE_LABEL": [], "DELETE_LABEL_FOR_LENGTH": [], "EQ_LABEL": [], "EQ_WORD": []}
    scalars = {"LABELED": 1, "CUTOFF_LEN": 40}
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = line.rstrip()
        if line.startswith("#") or len(line) < 3:
            continue
        key, _, value = line.partition(" ")
        key, value = key.strip(), value.strip()
        if key in ("EQ_LABEL", "EQ_WORD"):
            pair = value.split()
            if len(pair) != 2:
                raise CorpusFormatError(path, number, f"{key} takes two values")
            lists[key].append(tuple(pair))
        elif key in lists:
            lists[key].append(value)
        elif key in scalars:
            try:
                scalars[key] = int(value.split()[0])
            except (ValueError, IndexError):
                raise CorpusFormatError(path, number, f"{key} takes an integer, not {value!r}") from None
        elif key not in ("DEBUG", "MAX_ERROR"):
            raise CorpusFormatError(path, number, f"unknown or unsupported keyword {key!r}")
    return EvalbParameters(tuple(lists["DELETE_LABEL"]), tuple(lists["DELETE_LABEL_FOR_LENGTH"]),
                           tuple(lists["EQ_LABEL"]), tuple(lists["EQ_WORD"]), bool(scalars["LABELED"]),
                           scalars["CUTOFF_LEN"])


@dataclass
class SentenceScore:
    """One sentence's counts; ``status`` 0 scored, 1 error (words differ), 2 skipped."""

    length: int
    status: int = 0
    matched: int = 0
    gold_brackets: int = 0
    test_brackets: int = 0
    crossing: int = 0
    words: int = 0
    correct_tags: int = 0
    error: str = ""


@dataclass
class Summary:
    """EVALB's summary of a set of sentences (percentages as EVALB prints them, unrounded)."""

    n_sentences: int = 0
    n_error: int = 0
    n_skipped: int = 0
    matched: int = 0
    gold_brackets: int = 0
    test_brackets: int = 0
    complete: int = 0
    crossing: int = 0
    no_crossing: int = 0
    two_or_less_crossing: int = 0
    words: int = 0
    correct_tags: int = 0

    @property
    def n_valid(self) -> int:
        return self.n_sentences - self.n_error - self.n_skipped

    def add(self, s: SentenceScore) -> None:
        self.n_sentences += 1
        if s.status == 1:
            self.n_error += 1
            return
        if s.status == 2:
            self.n_skipped += 1
            return
        self.matched += s.matched
        self.gold_brackets += s.gold_brackets
        self.test_brackets += s.test_brackets
        self.complete += s.gold_brackets == s.test_brackets == s.matched
        self.crossing += s.crossing
        self.no_crossing += s.crossing == 0
        self.two_or_less_crossing += s.crossing <= 2
        self.words += s.words
        self.correct_tags += s.correct_tags

    def figures(self) -> dict:
        """recall, precision, f1, complete match, crossing and tagging figures, as EVALB's summary."""
        valid = self.n_valid
        r = 100.0 * self.matched / self.gold_brackets if self.gold_brackets else 0.0
        p = 100.0 * self.matched / self.test_brackets if self.test_brackets else 0.0
        return {
            "recall": r,
            "precision": p,
            "f1": 2 * p * r / (p + r) if p + r else float("nan"),
            "complete_match": 100.0 * self.complete / valid if valid else 0.0,
            "average_crossing": self.crossing / valid if valid else 0.0,
            "no_crossing": 100.0 * self.no_crossing / valid if valid else 0.0,
            "two_or_less_crossing": 100.0 * self.two_or_less_crossing / valid if valid else 0.0,
            "tagging_accuracy": 100.0 * self.correct_tags / self.words if self.words else 0.0,
        }

    def to_json(self) -> dict:
        return {**asdict(self), "n_valid": self.n_valid, **self.figures()}


@dataclass
class EvalbResult:
    """Every sentence's counts, the summary of all and of those within the cut-off length."""

    sentences: list[SentenceScore]
    all: Summary = field(default_factory=Summary)
    cut: Summary = field(default_factory=Summary)
    cutoff: int = 40

    def to_json(self) -> dict:
        return {"all": self.all.to_json(), f"len<={self.cutoff}": self.cut.to_json(), "cutoff": self.cutoff}


def _words_and_brackets(tree, params: EvalbParameters, top_root: bool):
    """EVALB's reading of one tree: the kept (word, tag) pairs, the brackets [start, end,
    label as written], and the length for the cut-off."""
    words: list[tuple[str, str]] = []
    brackets: list[list] = []
    length = 0

    def walk(node, is_root: bool) -> None:
        nonlocal length
        label = node.label()
        if len(node) == 1 and isinstance(node[0], str):
            if label not in params.delete_labels_for_length:
                length += 1
            if label not in params.delete_labels:
                words.append((node[0], label))
            return
        if is_root and top_root and label in _ROOTS:
            label = "TOP"
        bracket = [len(words), 0, label]
        brackets.append(bracket)
        for child in node:
            walk(child, False)
        bracket[1] = len(words)

    walk(tree, True)
    return words, brackets, length


def _kept(brackets: list, params: EvalbParameters) -> list:
    """The brackets EVALB scores: not empty, not of a deleted label; labels without function tags."""
    kept = []
    for start, end, label in brackets:
        if start == end:
            continue
        label = _FUNCTION_TAG.split(label, 1)[0]  # EVALB's modify_label: the label up to its first - or =
        if not any(params.same_label(label, d) for d in params.delete_labels):
            kept.append((start, end, label))
    return kept


def sentence_score(gold, test, params: EvalbParameters = COLLINS, top_root: bool = True) -> SentenceScore:
    """EVALB's counts for one pair of trees (:class:`nltk.Tree`)."""
    gold_words, gold_brackets, length = _words_and_brackets(gold, params, top_root)
    test_words, test_brackets, _ = _words_and_brackets(test, params, top_root)
    if not test_words:
        return SentenceScore(length, status=2)
    if len(gold_words) != len(test_words):
        return SentenceScore(length, status=1, error=f"length unmatch ({len(gold_words)}|{len(test_words)})")
    for (g, _), (t, _) in zip(gold_words, test_words):
        if not params.same_word(g, t):
            return SentenceScore(length, status=1, error=f"words unmatch ({g}|{t})")
    gold_kept, test_kept = _kept(gold_brackets, params), _kept(test_brackets, params)
    used = [False] * len(test_kept)
    matched = 0
    for g_start, g_end, g_label in gold_kept:
        for j, (t_start, t_end, t_label) in enumerate(test_kept):
            if not used[j] and (g_start, g_end) == (t_start, t_end) and (
                    not params.labeled or params.same_label(g_label, t_label)):
                used[j] = True
                matched += 1
                break
    crossing = sum(any(gs < ts < ge < te or ts < gs < te < ge for gs, ge, _ in gold_kept)
                   for ts, te, _ in test_kept)
    correct = sum(params.same_label(g, t) for (_, g), (_, t) in zip(gold_words, test_words))
    return SentenceScore(length, 0, matched, len(gold_kept), len(test_kept), crossing, len(gold_words), correct)


def evalb(gold, test, params: EvalbParameters = COLLINS, top_root: bool = True) -> EvalbResult:
    """EVALB's scores of the trees ``test`` against ``gold`` (paired in order; equal numbers)."""
    if len(gold) != len(test):
        raise ValueError(f"{len(gold)} gold trees but {len(test)} test trees")
    result = EvalbResult([sentence_score(g, t, params, top_root) for g, t in zip(gold, test)], cutoff=params.cutoff)
    for s in result.sentences:
        result.all.add(s)
        if s.length <= params.cutoff:
            result.cut.add(s)
    return result


def report(result: EvalbResult) -> str:
    """The result as EVALB prints it: one line a sentence, then the summaries."""
    lines = ["  Sent.                        Matched  Bracket   Cross        Correct Tag",
             " ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy",
             "=" * 76]
    for i, s in enumerate(result.sentences, 1):
        lines.append(f"{i:4d}  {s.length:3d}    {s.status:d}  "
                     f"{100.0 * s.matched / s.gold_brackets if s.gold_brackets else 0.0:6.2f} "
                     f"{100.0 * s.matched / s.test_brackets if s.test_brackets else 0.0:6.2f}   "
                     f"{s.matched:3d}    {s.gold_brackets:3d}  {s.test_brackets:3d}    {s.crossing:3d}"
                     f"   {s.words:4d}  {s.correct_tags:4d}   "
                     f"{100.0 * s.correct_tags / s.words if s.words else 0.0:6.2f}")
    lines.append("=" * 76)
    total, f = result.all, result.all.figures()
    brackets = (f"                {f['recall']:6.2f} {f['precision']:6.2f} {total.matched:6d} {total.gold_brackets:5d} "
                f"{total.test_brackets:5d}  {total.crossing:5d}") if total.gold_brackets and total.test_brackets else ""
    lines.append(f"{brackets}  {total.words:5d} {total.correct_tags:5d}   {f['tagging_accuracy']:6.2f}")
    lines.append("=== Summary ===")
    for title, summary in (("All", result.all), (f"len<={result.cutoff}", result.cut)):
        f = summary.figures()
        lines += ["", f"-- {title} --",
                  f"Number of sentence        = {summary.n_sentences:6d}",
                  f"Number of Error sentence  = {summary.n_error:6d}",
                  f"Number of Skip  sentence  = {summary.n_skipped:6d}",
                  f"Number of Valid sentence  = {summary.n_valid:6d}",
                  f"Bracketing Recall         = {f['recall']:6.2f}",
                  f"Bracketing Precision      = {f['precision']:6.2f}",
                  f"Bracketing FMeasure       = {f['f1']:6.2f}",
                  f"Complete match            = {f['complete_match']:6.2f}",
                  f"Average crossing          = {f['average_crossing']:6.2f}",
                  f"No crossing               = {f['no_crossing']:6.2f}",
                  f"2 or less crossing        = {f['two_or_less_crossing']:6.2f}",
                  f"Tagging accuracy          = {f['tagging_accuracy']:6.2f}"]
    return "\n".join(lines) + "\n"
