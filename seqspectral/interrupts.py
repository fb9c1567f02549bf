"""Interrupts (SIGINT, SIGTERM) at safe points only.

A KeyboardInterrupt raised while a Numba kernel calls back into the interpreter (its BLAS
products do), or while Numba loads or compiles a kernel, leaves the kernel returning with
an exception set: a SystemError or a segmentation fault. Long work therefore runs inside
:func:`deferred_interrupts`, in chunks: a signal is only recorded, and delivered (raised)
by :meth:`Deferred.check` between chunks or when the block ends.
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Deferred:
    """The signals received inside a :func:`deferred_interrupts` block; :meth:`check` delivers
    the first one at a point the caller knows to be safe."""

    def __init__(self):
        self.received: list[int] = []
        self.previous: dict = {}

    def record(self, signum, frame) -> None:
        self.received.append(signum)

    def ignore(self) -> None:
        """Forget the signals received so far: the work they would have stopped is complete."""
        self.received.clear()

    def check(self) -> None:
        """Deliver (raise) a signal received so far; nothing when none was."""
        if self.received:
            signum = self.received[0]
            self.received.clear()
            _deliver(signum, self.previous[signum])


@contextmanager
def deferred_interrupts():
    """Record SIGINT/SIGTERM while the body runs; deliver the first one at the body's
    :meth:`Deferred.check` calls (yielded) or at its end.

    Delivery calls the handler that was installed before (KeyboardInterrupt for SIGINT);
    a signal whose disposition was the default is re-sent with that default restored.
    Blocks nest. Outside the main thread (where handlers cannot be set) the body runs
    unchanged.
    """
    deferred = Deferred()
    if threading.current_thread() is not threading.main_thread():
        yield deferred
        return
    try:
        for signum in SIGNALS:
            handler = signal.getsignal(signum)
            if handler is not signal.SIG_IGN and handler is not None:
                deferred.previous[signum] = signal.signal(signum, deferred.record)
        yield deferred
    finally:
        for signum, handler in deferred.previous.items():
            signal.signal(signum, handler)
        deferred.check()


def _deliver(signum: int, handler) -> None:
    if callable(handler):
        handler(signum, None)
    else:  # SIG_DFL: let the default action happen now
        os.kill(os.getpid(), signum)


_raised: list[int] = []  # the signals _raise_interrupt turned into KeyboardInterrupt


def _raise_interrupt(signum, frame):
    _raised.append(signum)
    raise KeyboardInterrupt(signal.Signals(signum).name)


def was_interrupted() -> bool:
    """Whether a signal has raised KeyboardInterrupt in this process — also when the code it
    interrupted turned it into another error (numpy's import does: an ImportError)."""
    return bool(_raised)


def terminate_as_interrupt() -> None:
    """Make SIGTERM raise KeyboardInterrupt, like SIGINT, so that cleanup code runs
    (temporary files removed, nothing partial written). For the main thread of a program;
    it starts the record of :func:`was_interrupted` afresh."""
    _raised.clear()
    signal.signal(signal.SIGTERM, _raise_interrupt)
    if signal.getsignal(signal.SIGINT) in (signal.SIG_DFL, signal.default_int_handler):
        signal.signal(signal.SIGINT, _raise_interrupt)
