"""A dependency tree as an SVG arc diagram (the words on a line, each arc drawn above them
from head to dependent with its relation), self-contained: no script, no web font.

An arc's height is its level: one more than the highest arc nested inside its span, so
arcs never cross unless the tree is non-projective. Arcs that cross another get the class
``crossing`` (the page colours them), and every arc is drawn over a white halo, the highest
first, so where two arcs cross the lower one's line passes over a gap in the other's. The
root word has the class ``root`` (the page draws it bold). Arcs and words can be given
classes (``changed``: differs from the first candidate; ``wrong``: differs from gold),
styled by the page.
"""

from __future__ import annotations

from html import escape

from seqspectral.corpus import Sentence

#: layout in pixels
CHAR_WIDTH = 8.2  # of the page's 14px sans-serif, a little generous
GAP = 26
LEVEL_HEIGHT = 34
WORD_ROW = 22


def arc_levels(heads) -> dict[int, int]:
    """The level of each non-root arc, keyed by its dependent (0-based): 1 + the highest level
    of the arcs strictly inside its span (1 for arcs between neighbours)."""
    spans = sorted(((min(int(h) - 1, d), max(int(h) - 1, d), d) for d, h in enumerate(heads) if h > 0),
                   key=lambda s: s[1] - s[0])
    levels: dict[int, int] = {}
    done: list[tuple[int, int, int]] = []
    for low, high, d in spans:
        inside = [lvl for a, b, lvl in done if low <= a and b <= high and (a, b) != (low, high)]
        levels[d] = 1 + max(inside, default=0)
        done.append((low, high, levels[d]))
    return levels


def crossing_arcs(heads) -> set[int]:
    """The dependents (0-based) whose arcs cross another arc: spans that overlap without
    nesting (the root attachments are not drawn)."""
    spans = [(min(int(h) - 1, d), max(int(h) - 1, d), d) for d, h in enumerate(heads) if h > 0]
    return {d for a, b, d in spans for c, e, _ in spans if a < c < b < e or c < a < e < b}


def tree_svg(sentence: Sentence, arc_classes: dict[int, str] | None = None,
             word_classes: dict[int, str] | None = None) -> str:
    """``sentence`` as an ``<svg>`` element. ``arc_classes`` / ``word_classes``: a CSS class for
    the arc into a word / for the word itself (0-based), e.g. ``changed`` or ``wrong``."""
    arc_classes, word_classes = arc_classes or {}, word_classes or {}
    widths = [max(len(f), len(u)) * CHAR_WIDTH + GAP for f, u in zip(sentence.forms, sentence.upos)]
    centres, x = [], 10.0
    for w in widths:
        centres.append(x + w / 2)
        x += w
    levels = arc_levels(sentence.heads)
    crossing = crossing_arcs(sentence.heads)
    # the arcs leaving one head on one side start side by side, the lowest nearest the word
    order: dict[int, int] = {}
    for d in sorted(levels, key=levels.get):
        h = int(sentence.heads[d]) - 1
        order[d] = sum(1 for e in order if int(sentence.heads[e]) - 1 == h and (e > h) == (d > h))
    top = LEVEL_HEIGHT * max(levels.values(), default=0) + 28
    width, height = x + 10, top + 2 * WORD_ROW + 8
    base = top  # where arcs start (just above the words)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="tree" width="{width:.0f}" height="{height:.0f}" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" role="img">']
    for d, level in sorted(levels.items(), key=lambda item: -item[1]):
        h = int(sentence.heads[d]) - 1
        cls = " ".join(filter(None, ["arc", "crossing" if d in crossing else None, arc_classes.get(d)]))
        x1, x2 = centres[h] + (d > h or -1) * (4 + 4 * order[d]), centres[d]
        y = base - level * LEVEL_HEIGHT
        r = min(10.0, abs(x2 - x1) / 2)
        sign = 1 if x2 > x1 else -1
        path = (f"M{x1:.1f},{base:.1f} V{y + r:.1f} Q{x1:.1f},{y:.1f} {x1 + sign * r:.1f},{y:.1f} "
                f"H{x2 - sign * r:.1f} Q{x2:.1f},{y:.1f} {x2:.1f},{y + r:.1f} V{base - 6:.1f}")
        label_x = (x1 + x2) / 2
        relation = escape(sentence.deprels[d])
        parts.append(f'<g class="{cls}"><path class="halo" d="{path}"/><path d="{path}"/>'
                     f'<polygon points="{x2 - 4:.1f},{base - 7:.1f} {x2 + 4:.1f},{base - 7:.1f} {x2:.1f},{base:.1f}"/>'
                     f'<text class="rel" x="{label_x:.1f}" y="{y + 4:.1f}" text-anchor="middle">{relation}</text>'
                     f'<title>{escape(sentence.forms[h])} → {escape(sentence.forms[d])}: {relation}</title></g>')
    for i, (cx, form, upos) in enumerate(zip(centres, sentence.forms, sentence.upos)):
        root = "root" if int(sentence.heads[i]) == 0 else None
        cls = " ".join(filter(None, ["word", root, word_classes.get(i)]))
        parts.append(f'<g class="{cls}"><text class="form" x="{cx:.1f}" y="{base + WORD_ROW - 4:.1f}" '
                     f'text-anchor="middle">{escape(form)}</text>'
                     f'<text class="upos" x="{cx:.1f}" y="{base + 2 * WORD_ROW - 4:.1f}" text-anchor="middle">'
                     f'{escape(upos)}</text>'
                     f'<title>{i + 1} {escape(form)} {escape(upos)} {escape(sentence.deprels[i])}'
                     f'{" (root)" if int(sentence.heads[i]) == 0 else ""}</title></g>')
    parts.append("</svg>")
    return "".join(parts)
