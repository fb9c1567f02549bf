"""Progress of long steps, one rule for the whole toolkit, on a terminal or off it (a log
file, a pipe, a notebook), nothing when quiet.

Every long step opens a :func:`stage` and advances it::

    with stage("jackknife", total=n_folds, unit="fold", show=progress) as bar:
        for fold in folds:
            ...
            bar.step()

``show`` is what a function or estimator takes as its ``progress`` argument:

- ``None`` (the library's default): a bar when standard error is a terminal, else nothing;
- ``True`` (what the command line passes unless ``--quiet``): a bar on a terminal, else lines;
- ``False`` (``--quiet``): nothing.

The rule, for a stage that is shown:

- **a closing line always** when the stage ends — ``seqspectral: jackknife: 10/10 folds in
  277.1 s, 270.4 CPU s`` (CPU seconds of this process; without units ``seqspectral: NAME:
  3.2 s, 3.1 CPU s``) — on a terminal too, once its bar is gone, so the terminal keeps the
  stage times. A stage whose units are worth a line each (training epochs, folds) reports
  them with :meth:`Stage.step` — ``seqspectral: parse train: epoch 3/10 in 1.2 s, 1.1 CPU s
  (train UAS 91.20)`` — off a terminal, and its last step's line closes it;
- **a line near the start of a long stage and a heartbeat**: when nothing has been said for
  :data:`ANNOUNCE_AFTER` seconds since a stage began, and then for :data:`HEARTBEAT`
  seconds, a line says what is done so far, the stages inside it included — ``seqspectral:
  rerank build: parser: running: 45.0 s, 44.1 CPU s (epochs 3/10)`` (a thread of this
  process writes it; on a terminal the bar's clock and note are refreshed instead);
- **an interrupted stage is never reported as done**: a stage left by an exception (an
  interrupt, an error) writes no closing line; an interrupted one that has said it was
  running (its start line, a heartbeat) ends with ``interrupted after 12.3 s, 12.0 CPU s;
  not finished``.

Library code that loops (the perceptron's epochs, jackknifing's folds) opens *inner* stages
(``inner=True``): inside a shown stage they count for its heartbeat and its bar's note, and
say nothing of their own; outside any stage they do nothing. So ``rerank build``'s parser
stage says which epoch it is in, at least every 30 s (a heartbeat after 20 s of silence),
without a line per epoch.

The bar is tqdm's (imported only when a bar is drawn).
"""

from __future__ import annotations

import sys
import threading
import time

#: seconds of silence after a stage begins before a line says it is running
ANNOUNCE_AFTER = 3.0
#: seconds of silence after which a running shown stage says what it has done, off a terminal:
#: 20, so that a line comes at least every 30 s even when a loaded machine (load 22 on 2
#: cores, measured) runs the heartbeat's thread late
HEARTBEAT = 20.0
#: how often the heartbeat looks
_TICK = 1.0


def stage(desc: str, total: int | None = None, unit: str = "step", show: bool | None = None, stream=None,
          unit_scale: bool = False, inner: bool = False, announce: bool = False) -> "Stage":
    """A stage of work named ``desc`` of ``total`` units (None: unknown), reported per ``show``
    (or, ``inner``, only as part of the stage it runs in); ``unit_scale`` shows large counts as
    1.2M (tokens, say); ``announce``: off a terminal, a line when it starts (a stage known to
    be long: a build's)."""
    return Stage(desc, total, unit, show, sys.stderr if stream is None else stream, unit_scale, inner, announce)


