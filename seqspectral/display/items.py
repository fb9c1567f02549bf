"""What to show: the sentences of a file grouped into n-best lists when they carry
``# nbest_rank`` (see :mod:`seqspectral.corpus.nbest`), each matched with its gold tree."""

from __future__ import annotations

from dataclasses import dataclass

from seqspectral.corpus import Sentence


@dataclass
class Shown:
    """One sentence to show: its candidates (one for a treebank; an n-best list's, best first),
    their scores (None for a treebank) and, if known, the gold tree."""

    sent_id: str
    candidates: list[Sentence]
    scores: list[float] | None = None
    gold: Sentence | None = None


def shown_items(sentences: list[Sentence], gold: list[Sentence] | None = None) -> list[Shown]:
    """``sentences`` as :class:`Shown` items: consecutive candidates of one ``sent_id`` with
    ``nbest_rank`` 1, 2, ... form one list; gold trees are matched by ``sent_id`` (by position
    when the gold file has none). Raises ValueError when a sentence has no gold twin."""
    items: list[Shown] = []
    for position, s in enumerate(sentences):
        sent_id = s.metadata.get("sent_id") or str(position + 1)
        rank = s.metadata.get("nbest_rank")
        if rank is None:
            items.append(Shown(sent_id, [s]))
            continue
        score = float(s.metadata.get("nbest_score") or "nan")
        if rank != "1" and items and items[-1].scores is not None and items[-1].sent_id == sent_id:
            items[-1].candidates.append(s)
            items[-1].scores.append(score)
        else:
            items.append(Shown(sent_id, [s], [score]))
    if gold is not None:
        by_id = {g.metadata["sent_id"]: g for g in gold if g.metadata.get("sent_id")}
        for position, item in enumerate(items):
            twin = by_id.get(item.sent_id) if by_id else (gold[position] if position < len(gold) else None)
            if twin is None:
                raise ValueError(f"sentence {item.sent_id} is not in the gold file")
            item.gold = twin
    return items
