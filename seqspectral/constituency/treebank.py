"""Phrase-structure treebanks for the grammars: the bracketed reader and writer of the corpus
layer (:mod:`seqspectral.corpus.bracketed`, where the format registry finds them), under the
name the constituency package and its users import."""

from seqspectral.corpus.bracketed import (
    CORPUS_FIELDS, EMPTY_ELEMENT, EXTENSION, ROOT, Treebank, bracketed_files, clean_tree, function_free,
    parse_bracketed, read_bracketed, read_bracketed_corpus, read_files, split_by_file, tree_line, write_bracketed,
)

__all__ = ["CORPUS_FIELDS", "EMPTY_ELEMENT", "EXTENSION", "ROOT", "Treebank", "bracketed_files", "clean_tree",
           "function_free", "parse_bracketed", "read_bracketed", "read_bracketed_corpus", "read_files",
           "split_by_file", "tree_line", "write_bracketed"]
