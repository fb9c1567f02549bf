"""Entry point of the `seqspectral` command: argument parsing and exit statuses.

Exit status: 0 success, 2 bad usage or bad input (one line on stderr), 130 interrupted
(SIGINT or SIGTERM; nothing partial is left), 1 anything else.
Each command group lives in its own module exposing ``register(subparsers)`` (and a
one-line ``HELP``); handlers return an exit status. Only the group named on the command
line is registered in full, so ``seqspectral --help`` imports no library code; heavy
imports happen inside the handlers.
"""

from __future__ import annotations

# The first statements the toolkit runs as the program (the installed command, or python -m
# seqspectral.cli.main): SIGINT and SIGTERM are taken from here on. `_signal` is built in and
# loaded by Python's start-up (`signal` is not: its import took 25 ms at load 20), so nothing
# is imported before the handler is in place. What happens before this point is Python's
# (docs/robustness.md, "Interrupts at start-up").
import _signal
import os
import sys

#: exit status after SIGINT or SIGTERM
INTERRUPTED = 130


def _interrupted_before_start(signum, frame) -> None:
    """SIGINT or SIGTERM before :func:`main` has started: nothing has been read or written,
    so the process ends at once, as an interrupt does (status 130, one line)."""
    os.write(2, f"seqspectral: interrupted ({'SIGINT' if signum == _signal.SIGINT else 'SIGTERM'})\n".encode())
    os._exit(INTERRUPTED)


if __name__ == "__main__" or os.path.basename(sys.argv[0] if sys.argv else "") == "seqspectral":
    for _signum in (_signal.SIGINT, _signal.SIGTERM):  # not a signal the parent left ignored (a job run with &)
        if _signal.getsignal(_signum) in (_signal.SIG_DFL, _signal.default_int_handler):
            _signal.signal(_signum, _interrupted_before_start)
if __name__ == "__main__" and __spec__ is not None:  # python -m seqspectral.cli.main: the command modules'
    sys.modules[__spec__.name] = sys.modules[__name__]  # `from .main import` finds this module, not a second copy

import argparse  # noqa: E402
import errno  # noqa: E402
import importlib  # noqa: E402
import signal  # noqa: E402

# One BLAS thread unless the user says otherwise: the command's matrices are small to
# medium, and on 2 busy cores a multi-threaded OpenBLAS made an 85x85 SVD 60x slower
# (0.27 s against 0.004 s). Set before numpy is first imported, by any handler.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

#: the command groups, one module of ``seqspectral.cli`` each (the named one imported when the parser
#: is built; they import the library only inside their handlers)
COMMAND_GROUPS = ["corpus", "lm", "embed", "tree", "parse", "rerank", "evaluate", "tag", "show", "grammar"]


