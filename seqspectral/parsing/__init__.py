"""Dependency parsing: first- and second-order parsers with projective (Eisner) and
non-projective (maximum spanning tree) decoding, 1-best and k-best, a label classifier and
attachment scores."""

from .evaluation import AlignmentError, attachment_scores
from .labeler import DependencyLabeler
from .parser import DependencyParser
from .tree_lists import TreeLists

__all__ = ["AlignmentError", "DependencyLabeler", "DependencyParser", "TreeLists", "attachment_scores"]
