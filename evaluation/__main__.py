"""``python -m evaluation NAME [options]``: run the benchmark ``evaluation/NAME.py``;
without a name, list the benchmarks with the first line of their docstrings."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def benchmarks() -> dict[str, str]:
    """Name -> first docstring line of every benchmark (a module of this package not named
    ``_*`` and not :mod:`evaluation.common`)."""
    out = {}
    for path in sorted(HERE.glob("*.py")):
        if path.stem.startswith("_") or path.stem == "common":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        out[path.stem] = doc.strip().splitlines()[0] if doc.strip() else ""
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    known = benchmarks()
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m evaluation NAME [options]   (python -m evaluation NAME --help)\n")
        for name, line in known.items():
            print(f"  {name:<18} {line}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in known:
        print(f"python -m evaluation: no benchmark {name!r}; one of: {', '.join(known)}", file=sys.stderr)
        return 2
    sys.argv = [f"python -m evaluation {name}", *rest]
    status = importlib.import_module(f"evaluation.{name}").main()  # reads sys.argv[1:]
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
