"""Progress of long steps, one rule for the whole toolkit: a progress bar on a terminal,
one line per stage otherwise (a log file, a pipe, a notebook), nothing when quiet.

Every long step opens a :func:`stage` and advances it::

    with stage("jackknife", total=n_folds, unit="fold", show=progress) as bar:
        for fold in folds:
            ...
            bar.update()

``show`` is what a function or estimator takes as its ``progress`` argument:

- ``None`` (the library's default): a bar when standard error is a terminal, else nothing;
- ``True`` (what the command line passes unless ``--quiet``): a bar on a terminal, else one
  line when the stage ends — ``seqspectral: jackknife: 10/10 folds in 277.1 s, 270.4 CPU s``
  (CPU seconds of this process; a stage without units: ``seqspectral: NAME: 3.2 s, 3.1 CPU s``);
- ``False`` (``--quiet``): nothing.

A stage whose units are worth a line each in a log (training epochs, with their figures)
reports them with :meth:`Stage.step`: the bar advances on a terminal; otherwise each unit is
a stage of its own, one line when it ends — ``seqspectral: parse train: epoch 3/10 in 1.2 s,
1.1 CPU s (train UAS 91.20, dev UAS 76.50)`` — and the stage adds no line of its own.

The bar is tqdm's (imported only when a bar is drawn).
"""

from __future__ import annotations

import sys
import time


def stage(desc: str, total: int | None = None, unit: str = "step", show: bool | None = None, stream=None,
          unit_scale: bool = False) -> "Stage":
    """A stage of work named ``desc`` of ``total`` units (None: unknown), reported per ``show``;
    ``unit_scale`` shows large counts as 1.2M (tokens, say)."""
    return Stage(desc, total, unit, show, sys.stderr if stream is None else stream, unit_scale)


class Stage:
    """One stage of work (see the module docstring); a context manager, ended by ``close``."""

    def __init__(self, desc: str, total: int | None, unit: str, show: bool | None, stream, unit_scale: bool = False):
        self.desc, self.total, self.unit, self.stream = desc, total, unit, stream
        self.n, self.postfix, self._closed, self._stepped = 0, "", False, False
        self._start, self._cpu = time.perf_counter(), time.process_time()
        self._step_start, self._step_cpu = self._start, self._cpu
        terminal = _is_terminal(stream)
        self.mode = "bar" if (show is not False and terminal) else "line" if show else "off"
        self._bar = None
        if self.mode == "bar":
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit=unit, file=stream, leave=False,
                             unit_scale=unit_scale, dynamic_ncols=True)

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
            print(f"seqspectral: {self.desc}: {self.unit} {self.n}{of} in {now - self._step_start:.1f} s, "
                  f"{cpu - self._step_cpu:.1f} CPU s{f' ({note})' if note else ''}", file=self.stream, flush=True)
            self._step_start, self._step_cpu = now, cpu

    def set_postfix_str(self, text: str) -> None:
        """A short note shown after the bar (and at the end of the line): the current value, a loss."""
        self.postfix = text
        if self._bar is not None:
            self._bar.set_postfix_str(text)

    def close(self) -> None:
        """End the stage: the bar is removed, or the one line is written."""
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.close()
        elif self.mode == "line" and not self._stepped:
            count = ""
            if self.total is not None or self.n:
                done = f"{self.n}/{self.total}" if self.total is not None else f"{self.n}"
                count = f"{done} {self.unit}{'' if self.unit.endswith('s') or (self.total or self.n) == 1 else 's'} in "
            note = f" ({self.postfix})" if self.postfix else ""
            print(f"seqspectral: {self.desc}: {count}{time.perf_counter() - self._start:.1f} s, "
                  f"{time.process_time() - self._cpu:.1f} CPU s{note}", file=self.stream, flush=True)

    def __enter__(self) -> "Stage":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
