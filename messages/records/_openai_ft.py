"""OpenAI chat fine-tuning lines: ``{"messages": [...], "tools"?: [...]}``.

The messages are chat-completions messages, read and written by the ``openai``
provider. An assistant message's ``weight`` (0 or 1: whether the model learns from
it) is kept in that message's extras, and a line's other fields (``parallel_tool_calls``,
...) in the record's extras, so that both come back out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._frozen import EMPTY
from ..errors import DecodeError
from ..providers._base import Loss
from ._common import (
    Encoded,
    foreign_extras,
    formatted,
    frozen,
    list_at,
    parsed,
    provider,
    split_tools,
)
from ._record import Record, trusted_record

__all__ = ["read", "write"]

_LINE = frozenset(("messages", "tools"))


def read(obj: Mapping[str, Any]) -> Record:
    """A fine-tuning line as a Record (no key: these lines have none)."""
    listed = list_at(obj, "messages")
    assert listed is not None
    weights = {i: m["weight"] for i, m in enumerate(listed) if type(m) is dict and "weight" in m}
    wire = provider("openai")
    if weights:
        body: Mapping[str, Any] = {
            "messages": [
                {k: v for k, v in m.items() if k != "weight"} if i in weights else m
                for i, m in enumerate(listed)
            ]
        }
    else:
        body = obj
    messages = parsed(wire, body, "")
    if weights:
        messages = _weighted(messages, weights, len(listed))
    tools: tuple[Any, ...] = ()
    listed_tools = list_at(obj, "tools", required=False)
    if listed_tools:
        tools, kept = split_tools(wire, listed_tools, "tools")
        if kept:
            raise DecodeError("a fine-tuning line holds function tools only", "tools")
    extras = frozen(obj, _LINE)
    return trusted_record(None, messages, tools, extras if extras else EMPTY)


def _weighted(messages: tuple[Any, ...], weights: dict[int, Any], given: int) -> tuple[Any, ...]:
    """The messages with each ``weight`` put back into its message's extras."""
    if len(messages) != given:
        raise DecodeError("a weight on a message that was merged with another", "messages")
    out = list(messages)
    for i, weight in weights.items():
        if type(weight) is not int or weight not in (0, 1):
            raise DecodeError("expected 0 or 1", f"messages[{i}].weight")
        out[i] = out[i].with_extras({**out[i].extras, "weight": weight})
    return tuple(out)


def write(record: Record, n: int) -> Encoded:
    """A Record as a fine-tuning line; its key is a loss (these lines have none)."""
    losses: list[Loss] = []
    body, found = formatted(provider("openai"), record)
    losses.extend(found)
    wire = body["messages"]
    aligned = len(wire) == len(record.messages)
    for i, message in enumerate(record.messages):
        if "weight" in message.extras:
            if aligned:
                wire[i]["weight"] = message.extras["weight"]
            else:  # the provider merged or dropped messages: no place to put it
                losses.append(Loss(f"messages[{i}].weight", "a fine-tuning weight", "not carried"))
    line: dict[str, Any] = {"messages": wire}
    if "tools" in body:
        line["tools"] = body["tools"]
    line.update(foreign_extras(record, "openai-ft", _LINE, losses))
    if record.key is not None:
        losses.append(Loss("key", "the record's key", "not carried: fine-tuning lines have no key"))
    return line, losses
