"""NLTK's modules without NLTK's package initialiser.

``import nltk.tree`` first runs ``nltk/__init__.py``, which imports every NLTK package and,
through ``nltk.metrics`` and ``nltk.classify``, scipy.stats and scikit-learn: about 2 CPU
seconds, where the tree module itself takes 0.2. Every command that reads a bracketed tree or
tokenises raw text would pay it. :func:`nltk_module` imports the one module it is asked for
under a bare parent package. A later ``import nltk`` (the user's, or a benchmark's) runs the
real initialiser over the modules already loaded, so there is one ``nltk.Tree`` class, the one
the toolkit's trees have."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types


def nltk_module(name: str) -> types.ModuleType:
    """The module ``nltk.<name>``; NLTK's ``__init__`` is not run for it if NLTK is not imported."""
    if "nltk" in sys.modules:
        return importlib.import_module(f"nltk.{name}")
    spec = importlib.util.find_spec("nltk")
    if spec is None:
        raise ModuleNotFoundError("No module named 'nltk'", name="nltk")
    parent = types.ModuleType("nltk")
    parent.__path__ = list(spec.submodule_search_locations)
    sys.modules["nltk"] = parent
    try:
        return importlib.import_module(f"nltk.{name}")
    finally:
        del sys.modules["nltk"]
        if not any(isinstance(finder, _BindLoadedSubmodules) for finder in sys.meta_path):
            sys.meta_path.insert(0, _BindLoadedSubmodules())


class _BindLoadedSubmodules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The finder of the real ``nltk`` package, once: before its initialiser runs, the
    submodules loaded under the bare parent become its attributes (Python binds a submodule
    to its parent package only when it loads the submodule, and NLTK's initialiser reads
    ``nltk.data`` before it imports it again)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "nltk":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("nltk")
        self.loader, spec.loader = spec.loader, self
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        for name, submodule in list(sys.modules.items()):
            package, _, child = name.partition(".")
            if package == "nltk" and child and "." not in child:
                setattr(module, child, submodule)
        self.loader.exec_module(module)
