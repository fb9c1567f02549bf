"""spaCy in its own virtual environment, ``evaluation/.venv-spacy`` (its pins need not agree
with the project's); ``run_worker`` as in ``_peer_venv.py``."""

from __future__ import annotations

from ._peer_venv import PeerVenv

SPACY = PeerVenv("spacy", ("spacy>=3.8,<3.9",), "import spacy; assert spacy.__version__.startswith('3.8')")
run_worker = SPACY.run_worker
