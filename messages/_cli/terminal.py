"""What the command line says to people: warnings, summaries and progress, made safe to print.

Text taken from the input (keys in an error's path, file names, tool names, ids)
may hold control characters. Written raw to a terminal, an escape sequence could
move the cursor, rewrite earlier lines or retitle the window, so every line
printed here goes through :func:`printable`. The JSON output is not: ``json.dumps``
escapes it already, and it is data for programs rather than text for people.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, ClassVar

    from ..providers import Loss

__all__ = [
    "STDIN_CLOSED",
    "STDOUT_CLOSED",
    "Failure",
    "Progress",
    "isatty",
    "json_printable",
    "loss_words",
    "printable",
    "say",
    "stream_closed",
    "warn",
    "warn_losses",
]


class Failure(Exception):
    """A problem outside the input's content: a file that cannot be read, a closed stream."""


STDIN_CLOSED = "<stdin>: cannot read (standard input is closed)"
STDOUT_CLOSED = "<stdout>: cannot write (standard output is closed)"


def printable(text: str) -> str:
    """``text`` with every character that is not printable written as its escape (``\\x1b``).

    Printable is ``str.isprintable``: control and format characters (bidi
    overrides among them), separators other than the space, and lone surrogates
    (a file name that is not UTF-8) are escaped; letters, marks and symbols of
    every script are kept, and so are the zero-width (non-)joiners that emoji
    sequences and some scripts need.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in _JOINERS else repr(c)[1:-1] for c in text)


_JOINERS = "\u200c\u200d"


def json_printable(text: str) -> str:
    """JSON text with every character that is not printable written as its JSON escape.

    For JSON printed for people (``stats --json``): the same JSON value, but a
    bidi override or a C1 control inside a string (which ``json.dumps`` with
    ``ensure_ascii=False`` leaves raw) cannot act on the terminal. The text's own
    line breaks are kept.
    """
    if text.isprintable():
        return text
    return "\n".join(
        "".join(c if c.isprintable() or c in _JOINERS else _json_escape(c) for c in line)
        for line in text.split("\n")
    )


def _json_escape(c: str) -> str:
    n = ord(c)
    if n < 0x10000:
        return f"\\u{n:04x}"
    n -= 0x10000
    return f"\\u{0xD800 + (n >> 10):04x}\\u{0xDC00 + (n & 0x3FF):04x}"


def warn(line: str) -> None:
    """Write one line to stderr, escaped; nothing when stderr is closed.

    ``print(file=None)`` would write to stdout instead, into the JSON output.
    """
    stream = sys.stderr
    if stream is None:
        return
    if Progress.shown is not None:
        Progress.shown.clear()  # a line of its own, not after the count; the next show() redraws
    try:
        stream.write(printable(line) + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass  # stderr is gone (a closed pipe): the exit status still tells


def say(line: str) -> None:
    """Write one line of a result for people (not JSON) to stdout, escaped."""
    stream = sys.stdout
    if stream is not None:
        stream.write(printable(line) + "\n")


def loss_words(loss: Loss) -> str:
    """What a provider loss says after its path: what was lost and the rule, in the
    words ``str(loss)`` uses."""
    return f"{loss.what} ({loss.rule})"


def warn_losses(strict: bool, report: list[tuple[str, str, str]], target: str) -> bool:
    """Print each ``(who, path, words)`` not carried as a warning (an error with ``strict``).

    ``words`` say what was lost and the rule applied (``loss_words`` for a provider's
    Loss), never content. Returns True when ``strict`` stops the command.
    """
    kind = "error" if strict else "warning"
    for who, path, rule in report:
        warn(f"{kind}: {who}: {path}: {rule}")
    if strict and report:
        warn(f"{target} cannot carry {len(report)} thing(s) here; nothing written (--strict)")
        return True
    return False


def stream_closed(stream: IO[str] | None) -> bool:
    """Whether a standard stream is missing (its descriptor was closed) or closed."""
    if stream is None:
        return True
    try:
        return bool(stream.closed)
    except (AttributeError, ValueError):  # a stand-in stream without the attribute
        return False


def isatty(stream: IO[str] | None) -> bool:
    """Whether ``stream`` is a terminal (False for None, a closed or a fake stream)."""
    if stream is None:
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


class Progress:
    """A line count on stderr, shown only when stderr is a terminal."""

    __slots__ = ("_label", "_shown", "_stream")

    shown: ClassVar[Progress | None] = None
    """The progress line on the terminal now, which ``warn`` erases before it writes."""

    def __init__(self, stream: IO[str], label: str) -> None:
        self._stream = stream
        self._label = printable(label)
        self._shown = 0

    @staticmethod
    def for_stderr(label: str) -> Progress | None:
        """A progress display on stderr, or None when stderr is not a terminal."""
        stream = sys.stderr
        return Progress(stream, label) if isatty(stream) else None

    def show(self, lines: int) -> None:
        """Overwrite the progress line with the current count."""
        text = f"\r{self._label}: {lines:,} lines"
        self._shown = len(text)
        self._stream.write(text)
        self._stream.flush()
        Progress.shown = self

    def clear(self) -> None:
        """Erase the progress line, if one was shown."""
        if self._shown:
            self._stream.write("\r" + " " * self._shown + "\r")
            self._stream.flush()
            self._shown = 0
        if Progress.shown is self:
            Progress.shown = None
