"""scikit-splearn (which needs numpy<2) in its own virtual environment, ``evaluation/.venv-splearn``.

``run_worker(script, payload)`` runs a worker script there (see ``_peer_venv.py`` for how data
goes in and out; a worker imports ``read_input`` / ``write_output`` from ``_peer_venv``).
"""

from __future__ import annotations

from ._peer_venv import PeerVenv

SPLEARN = PeerVenv("splearn", ("numpy<2", "scipy<1.14", "scikit-splearn"),
                   "import splearn, numpy; assert numpy.__version__ < '2'")
run_worker = SPLEARN.run_worker
