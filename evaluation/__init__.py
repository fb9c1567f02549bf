"""seqspectral's benchmark suite: ``python -m evaluation NAME [options]`` runs one benchmark
(``python -m evaluation`` lists them); each writes a markdown table under ``evaluation/results/``
through :mod:`evaluation.common`."""
