"""Whether the Numba kernels are compiled yet, so the first run after an install can say why
it takes a while (about 10 s of CPU once; every later run loads them from Numba's cache)."""

from __future__ import annotations

import importlib
import os

#: the kernel modules the command line's main paths compile, and one kernel of each
KERNELS = (
    ("seqspectral.corpus._kernels", "integer_lines"),
    ("seqspectral.counting._kernels", "count_trie"),
    ("seqspectral.automata._kernels", "event_log_probs"),
)


def uncompiled() -> list[str]:
    """The kernel modules of :data:`KERNELS` with nothing in Numba's cache yet (on any
    doubt, none: this only decides whether to print a notice)."""
    missing = []
    for module, name in KERNELS:
        try:
            dispatcher = getattr(importlib.import_module(module), name)
            index = dispatcher._cache._cache_file._index_path  # numba's cache layout (stable since 0.49)
        except (AttributeError, ImportError):
            return []
        if not os.path.exists(index):
            missing.append(module)
    return missing


def compile_notice() -> str | None:
    """One line for stderr when kernels will be compiled in this run, else None."""
    missing = uncompiled()
    if not missing:
        return None
    return ("seqspectral: first run: compiling the Numba kernels (about 10 s of CPU, once; "
            "later runs load them from the cache)")
