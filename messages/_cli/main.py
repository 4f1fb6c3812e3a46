"""``main``: parse the arguments, run the command, turn every failure into an exit status.

Exit status: 0 ok; 1 invalid input (one line on stderr saying where, never the
content), or a file or standard stream that cannot be read or written (a
closed stdin or stdout included); 2 usage error; 130 interrupted.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys

from ..errors import MessageError
from .parser import parse
from .source import reason
from .store import UsageFailure, refuse_sqlite_input
from .terminal import STDIN_CLOSED, STDOUT_CLOSED, Failure, stream_closed, warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["main"]

#: The module of a command whose name is not a module name.
_MODULES = {"import": "import_"}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    try:
        args = parse(argv)
    except SystemExit as exc:  # argparse: --help / --version (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        _check_streams(args)
        refuse_sqlite_input(args)
        module = _MODULES.get(args.command, args.command)
        run = importlib.import_module(f".{module}", __package__).run
        status: int = run(args)
    except UsageFailure as exc:
        warn(str(exc))
        return 2
    except (MessageError, Failure) as exc:
        warn(str(exc))
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stop quietly, without a second
        # error when the interpreter flushes stdout at exit.
        _silence_stdout()
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        where = exc.filename if isinstance(exc.filename, str) else "input"
        warn(f"{where}: {reason(exc)}")
    except Exception as exc:
        if args.traceback:
            raise
        # Never a traceback by default: its text could quote the input.
        warn(f"internal error ({type(exc).__name__}); rerun with --traceback to see where")
    else:
        return status
    return 1


def _check_streams(args: argparse.Namespace) -> None:
    """Failure, before any work, when a standard stream the command needs is closed.

    A shell's ``<&-`` or ``>&-`` leaves Python without ``sys.stdin`` or
    ``sys.stdout``; reading or writing one would fail half-way (or, for stdout,
    print nothing and exit 0).
    """
    if args.input == "-" and stream_closed(sys.stdin):
        raise Failure(STDIN_CLOSED)
    to_stdout = getattr(args, "output", None) in (None, "-")
    if to_stdout and stream_closed(sys.stdout):
        raise Failure(STDOUT_CLOSED)


def _silence_stdout() -> None:
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
