"""Word embeddings: CCA "eigenwords" (Dhillon, Foster & Ungar) and the word2vec file format."""

from .word2vec_format import EmbeddingsFormatError, read_word2vec, write_word2vec

__all__ = ["EmbeddingsFormatError", "read_word2vec", "write_word2vec"]