class UsageError(Exception):
    """Bad usage or bad input detected by a command handler: exit status 2."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only the group ``command`` gets its subcommands and options. The others
    are only named: their modules are imported for their one-line help only when no group
    is named (the listing of ``seqspectral --help``, or a name that is no group's)."""
    parser = argparse.ArgumentParser(
        prog="seqspectral",
        description="Spectral learning of latent-variable models of sequences and trees.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    listing = command not in COMMAND_GROUPS
    for group in COMMAND_GROUPS:
        if group == command:
            importlib.import_module(f"{__package__}.{group}").register(sub)
        elif listing:
            sub.add_parser(group, help=_group_help(importlib.import_module(f"{__package__}.{group}")))
        else:
            sub.add_parser(group)
    return parser


def _group_help(module) -> str:
    help_text = getattr(module, "HELP", None)
    if help_text is None:  # the first line of the module's docstring, after "`seqspectral x ...`: "
        help_text = (module.__doc__ or "").strip().split("\n")[0].split("`: ", 1)[-1].rstrip(".")
    return help_text


def _version() -> str:
    from seqspectral import __version__

    return f"seqspectral {__version__}"


def main(argv: list[str] | None = None) -> int:
    import warnings

    from seqspectral.interrupts import terminate_as_interrupt

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    if handlers[signal.SIGINT] is _interrupted_before_start:  # main has started: interrupts end it cleanly from here
        signal.signal(signal.SIGINT, signal.default_int_handler)  # on (SIGTERM: replaced below, never left default)
    terminate_as_interrupt()
    try:
        with warnings.catch_warnings():
            if argv is None:  # as the program; called in-process (tests), Python's warning machinery stays
                warnings.showwarning = _show_warning
            return _run(sys.argv[1:] if argv is None else list(argv))
    except KeyboardInterrupt as e:
        return _interrupted(str(e))
    except Exception:  # building the parser imports numpy, which turns an interrupt into an ImportError
        from seqspectral.interrupts import was_interrupted

        if not was_interrupted():
            raise
        return _interrupted("")
    finally:  # called as the program (argv None): a signal while the interpreter shuts down finds the work done
        for signum, handler in handlers.items():
            signal.signal(signum, handler if argv is not None else signal.SIG_IGN)
        written = sys.modules.get("seqspectral.io")  # not imported (--help): no output was begun
        if written is not None:
            written.remove_temporaries()  # any a with-block's interrupted __exit__ left


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as one line on stderr, without Python's source line."""
    name = "" if category is UserWarning else f" ({category.__name__})"
    print(f"seqspectral: warning: {_one_line(message)}{name}", file=sys.stderr if file is None else file)


def _interrupted(signal_name: str) -> int:
    """Say so and give the exit status. An interrupt that passed through ``exec`` of a
    string (scipy imports that way) leaves CPython marked to kill itself with SIGINT at
    exit, whatever the status; the next ``exec`` of a string clears that mark."""
    exec("pass")  # noqa: S102
    print(f"seqspectral: interrupted{f' ({signal_name})' if signal_name else ''}", file=sys.stderr)
    return INTERRUPTED


def _run(argv: list[str]) -> int:
    parser = build_parser(next((a for a in argv if not a.startswith("-")), None))
    args, extra = parser.parse_known_args(argv)  # argparse exits with status 2 on bad usage
    if extra:  # reported with the usage of the subcommand they were given to
        getattr(args, "leaf_parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(args, "quiet", False) and sys.stderr.isatty():  # like progress bars: on a terminal
        from seqspectral.kernel_cache import compile_notice

        notice = compile_notice()
        if notice:
            print(notice, file=sys.stderr)
    try:
        _check_outputs(args)
        return int(args.handler(args) or 0)
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - the boundary that turns errors into statuses
        from seqspectral.corpus.errors import CorpusFormatError
        from seqspectral.interrupts import was_interrupted

        if was_interrupted():  # an interrupt that the interrupted code turned into another error
            raise KeyboardInterrupt from None

        if isinstance(e, (UsageError, CorpusFormatError)) or _user_os_error(e):
            print(f"seqspectral: error: {_one_line(e)}", file=sys.stderr)
            return 2
        if isinstance(e, ValueError) and getattr(e, "user_facing", False):
            print(f"seqspectral: error: {_one_line(e)}", file=sys.stderr)
            return 2
        print(f"seqspectral: internal error: {type(e).__name__}: {_one_line(e)}", file=sys.stderr)
        return 1


def _check_outputs(args) -> None:
    """Every output path of the command (``outputs``: the argument names, default ``output``)
    checked before any work, so that no long run ends in an unwritable path and no output is
    written before another is refused. Once the command has put them all in place, its work is
    done: a signal from then on is ignored (``interrupts.done_when``), not reported as status 130
    beside complete outputs."""
    from seqspectral.interrupts import done_when
    from seqspectral.io import check_output_path, committed

    paths = [getattr(args, name, None) for name in getattr(args, "outputs", ("output",))]
    paths = [path for path in paths if isinstance(path, str) and path != "-"]
    for path in paths:
        check_output_path(path)
    if paths:
        wanted, before = {os.path.realpath(path) for path in paths}, len(committed())
        done_when(lambda: wanted <= set(committed()[before:]))


#: errors about a path the user gave (missing, a directory, no permission, name too long, ...)
_USER_ERRNOS = {errno.ENOENT, errno.EISDIR, errno.ENOTDIR, errno.EACCES, errno.EPERM, errno.ENAMETOOLONG,
                errno.ELOOP, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.ENXIO}


def _user_os_error(e: BaseException) -> bool:
    return isinstance(e, OSError) and e.errno in _USER_ERRNOS


def _one_line(e: BaseException) -> str:
    if isinstance(e, OSError) and e.filename:
        return f"{e.filename}: {e.strerror}"
    return " ".join(str(e).split())


if __name__ == "__main__":
    sys.exit(main())
