"""Decoding the input's messages, each with where it is in the input.

Canonical and envelope input is decoded item by item (line by line for JSON
Lines); a provider's request body is parsed whole by that provider. Each message
comes with its location (``messages[3]``, ``line 7``) and whether the input gave
its id and its ``created_at`` (see ``ids``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from .._json import json_type, loads
from .._jsonl import line_value
from ..errors import DecodeError, MessageError
from .formats import is_provider, provider_names
from .source import Document, Lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .._message import Message

__all__ = ["Decoded", "decode", "decode_all", "relocated"]

_INDEXED_PATH = re.compile(r"\[(\d+)\]\.?(.*)", re.DOTALL)


def _at_line(exc: MessageError, line: int) -> MessageError:
    """A copy of ``exc`` located at a line of JSON Lines input."""
    path = exc.path
    if path == "$" or path.startswith("$ "):  # the line as a whole
        return relocated(exc, f"line {line}")
    return relocated(exc, f"line {line}, {path}" if path else f"line {line}")


def relocated(exc: MessageError, path: str) -> MessageError:
    """A copy of ``exc`` with ``path`` as its whole path."""
    copy = exc.at("")
    copy.path = path
    return copy


def _item_decoder(fmt: str) -> Callable[[Any], Message]:
    if fmt == "canonical":
        from .._codec import from_dict

        def canonical(item: Any) -> Message:
            if type(item) is not dict:  # from_dict would take a list as a list of messages
                raise DecodeError(f"expected a message object, got {json_type(item)}")
            message: Message = from_dict(item)
            return message

        return canonical
    from .._envelope import Envelope

    def envelope(row: Any) -> Message:
        return Envelope.normalize(row).to_message()

    return envelope


#: Top-level keys of a provider's request body that hold conversation content or
#: tool definitions (which a canonical document has not), and the provider each
#: suggests. Other keys (``model``, ``temperature``, ``policy``...) are options,
#: not conversation: a document may have them.
BODY_KEYS: dict[str, str | None] = {
    "system": "anthropic",
    "systemInstruction": "gemini",
    "system_instruction": "gemini",
    "contents": "gemini",
    "tools": None,
    "functions": None,
}


def _document_items(value: Any, fmt: str) -> list[tuple[str, Any]]:
    """``(location, item)`` of each message in a canonical or envelope document."""
    if type(value) is list:
        return [(f"[{i}]", item) for i, item in enumerate(value)]
    if type(value) is dict:
        inner = value.get("messages")
        if type(inner) is list:
            _refuse_body_keys(value, fmt)
            return [(f"messages[{i}]", item) for i, item in enumerate(inner)]
        if "messages" in value:
            raise DecodeError(f"expected an array, got {json_type(inner)}", "messages")
        if "role" in value:
            return [("", value)]
        _refuse_body_keys(value, fmt)
    raise DecodeError(
        "expected a list of messages, an object with a 'messages' list, or one message; "
        f"got {json_type(value)}"
    )


def _refuse_body_keys(value: dict[str, Any], fmt: str) -> None:
    """DecodeError naming a key that holds a provider body's content, if there is one.

    Reading a request body as canonical would drop its system prompt, contents or
    tools without a word; the error says which ``--from`` reads it.
    """
    found = [key for key in value if key in BODY_KEYS]
    if not found:
        return
    guess = next((g for g in map(BODY_KEYS.get, found) if g), None)
    hint = f"--from {guess}" if guess else f"--from PROVIDER (one of {', '.join(provider_names())})"
    raise DecodeError(
        f"a {fmt} conversation has no such key (it would be lost); "
        f"for a provider's request body, use {hint}",
        found[0],
    )


class Decoded:
    """One decoded message, where it came from, and whether the input gave its id and time.

    ``loc`` is the message's place in the input (``messages[3]``, ``line 7``), or
    ``""`` when there is nothing more precise than its index. It is worked out
    only when asked for (on a problem): for a line of JSON Lines, from its number
    (``loc`` is then an int), and for a provider's request body by a second parse.
    """

    __slots__ = ("_loc", "_where", "given_created", "given_id", "index", "message")

    def __init__(
        self,
        loc: str | int,
        message: Message,
        given_id: bool,
        given_created: bool,
        where: _ProviderWhere | None = None,
        index: int = 0,
    ) -> None:
        self._loc = loc
        self.message = message
        self.given_id = given_id
        self.given_created = given_created
        self._where = where
        self.index = index

    @property
    def loc(self) -> str:
        """Where the message is in the input (``""``: only its index is known)."""
        where = self._where
        if where is not None:
            self._loc = where(self.index)
            self._where = None
        loc = self._loc
        return f"line {loc}" if type(loc) is int else str(loc)


#: Request-body keys whose content becomes the leading system message.
_INSTRUCTION_KEYS = ("system", "systemInstruction", "system_instruction")


class _ProviderWhere:
    """The input location of each message parsed from a provider's request body.

    Worked out on first use by parsing the body's instructions alone, then each
    wire message alone, and counting the messages each gives (one wire message
    may give several: a user turn with tool results). If those counts do not add
    up to the whole parse, no location is given rather than a wrong one.
    """

    __slots__ = ("_body", "_fmt", "_lines", "_table", "_total")

    def __init__(self, fmt: str, body: Any, lines: Sequence[int] | None, total: int) -> None:
        self._fmt = fmt
        self._body = body
        self._lines = lines
        self._total = total
        self._table: list[str] | None = None

    def __call__(self, index: int) -> str:
        table = self._table
        if table is None:
            table = self._table = self._locate() or []
        return table[index] if 0 <= index < len(table) else ""

    def _locate(self) -> list[str] | None:
        from ..providers import get_provider

        parse = get_provider(self._fmt).parse_messages
        body = self._body
        locs: list[str] = []
        if type(body) is list:
            items: list[Any] = body
            prefix = ""
        elif type(body) is dict:
            key = next((k for k in ("messages", "contents") if type(body.get(k)) is list), None)
            if key is None:
                return None
            items, prefix = body[key], key
            rest = {k: v for k, v in body.items() if k != key}
            rest[key] = []
            try:
                head = len(parse(rest))
            except MessageError:
                return None
            where = next((k for k in _INSTRUCTION_KEYS if k in body), "")
            locs.extend([where] * head)
        else:
            return None
        lines = self._lines
        for i, item in enumerate(items):
            try:
                count = len(parse([item]))
            except MessageError:
                return None
            loc = f"line {lines[i]}" if lines is not None else f"{prefix}[{i}]"
            locs.extend([loc] * count)
        return locs if len(locs) == self._total else None


def decode(source: Document | Lines, fmt: str) -> Iterator[Decoded]:
    """Every message, decoded lazily for JSON Lines; the first problem is raised."""
    for item in decode_all(source, fmt, keep_going=False):
        if isinstance(item, MessageError):  # never: keep_going=False raises it itself
            raise item
        yield item


def decode_all(
    source: Document | Lines, fmt: str, *, keep_going: bool = True
) -> Iterator[Decoded | MessageError]:
    """Every message, and each problem in its place in the input (raised unless ``keep_going``).

    A message that fails to decode is yielded as its error (located in the
    input) and skipped.
    """
    if is_provider(fmt):
        yield from _provider_messages(source, fmt, keep_going)
        return
    decode_item = _item_decoder(fmt)
    if isinstance(source, Lines):
        # hot path: one message per line of a possibly huge file.
        for n, raw in source.rows:
            try:
                item = line_value(raw, n)  # a DecodeError at "line n" already
            except DecodeError as exc:
                if not keep_going:
                    raise
                yield exc
                continue
            try:
                message = decode_item(item)
            except MessageError as exc:
                if not keep_going:
                    raise _at_line(exc, n) from None
                yield _at_line(exc, n)
                continue
            yield Decoded(
                n, message, item.get("id") is not None, item.get("created_at") is not None
            )
        return
    for loc, item in _document_items(source.value, fmt):
        try:
            message = decode_item(item)
        except MessageError as exc:
            if not keep_going:
                raise exc.at(loc) from None
            yield exc.at(loc)
            continue
        yield Decoded(loc, message, item.get("id") is not None, item.get("created_at") is not None)


def _provider_messages(
    source: Document | Lines, fmt: str, keep_going: bool
) -> Iterator[Decoded | MessageError]:
    from ..providers import get_provider

    lines: list[int] | None = None
    body: Any
    single = False
    if isinstance(source, Lines):
        body, lines = [], []
        for n, raw in source.rows:
            try:
                body.append(loads(raw))
            except MessageError as exc:
                if not keep_going:
                    raise _at_line(exc, n) from None
                yield _at_line(exc, n)
                continue
            lines.append(n)
    else:
        body = source.value
        if type(body) is dict and "role" in body:
            body = [body]  # one message on its own
            single = True
    try:
        parsed = get_provider(fmt).parse_messages(body)
    except MessageError as exc:
        err = _line_of_item(exc, lines) if lines is not None else exc
        if not keep_going:
            raise err from None
        yield err
        return
    # One message on its own has no place to name but itself.
    where = None if single else _ProviderWhere(fmt, body, lines, len(parsed))
    for i, message in enumerate(parsed):
        # Provider wires carry no message ids or times: the ids are derived (see ids).
        yield Decoded("", message, False, False, where, i)


def _line_of_item(exc: MessageError, lines: Sequence[int]) -> MessageError:
    """Re-locate an error at ``[i]...`` of a list read from JSON Lines to its line."""
    match = _INDEXED_PATH.fullmatch(exc.path)
    if match is None or int(match.group(1)) >= len(lines):
        return exc
    rest = match.group(2)
    line = lines[int(match.group(1))]
    return relocated(exc, f"line {line}, {rest}" if rest else f"line {line}")
