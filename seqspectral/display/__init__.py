"""Dependency trees to look at: drawn as text for a terminal (:func:`draw_tree`) or as a
self-contained HTML page of SVG arc diagrams (:func:`html_page`), n-best candidates compared
with the first and with gold (:func:`difference`)."""

from .compare import Difference, counted, difference
from .html import html_page
from .items import Shown, shown_items
from .svg import tree_svg
from .text import draw_tree

__all__ = ["Difference", "Shown", "counted", "difference", "draw_tree", "html_page", "shown_items", "tree_svg"]
