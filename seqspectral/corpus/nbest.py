"""N-best lists as CoNLL-U (DESIGN.md): each candidate is a full sentence block carrying
``# sent_id``, ``# nbest_rank = r`` (1 = the parser's best) and ``# nbest_score = s``;
the candidates of one sentence are consecutive, ranks 1, 2, ... in order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from seqspectral.io import atomic_open

from .conllu_format import CONLLU, format_conllu
from .errors import ErrorPolicy
from .sentence import Sentence
from .tabular import iter_sentences
from .textfile import DEFAULT_ENCODING

_KEYS = ("sent_id", "nbest_rank", "nbest_score")
#: CoNLL-U without the several-roots warning: a parser trained on CoNLL-X trees proposes such candidates
_NBEST = replace(CONLLU, warn_several_roots=False)


@dataclass
class NBestList:
    """The candidate parses of one sentence, best first, with the parser's scores."""

    sent_id: str
    candidates: list[Sentence]
    scores: np.ndarray

    def __post_init__(self):
        self.scores = np.asarray(self.scores, dtype=np.float64)
        if len(self.scores) != len(self.candidates):
            raise ValueError(f"{len(self.candidates)} candidates but {len(self.scores)} scores")

    def __len__(self) -> int:
        return len(self.candidates)


def read_nbest(path, errors: str = "raise") -> list[NBestList]:
    """The n-best lists of ``path``, in file order."""
    return list(iter_nbest(path, errors))


def iter_nbest(path, errors: str = "raise", encoding: str = DEFAULT_ENCODING) -> Iterator[NBestList]:
    """The n-best lists of ``path`` one at a time (memory: one list, not the file). A score
    that is not a finite number (nan, inf, 1e400) is a bad record, like a missing one."""
    policy = ErrorPolicy(path, errors)
    current: NBestList | None = None
    for s in iter_sentences(path, _NBEST, errors, encoding, chunk=256):
        missing = [k for k in _KEYS if s.metadata.get(k) is None]
        if missing:
            policy.bad(s.line, f"n-best candidate without # {' / # '.join(missing)}")
            continue
        try:
            rank, score = int(s.metadata["nbest_rank"]), float(s.metadata["nbest_score"])
        except ValueError:
            policy.bad(s.line, f"nbest_rank must be an integer and nbest_score a number, not "
                               f"{s.metadata['nbest_rank']!r} and {s.metadata['nbest_score']!r}")
            continue
        if not math.isfinite(score):  # the line of the comment: comments are the block's first lines
            policy.bad(s.line + list(s.metadata).index("nbest_score"),
                       f"nbest_score must be a finite number, not {s.metadata['nbest_score']!r}")
            continue
        candidate = replace(s, metadata={k: v for k, v in s.metadata.items() if k not in _KEYS})
        if rank == 1:
            if current is not None:
                yield current
            current = NBestList(s.metadata["sent_id"], [candidate], [score])
        elif current is None or current.sent_id != s.metadata["sent_id"] or len(current) + 1 != rank:
            expected = 1 if current is None or current.sent_id != s.metadata["sent_id"] else len(current) + 1
            policy.bad(s.line, f"nbest_rank {rank} where {expected} was expected")
        else:
            current.candidates.append(candidate)
            current.scores = np.append(current.scores, score)
    if current is not None:
        yield current
    policy.finish()


def write_nbest(path, nbest: Iterable[NBestList]) -> None:
    """Write n-best lists (ranks 1.. in the order of ``candidates``), atomically."""
    with atomic_open(path) as f:
        for group in nbest:
            for rank, (candidate, score) in enumerate(zip(group.candidates, group.scores.tolist()), 1):
                header = {"sent_id": group.sent_id, "nbest_rank": str(rank), "nbest_score": repr(score)}
                metadata = header | {k: v for k, v in candidate.metadata.items() if k not in _KEYS}
                f.write(format_conllu(replace(candidate, metadata=metadata)))