class Stage:
    """One stage of work (see the module docstring); a context manager, ended by ``close``."""

    def __init__(self, desc: str, total: int | None, unit: str, show: bool | None, stream, unit_scale: bool = False,
                 inner: bool = False, announce: bool = False):
        self.desc, self.total, self.unit, self.stream = desc, total, unit, stream
        self.n, self.postfix, self._closed, self._stepped, self.announced = 0, "", False, False, False
        self._start, self._cpu = time.perf_counter(), time.process_time()
        self._step_start, self._step_cpu = self._start, self._cpu
        self._bar = None
        on_main = threading.current_thread() is threading.main_thread()
        if inner:
            self.mode = "inner" if on_main and _open and _open[-1].mode != "off" else "off"
        else:
            terminal = _is_terminal(stream)
            self.mode = "bar" if (show is not False and terminal) else "line" if show else "off"
        if self.mode == "bar":
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit=unit, file=stream, leave=False,
                             unit_scale=unit_scale, dynamic_ncols=True)
        if self.mode == "line" and announce:
            self._say("started")
            self.announced = True
        if self.mode != "off" and on_main:
            with _lock:
                _open.append(self)
            _start_heartbeat()

    def update(self, n: int = 1) -> None:
        """``n`` more units done."""
        self.n += n
        if self._bar is not None:
            self._bar.update(n)

    def step(self, note: str = "") -> None:
        """One unit done, reported as a stage of its own (see the module docstring): ``note``
        is shown after the bar, or ends that unit's line."""
        self.update()
        self._stepped = True
        if self._bar is not None:
            self._bar.set_postfix_str(note)
        elif self.mode == "line":
            now, cpu = time.perf_counter(), time.process_time()
            of = f"/{self.total}" if self.total is not None else ""
            self._say(f"{self.unit} {self.n}{of} in {now - self._step_start:.1f} s, {cpu - self._step_cpu:.1f} CPU s"
                      f"{f' ({note})' if note else ''}")
            self._step_start, self._step_cpu = now, cpu

    def set_postfix_str(self, text: str) -> None:
        """A short note shown after the bar (and at the end of the line): the current value, a loss."""
        self.postfix = text
        if self._bar is not None:
            self._bar.set_postfix_str(text)

    def close(self, failed: BaseException | bool = False) -> None:
        """End the stage: the bar is removed and the closing line written — none when the stage
        ``failed`` (the exception that left it: it is not done; the error says why); an
        interrupted stage that said it was running says that it did not finish."""
        if self._closed:
            return
        self._closed = True
        with _lock:
            if self in _open:
                _open.remove(self)
        if self._bar is not None:
            self._bar.close()
        if isinstance(failed, KeyboardInterrupt) and self.mode == "line" and self.announced:
            self._say(f"interrupted after {time.perf_counter() - self._start:.1f} s, "
                      f"{time.process_time() - self._cpu:.1f} CPU s; not finished")
        if failed or self.mode not in ("bar", "line") or (self.mode == "line" and self._stepped):
            return
        self._say(f"{self.done()}{time.perf_counter() - self._start:.1f} s, {time.process_time() - self._cpu:.1f} "
                  f"CPU s{f' ({self.postfix})' if self.postfix else ''}")

    def done(self) -> str:
        """What is done, ``3/10 epochs in `` (empty for a stage without units)."""
        if self.total is None and not self.n:
            return ""
        count = f"{self.n}/{self.total}" if self.total is not None else f"{self.n}"
        plural = "" if self.unit.endswith("s") or (self.total or self.n) == 1 else "s"
        return f"{count} {self.unit}{plural} in "

    def _say(self, text: str) -> None:
        with _lock:
            print(f"seqspectral: {self.desc}: {text}", file=self.stream, flush=True)
            _said[0] = time.perf_counter()

    def __enter__(self) -> "Stage":
        return self

    def __exit__(self, exc_type, exc, traceback) -> None:
        self.close(failed=exc if exc is not None else exc_type is not None)


# -- the heartbeat ---------------------------------------------------------------------------

_open: list[Stage] = []  # the stages open on the main thread, outermost first
_said = [0.0]  # when a progress line was last written
_lock = threading.Lock()
_heartbeat: list[threading.Thread] = []
_wake = threading.Event()


def _start_heartbeat() -> None:
    _wake.set()  # a new stage: the heartbeat looks again now (with the current _TICK)
    if not _heartbeat:
        thread = threading.Thread(target=_beat, name="seqspectral-progress", daemon=True)
        _heartbeat.append(thread)
        thread.start()


def _beat() -> None:
    while True:
        _wake.wait(_TICK)
        _wake.clear()
        try:
            _tick(time.perf_counter())
        except Exception:  # noqa: BLE001 - a closed stream, a stage closing meanwhile: the work goes on
            pass


def _tick(now: float) -> None:
    """Say what the innermost shown stage has done, if it has been quiet long enough; refresh a bar."""
    with _lock:
        shown = [i for i, s in enumerate(_open) if s.mode in ("bar", "line")]
        if not shown:
            return
        top = _open[shown[-1]]
        inside = [s for s in _open[shown[-1] + 1:] if s.mode == "inner" and  # not what the stage counts itself
                  not (s.unit == top.unit and s.n == top.n and s.total == top.total)]
        quiet_for = now - max(_said[0], top._start)
        announced = _said[0] >= top._start
        due = quiet_for >= (HEARTBEAT if announced else ANNOUNCE_AFTER)
    detail = "; ".join(f"{s.desc} {s.n}{f'/{s.total}' if s.total is not None else ''}" for s in inside)
    if top._bar is not None:
        if detail:
            top._bar.set_postfix_str(detail, refresh=False)
        top._bar.refresh()
    elif due:
        top.announced = True
        top._say(f"running: {top.done()}{now - top._start:.1f} s, {time.process_time() - top._cpu:.1f} CPU s"
                 f"{f' ({detail or top.postfix})' if detail or top.postfix else ''}")


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
