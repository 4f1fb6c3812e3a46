"""``Record``: one conversation of a dataset, with its key, its tools and the line's other fields."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import _build
from .._frozen import EMPTY, FrozenDict, freeze_mapping
from .._message import Message
from ..errors import ValidationError, ident
from ..tools._tool_definition import ToolDefinition

__all__ = ["Record"]


@dataclass(frozen=True, slots=True)
class Record:
    """One line of a dataset: a conversation, the tools it may call, and its key.

    ``key`` is the line's ``custom_id`` (OpenAI and Anthropic batches), ``key``
    (Gemini batches and canonical lines) or ``id`` (ShareGPT), None when the line
    has none. ``extras`` holds the line's other fields as the format wrote them
    (a batch line's request options under ``body``, ``params`` or ``request``,
    its ``url``; other top-level keys under their own names), deeply frozen.
    """

    key: str | None
    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...] = ()
    extras: Mapping[str, Any] = field(default=EMPTY)

    def __post_init__(self) -> None:
        if self.key is not None and not isinstance(self.key, str):
            raise ValidationError(f"expected str or None, got {type(self.key).__name__}", "key")
        object.__setattr__(self, "messages", _items(self.messages, Message, "messages"))
        object.__setattr__(self, "tools", _items(self.tools, ToolDefinition, "tools"))
        extras = self.extras
        if type(extras) is not FrozenDict:
            object.__setattr__(self, "extras", freeze_mapping(extras, "extras"))

    def __repr__(self) -> str:
        key = "None" if self.key is None else ident(self.key)
        extras = ", ".join(ident(k) for k in self.extras)
        return (
            f"Record(key={key}, messages={len(self.messages)}, tools={len(self.tools)}, "
            f"extras=[{extras}])"
        )


def _items(values: object, cls: type, name: str) -> tuple[Any, ...]:
    """``values`` as a tuple of ``cls`` instances; ValidationError naming the first other."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise ValidationError(
            f"expected an iterable of {cls.__name__}, got {type(values).__name__}", name
        )
    items = values if type(values) is tuple else tuple(values)
    for i, item in enumerate(items):
        if not isinstance(item, cls):
            raise ValidationError(
                f"expected a {cls.__name__}, got {type(item).__name__}", f"{name}[{i}]"
            )
    return items


def trusted_record(
    key: str | None,
    messages: tuple[Message, ...],
    tools: tuple[ToolDefinition, ...],
    extras: FrozenDict,
) -> Record:
    """A Record of values a reader checked (no second pass over the messages)."""
    return _build.trusted(Record, key, messages, tools, extras)
