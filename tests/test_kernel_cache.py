"""The first-run notice: kernels with nothing in Numba's cache are reported, compiled ones not."""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = "import json; from seqspectral.kernel_cache import uncompiled; print(json.dumps(uncompiled()))"
COMPILE = ("import numpy as np; from seqspectral.corpus._kernels import integer_lines; "
           "integer_lines(np.frombuffer(b'1 2\\n', dtype=np.uint8), 3, np.empty(2, np.int32), np.empty(2, np.int64), "
           "np.empty(2, np.int8))")


def _run(code, cache_dir):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def test_an_empty_cache_is_reported_and_a_compiled_kernel_is_not(tmp_path):
    # one process probes the empty cache, then compiles; a fresh one finds the kernel in the cache
    assert json.loads(_run(f"{PROBE}; {COMPILE}", tmp_path)) == ["seqspectral.corpus._kernels",
                                                                "seqspectral.counting._kernels",
                                                                "seqspectral.automata._kernels"]
    assert "seqspectral.corpus._kernels" not in json.loads(_run(PROBE, tmp_path))
