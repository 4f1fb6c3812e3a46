"""The command line's arguments: one parser, a subcommand per command, an example in each help.

Building the parser imports no command and no provider: ``--help`` and usage
errors stay as fast as ``import messages`` plus argparse.
"""

from __future__ import annotations

import argparse
import os
import sys

from .record_args import ALL_FORMATS, add_record_options, check_record_args
from .source import DEFAULT_MAX_SIZE, MAX_SIZE_ENV

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["PROG", "parse"]

#: The package's own name, so that a copy vendored under another name says its name.
PACKAGE = (__package__ or "messages._cli").rpartition(".")[0]
PROG = f"python -m {PACKAGE}"


_CONVERT_EPILOG = f"""\
formats:
  canonical  the library's own message dicts (Message.to_dict)
  envelope   agents-api message envelopes
  a provider that provider's request body (or its list of messages)

input is a JSON request body, a JSON list of messages, or JSON Lines (one
message per line); IN may be - for stdin. JSON Lines are converted line by
line when both sides are canonical or envelope, so files of any size work.

The output is the same, byte for byte, for the same input: an id the input
does not give is derived from the input (a hash of the message and of those
before it), and a time it does not give is left out.

examples:
  {PROG} convert chat.json --from openai --to anthropic -o chat.anthropic.json
  {PROG} convert history.jsonl --to gemini --strict
  cat body.json | {PROG} convert - --from anthropic --to canonical --output-format jsonl
"""

_VALIDATE_EPILOG = f"""\
Decodes every message and replays the conversation as ConversationHistory.add
would check it. The first problem is printed as "path: [rule] what is wrong"
(never the content) and the exit status is 1; --all lists every problem, the
first of them being the one printed without --all.

strict ordering: system (or developer) first, user and assistant alternate,
every tool call answered before the next user or assistant message.
lenient ordering: only the tool-call pairing rules.

examples:
  {PROG} validate chat.jsonl
  {PROG} validate body.json --format anthropic --policy lenient --all
"""

_STATS_EPILOG = f"""\
Counts messages per role, tool calls per tool name, tool calls that no result
answers, and the estimated tokens (the same counter ConversationHistory uses
to truncate).

examples:
  {PROG} stats chat.jsonl
  {PROG} stats body.json --format openai --json
"""

_REPAIR_EPILOG = f"""\
Writes the conversation changed so that it passes the ordering policy, in the
input's format (a provider's body keeps its other keys), and lists each change
on stderr as "path: rule": orphan and duplicate tool results dropped,
unanswered calls answered by an error result, same-role runs merged, a system
message put first where the policy wants one. Exit status 0 when it wrote a
valid conversation (changed or not), 1 when the input cannot be decoded.

examples:
  {PROG} repair chat.jsonl -o chat.fixed.jsonl
  {PROG} repair body.json --format anthropic --policy lenient
"""


_STORE_HELP = """\
STORE is a SQLite file (one that exists, or for import a new one ending .db,
.sqlite or .sqlite3), a JSON-file directory (one that exists, or for import a
new one ending with /), or a postgresql:// URL (needs psycopg:
pip install 'llm-messages[postgres]').
"""

_EXPORT_EPILOG = f"""\
Writes the session's messages as JSON Lines: one canonical message dict
(Message.to_dict) per line, in order, which every command and import read.
A session that was never saved is an error (exit status 1) that names the
agent's sessions; a session saved empty writes nothing. Nothing is written to
STORE.

{_STORE_HELP}
examples:
  {PROG} export chats.db --agent support-bot --session chat-42 -o chat.jsonl
  {PROG} export postgresql://app@db.internal/app --agent bot --session s1 --scope user-7
"""

