"""Entry point of the `seqspectral` command: argument parsing and exit statuses.

Exit status: 0 success, 2 bad usage or bad input (one line on stderr), 1 anything else.
Each command group lives in its own module exposing ``register(subparsers)``; handlers
return an exit status. Heavy imports happen inside the handlers.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: the command groups, one module of ``seqspectral.cli`` each (imported when the parser is built;
#: they import the library only inside their handlers)
COMMAND_GROUPS = ["corpus", "lm", "embed"]


class UsageError(Exception):
    """Bad usage or bad input detected by a command handler: exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="seqspectral",
        description="Spectral learning of latent-variable models of sequences and trees.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for group in COMMAND_GROUPS:
        importlib.import_module(f"{__package__}.{group}").register(sub)
    return parser


def _version() -> str:
    from seqspectral import __version__

    return f"seqspectral {__version__}"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # argparse exits with status 2 on bad usage
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        print("seqspectral: interrupted", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - the boundary that turns errors into statuses
        from seqspectral.corpus.errors import CorpusFormatError

        if isinstance(e, (UsageError, CorpusFormatError, FileNotFoundError, IsADirectoryError, PermissionError)):
            print(f"seqspectral: error: {_one_line(e)}", file=sys.stderr)
            return 2
        if isinstance(e, ValueError) and getattr(e, "user_facing", False):
            print(f"seqspectral: error: {_one_line(e)}", file=sys.stderr)
            return 2
        print(f"seqspectral: internal error: {type(e).__name__}: {_one_line(e)}", file=sys.stderr)
        return 1


def _one_line(e: BaseException) -> str:
    if isinstance(e, (FileNotFoundError, IsADirectoryError, PermissionError)) and e.filename:
        return f"{e.filename}: {e.strerror}"
    return " ".join(str(e).split())


if __name__ == "__main__":
    sys.exit(main())
