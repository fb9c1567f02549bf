"""Atomic file output: write to a temporary file beside the target, then rename.

The path ``-`` is standard output (text in the given encoding; binary output, such as a
model file, only when standard output is not a terminal).

Nothing partial is ever left: on any error or interrupt (SIGINT, and SIGTERM once
:func:`seqspectral.interrupts.terminate_as_interrupt` is installed) the temporary file is
removed and the target is untouched. The temporary files are also kept in a registry, so the
command line's boundary removes any that a ``with`` block left behind (an interrupt landing
in ``__exit__`` before its cleanup runs: :func:`remove_temporaries`), and the targets put in
place are recorded (:func:`committed`: once a command's outputs are all there, an interrupt
finds its work done). A replaced file keeps its permission bits. A symbolic
link is written through (the file it points to is replaced, the link stays); a destination
that is not a regular file (``/dev/null``, ``/dev/stdout``, a FIFO) is written to directly.
Errors while writing (a full disk) name the user's path. :func:`check_output_path` checks a
destination before long work, naming the user's path.
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
    if _special(path):
        if not os.access(path, os.W_OK):
            raise OutputPathError(f"{path}: not writable")
        return path
    path = _through_links(path)
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


def _special(path: Path) -> bool:
    """Whether ``path`` exists and is neither a regular file nor a directory (a device, a FIFO)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _through_links(path: Path) -> Path:
    """The file a symbolic link ``path`` points to (the path itself when it is no link)."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


@contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8"):
    """Open a temporary file beside ``path``; on success it replaces ``path`` atomically
    (module docstring: links, devices and FIFOs; ``-``: standard output)."""
    if str(path) == STDOUT:
        with _stdout(mode, encoding) as f:
            yield f
        return
    given = path
    try:
        if _special(Path(path)):
            check_output_path(path)
            with open(path, mode, encoding=None if "b" in mode else encoding) as f:
                yield f
            return
        with _atomic_open(check_output_path(path), mode, encoding) as f:
            yield f
    except OSError as e:
        temporary = e.filename is not None and Path(os.fsdecode(e.filename)).name.endswith(".tmp") and \
            Path(os.fsdecode(e.filename)).name.startswith(".")  # the atomic writer's own file: not the user's
        if (e.filename is not None and not temporary) or e.errno in (None, errno.EPIPE):
            raise
        raise OSError(e.errno, e.strerror, str(given)) from None


@contextmanager
def _atomic_open(path: Path, mode: str, encoding: str | None):
    binary = "b" in mode
    directory = path.parent if str(path.parent) else Path(".")
    # the temporary name stays within the directory's name limit, however long the target's
    prefix = "." + os.fsdecode(os.fsencode(path.name)[: max(_name_max(directory) - _TEMP_EXTRA, 1)]) + "."
    tmp = f = None
    try:
        with deferred_interrupts():  # an interrupt cannot fall between creating the file and recording it
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=prefix, suffix=".tmp")
            _temporaries.add(tmp)
            f = os.fdopen(fd, mode, encoding=None if binary else encoding)
        with f:
            os.chmod(tmp, _mode_for(path))
            yield f
        if _groups:
            _groups[-1].append((tmp, path))
        else:
            with deferred_interrupts():  # renamed and recorded together
                _commit(tmp, path)
    except BaseException:
        with deferred_interrupts():
            if f is not None:
                f.close()
            if tmp is not None:
                _remove(tmp)
        raise


_temporaries: set[str] = set()  # the atomic writes' temporary files, from creation to rename or removal
_committed: list[str] = []  # the targets (real paths) put in place, oldest first


def _commit(tmp: str, path: Path) -> None:
    os.replace(tmp, path)
    _temporaries.discard(tmp)
    _committed.append(os.path.realpath(path))


def _remove(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    _temporaries.discard(tmp)


def remove_temporaries() -> None:
    """Remove every temporary file of an atomic write still in place: a block left without its
    cleanup (an interrupt raised in ``__exit__`` before the generator resumed). For the end of
    a command, when no write is open."""
    with deferred_interrupts():
        for tmp in list(_temporaries):
            _remove(tmp)
        _groups.clear()


def committed() -> list[str]:
    """The targets (real paths) the atomic writes of this process have put in place, oldest first."""
    return _committed


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


_groups: list[list] = []  # the open output groups: (temporary, target) pairs awaiting their rename


@contextmanager
def output_group():
    """The files :func:`atomic_open` writes inside the block replace their targets together
    when it ends without error, and none of them otherwise: a command with several outputs
    leaves all of them or none (one failing output, e.g. a full device, undoes the others)."""
    pending: list = []
    _groups.append(pending)
    try:
        yield
        with deferred_interrupts():  # the renames inside the try: an interrupt before them removes the files
            for tmp, path in pending:
                _commit(tmp, path)
    except BaseException:
        with deferred_interrupts():
            for tmp, _ in pending:
                _remove(tmp)
        raise
    finally:
        _groups.pop()


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
