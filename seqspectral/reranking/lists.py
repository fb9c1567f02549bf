"""n-best lists in and out of the reranker, whatever the candidates are (parses, tag
sequences): which lists can be reranked, aligned with their gold sentences, and the
reranker's choice from every list with the others passed through."""

from __future__ import annotations

from dataclasses import replace


def aligned_valid(lists, gold, problem) -> tuple[list[int], list[tuple[int, str]]]:
    """Indices of the lists that can be reranked (``problem(nbest)`` is None) and
    ``(index, reason)`` of the others. With ``gold`` (sentences, one per list, in order) a
    list over other words than its gold sentence is an
    :class:`~seqspectral.parsing.AlignmentError` naming both."""
    from seqspectral.parsing import AlignmentError

    if gold is not None and len(gold) != len(lists):
        raise AlignmentError(f"{len(lists)} n-best lists but {len(gold)} gold sentences")
    valid, problems = [], []
    for i, nbest in enumerate(lists):
        reason = problem(nbest)
        if reason:
            problems.append((i, reason))
            continue
        if gold is not None and nbest.candidates[0].forms != gold[i].forms:
            raise AlignmentError(f"n-best list {i + 1} (sent_id {nbest.sent_id}) is over other words than gold "
                                 f"sentence {i + 1}" + (f" (line {gold[i].line})" if gold[i].line else ""))
        valid.append(i)
    return valid, problems


def rerank_lists(reranker, lists, features, problem) -> tuple[list, list[tuple[int, str]]]:
    """The reranker's choice from every list, in order, each exactly once (``features(lists)``
    describes valid lists); a list that cannot be reranked gives its rank-1 candidate (a list
    with no candidate gives nothing) and is reported as ``(index, reason)``."""
    valid, problems = aligned_valid(lists, None, problem)
    choice = dict(zip(valid, reranker.choose(features([lists[i] for i in valid])).tolist())) if valid else {}
    out = []
    for i, nbest in enumerate(lists):
        if len(nbest) == 0:
            continue
        c = nbest.candidates[choice.get(i, 0)]
        out.append(replace(c, metadata={"sent_id": nbest.sent_id, **c.metadata}))
    return out, problems
