"""A self-contained HTML page of dependency trees (inline CSS and SVG; no script, no network):
one section per sentence; for an n-best list, a table of how each candidate differs from the
first and from gold, then the candidates' trees with the arcs that differ coloured."""

from __future__ import annotations

from html import escape

from seqspectral.corpus import Sentence

from .compare import difference
from .items import Shown
from .svg import crossing_arcs, tree_svg

_CSS = """
body { font: 14px/1.4 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin: 1.6em 0 .3em; }
.text { color: #555; margin: 0 0 .6em; }
.scroll { overflow-x: auto; padding-bottom: .4em; }
svg.tree { display: block; }
svg .arc path { fill: none; stroke: #666; stroke-width: 1.4; }
svg .arc polygon { fill: #666; }
svg .arc.crossing path { stroke: #2563eb; } svg .arc.crossing polygon { fill: #2563eb; }
svg .arc.changed path { stroke: #d97706; stroke-width: 2.6; } svg .arc.changed polygon { fill: #d97706; }
svg .arc.wrong path { stroke: #dc2626; stroke-dasharray: 5 3; } svg .arc.wrong polygon { fill: #dc2626; }
svg .arc path.halo { stroke: #fff; stroke-width: 5; stroke-dasharray: none; }
svg .rel { font-size: 11px; fill: #333; paint-order: stroke; stroke: #fff; stroke-width: 4px; }
svg .form { font-size: 14px; fill: #111; } svg .upos { font-size: 11px; fill: #777; }
svg .root .form { font-weight: bold; text-decoration: underline; }
svg .word.wrong .form { fill: #dc2626; }
svg .word.retagged .upos { fill: #d97706; font-weight: bold; } svg .word.tagwrong .upos { fill: #dc2626; font-weight: bold; }
table { border-collapse: collapse; margin: .4em 0 .8em; font-size: 13px; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; } td.num { text-align: right; }
tr.best td { background: #ecfdf5; }
details { margin: .3em 0; } summary { cursor: pointer; }
.legend span { margin-right: 1.5em; } .swatch { display: inline-block; width: 2em; height: 0; vertical-align: middle;
  border-top: 3px solid; margin-right: .4em; }
"""


def html_page(items: list[Shown], title: str) -> str:
    """The page (module docstring) of ``items``, titled ``title``."""
    nbest = any(item.scores is not None for item in items)
    gold = any(item.gold is not None for item in items)
    legend = ['<p class="legend">']
    if nbest:
        legend.append('<span><i class="swatch" style="border-color:#d97706;border-top-width:4px"></i>'
                      'thick: head differs from candidate 1 (a tag that differs: orange)</span>')
    if gold:
        legend.append('<span><i class="swatch" style="border-color:#dc2626;border-top-style:dashed"></i>'
                      'red, dashed: head differs from gold (word in red; a wrong tag: red)</span>')
    if any(crossing_arcs(c.heads) for item in items for c in item.candidates):
        legend.append('<span><i class="swatch" style="border-color:#2563eb"></i>blue: an arc that crosses another '
                      '(non-projective)</span>')
    legend.append("<span><b><u>bold</u></b>: the root</span></p>")
    body = "\n".join(_section(item) for item in items)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{_CSS}</style></head>\n<body><h1>{escape(title)}</h1>{''.join(legend)}\n{body}\n</body></html>\n")


