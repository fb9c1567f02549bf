"""A package's public names imported when first used (PEP 562), so that importing one light
module of a package (the CLI's option lists) does not import all of it.

The package lists its names once, as the ``from .module import name`` lines of an
``if TYPE_CHECKING:`` block (which type checkers and the API reference read as usual; the
package sets ``TYPE_CHECKING = False`` itself, since importing ``typing`` costs the command
line's start-up), and ends with ``__getattr__, __dir__ = lazy_exports(__name__, __file__)``.
"""

from __future__ import annotations

import importlib
import re
import sys

_BLOCK = re.compile(r"^if TYPE_CHECKING:.*\n((?:[ \t]+.*\n|\n)+)", re.MULTILINE)
_IMPORT = re.compile(r"from \.(\w+) import (?:\(([^)]*)\)|(.*))")


def exported_names(source: str) -> dict[str, str]:
    """Name -> submodule, from the ``from .module import a, b`` lines of the ``if
    TYPE_CHECKING:`` block of a package's ``__init__.py`` source."""
    block = _BLOCK.search(source)
    if block is None:
        return {}
    return {name.strip(): module for module, grouped, names in _IMPORT.findall(block.group(1))
            for name in (grouped or names).split(",") if name.strip()}


def lazy_exports(package: str, init_file: str):
    """``(__getattr__, __dir__)`` for the package ``package`` whose ``__init__.py`` is
    ``init_file``: an exported name is imported from its submodule when first asked for,
    then kept as an attribute of the package."""
    table: dict[str, str] = {}

    def names() -> dict[str, str]:
        if not table:
            with open(init_file, encoding="utf-8") as f:
                table.update(exported_names(f.read()))
        return table

    def __getattr__(name: str):
        module = names().get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names()))

    return __getattr__, __dir__