_IMPORT_EPILOG = f"""\
Appends the messages of IN (any format convert reads) to the stored session,
checked against the ordering rules after the messages already stored (the
session is created when it does not exist). A message that does not decode or
breaks the order is reported with its place in IN (exit status 1) and nothing
is written, not even a new store; otherwise stderr says how many messages were
added.

{_STORE_HELP}
examples:
  {PROG} import chat.jsonl chats.db --agent support-bot --session chat-42
  {PROG} import body.json sessions/ --agent bot --session s1 --format anthropic
"""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, told the terminal's width instead of asking ``shutil``.

    argparse imports shutil to read the width, and shutil imports zlib, bz2 and
    lzma, which would be a large share of the time ``--help`` and a usage error take.
    """

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)  # argparse's own margin


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` gives it (COLUMNS, the tty, 80)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    stdout = sys.__stdout__
    if columns <= 0 and stdout is not None:
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def parse_size(text: str) -> int:
    """A size in bytes from ``64M``, ``64MiB``, ``512k``, ``1G`` or ``1000`` (units are binary)."""
    value = text.strip().upper().removesuffix("B").removesuffix("I")
    shift = {"K": 10, "M": 20, "G": 30}.get(value[-1:], 0)
    digits = value[:-1] if shift else value
    if not digits.isdigit() or not digits.isascii() or int(digits) == 0:
        raise ValueError(text)
    return int(digits) << shift


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a size such as 64M, 512K or 1G, got {text!r}"
        ) from None


def _format_name(value: str) -> str:
    from .formats import format_name

    return format_name(value)


def _add_input(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="IN", help="input file, or - for stdin")
    parser.add_argument(
        "--input-format",
        choices=("auto", "json", "jsonl"),
        default="auto",
        help="read IN as one JSON document or as JSON Lines (default: detect)",
    )
    parser.add_argument(
        "--max-size",
        metavar="SIZE",
        type=_size,
        help=(
            "the most read at once: a whole JSON document, or one line of JSON Lines "
            f"(default: {MAX_SIZE_ENV} or 64M); e.g. 512K, 1G"
        ),
    )


def _add_output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="OUT", help="output file (default: stdout)")


def _add_policy(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--policy",
        choices=("strict", "lenient"),
        default="strict",
        help="ordering rules to apply (default: strict)",
    )


def _command(commands: Any, name: str, summary: str, epilog: str) -> argparse.ArgumentParser:
    sub: argparse.ArgumentParser = commands.add_parser(
        name,
        help=summary,
        description=summary[0].upper() + summary[1:] + ".",
        epilog=epilog,
        formatter_class=_Formatter,
    )
    _add_input(sub)
    return sub


def _add_format(parser: argparse.ArgumentParser, *flags: str, dest: str, what: str) -> None:
    parser.add_argument(
        *flags,
        dest=dest,
        metavar="P",
        type=_format_name,
        choices=ALL_FORMATS,
        default="canonical",
        help=f"format of {what}: %(choices)s (default: canonical)",
    )


def _parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Convert, validate, repair and inspect LLM conversation transcripts.",
        epilog=f"run '{PROG} COMMAND --help' for the options and an example of each command",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"{PACKAGE} {__version__}")
    parser.add_argument(
        "--traceback",
        action="store_true",
        help="on an unexpected internal error, show the traceback (it may include content)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_convert(commands)
    _add_validate(commands)
    _add_stats(commands)
    _add_repair(commands)
    _add_export(commands)
    _add_import(commands)
    return parser


def _add_convert(commands: Any) -> None:
    convert = _command(
        commands,
        "convert",
        "convert a conversation between canonical, envelope and provider formats",
        _CONVERT_EPILOG,
    )
    convert.add_argument(
        "--from",
        dest="from_format",
        metavar="P",
        type=_format_name,
        choices=ALL_FORMATS,
        help="format of IN: %(choices)s (default: detected from the input's keys, else canonical)",
    )
    convert.add_argument(
        "--to",
        dest="to_format",
        metavar="Q",
        type=_format_name,
        choices=ALL_FORMATS,
        required=True,
        help="format to write (any of --from's)",
    )
    _add_output(convert)
    convert.add_argument(
        "--output-format",
        choices=("json", "jsonl"),
        help="for canonical or envelope output: a JSON list (default) or JSON Lines",
    )
    convert.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 instead of warning when the target cannot carry something",
    )
    add_record_options(convert, "convert")


def _add_validate(commands: Any) -> None:
    validate = _command(
        commands,
        "validate",
        "check that a conversation decodes and follows the ordering rules",
        _VALIDATE_EPILOG,
    )
    _add_format(validate, "--format", dest="format", what="IN")
    _add_policy(validate)
    validate.add_argument(
        "--all", action="store_true", help="report every problem found, not only the first"
    )
    add_record_options(validate, "validate")


def _add_stats(commands: Any) -> None:
    stats = _command(
        commands, "stats", "count messages, tool calls and estimated tokens", _STATS_EPILOG
    )
    _add_format(stats, "--format", dest="format", what="IN")
    stats.add_argument("--json", action="store_true", help="print the figures as JSON")
    add_record_options(stats, "stats")


def _add_repair(commands: Any) -> None:
    repair = _command(
        commands,
        "repair",
        "rewrite a conversation so that it follows the ordering rules",
        _REPAIR_EPILOG,
    )
    _add_format(repair, "--format", dest="format", what="IN and of the output")
    _add_policy(repair)
    _add_output(repair)


def _add_session(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "store", metavar="STORE", help="SQLite file, directory or postgresql:// URL"
    )
    parser.add_argument("--agent", required=True, metavar="A", help="the session's agent")
    parser.add_argument("--session", required=True, metavar="S", help="the session's name")
    parser.add_argument("--scope", metavar="U", help="the session's scope (e.g. a user)")
    parser.add_argument(
        "--table-prefix",
        metavar="PREFIX",
        help="for a postgresql:// STORE: the tables' prefix (default: messages_)",
    )


def _add_export(commands: Any) -> None:
    summary = "write a stored session as JSON Lines"
    export: argparse.ArgumentParser = commands.add_parser(
        "export",
        help=summary,
        description=summary[0].upper() + summary[1:] + ".",
        epilog=_EXPORT_EPILOG,
        formatter_class=_Formatter,
    )
    _add_session(export)
    _add_output(export)
    export.set_defaults(input=None, max_size=DEFAULT_MAX_SIZE)  # no IN to read


def _add_import(commands: Any) -> None:
    imp = _command(commands, "import", "append a transcript to a stored session", _IMPORT_EPILOG)
    _add_session(imp)
    _add_format(imp, "--format", "--from", dest="format", what="IN")
    imp.add_argument(
        "--policy",
        choices=("strict", "lenient"),
        default="lenient",
        help="ordering rules to apply (default: lenient, as ChatHistoryStorage)",
    )


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The arguments of ``argv``; SystemExit (2) on a usage error, as argparse does."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "convert":  # without --from, convert detects the format (detect.py)
        args.detect_from = args.from_format is None
        args.from_format = args.from_format or "canonical"
    check_record_args(parser, args)
    if args.command == "convert":
        if args.output_format and args.to_format not in ("canonical", "envelope"):
            parser.error("--output-format applies only to canonical or envelope output")
        if args.output_format is None:
            args.output_format = "json"
    if args.max_size is None:
        env = os.environ.get(MAX_SIZE_ENV, "").strip()
        try:
            args.max_size = parse_size(env) if env else DEFAULT_MAX_SIZE
        except ValueError:
            parser.error(f"{MAX_SIZE_ENV}: expected a size such as 64M, 512K or 1G, got {env!r}")
    return args
