"""k-best POS tagging."""
