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
    from collections.abc import Callable, Mapping
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

# Each field is stored through its slot descriptor's setter (a frozen dataclass refuses
# ``self.x = v``; ``object.__setattr__`` finds the same setter by name on every call).
_SETTERS: dict[type, dict[str, Callable[[object, object], None]]] = {}


def _setters(cls: type) -> dict[str, Callable[[object, object], None]]:
    """The slot setter of every field of ``cls`` (a frozen slotted dataclass), by name."""
    setters = _SETTERS.get(cls)
    if setters is None:
        setters = {}
        for f in dataclasses.fields(cls):
            for klass in cls.__mro__:
                slot = klass.__dict__.get(f.name)
                if slot is not None:
                    setters[f.name] = slot.__set__
                    break
        _SETTERS[cls] = setters
    return setters


def _common(
    self: object,
    setters: dict[str, Callable[[object, object], None]],
    name: str | None,
    metadata: FrozenDict,
    extras: FrozenDict,
    cache: Any,
    id: str | None,
    created_at: Any,
) -> None:
    setters["name"](self, name)
    setters["metadata"](self, metadata)
    setters["extras"](self, extras)
    setters["cache"](self, cache)
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
    setters = _setters(cls)
    setters["content"](self, content)
    _common(self, setters, name, metadata, extras, cache, id, created_at)
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
    setters = _setters(cls)
    setters["content"](self, content)
    setters["tool_calls"](self, tool_calls)
    setters["invalid_tool_calls"](self, invalid_tool_calls)
    _common(self, setters, name, metadata, extras, cache, id, created_at)
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
    setters = _setters(cls)
    setters["tool_call_id"](self, tool_call_id)
    setters["content"](self, content)
    setters["is_error"](self, is_error)
    setters["tool_name"](self, tool_name)
    _common(self, setters, name, metadata, extras, cache, id, created_at)
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
    setters = _setters(cls)
    setters["id"](self, id)
    setters["name"](self, name)
    setters["arguments"](self, arguments)
    setters["extras"](self, extras)
    setters["_raw"](self, raw)
    return self


def text_part(text: str) -> TextPart:
    """A TextPart of a str the caller has checked."""
    part = _new(TextPart)
    _set_text(part, text)
    return part


_set_text = _setters(TextPart)["text"]


# -- the other value classes: every field given, in field order ------------------------


def trusted(cls: type[T], *values: Any) -> T:
    """Any frozen slotted dataclass from its field values in field order, unchecked."""
    setters = _setters(cls)
    if len(values) != len(setters):
        raise TypeError(f"{cls.__name__} has {len(setters)} fields, {len(values)} given")
    self = _new(cls)
    for store, value in zip(setters.values(), values, strict=True):
        store(self, value)
    return self


def trusted_fields(cls: type[T], values: Mapping[str, Any]) -> T:
    """``trusted`` with the values by field name; every field must be given."""
    self = _new(cls)
    for name, store in _setters(cls).items():
        store(self, values[name])
    return self


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