def _section(item: Shown) -> str:
    first = item.candidates[0]
    text = first.metadata.get("text") or " ".join(first.forms)
    out = [f'<section id="{escape(item.sent_id, quote=True)}"><h2>{escape(item.sent_id)}</h2>'
           f'<p class="text">{escape(text)}</p>']
    if item.gold is not None and len(item.gold) != len(first):
        raise ValueError(f"sentence {item.sent_id}: gold has {len(item.gold)} words, the file {len(first)}")
    if item.scores is None:
        out.append(_figure(first, None, item.gold))
    else:
        out.append(_table(item))
        best = _oracle(item)
        for rank, candidate in enumerate(item.candidates, 1):
            against = item.candidates[0] if rank > 1 else None
            notes = [f"rank {rank}", f"score {item.scores[rank - 1]:.4g}"]
            if against is not None:
                notes.append(f"differs from 1: {difference(candidate, against).summary()}")
            if item.gold is not None:
                notes.append(f"wrong: {difference(candidate, item.gold).summary()}")
                if rank == best:
                    notes.append("best in list")
            is_open = " open" if rank in (1, 2, best) else ""
            out.append(f"<details{is_open}><summary>{escape(' · '.join(notes))}</summary>"
                       f"{_figure(candidate, against, item.gold)}</details>")
    if item.gold is not None:
        out.append(f"<details><summary>gold</summary>{_figure(item.gold, None, None)}</details>")
    out.append("</section>")
    return "\n".join(out)


def _figure(sentence: Sentence, against: Sentence | None, gold: Sentence | None) -> str:
    arcs: dict[int, list[str]] = {}
    words: dict[int, list[str]] = {}
    for reference, changed, retagged in ((against, "changed", "retagged"), (gold, "wrong", "tagwrong")):
        if reference is None:
            continue
        diff = difference(sentence, reference)
        for i in diff.head.nonzero()[0]:
            arcs.setdefault(int(i), []).append(changed)
            if changed == "wrong":
                words.setdefault(int(i), []).append("wrong")
        for i in diff.tag.nonzero()[0]:
            words.setdefault(int(i), []).append(retagged)
    svg = tree_svg(sentence, {i: " ".join(c) for i, c in arcs.items()}, {i: " ".join(c) for i, c in words.items()})
    return f'<div class="scroll">{svg}</div>'


def _oracle(item: Shown) -> int | None:
    """The rank of the candidate with the fewest wrong heads and tags (the first of ties), with gold."""
    if item.gold is None:
        return None
    wrong = [(d.n_heads + d.n_tags) for d in (difference(c, item.gold) for c in item.candidates)]
    return wrong.index(min(wrong)) + 1


def _table(item: Shown) -> str:
    first = item.candidates[0]
    diffs = [difference(candidate, first) for candidate in item.candidates]
    kinds = _varying(diffs)
    head = f"<tr><th>rank</th><th>score</th><th>{', '.join(kinds)} differing from 1</th><th>changes from 1</th>"
    head += f"<th>wrong {', '.join(kinds)} (gold)</th></tr>" if item.gold is not None else "</tr>"
    best = _oracle(item)
    rows = [head]
    for rank, (candidate, score, diff) in enumerate(zip(item.candidates, item.scores, diffs), 1):
        changes = [f"{candidate.forms[i]} → {_head_form(candidate, i)}" for i in diff.head.nonzero()[0]]
        changes += [f"{candidate.forms[i]}: {first.upos[i]} → {candidate.upos[i]}" for i in diff.tag.nonzero()[0]]
        cells = (f'<td class="num">{rank}</td><td class="num">{score:.4g}</td>'
                 f'<td class="num">{_counts(diff, kinds)}</td><td>{escape(", ".join(changes))}</td>')
        if item.gold is not None:
            cells += f'<td class="num">{_counts(difference(candidate, item.gold), kinds)}</td>'
        rows.append(f'<tr{" class=best" if rank == best else ""}>{cells}</tr>')
    return f"<table>{''.join(rows)}</table>"


def _varying(diffs: list) -> tuple[str, ...]:
    """What the list's candidates differ in: ("heads",) for a parse list, ("tags",) for a tag
    list, both when both vary; heads when nothing does (a list of one)."""
    kinds = tuple(kind for kind, attr in (("heads", "n_heads"), ("tags", "n_tags"))
                  if any(getattr(d, attr) for d in diffs))
    return kinds or ("heads",)


def _counts(diff, kinds: tuple[str, ...]) -> str:
    return ", ".join(str(diff.n_heads if kind == "heads" else diff.n_tags) for kind in kinds)


def _head_form(sentence: Sentence, i: int) -> str:
    h = int(sentence.heads[i])
    return "root" if h == 0 else sentence.forms[h - 1]

