"""n-best reranking of parses and tag sequences."""
