"""Word embeddings: CCA "eigenwords" (Dhillon, Foster & Ungar), their word clusters, and the word2vec file format."""

from .cca import CCAEmbeddings
from .clusters import WordClusters
from .views import ViewCounts, count_views
from .word2vec_format import EmbeddingsFormatError, read_word2vec, write_word2vec

__all__ = ["CCAEmbeddings", "EmbeddingsFormatError", "ViewCounts", "count_views", "read_word2vec", "write_word2vec",
           "WordClusters"]
