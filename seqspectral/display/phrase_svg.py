"""A phrase-structure tree as an SVG drawing (the words on the bottom row, their tags just
above, each constituent's label at its depth above the middle of its children, lines from a label to its children's), self-contained:
no script, no web font. Constituents can be given classes (``wrong``: not in gold), styled
by the page."""

from __future__ import annotations

from html import escape

#: layout in pixels
CHAR_WIDTH = 8.2
GAP = 18
ROW = 44


def phrase_tree_svg(tree, classes: dict | None = None) -> str:
    """``tree`` (an ``nltk.Tree``) as an ``<svg>`` element; ``classes``: a CSS class for the
    constituent at a position (``nltk.Tree.treepositions``), e.g. ``wrong``."""
    classes = classes or {}
    leaves = tree.treepositions("leaves")
    depth = max(len(p) for p in leaves)
    x, at = 10.0, {}
    for p in leaves:  # the words, left to right, each as wide as its text or its tag's
        width = max(len(tree[p]), len(tree[p[:-1]].label())) * CHAR_WIDTH + GAP
        at[p] = (x + width / 2, 14 + depth * ROW)
        x += width

    def place(position) -> tuple[float, float]:
        node = tree[position]
        if isinstance(node, str):
            return at[position]
        kids = [place(position + (i,)) for i in range(len(node))]
        row = depth - 1 if len(node) == 1 and isinstance(node[0], str) else len(position)  # tags above their words
        at[position] = ((kids[0][0] + kids[-1][0]) / 2, 14 + row * ROW)
        return at[position]

    place(())
    width, height = x + 10, 14 + depth * ROW + 16
    lines, labels = [], []
    for position in tree.treepositions():
        cx, cy = at[position]
        node = tree[position]
        if isinstance(node, str):
            labels.append(f'<text class="word" x="{cx:.1f}" y="{cy:.1f}" text-anchor="middle">{escape(node)}</text>')
            continue
        for i in range(len(node)):
            kx, ky = at[position + (i,)]
            lines.append(f'<line x1="{cx:.1f}" y1="{cy + 5:.1f}" x2="{kx:.1f}" y2="{ky - 15:.1f}"/>')
        kind = "tag" if len(node) == 1 and isinstance(node[0], str) else "phrase"
        cls = " ".join(filter(None, [kind, classes.get(position)]))
        labels.append(f'<text class="{cls}" x="{cx:.1f}" y="{cy:.1f}" text-anchor="middle">{escape(node.label())}'
                      f'<title>{escape(node.label())}: {escape(" ".join(node.leaves()))}</title></text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="phrase-tree" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img"><g class="edges">{"".join(lines)}</g>'
            f'{"".join(labels)}</svg>')
