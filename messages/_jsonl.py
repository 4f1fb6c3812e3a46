"""JSON Lines: one canonical message per line.

Each line is the compact JSON of the message's canonical dict (``to_dict``), as
UTF-8 text rather than ASCII escapes, ended by ``\\n``. Three characters that some
readers take as line ends (U+2028, U+2029, U+0085) and lone surrogates (which
UTF-8 cannot encode) are written as their ``\\u`` escapes, which mean the same
inside a JSON string: every line is one line to every reader, and the text always
encodes as UTF-8. These are the bytes ``python -m messages convert --to
canonical`` writes.

Reading takes ``str`` or UTF-8 ``bytes`` lines: blank lines (spaces, tabs, line
ends) are skipped, ``\\r\\n`` line ends are read as ``\\n``, and a byte order mark
before the first line is ignored. A line that cannot be read raises DecodeError
whose path starts with its 1-based line: ``line 3`` for the line as a whole (not
JSON, not an object) and ``line 3, tool_calls[0].function.arguments`` for a
place inside the message. Messages are decoded as ``from_dict`` decodes them and,
like ``from_dict``, their order is not checked: ``ConversationHistory`` (or
``python -m messages validate``) checks the role order and the tool-call pairing.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any, cast

from ._codec import from_dict, message_to_dict
from ._json import json_type, loads
from ._message import Message
from ._part_codec import scan_once
from .errors import ROOT, DecodeError, MessageError, ValidationError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._registry import MessageRegistry

__all__ = [
    "BLANK",
    "at_line",
    "dump_jsonl",
    "encode_line",
    "from_jsonl",
    "iter_jsonl",
    "line_value",
    "to_jsonl",
]

#: What ``line_value`` returns for a blank line.
BLANK: Any = object()

#: JSON's whitespace: what may surround a line's value, and all a blank line holds.
_WHITESPACE = " \t\r\n"

_BOM = "\ufeff"

#: Characters written as ``\u`` escapes (see the module docstring).
_UNSAFE = re.compile("[\u2028\u2029\x85\ud800-\udfff]")

_encode = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), check_circular=False, allow_nan=False
).encode

_NOT_A_CONVERSATION = (str, bytes, bytearray, Mapping, Message)


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def encode_line(d: Mapping[str, Any]) -> str:
    """One canonical dict as a line of JSON Lines, ``\\n`` included."""
    try:
        text: str = _encode(d)
    except ValueError as exc:
        # An integer longer than Python's int-to-text digit limit (metadata built in
        # Python): JSON text cannot carry it.
        reason = "an integer too long" if "digits" in str(exc) else type(exc).__name__
        raise ValidationError(f"value cannot be written as JSON ({reason})") from None
    # Most lines are ASCII, and an ASCII line has nothing to escape.
    if not text.isascii() and _UNSAFE.search(text) is not None:
        text = _UNSAFE.sub(_escape, text)
    return text + "\n"


def _messages(messages: Iterable[Message]) -> Iterator[Message]:
    """The messages of a conversation, one at a time; ValidationError for anything else."""
    if isinstance(messages, _NOT_A_CONVERSATION) or not isinstance(messages, Iterable):
        raise ValidationError(
            "expected messages (a ConversationHistory, a stored session, Messages or an "
            f"iterable of Message), got {type(messages).__name__}",
            "messages",
        )
    for i, m in enumerate(messages):
        if not isinstance(m, Message):
            raise ValidationError(f"expected a Message, got {type(m).__name__}", f"messages[{i}]")
        yield m


def _lines(messages: Iterable[Message]) -> Iterator[str]:
    for m in _messages(messages):
        yield encode_line(message_to_dict(m))


def to_jsonl(messages: Iterable[Message]) -> str:
    """The messages as JSON Lines text: one canonical message per line, each ended by ``\\n``.

    ``messages`` is a ``ConversationHistory``, a stored session, ``Messages`` or any
    iterable of messages; no messages give ``""``.
    """
    return "".join(_lines(messages))


def dump_jsonl(messages: Iterable[Message], file: IO[str] | IO[bytes]) -> None:
    """Write the messages to ``file`` as JSON Lines, one line at a time.

    The lines are those of ``to_jsonl``; an iterator of messages is written as it is
    read, never held whole. ``file`` is a text file (open it with
    ``encoding="utf-8"``) or a binary one, which gets the lines' UTF-8 bytes.
    """
    if isinstance(file, (io.BufferedIOBase, io.RawIOBase)):
        write_bytes = file.write
        for line in _lines(messages):
            write_bytes(line.encode("utf-8"))
        return
    write = cast("IO[str]", file).write
    for line in _lines(messages):
        write(line)


def at_line(exc: MessageError, n: int) -> DecodeError:
    """``exc``, raised reading line ``n``, as a DecodeError whose path starts with ``line n``."""
    path = exc.path
    if not path or path == ROOT or path.startswith(ROOT + " "):  # the line as a whole
        return DecodeError(exc.message, f"line {n}")
    return DecodeError(exc.message, f"line {n}, {path}")


def line_value(line: str | bytes | bytearray, n: int) -> Any:
    """The JSON value of line ``n`` (1-based), or ``BLANK``; DecodeError at ``line n`` otherwise."""
    if line.__class__ is not str:
        if not isinstance(line, (bytes, bytearray)):
            raise DecodeError(
                f"expected a line (str or bytes), got {type(line).__name__}", f"line {n}"
            )
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise DecodeError("the line is not valid UTF-8", f"line {n}") from None
    if n == 1 and line.startswith(_BOM):
        line = line[1:]
    # The C scanner reads a line's value directly; json.loads would first match the
    # whitespace around it. Anything unusual (leading whitespace, any error) is read
    # again by _json.loads, which gives the documented DecodeError.
    try:
        value, end = scan_once(line, 0)
    except Exception:
        pass
    else:
        if not line[end:].strip(_WHITESPACE):
            return value
    if not line.strip(_WHITESPACE):
        return BLANK
    try:
        return loads(line)
    except DecodeError as exc:
        raise at_line(exc, n) from None


def _decoded(lines: Iterable[str | bytes], registry: MessageRegistry | None) -> Iterator[Message]:
    for n, line in enumerate(lines, 1):
        value = line_value(line, n)
        if value is BLANK:
            continue
        if type(value) is not dict:
            raise DecodeError(f"expected a message object, got {json_type(value)}", f"line {n}")
        try:
            yield from_dict(value, registry)
        except DecodeError as exc:
            raise at_line(exc, n) from None


def iter_jsonl(
    file: Iterable[str | bytes], *, registry: MessageRegistry | None = None
) -> Iterator[Message]:
    """The messages of JSON Lines, decoded one line at a time as they are asked for.

    ``file`` is a text or binary file, or any iterable of lines (``str`` or UTF-8
    ``bytes``, with or without their line ends). Memory does not grow with the
    number of lines. A line that cannot be read raises DecodeError at ``line N``
    (see the module docstring); the messages before it have been yielded.
    ``registry`` picks the message classes, as for ``from_dict``.
    """
    if isinstance(file, (str, bytes, bytearray)) or not isinstance(file, Iterable):
        raise ValidationError(
            "expected a file or an iterable of lines (for JSON Lines text, use from_jsonl), "
            f"got {type(file).__name__}",
            "file",
        )
    return _decoded(file, registry)


def from_jsonl(
    text: str | bytes | bytearray, *, registry: MessageRegistry | None = None
) -> list[Message]:
    """The messages of JSON Lines text (``str`` or UTF-8 ``bytes``), in order.

    As ``iter_jsonl``, all at once; the order of roles and tool results is not
    checked (as ``from_dict``).
    """
    if isinstance(text, str):
        lines: list[str] | list[bytes] = text.split("\n")
    elif isinstance(text, (bytes, bytearray)):
        lines = bytes(text).split(b"\n")
    else:
        raise DecodeError(f"expected JSON Lines text (str or bytes), got {type(text).__name__}")
    return list(_decoded(lines, registry))
