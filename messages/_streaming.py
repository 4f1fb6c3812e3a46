"""Streamed tool-call fragments and the accumulator that assembles them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ._build import tool_call
from ._fields import tool_name_ok
from ._frozen import EMPTY, freeze
from ._ids import DERIVED_ID_PREFIX, derive_call_id
from ._json import loads
from ._lazy import LazyModule
from ._tool_call import InvalidToolCall, ToolCall
from .errors import DecodeError, ValidationError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ToolCallAccumulator", "ToolCallDelta"]


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """One streamed fragment of a tool call; ``index`` says which parallel call it builds.

    ``id`` and ``name`` usually come only with the first fragment of a call;
    ``arguments_delta`` is a piece of the JSON arguments text, split anywhere.
    """

    index: int
    id: str | None = None
    name: str | None = None
    arguments_delta: str | None = None

    def __post_init__(self) -> None:
        if type(self.index) is not int or self.index < 0:
            raise ValidationError("index must be an int >= 0", "index")
        for field in ("id", "name", "arguments_delta"):
            v = getattr(self, field)
            if v is not None and type(v) is not str:
                raise ValidationError(f"expected str or None, got {type(v).__name__}", field)

    def to_dict(self) -> dict[str, Any]:
        """This fragment in the OpenAI streaming shape ``{"index", "id"?, "type"?, "function"}``."""
        return _codec.tool_call_delta_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ToolCallDelta:
        """Decode a streamed tool-call fragment dict; DecodeError on bad input."""
        return _codec.tool_call_delta_from_dict(d)

    def __repr__(self) -> str:
        size = 0 if self.arguments_delta is None else len(self.arguments_delta)
        return f"ToolCallDelta(index={self.index}, id={self.id!r}, name={self.name!r}, arguments_len={size})"


class _Slot:
    __slots__ = ("chunks", "extras", "id", "name")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.chunks: list[str] = []
        self.extras: dict[str, object] = {}


class ToolCallAccumulator:
    """Assembles streamed ToolCallDelta fragments into complete tool calls.

    Fragments of parallel calls may interleave; each is keyed by ``index``. The
    argument text is joined once, when the calls are asked for. A call whose
    final text is not a JSON object is reported by ``invalid_tool_calls()`` with
    its raw text, never repaired by guessing. Not thread-safe: one per stream.
    """

    __slots__ = ("_slots",)

    def __init__(self) -> None:
        self._slots: dict[int, _Slot] = {}

    def feed(self, delta: ToolCallDelta) -> None:
        """Add one fragment."""
        try:
            fields = (delta.index, delta.id, delta.name, delta.arguments_delta)
        except AttributeError:  # any object with a fragment's four fields is taken
            raise ValidationError(
                f"expected a ToolCallDelta, got {type(delta).__name__}", "delta"
            ) from None
        self.add(*fields)

    def add(
        self,
        index: int,
        id: str | None = None,
        name: str | None = None,
        arguments_delta: str | None = None,
    ) -> None:
        """Add one fragment given as its fields (no ToolCallDelta object needed)."""
        slot = self._slots.get(index)
        if slot is None:
            slot = self._slots[index] = _Slot()
        if id:
            slot.id = id
        if name:
            slot.name = name if slot.name is None or slot.name == name else slot.name + name
        if arguments_delta:
            slot.chunks.append(arguments_delta)

    def set_extra(self, index: int, key: str, value: object) -> None:
        """Attach provider-opaque state (e.g. a thought signature) to the call at ``index``."""
        slot = self._slots.get(index)
        if slot is None:
            slot = self._slots[index] = _Slot()
        slot.extras[key] = value

    def __len__(self) -> int:
        return len(self._slots)

    def __bool__(self) -> bool:
        return bool(self._slots)

    def indices(self) -> tuple[int, ...]:
        """The indices seen so far, in order."""
        return tuple(sorted(self._slots))

    def _split(
        self, id_for: object = None
    ) -> tuple[tuple[ToolCall, ...], tuple[InvalidToolCall, ...]]:
        calls: list[ToolCall] = []
        invalid: list[InvalidToolCall] = []
        for index in sorted(self._slots):
            slot = self._slots[index]
            raw = "".join(slot.chunks)
            extras = freeze(slot.extras) if slot.extras else EMPTY
            call_id = slot.id
            if not call_id and callable(id_for):
                call_id = id_for(index, slot.name)
            if not call_id:  # derived from the call, so the same stream gives the same id
                call_id = derive_call_id(DERIVED_ID_PREFIX, "stream", index, slot.name or "", raw)
            if not slot.name or not tool_name_ok(slot.name):
                error = "tool name is required" if not slot.name else "invalid tool name"
                invalid.append(InvalidToolCall(call_id, slot.name, raw, error, extras))
                continue
            text = raw if raw.strip() else "{}"
            try:
                value = loads(text, "arguments")
                if type(value) is not dict:
                    raise DecodeError("arguments are not a JSON object", "arguments")
                frozen = freeze(value, "arguments")
            except (DecodeError, ValidationError) as exc:
                invalid.append(InvalidToolCall(call_id, slot.name, raw, exc.message, extras))
                continue
            calls.append(tool_call(ToolCall, call_id, slot.name, frozen, extras, raw or None))
        return tuple(calls), tuple(invalid)

    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The complete, valid calls in index order."""
        return self._split()[0]

    def invalid_tool_calls(self) -> tuple[InvalidToolCall, ...]:
        """The calls whose arguments are not a JSON object (or that lack a name or id)."""
        return self._split()[1]

    def result(
        self, id_for: object = None
    ) -> tuple[tuple[ToolCall, ...], tuple[InvalidToolCall, ...]]:
        """Both lists at once; ``id_for(index, name)`` supplies ids the stream left out."""
        return self._split(id_for)


# The codec is imported on first use (import time); see _lazy.
if TYPE_CHECKING:
    from . import _codec
else:
    _codec = LazyModule("._codec", __package__, globals(), "_codec")
