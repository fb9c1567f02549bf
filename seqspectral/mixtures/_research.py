"""The research-only dependencies (the ``research`` extra): imported on first use, with a clear error."""

from __future__ import annotations

import importlib

#: the extra that installs them: ``pip install 'seqspectral[research]'``
EXTRA = "research"


class MissingResearchDependency(ImportError):
    """A research-only package (cvxpy, pgmpy) that the called method needs is not installed."""

    user_facing = True


def require(module: str, needed_by: str, package: str | None = None):
    """``module`` imported, or :class:`MissingResearchDependency` naming who needs it and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise MissingResearchDependency(
            f"{needed_by} needs {package or module}, which is not installed: "
            f"pip install 'seqspectral[{EXTRA}]' (or pip install {package or module})") from err
