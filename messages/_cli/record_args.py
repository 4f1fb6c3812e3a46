"""The command line's ``--records`` options, and the format names they accept.

Building the parser imports nothing more than ``messages.records``' list of names.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from ..records import FORMAT_NAMES
from .formats import FORMATS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

__all__ = ["ALL_FORMATS", "RECORDS_HELP", "add_record_options", "check_record_args"]

RECORDS_HELP = f"""\
with --records, IN holds one conversation per line, in a record format:
  {", ".join(FORMAT_NAMES)}
and each line is converted (or checked, or counted) on its own, as it is read.
--jobs N shares the lines among N processes; the output is in input order
whatever N. A line that cannot be read stops the run (--on-error stop) or is
reported with its line number and skipped (--on-error skip); the last line on
stderr says how many records were read, written (or valid, or counted) and
failed, and the exit status is 1 when any failed.
"""


class _AllFormats:
    """The message formats and the record formats, as argparse ``choices``."""

    def __contains__(self, name: object) -> bool:
        return name in FORMATS or name in FORMAT_NAMES

    def __iter__(self) -> Iterator[str]:
        yield from FORMATS
        yield from (name for name in FORMAT_NAMES if name not in FORMATS)


ALL_FORMATS = _AllFormats()
"""Every name ``--from``, ``--to`` and ``--format`` accept; ``--records`` says which apply."""


def _jobs(text: str) -> int:
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"expected a number of processes (0: one per CPU), got {text!r}"
        )
    return value or (os.cpu_count() or 1)


def add_record_options(parser: argparse.ArgumentParser, command: str) -> None:
    """``--records``, ``--jobs`` and ``--on-error`` (and ``--url`` for ``convert``)."""
    parser.epilog = f"{parser.epilog or ''}\n{RECORDS_HELP}"
    parser.add_argument(
        "--records",
        action="store_true",
        help="IN holds one conversation per line (a dataset or a batch file); see below",
    )
    parser.add_argument(
        "--jobs",
        metavar="N",
        type=_jobs,
        default=1,
        help="with --records: processes to share the lines among (default: 1; 0: one per CPU)",
    )
    parser.add_argument(
        "--on-error",
        choices=("stop", "skip"),
        default="stop",
        help="with --records: stop at a line that cannot be read, or report it and go on",
    )
    if command == "convert":
        parser.add_argument(
            "--url",
            choices=("/v1/chat/completions", "/v1/responses"),
            help="with --to openai-batch: the endpoint of every line "
            "(default: the one the record came from, else chat completions)",
        )


def check_record_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A usage error when the formats do not fit ``--records`` (or its absence)."""
    names = [getattr(args, d) for d in ("from_format", "to_format", "format") if hasattr(args, d)]
    if getattr(args, "records", False):
        for name in names:
            if name not in FORMAT_NAMES:
                parser.error(
                    f"{name!r} is not a record format; with --records use one of: {', '.join(FORMAT_NAMES)}"
                )
        if getattr(args, "url", None) and args.to_format != "openai-batch":
            parser.error("--url applies only to --to openai-batch")
        return
    for name in names:
        if name not in FORMATS:
            parser.error(
                f"{name!r} is a record format: add --records (IN holds one conversation per line)"
            )
