"""A dependency tree drawn in plain text: one word a line, the arcs in a gutter on the left.

Each arc runs vertically from its head's line to its dependent's line in a lane of the
gutter (shorter arcs in lanes nearer the words, so nested arcs never cross inside their
span); ``►`` marks the line of a dependent::

     ┌──► 1 From   ADP    case (head 3)
     │ ┌► 2 the    DET    det (head 3)
     └┬┴► 3 AP     PROPN  obl (head 4)
    ┌┬┴── 4 comes  VERB   root
    ││ ┌► 5 this   DET    det (head 6)
    │└─┴► 6 story  NOUN   nsubj (head 4)
    └───► 7 :      PUNCT  punct (head 4)
"""

from __future__ import annotations

from seqspectral.corpus import Sentence

from .compare import Difference

_UP, _DOWN, _LEFT, _RIGHT = 1, 2, 4, 8
#: box-drawing character of each set of directions a cell connects
_BOX = {0: " ", _UP | _DOWN: "│", _LEFT | _RIGHT: "─", _DOWN | _RIGHT: "┌", _UP | _RIGHT: "└",
        _DOWN | _LEFT: "┐", _UP | _LEFT: "┘", _UP | _DOWN | _RIGHT: "├", _UP | _DOWN | _LEFT: "┤",
        _LEFT | _RIGHT | _DOWN: "┬", _LEFT | _RIGHT | _UP: "┴", _UP | _DOWN | _LEFT | _RIGHT: "┼",
        _UP: "│", _DOWN: "│", _LEFT: "─", _RIGHT: "─"}


def arc_lanes(heads) -> list[tuple[int, int, int]]:
    """``(head, dependent, lane)`` of every non-root arc (0-based word positions): each arc in
    the lowest lane where it overlaps no arc already placed, shorter arcs placed first."""
    arcs = sorted(((int(h) - 1, d) for d, h in enumerate(heads) if h > 0), key=lambda a: (abs(a[0] - a[1]), a[1]))
    lanes: list[list[tuple[int, int]]] = []
    placed = []
    for h, d in arcs:
        low, high = min(h, d), max(h, d)
        for lane, spans in enumerate(lanes):
            if all(high < a or low > b for a, b in spans):
                break
        else:
            lane, spans = len(lanes), []
            lanes.append(spans)
        spans.append((low, high))
        placed.append((h, d, lane))
    return placed


def gutter(heads) -> list[str]:
    """The arc gutter, one string per word (all the same width), ending in ``►`` on the line of
    a dependent and ``─`` on a line that only heads arcs."""
    n = len(heads)
    placed = arc_lanes(heads)
    width = 1 + max((lane for _, _, lane in placed), default=-1)
    cells = [[0] * width for _ in range(n)]  # column 0: the lane farthest from the words
    ends = [" "] * n
    for h, d, lane in placed:
        column = width - 1 - lane
        top, bottom = min(h, d), max(h, d)
        cells[top][column] |= _DOWN | _RIGHT
        cells[bottom][column] |= _UP | _RIGHT
        for row in range(top + 1, bottom):
            cells[row][column] |= _UP | _DOWN
        for row in (top, bottom):
            for c in range(column + 1, width):
                cells[row][c] |= _LEFT | _RIGHT
        ends[d] = "►"
        if ends[h] == " ":
            ends[h] = "─"
    return ["".join(_BOX[c] for c in row) + ends[i] for i, row in enumerate(cells)]


def draw_tree(sentence: Sentence, against: Difference | None = None, gold: Difference | None = None,
              gutter_width: int = 0) -> str:
    """``sentence`` drawn as text (module docstring): id, form, UPOS, relation per line. With
    ``against`` (its difference from another analysis, say the first candidate), a word whose
    head differs is marked ``*``, whose relation alone differs ``~``, whose tag differs ``^``;
    with ``gold``, a word whose head or tag is wrong ``✗``. ``gutter_width`` pads the arcs'
    gutter on the left to that width (to align the words of several trees)."""
    lines = [line.rjust(gutter_width) for line in gutter(sentence.heads)]
    id_width = len(str(len(sentence)))
    form_width = max((len(f) for f in sentence.forms), default=0)
    upos_width = max((len(u) for u in sentence.upos), default=0)
    out = []
    for i, bar in enumerate(lines):
        marks = ""
        if against is not None:
            marks += ("*" if against.head[i] else "~" if against.label[i] else " ") + ("^" if against.tag[i] else " ")
        if gold is not None:
            marks += "✗" if gold.head[i] or gold.tag[i] else " "
        head = int(sentence.heads[i])
        where = "" if head == 0 else f" (head {head})"
        row = (f"{bar} {marks}{' ' if marks else ''}{i + 1:>{id_width}} {sentence.forms[i]:<{form_width}}  "
               f"{sentence.upos[i]:<{upos_width}}  {sentence.deprels[i]}{where}")
        out.append(row.rstrip())
    return "\n".join(out)
