"""The trusted path: how decoders and provider parsers build value objects they have checked.

A public constructor checks its arguments in ``__post_init__``. A decoder or a
provider parser has already checked every value while reading it (so that it can name
the path of a bad one), so it builds through the functions here instead, which store
the values as they are and run no check a second time. This is the only module that
builds objects around their constructors; like packaging's ``cls.__new__`` fast path
(or h11's ``_parsed=True``), it makes a plain instance of the class asked for and
stores each field through ``object.__setattr__``.

``cls`` is a built-in class, or a subclass that adds no fields (a subclass with fields
of its own is built through its constructor by the codec, so that its own checks run).
A message's ``created_at`` may also be given as canonical UTC text
``YYYY-MM-DDTHH:MM:SS.ffffffZ`` that the caller checked: it is kept as text until
``created_at`` is read (see ``_message.start_stamps``).
"""

from __future__ import annotations

import dataclasses

from ._frozen import EMPTY
from ._message import start_stamps
from ._parts import TextPart

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, TypeVar

    from ._frozen import FrozenDict

    T = TypeVar("T")

__all__ = [
    "chat_response",
    "message",
    "stream_delta",
    "text_part",
    "tool_call",
    "tool_call_delta",
    "tool_call_message",
    "tool_result_message",
    "trusted",
    "trusted_fields",
    "usage",
]

_new = object.__new__
_store = object.__setattr__


def _common(
    self: object,
    name: str | None,
    metadata: FrozenDict,
    extras: FrozenDict,
    cache: Any,
    id: str | None,
    created_at: Any,
) -> None:
    _store(self, "name", name)
    _store(self, "metadata", metadata)
    _store(self, "extras", extras)
    _store(self, "cache", cache)
    start_stamps(self, id, created_at)


def message(
    cls: type[T],
    content: Any,
    name: str | None = None,
    metadata: FrozenDict = EMPTY,
    extras: FrozenDict = EMPTY,
    id: str | None = None,
    created_at: Any = None,
    cache: Any = None,
) -> T:
    """A System/Developer/User/Assistant message (or such a subclass) of checked values."""
    self = _new(cls)
    _store(self, "content", content)
    _common(self, name, metadata, extras, cache, id, created_at)
    return self


def tool_call_message(
    cls: type[T],
    tool_calls: tuple[Any, ...],
    content: Any = None,
    invalid_tool_calls: tuple[Any, ...] = (),
    name: str | None = None,
    metadata: FrozenDict = EMPTY,
    extras: FrozenDict = EMPTY,
    id: str | None = None,
    created_at: Any = None,
    cache: Any = None,
) -> T:
    """A ToolCallMessage (or such a subclass) of checked values."""
    self = _new(cls)
    _store(self, "content", content)
    _store(self, "tool_calls", tool_calls)
    _store(self, "invalid_tool_calls", invalid_tool_calls)
    _common(self, name, metadata, extras, cache, id, created_at)
    return self


def tool_result_message(
    cls: type[T],
    tool_call_id: str,
    content: Any,
    is_error: bool = False,
    tool_name: str | None = None,
    name: str | None = None,
    metadata: FrozenDict = EMPTY,
    extras: FrozenDict = EMPTY,
    id: str | None = None,
    created_at: Any = None,
    cache: Any = None,
) -> T:
    """A ToolResultMessage (or such a subclass) of checked values."""
    self = _new(cls)
    _store(self, "tool_call_id", tool_call_id)
    _store(self, "content", content)
    _store(self, "is_error", is_error)
    _store(self, "tool_name", tool_name)
    _common(self, name, metadata, extras, cache, id, created_at)
    return self


def tool_call(
    cls: type[T],
    id: str,
    name: str,
    arguments: FrozenDict,
    extras: FrozenDict = EMPTY,
    raw: str | None = None,
) -> T:
    """A ToolCall (or such a subclass) of checked values; ``raw`` is the arguments text received."""
    self = _new(cls)
    _store(self, "id", id)
    _store(self, "name", name)
    _store(self, "arguments", arguments)
    _store(self, "extras", extras)
    _store(self, "_raw", raw)
    return self


def text_part(text: str) -> TextPart:
    """A TextPart of a str the caller has checked."""
    part = _new(TextPart)
    _store(part, "text", text)
    return part


# -- the other value classes: every field given, in field order ------------------------


def trusted(cls: type[T], *values: Any) -> T:
    """Any frozen slotted dataclass from its field values in field order, unchecked."""
    names = _field_names(cls)
    if len(values) != len(names):
        raise TypeError(f"{cls.__name__} has {len(names)} fields, {len(values)} given")
    self = _new(cls)
    for name, value in zip(names, values, strict=True):
        _store(self, name, value)
    return self


def trusted_fields(cls: type[T], values: Mapping[str, Any]) -> T:
    """``trusted`` with the values by field name; every field must be given."""
    self = _new(cls)
    for name in _field_names(cls):
        _store(self, name, values[name])
    return self


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def usage(
    cls: type[T],
    input_tokens: int,
    output_tokens: int,
    total_tokens: int,
    cached_input_tokens: int | None = None,
    cache_creation_input_tokens: int | None = None,
    reasoning_tokens: int | None = None,
) -> T:
    """A Usage of checked counts."""
    return trusted(
        cls,
        input_tokens,
        output_tokens,
        total_tokens,
        cached_input_tokens,
        cache_creation_input_tokens,
        reasoning_tokens,
    )


def chat_response(
    cls: type[T],
    message: Any,
    finish_reason: Any,
    usage: Any,
    model: str | None,
    invalid_tool_calls: tuple[Any, ...],
    provider_finish_reason: str | None,
    refusal: str | None,
    id: str | None,
    error: str | None,
) -> T:
    """A ChatResponse of checked values."""
    return trusted(
        cls,
        message,
        finish_reason,
        usage,
        model,
        invalid_tool_calls,
        provider_finish_reason,
        refusal,
        id,
        error,
    )


def stream_delta(cls: type[T], kind: str, text: str, tool_call: Any) -> T:
    """A StreamDelta of checked values."""
    return trusted(cls, kind, text, tool_call)


def tool_call_delta(
    cls: type[T], index: int, id: str | None, name: str | None, arguments_delta: str | None
) -> T:
    """A ToolCallDelta of checked values."""
    return trusted(cls, index, id, name, arguments_delta)
