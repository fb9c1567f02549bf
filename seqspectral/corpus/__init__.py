"""Vocabulary, flat corpora, dependency trees, readers and writers."""

from .errors import CorpusFormatError
from .sequences import Corpus
from .trees import DependencyTree, head_errors, is_projective
from .vocabulary import EOS, UNK, Vocabulary

__all__ = ["Corpus", "CorpusFormatError", "DependencyTree", "EOS", "UNK", "Vocabulary", "head_errors", "is_projective"]
