"""Interrupts land only where raising is safe: never inside Numba's compiling or cache loading."""

from __future__ import annotations

import os
import subprocess
import sys

# compiles fresh kernels (no cache) for a second or more while a SIGINT arrives 0.1 s in; prints
# where the KeyboardInterrupt was raised, or "lost" when the run went on to the end
SCRIPT = r"""
import os, signal, sys, threading, traceback
import numba
from seqspectral.interrupts import terminate_as_interrupt
terminate_as_interrupt()
threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    for i in range(8):
        exec(f"@numba.njit\ndef f{i}(a):\n    s = 0.0\n    for x in a:\n        s += x * {i}\n    return s\n", globals())
        globals()[f"f{i}"](__import__("numpy").ones(3))
    __import__("time").sleep(2)  # plain Python: where a deferred signal must arrive
    print("lost")
except KeyboardInterrupt as e:
    print([f.filename for f in traceback.extract_tb(e.__traceback__) if not f.filename.endswith("interrupts.py")][-1])
"""


def test_an_interrupt_during_numba_compiling_is_raised_after_it_not_inside_it_nor_lost():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NUMBA_DISABLE_JIT": "0"})
    where = proc.stdout.strip()
    assert where == "<string>", (where, proc.stderr[-2000:])  # the script's own code, not numba's or llvmlite's
    assert "Exception ignored" not in proc.stderr
