"""Atomic file output: write to a temporary file beside the target, then rename.

The path ``-`` is standard output (text in the given encoding; binary output, such as a
model file, only when standard output is not a terminal).

Nothing partial is ever left: on any error or interrupt (SIGINT, and SIGTERM once
:func:`seqspectral.interrupts.terminate_as_interrupt` is installed) the temporary file is
removed and the target is untouched. A replaced file keeps its permission bits.
:func:`check_output_path` checks a destination before long work, naming the user's path.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .interrupts import deferred_interrupts

#: the output path that means standard output
STDOUT = "-"

#: characters the temporary name adds to the target's (".", ".", 8 random, ".tmp")
_TEMP_EXTRA = 14


class OutputPathError(ValueError):
    """An output path that cannot be written (the command line exits with status 2)."""

    user_facing = True


def check_output_path(path: str | Path) -> Path:
    """Raise OutputPathError, naming ``path``, if a file cannot be written there."""
    if str(path) == STDOUT:
        return Path(path)
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if path.name in ("", ".", ".."):
        raise OutputPathError(f"{path}: not a file name")
    if not directory.is_dir():
        raise OutputPathError(f"{path}: the directory {str(directory)!r} does not exist")
    if len(os.fsencode(path.name)) > _name_max(directory):
        raise OutputPathError(f"{path}: file name too long ({len(os.fsencode(path.name))} bytes, at most "
                              f"{_name_max(directory)})")
    if path.is_dir():
        raise OutputPathError(f"{path}: is a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputPathError(f"{path}: the directory {str(directory)!r} is not writable")
    return path


def _name_max(directory: Path) -> int:
    try:
        return os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


@contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8"):
    """Open a temporary file beside ``path``; on success it replaces ``path`` atomically.
    ``-``: standard output."""
    if str(path) == STDOUT:
        with _stdout(mode, encoding) as f:
            yield f
        return
    path = check_output_path(path)
    binary = "b" in mode
    directory = path.parent if str(path.parent) else Path(".")
    # the temporary name stays within the directory's name limit, however long the target's
    prefix = "." + os.fsdecode(os.fsencode(path.name)[: max(_name_max(directory) - _TEMP_EXTRA, 1)]) + "."
    tmp = f = None
    try:
        with deferred_interrupts():  # an interrupt cannot fall between creating the file and recording it
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=prefix, suffix=".tmp")
            f = os.fdopen(fd, mode, encoding=None if binary else encoding)
        with f:
            os.chmod(tmp, _mode_for(path))
            yield f
        os.replace(tmp, path)
    except BaseException:
        with deferred_interrupts():
            if f is not None:
                f.close()
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except FileNotFoundError:
                    pass
        raise


@contextmanager
def _stdout(mode: str, encoding: str | None):
    """Standard output as a file of ``mode`` (text: in ``encoding``, ``\\n`` line ends)."""
    import io
    import sys

    sys.stdout.flush()
    if "b" in mode:
        if sys.stdout.isatty():
            raise OutputPathError("-: binary output (a model file) is not written to a terminal; redirect "
                                  "standard output or give a file name")
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    f = io.TextIOWrapper(sys.stdout.buffer, encoding=encoding or "utf-8", newline="\n", write_through=True)
    try:
        yield f
    finally:
        f.flush()
        f.detach()


def _mode_for(path: Path) -> int:
    """The permission bits of the file being replaced, else what open() would give."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError as e:
        if e.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write_text(path: str | Path, text: str) -> None:
    with atomic_open(path, "w") as f:
        f.write(text)
