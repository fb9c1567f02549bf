"""Interrupts (SIGINT, SIGTERM) at safe points only.

A KeyboardInterrupt raised while a Numba kernel calls back into the interpreter (its BLAS
products do) leaves the kernel returning with an exception set: a SystemError or a
segmentation fault. Long work therefore runs in chunks, each inside
:func:`deferred_interrupts`: a signal arriving during a chunk is only recorded, and
delivered (raised) when the chunk is over.
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def deferred_interrupts():
    """Record SIGINT/SIGTERM while the body runs; deliver the first one when it ends.

    Delivery calls the handler that was installed before (KeyboardInterrupt for SIGINT);
    a signal whose disposition was the default is re-sent with that default restored.
    Outside the main thread (where handlers cannot be set) the body runs unchanged.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def record(signum, frame):
        received.append(signum)

    previous = {}
    try:
        for signum in SIGNALS:
            handler = signal.getsignal(signum)
            if handler is not signal.SIG_IGN and handler is not None:
                previous[signum] = signal.signal(signum, record)
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if received:
            _deliver(received[0], previous[received[0]])


def _deliver(signum: int, handler) -> None:
    if callable(handler):
        handler(signum, None)
    else:  # SIG_DFL: let the default action happen now
        os.kill(os.getpid(), signum)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt(signal.Signals(signum).name)


def terminate_as_interrupt() -> None:
    """Make SIGTERM raise KeyboardInterrupt, like SIGINT, so that cleanup code runs
    (temporary files removed, nothing partial written). For the main thread of a program."""
    signal.signal(signal.SIGTERM, _raise_interrupt)
    if signal.getsignal(signal.SIGINT) is signal.SIG_DFL:
        signal.signal(signal.SIGINT, signal.default_int_handler)
