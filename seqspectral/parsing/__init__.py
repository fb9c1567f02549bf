"""Projective dependency parsing: first-order parser with 1-best and k-best Eisner decoding,
a label classifier and attachment scores."""

from .evaluation import AlignmentError, attachment_scores
from .labeler import DependencyLabeler
from .parser import DependencyParser

__all__ = ["AlignmentError", "DependencyLabeler", "DependencyParser", "attachment_scores"]
