"""seqspectral: method-of-moments learning of latent-variable models of sequences and trees."""

__version__ = "0.1.0"
