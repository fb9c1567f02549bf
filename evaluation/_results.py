"""What every benchmark script does with its data and its results file.

- :func:`require_data`: the run stops at once, with exit status 2 and the missing paths
  named, when its data is absent (never a table of nothing, never the committed table
  printed as if it had been produced).
- :func:`write_results`: the results file is written once, atomically, when the run is
  complete; a run stopped part-way leaves the committed file as it was. Progress goes to
  stderr (and to a script's own JSON rows where it resumes from them).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "corpora"


def require_data(*paths, script: str | None = None, hint: str = "") -> None:
    """Exit with status 2, naming every missing path, unless all of ``paths`` exist."""
    missing = [str(p) for p in paths if not Path(p).exists()]
    if missing:
        name = script or Path(sys.argv[0]).name
        print(f"{name}: data not found: {', '.join(missing)}{'; ' + hint if hint else ''}", file=sys.stderr)
        raise SystemExit(2)


def write_results(path, text: str) -> None:
    """Write the complete results file ``path`` atomically (call it once, at the end of the run)."""
    from seqspectral.io import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text if text.endswith("\n") else text + "\n")
