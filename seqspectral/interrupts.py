"""Interrupts (SIGINT, SIGTERM) at safe points only.

A KeyboardInterrupt raised while a Numba kernel calls back into the interpreter (its BLAS
products do), or while Numba loads or compiles a kernel, leaves the kernel returning with
an exception set: a SystemError or a segmentation fault; raised inside llvmlite's ctypes
callback it is printed and dropped, and the run goes on. Two mechanisms keep that from
happening: the command's handler (:func:`terminate_as_interrupt`) never raises into Numba,
llvmlite or the import system, it sends the signal again a moment later instead; and long
work runs inside :func:`deferred_interrupts`, in chunks: a signal is only recorded, and
delivered (raised) by :meth:`Deferred.check` between chunks or when the block ends.
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
_resend_pending: list[threading.Timer] = []

#: code an exception must never be raised into: Numba compiling or loading a kernel from its
#: cache (llvmlite calls back into Python through ctypes, which prints and drops the
#: exception, and a half-loaded kernel crashes the process later) and the import system
#: (numpy's import turns an interrupt into an ImportError)
_UNSAFE_PACKAGES = ("numba", "llvmlite")
#: seconds before a signal that arrived in unsafe code is sent again
RESEND_DELAY = 0.05


def _unsafe_roots() -> tuple[str, ...]:
    import importlib.util

    roots = []
    for name in _UNSAFE_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            roots.extend(os.path.join(os.path.realpath(p), "") for p in spec.submodule_search_locations)
    return tuple(roots)


_roots: tuple[str, ...] | None = None
_verdicts: dict[str, bool] = {}  # file name -> unsafe


def in_unsafe_code(frame) -> bool:
    """Whether ``frame`` or a frame that called it is Numba/llvmlite code or an import."""
    global _roots
    if _roots is None:
        _roots = _unsafe_roots()
    while frame is not None:
        name = frame.f_code.co_filename
        unsafe = _verdicts.get(name)
        if unsafe is None:
            unsafe = _verdicts[name] = name.startswith("<frozen importlib") or (
                bool(_roots) and os.path.realpath(name).startswith(_roots))
        if unsafe:
            return True
        frame = frame.f_back
    return False


def _raise_interrupt(signum, frame):
    """The handler of :func:`terminate_as_interrupt`: KeyboardInterrupt, but never raised into
    unsafe code (:func:`in_unsafe_code`) — there the signal is sent again a moment later, until
    it arrives where raising is safe. So no interrupt is lost and none lands in a kernel's loading.
    Once the work is done (:func:`done_when`), the signal is ignored."""
    if _work_done[0]():
        return
    if in_unsafe_code(frame):
        if not _resend_pending:
            timer = threading.Timer(RESEND_DELAY, _resend, (signum,))
            timer.daemon = True
            _resend_pending.append(timer)
            timer.start()
        return
    _raised.append(signum)
    raise KeyboardInterrupt(signal.Signals(signum).name)


def _resend(signum: int) -> None:
    _resend_pending.clear()
    os.kill(os.getpid(), signum)


def was_interrupted() -> bool:
    """Whether a signal has raised KeyboardInterrupt in this process — also when the code it
    interrupted turned it into another error (numpy's import does: an ImportError)."""
    return bool(_raised)


def _never() -> bool:
    return False


_work_done = [_never]  # the test of done_when


def done_when(done) -> None:
    """From now on, a signal that arrives when ``done()`` is true is ignored: the command's
    outputs are all in place, and stopping it then would report an interrupt (status 130)
    beside a complete output. What is left is saying so and exiting."""
    _work_done[0] = done


def terminate_as_interrupt() -> None:
    """Make SIGTERM raise KeyboardInterrupt, like SIGINT, so that cleanup code runs
    (temporary files removed, nothing partial written). For the main thread of a program;
    it starts the record of :func:`was_interrupted` and :func:`done_when` afresh."""
    _raised.clear()
    _work_done[0] = _never
    signal.signal(signal.SIGTERM, _raise_interrupt)
    if signal.getsignal(signal.SIGINT) in (signal.SIG_DFL, signal.default_int_handler):
        signal.signal(signal.SIGINT, _raise_interrupt)
