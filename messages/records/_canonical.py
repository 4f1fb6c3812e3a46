"""Canonical lines: ``{"key"?, "messages": [canonical dicts], "tools"?: [...], ...}``.

The messages are ``Message.to_dict`` dicts and the tools ``ToolDefinition.to_dict``
dicts; every other field of the record (a batch line's ``body``, ``params`` or
``request``, a ShareGPT line's extra columns) is written at the top of the line and
read back into the record's extras, so nothing is lost through this format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._codec import from_dict
from .._frozen import EMPTY
from ..errors import DecodeError, MessageError
from ..providers._base import Loss
from ..tools._tool_definition import ToolDefinition
from ._common import Encoded, Options, frozen, key_at, list_at
from ._record import Record, trusted_record

__all__ = ["read", "write"]

_LINE = frozenset(("key", "messages", "tools"))


def read(obj: Mapping[str, Any]) -> Record:
    """A canonical line as a Record."""
    key = key_at(obj, "key")
    listed = list_at(obj, "messages")
    assert listed is not None
    messages = []
    for i, d in enumerate(listed):
        try:
            messages.append(from_dict(d))
        except MessageError as exc:
            raise DecodeError(exc.message, _under(f"messages[{i}]", exc.path)) from None
    tools = []
    for i, d in enumerate(list_at(obj, "tools", required=False) or ()):
        try:
            tools.append(ToolDefinition.from_dict(d))
        except MessageError as exc:
            raise DecodeError(exc.message, _under(f"tools[{i}]", exc.path)) from None
    return trusted_record(key, tuple(messages), tuple(tools), frozen(obj, _LINE) or EMPTY)


def _under(prefix: str, path: str) -> str:
    if not path or path.startswith("$"):
        return prefix
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"


def write(record: Record, n: int, options: Options) -> Encoded:
    """A Record as a canonical line (without made-up ids and times when ``options.stamps`` is False)."""
    line: dict[str, Any] = {} if record.key is None else {"key": record.key}
    if options.stamps:
        line["messages"] = [m.to_dict() for m in record.messages]
    else:
        line["messages"] = [_unstamped(m.to_dict()) for m in record.messages]
    if record.tools:
        line["tools"] = [t.to_dict() for t in record.tools]
    losses = []
    for k, v in record.extras.items():
        if k in _LINE:
            losses.append(Loss(k, "an extras field named like a field of the line", "not carried"))
        else:
            line[k] = v
    return line, losses


def _unstamped(d: dict[str, Any]) -> dict[str, Any]:
    d.pop("id", None)
    d.pop("created_at", None)
    return d
