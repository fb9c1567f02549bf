"""Are the columns a model reads there, and like those it was trained on?

A model trained on sentences can keep a :class:`ColumnProfile` of the columns it reads
(stored in its model-file header as ``input_profile``, like its ``reading``); before
predicting, :meth:`ColumnProfile.problems` compares new sentences with it: a column that
is mostly ``_`` where training had values (a file that was never tagged), or whose values
were mostly never seen in training (another tag set).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

#: a share above this is a problem
THRESHOLD = 0.5
#: an input column entirely empty with less than this probability under training's share of ``_``
CHANCE = 1e-3


def _values(sentences, column: str) -> Counter:
    """Counts of the column's values (FEATS: of its ``name=value`` items; ``_`` counted as such)."""
    counts: Counter = Counter()
    for s in sentences:
        values = s.column(column) if column != "feats" else (s.feats or ["_"] * len(s))
        if column == "feats":
            counts.update(item for v in values for item in (v.split("|") if v != "_" else ["_"]))
        else:
            counts.update(values)
    return counts


class MissingColumnError(ValueError):
    """Sentences lack a column the model was trained to read (every value ``_``) and nothing
    predicts it: never a silent guess."""

    user_facing = True


@dataclass
class ColumnProfile:
    """The value counts of each column a model reads, as in its training sentences."""

    counts: dict[str, dict[str, int]]

    @classmethod
    def of(cls, sentences, columns) -> ColumnProfile:
        sentences = list(sentences)
        return cls({c: dict(_values(sentences, c)) for c in columns})

    def to_json(self) -> dict:
        return {"counts": self.counts}

    @classmethod
    def from_json(cls, data: dict | None) -> ColumnProfile | None:
        if data is None:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("counts"), dict):
            raise ValueError("an input profile is a JSON object with counts")
        return cls({str(c): {str(v): int(n) for v, n in dict(counts).items()} for c, counts in data["counts"].items()})

    def missing(self, sentences) -> list[str]:
        """The columns that had values in training and have none at all in ``sentences``, where
        that is not chance: a column empty for a share p of the training words is missing from
        n words all ``_`` when p**n < :data:`CHANCE` (UPOS, LEMMA: p about 0, one word is enough;
        FEATS, empty for many words: a short sentence without features is not refused)."""
        sentences = list(sentences)
        out = []
        for column, trained in self.counts.items():
            counts = _values(sentences, column)
            if not counts or set(counts) != {"_"} or not any(v != "_" for v in trained):
                continue
            p = trained.get("_", 0) / sum(trained.values())
            if p ** counts["_"] < CHANCE:
                out.append(column)
        return out

    def require(self, sentences, model: str = "the model") -> None:
        """Raise :class:`MissingColumnError` naming the :meth:`missing` columns, if any."""
        missing = self.missing(sentences)
        if missing:
            names = ", ".join(c.upper() for c in missing)
            raise MissingColumnError(f"the input has no {names} values, which {model} was trained to read; tag the "
                                     "input first (or use a pipeline that carries its taggers: rerank build --tags "
                                     "predicted)")

    def problems(self, sentences) -> list[str]:
        """One sentence per column of ``sentences`` that is mostly empty or mostly unseen."""
        sentences = list(sentences)
        out = []
        for column, trained in self.counts.items():
            counts = _values(sentences, column)
            total, trained_total = sum(counts.values()), sum(trained.values())
            if not total:
                continue
            empty, trained_empty = counts["_"] / total, trained.get("_", 0) / max(trained_total, 1)
            if empty > THRESHOLD and trained_empty <= THRESHOLD:
                out.append(f"{column.upper()} is _ for {empty:.0%} of the words (training data: {trained_empty:.0%})")
                continue
            if not trained:  # a column read but not profiled (an older file): only its emptiness can be told
                continue
            unseen = Counter({v: n for v, n in counts.items() if v != "_" and v not in trained})
            share = sum(unseen.values()) / max(total - counts["_"], 1)
            if share > THRESHOLD:
                examples = ", ".join(v for v, _ in unseen.most_common(3))
                out.append(f"{share:.0%} of the {column.upper()} values were never seen in training (e.g. {examples})")
        return out


def has_column(sentences, column: str) -> bool:
    """Whether any word of ``sentences`` has a value in ``column`` (upos, xpos, feats or lemma)."""
    for s in sentences:
        values = s.feats if column == "feats" else s.column(column)
        if values and any(v not in ("_", "") for v in values):
            return True
    return False
