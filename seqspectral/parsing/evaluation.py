"""Attachment scores of predicted dependency trees against gold ones (a pure function).

UAS: the percentage of scored words with the right head; LAS: right head and right DEPREL
(the whole label, subtype included); complete: the percentage of sentences whose scored
words all have the right head (``complete_labeled``: and the right label). Punctuation
(gold UPOS ``PUNCT``) is scored unless ``punct=False`` (DESIGN.md, Definitions). A
candidate home in :mod:`seqspectral.metrics` once that module is free to change.
"""

from __future__ import annotations

import numpy as np


class AlignmentError(ValueError):
    """Gold and predicted files that do not hold the same sentences."""

    user_facing = True


def attachment_scores(gold, pred, *, punct: bool = True, names: tuple[str, str] = ("gold", "predicted")) -> dict:
    """``uas``, ``las``, ``complete``, ``complete_labeled`` (percentages), ``n_sentences``,
    ``n_words`` (scored) of the sentences ``pred`` against ``gold`` (same sentences, same
    words, in the same order)."""
    gold, pred = list(gold), list(pred)
    if len(gold) != len(pred):
        raise AlignmentError(f"{names[0]} has {len(gold)} sentences but {names[1]} has {len(pred)}")
    head_ok = label_ok = words = 0
    complete = complete_labeled = 0
    for i, (g, p) in enumerate(zip(gold, pred)):
        if len(g) != len(p) or g.forms != p.forms:
            raise AlignmentError(
                f"sentence {i + 1} ({_where(names[0], g)}, {_where(names[1], p)}) differs: "
                f"{len(g)} words vs {len(p)}" + ("" if len(g) != len(p) else ", other word forms"))
        scored = np.ones(len(g), dtype=bool) if punct else np.array([u != "PUNCT" for u in g.upos], dtype=bool)
        heads = (np.asarray(g.heads) == np.asarray(p.heads)) & scored
        labels = heads & np.array([a == b for a, b in zip(g.deprels, p.deprels)], dtype=bool)
        n = int(scored.sum())
        words += n
        head_ok += int(heads.sum())
        label_ok += int(labels.sum())
        complete += int(heads.sum()) == n
        complete_labeled += int(labels.sum()) == n
    n_sent = len(gold)
    return {
        "uas": 100.0 * head_ok / words if words else 0.0,
        "las": 100.0 * label_ok / words if words else 0.0,
        "complete": 100.0 * complete / n_sent if n_sent else 0.0,
        "complete_labeled": 100.0 * complete_labeled / n_sent if n_sent else 0.0,
        "n_sentences": n_sent,
        "n_words": words,
    }


def _where(name: str, sentence) -> str:
    sent_id = sentence.metadata.get("sent_id")
    line = f"line {sentence.line}" if sentence.line is not None else "?"
    return f"{name} {line}" + (f" sent_id {sent_id}" if sent_id else "")
