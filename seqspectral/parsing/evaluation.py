"""Attachment scores of predicted dependency trees (UAS, LAS, complete match, LAS per
relation): they live in :mod:`seqspectral.treebank_scores`, with the n-best (oracle) and
tagging scores; named here too for the parser's users."""

from seqspectral.treebank_scores import AlignmentError, attachment_scores

__all__ = ["AlignmentError", "attachment_scores"]
