"""A tool call requested by the model, and one whose arguments could not be parsed."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from . import _json
from ._fields import (
    check_arguments,
    check_id,
    check_mapping,
    check_opt_str,
    check_str,
    check_tool_name,
    known_tool_name,
)
from ._frozen import EMPTY, FrozenDict, freeze_mapping
from ._lazy import LazyModule
from .errors import ident

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

__all__ = ["InvalidToolCall", "ToolCall", "check_tool_name"]


@dataclass(frozen=True, slots=True, init=False, repr=False)
class ToolCall:
    """A call of a named tool with JSON-object arguments, stored deeply immutable.

    ``arguments`` may be given as a mapping or as a JSON string; a string is parsed
    once and kept, so ``arguments_json`` gives back exactly what was received.
    ``extras`` holds provider-opaque state of the call (e.g. a Gemini thought
    signature), tagged with the provider that produced it.
    """

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default=EMPTY, repr=False)
    extras: Mapping[str, Any] = field(default=EMPTY, repr=False)
    # The arguments text: the one received, or made on first read of arguments_json.
    _raw: str | None = field(default=None, init=False, repr=False, compare=False)

    def __init__(
        self,
        id: str,
        name: str,
        arguments: Mapping[str, Any] | str = EMPTY,
        extras: Mapping[str, Any] | None = None,
    ) -> None:
        """The call, checked: a non-empty id, a valid tool name, a JSON object of arguments."""
        if type(arguments) is dict:  # the usual call: no text to keep
            frozen, raw = freeze_mapping(arguments, "arguments"), None
        else:
            frozen, raw = check_arguments(arguments)
        if type(id) is not str or not id:
            id = check_id(id, "id")
        if type(name) is not str or name not in known_tool_name:  # see _fields
            name = check_tool_name(name)
        _set_id(self, id)
        _set_name(self, name)
        _set_arguments(self, frozen)
        _set_extras(self, EMPTY if extras is None else check_mapping(extras, "extras"))
        _set_raw(self, raw)

    def __post_init__(self) -> None:
        # a dataclass subclass's generated __init__ stored the fields as given
        ToolCall.__init__(self, self.id, self.name, self._raw or self.arguments, self.extras)

    @property
    def arguments_json(self) -> str:
        """The arguments as a compact JSON string (the original string when decoded from one)."""
        raw = self._raw
        if raw is None:
            # a cache filled on first read (equal text in every thread that fills it)
            raw = _json.dumps_compact(self.arguments)
            _set_raw(self, raw)
        return raw

    def get(self, key: str, default: Any = None) -> Any:
        """Return one argument, or ``default`` when it is absent."""
        return self.arguments.get(key, default)

    def arguments_as(self, cls: Callable[..., T]) -> T:
        """Build ``cls`` (dataclass, TypedDict, NamedTuple or callable) from the arguments."""
        return build_from_arguments(cls, self.arguments, "arguments")

    def with_arguments(self, arguments: Mapping[str, Any] | str) -> ToolCall:
        """Return a copy with other arguments."""
        return dataclasses.replace(self, arguments=arguments)  # type: ignore[arg-type]  # text too

    def to_dict(self) -> dict[str, Any]:
        """This call as ``{"id", "type": "function", "function": {"name", "arguments"}}`` plus extras."""
        return _part_codec.tool_call_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ToolCall:
        """Decode a canonical tool call dict (``arguments`` as JSON text or an object)."""
        return _part_codec.tool_call_from_dict(d)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={ident(self.id)}, name={ident(self.name)}, arguments={len(self.arguments)} keys)"


_set_id: Callable[[ToolCall, str], None] = ToolCall.__dict__["id"].__set__
_set_name: Callable[[ToolCall, str], None] = ToolCall.__dict__["name"].__set__
_set_arguments: Callable[[ToolCall, FrozenDict], None] = ToolCall.__dict__["arguments"].__set__
_set_extras: Callable[[ToolCall, FrozenDict], None] = ToolCall.__dict__["extras"].__set__
_set_raw: Callable[[ToolCall, str | None], None] = ToolCall.__dict__["_raw"].__set__
raw_arguments: Callable[[ToolCall], str | None] = ToolCall.__dict__["_raw"].__get__
"""The arguments text a call was built from, or made by ``arguments_json``; None before."""


@dataclass(frozen=True, slots=True, repr=False)
class InvalidToolCall:
    """A tool call the model got wrong, kept as written and never repaired.

    ``raw_arguments`` is the arguments text as received (not a JSON object, or not
    JSON at all); ``name`` the name as received (None when there was none), which
    may break the name rule; ``error`` says what is wrong, without the content.
    ``id`` is the wire's id, or one derived from the call when the wire gave none.
    ``extras`` keeps provider-opaque state of the call, as for ToolCall.
    Answer it like a valid call: ``ToolResult.error(call.id, "...")``.
    """

    id: str
    name: str | None
    raw_arguments: str = field(repr=False)
    error: str
    extras: Mapping[str, Any] = field(default=EMPTY, repr=False)

    def __post_init__(self) -> None:
        store = object.__setattr__
        store(self, "id", check_id(self.id, "id"))
        store(self, "name", check_opt_str(self.name, "name"))
        store(self, "raw_arguments", check_str(self.raw_arguments, "raw_arguments"))
        store(self, "error", check_str(self.error, "error"))
        store(self, "extras", check_mapping(self.extras, "extras"))

    def to_dict(self) -> dict[str, Any]:
        """This call as a canonical ``tool_calls`` entry: the raw name and arguments text."""
        return _part_codec.invalid_call_to_dict(self)

    def __repr__(self) -> str:
        return (
            f"InvalidToolCall(id={ident(self.id)}, name={ident(self.name) if self.name is not None else None}, "
            f"raw_len={len(self.raw_arguments)}, error={self.error!r})"
        )


from .tools._arguments import build_from_arguments  # noqa: E402 - after the classes it serves

# The codec is imported on first use (import time); see _lazy.
if TYPE_CHECKING:
    from . import _part_codec
else:
    _part_codec = LazyModule("._part_codec", __package__, globals(), "_part_codec")
