"""A self-contained HTML page of phrase-structure trees (inline CSS and SVG; no script, no
network): one section a sentence; with gold, the constituents gold lacks in red and the
gold tree beside it, folded."""

from __future__ import annotations

from html import escape

from .phrase_compare import bracket_difference
from .phrase_svg import phrase_tree_svg

_CSS = """
body { font: 14px/1.4 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin: 1.6em 0 .3em; }
.text { color: #555; margin: 0 0 .6em; } .scroll { overflow-x: auto; padding-bottom: .4em; }
svg.phrase-tree { display: block; } svg .edges line { stroke: #888; stroke-width: 1.2; }
svg .phrase { font-size: 13px; font-weight: bold; fill: #1d4ed8; } svg .tag { font-size: 11px; fill: #777; }
svg .word { font-size: 14px; fill: #111; } svg .phrase.wrong { fill: #dc2626; text-decoration: underline; }
details { margin: .3em 0; } summary { cursor: pointer; }
"""


def phrase_html_page(trees: list, title: str, gold: list | None = None, names: list[str] | None = None) -> str:
    """The page (module docstring) of ``trees`` (``nltk.Tree``), titled ``title``; ``names``:
    each section's heading (default: its number)."""
    if gold is not None and len(gold) != len(trees):
        raise ValueError(f"{len(gold)} gold trees for {len(trees)} trees")
    names = names or [str(i) for i in range(1, len(trees) + 1)]
    sections = []
    for i, tree in enumerate(trees):
        out = [f'<section id="s{i + 1}"><h2>{escape(names[i])}</h2><p class="text">{escape(" ".join(tree.leaves()))}'
               f"</p>"]
        classes = {}
        if gold is not None:
            diff = bracket_difference(tree, gold[i])
            classes = dict.fromkeys(diff.extra, "wrong")
            out.append(f'<p class="text">{escape(diff.summary())}</p>')
        out.append(f'<div class="scroll">{phrase_tree_svg(tree, classes)}</div>')
        if gold is not None:
            out.append(f'<details><summary>gold</summary><div class="scroll">{phrase_tree_svg(gold[i])}</div></details>')
        sections.append("".join(out) + "</section>")
    legend = ('<p class="legend">red, underlined: a constituent gold does not have</p>' if gold is not None else "")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{_CSS}</style></head>\n<body><h1>{escape(title)}</h1>{legend}\n" + "\n".join(sections)
            + "\n</body></html>\n")
