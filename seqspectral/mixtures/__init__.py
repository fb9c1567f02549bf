"""Latent-variable mixture estimators beyond NLP: Spectral Experts, smooth product mixtures, convex EM."""
