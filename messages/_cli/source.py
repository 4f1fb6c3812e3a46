"""Reading the input: open it, bound what is read at once, tell JSON from JSON Lines.

Input is a JSON document (a request body, a list of messages, or one message) or
JSON Lines (one message per line), detected from the first line or forced with
``--input-format``. JSON Lines are read line by line, so a file of any length is
read in constant memory; what is read at once (a line, or the whole document) is
bounded by ``--max-size`` (default 64 MiB), so that an endless source without a
newline (``/dev/zero``) stops with a clear error instead of eating memory.
"""

from __future__ import annotations

import io
import itertools
import sys
from collections.abc import Iterable, Iterator
from functools import partial

from .._json import loads
from ..errors import DecodeError
from .terminal import STDIN_CLOSED, Failure, Progress, stream_closed

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import IO, Any

__all__ = [
    "DEFAULT_MAX_SIZE",
    "MAX_SIZE_ENV",
    "Document",
    "Lines",
    "Opened",
    "human_size",
    "reason",
]

DEFAULT_MAX_SIZE = 64 * 1024 * 1024
"""The most bytes read at once by default: one line of JSON Lines, or one whole document."""

MAX_SIZE_ENV = "MESSAGES_MAX_SIZE"
"""The environment variable that sets the limit when ``--max-size`` is not given."""

_BOM = b"\xef\xbb\xbf"
_PROGRESS_EVERY = 0x3FFF  # lines between progress updates, minus one (a bit mask)


# Plain classes, not dataclasses: this module is imported by the parser (for the
# limit's default), and defining dataclasses would slow every start of the command.


class Document:
    """A whole JSON value: a request body, a list of messages, or one message."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class Lines:
    """JSON Lines, not yet parsed: ``(line number, raw bytes)`` of each non-blank line."""

    __slots__ = ("rows",)

    def __init__(self, rows: Iterator[tuple[int, bytes]]) -> None:
        self.rows = rows


def human_size(size: int) -> str:
    """``size`` bytes as the largest binary unit that divides it (``64 MiB``, ``1000 bytes``)."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} bytes"


def _too_big(what: str, limit: int, path: str) -> DecodeError:
    return DecodeError(
        f"{what} is longer than {human_size(limit)}, the limit; "
        f"raise it with --max-size or {MAX_SIZE_ENV} (e.g. --max-size 1G)",
        path,
    )


def _open_input(spec: str, limit: int) -> tuple[IO[bytes], str]:
    if spec == "-":
        stdin = sys.stdin
        if stream_closed(stdin):
            raise Failure(STDIN_CLOSED)
        buffer = getattr(stdin, "buffer", None)
        if buffer is None:  # a text-only stream standing in for stdin (tests, embedding)
            text = stdin.read(limit + 1)
            return io.BytesIO(text.encode("utf-8", "surrogateescape")), "<stdin>"
        return buffer, "<stdin>"
    try:
        return open(spec, "rb"), spec
    except OSError as exc:
        raise Failure(f"{spec}: cannot read ({reason(exc)})") from None


def reason(exc: OSError) -> str:
    """The operating system's words for an OSError (``No such file or directory``)."""
    return exc.strerror or type(exc).__name__


def _rows(stream: IO[bytes], limit: int, progress: Progress | None) -> Iterator[tuple[int, bytes]]:
    # Runs once per line of a possibly huge file. readline(limit + 1) bounds a line
    # (iterating the file does not); the length test is the only added work per line.
    lines: Iterable[bytes] = iter(partial(stream.readline, limit + 1), b"")
    n = 0
    for n, raw in enumerate(lines, 1):
        if len(raw) > limit and raw[-1:] != b"\n":
            raise _too_big("the line", limit, f"line {n}")
        if progress is not None and not n & _PROGRESS_EVERY:
            progress.show(n)
        if not raw.isspace():
            yield n, raw
    if progress is not None:
        progress.show(n)


def _rest(stream: IO[bytes], head: bytes, limit: int, name: str) -> bytes:
    """``head`` and everything after it, refused beyond ``limit`` bytes."""
    data = head + stream.read(limit + 1 - len(head)) if len(head) <= limit else head
    if len(data) > limit:
        raise _too_big("the document", limit, name)
    return data


def _read(
    stream: IO[bytes],
    name: str,
    forced: str,
    limit: int,
    progress: Progress | None,
    rows: Iterator[tuple[int, bytes]] | None = None,
) -> Document | Lines:
    """Detect (or take as forced) JSON or JSON Lines, reading no more than needed."""
    if forced == "json":
        return Document(loads(_rest(stream, b"", limit, name).removeprefix(_BOM), name))
    if rows is None:
        rows = _rows(stream, limit, progress)
    first = next(rows, None)
    if first is None:
        if forced == "jsonl":
            return Lines(iter(()))
        raise DecodeError("the input is empty; expected JSON or JSON Lines", name)
    n, raw = first
    if n == 1 and raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
        if raw.isspace() or not raw:
            return _read(stream, name, forced, limit, progress, rows)
        first = (n, raw)
    if forced == "jsonl":
        return Lines(itertools.chain((first,), rows))
    head = raw.strip()
    if head[:1] == b"{" and head[-1:] == b"}":
        try:
            value = loads(head)
        except DecodeError:
            pass  # the first line of an object spread over several lines
        else:
            if type(value) is dict and "role" not in value:
                # One line that is not a message: a request body on a single line,
                # unless more lines follow.
                second = next(rows, None)
                if second is None:
                    return Document(value)
                return Lines(itertools.chain((first, second), rows))
            return Lines(itertools.chain((first,), rows))
    return Document(loads(_rest(stream, raw, limit, name), name))


class Opened:
    """Open and detect the input; close it (unless stdin) and clear progress on exit.

    ``name`` is the input's name for messages (``<stdin>`` for ``-``).
    """

    def __init__(self, args: argparse.Namespace, *, progress: bool = True) -> None:
        self._spec: str = args.input
        self._forced: str = args.input_format
        self._limit: int = args.max_size
        self._show_progress = progress
        self._stream: IO[bytes] | None = None
        self._progress: Progress | None = None
        self.name = ""

    def __enter__(self) -> Document | Lines:
        stream, name = _open_input(self._spec, self._limit)
        self._stream = stream
        self.name = name
        if self._show_progress:
            self._progress = Progress.for_stderr(name)
        try:
            return _read(stream, name, self._forced, self._limit, self._progress)
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.clear()
        if self._stream is not None and self._spec != "-":
            self._stream.close()
