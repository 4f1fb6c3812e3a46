"""Server-sent events: the JSON payloads of an HTTP ``text/event-stream``.

Every streaming provider sends its events as SSE (Ollama's NDJSON aside). The
framing follows the WHATWG HTML standard, "Server-sent events", section
"Interpreting an event stream": lines end in CRLF, LF or CR; a blank line ends an
event; the ``data`` lines of one event are joined with LF; one space after the
colon is not part of the value; a line starting with ``:`` is a comment (servers
send them as keep-alives); ``event``, ``id``, ``retry`` and unknown fields carry
nothing the providers' payloads do not (every payload names its own type).

Departures from the standard, each for a reason a caller relies on: a last event
without its blank line is still yielded (recorded streams and cut connections end
that way, and the payload is whole JSON or an error); ``data: [DONE]`` (the
OpenAI-style end of stream) ends the iteration; an event whose data is blank is a
keep-alive and skipped; bytes that are not UTF-8 are an error rather than
replaced (a replaced payload would be silently altered).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, Final

from .._json import json_type, loads
from ..errors import DecodeError, ValidationError

__all__ = ["DONE", "is_done", "iter_sse"]

DONE: Final = "[DONE]"
"""The data of the event that ends an OpenAI-style stream."""


def is_done(event: object) -> bool:
    """Whether ``event`` is the ``[DONE]`` end marker (``str`` or ``bytes``) passed on as an event.

    Every provider's ``StreamAccumulator.feed`` skips it, so a caller may feed the
    data of every SSE event, the marker included, to any provider.
    """
    if type(event) is str:
        return event.strip() == DONE
    return type(event) is bytes and event.strip() == b"[DONE]"


_LINE_END = re.compile(r"\r\n|\r|\n")
_BOM: Final = "\ufeff"


def iter_sse(lines: Iterable[str | bytes] | str | bytes) -> Iterator[dict[str, Any]]:
    """The JSON object of each event of a server-sent-event stream, in order.

    ``lines`` are the stream's lines, ``str`` or ``bytes`` (UTF-8), with or without
    their line ends: what ``httpx.Response.iter_lines()``, ``requests``'
    ``iter_lines()`` or a file opened in binary mode yields. A whole body given as
    one ``str`` or ``bytes`` is read as its lines. A payload that is not a JSON
    object is a DecodeError whose path names the event (``event 3``), counted
    from 1 among the events that carry data. Errors raised by ``lines`` itself (a
    dropped connection) pass through unchanged.
    """
    if isinstance(lines, (str, bytes, bytearray)):
        lines = (lines,)
    elif not isinstance(lines, Iterable):
        raise ValidationError(
            f"expected an iterable of lines (str or bytes), got {type(lines).__name__}", "lines"
        )
    return _events(lines)


def _events(lines: Iterable[object]) -> Iterator[dict[str, Any]]:
    data: list[str] = []  # the data lines of the event being read
    count = 0  # events dispatched so far
    first = True
    for n, item in enumerate(lines, 1):
        for raw in _split(item, n, count + 1):
            line = raw.removeprefix(_BOM) if first else raw
            first = False
            if line:
                _field(line, data)
            elif data:  # a blank line ends an event that has data
                count += 1
                text = "\n".join(data)
                data.clear()
                if text.strip() == DONE:
                    return
                if text.strip():  # blank data is a keep-alive
                    yield _payload(text, count)
    text = "\n".join(data)  # a last event without its blank line
    if text.strip() and text.strip() != DONE:
        yield _payload(text, count + 1)


def _split(item: object, n: int, event: int) -> list[str]:
    """The lines in one item: its line end dropped, and split at any it has inside."""
    if isinstance(item, (bytes, bytearray)):
        try:
            text = bytes(item).decode("utf-8")
        except UnicodeDecodeError:
            raise DecodeError("the stream is not valid UTF-8", f"event {event}") from None
    elif isinstance(item, str):
        text = str(item)
    else:
        raise DecodeError(f"expected a line (str or bytes), got {type(item).__name__}", f"line {n}")
    if text.endswith("\n"):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    elif text.endswith("\r"):
        text = text[:-1]
    if "\n" not in text and "\r" not in text:
        return [text]
    return _LINE_END.split(text)


def _field(line: str, data: list[str]) -> None:
    """Take one non-blank line: a ``data`` value is kept; comments and other fields are not."""
    if line[0] == ":":
        return
    name, colon, value = line.partition(":")
    if name != "data":
        return
    if colon and value[:1] == " ":
        value = value[1:]
    data.append(value)


def _payload(text: str, event: int) -> dict[str, Any]:
    """The JSON object an event carries."""
    path = f"event {event}"
    value = loads(text, path)
    if type(value) is not dict:
        raise DecodeError(f"expected a JSON object, got {json_type(value)}", path)
    return value
