"""A tool call requested by the model, and one whose arguments could not be parsed."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from . import _json
from ._frozen import (
    _SCALARS,
    EMPTY,
    FrozenDict,
    freeze_mapping,
    support_own_init,
    twin_of,
)
from ._lazy import LazyModule
from .errors import DecodeError, ValidationError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")
    _TC = TypeVar("_TC", bound="ToolCall")

__all__ = ["InvalidToolCall", "ToolCall", "check_tool_name"]


_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
_name_ok = _NAME_RE.fullmatch


# Hot path: agents call the same few tools over and over, so names already found
# valid are remembered (bounded) and checked with one set lookup (~13 ns) instead
# of the regular expression (~120 ns).
_KNOWN_NAMES: set[str] = set()
_KNOWN_MAX = 4096


def check_tool_name(name: object, path: str = "name") -> str:
    """Return ``name`` if it is a valid tool name (``^[A-Za-z0-9_-]{1,64}$``)."""
    if type(name) is not str:
        raise ValidationError(f"expected str, got {type(name).__name__}", path)
    if name in _KNOWN_NAMES:
        return name
    if _name_ok(name) is None:
        problem = "name is empty" if not name else f"invalid tool name (length {len(name)})"
        raise ValidationError(f"{problem}; must match ^[A-Za-z0-9_-]{{1,64}}$", path)
    if len(_KNOWN_NAMES) < _KNOWN_MAX:
        _KNOWN_NAMES.add(name)
    return name


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
    arguments: Mapping[str, Any]
    extras: Mapping[str, Any]
    _raw: str | None = field(init=False, compare=False)

    if TYPE_CHECKING:  # the signature type checkers show for super().__init__(...)

        def __init__(
            self,
            id: str,
            name: str,
            arguments: Mapping[str, Any] | str = EMPTY,
            extras: Mapping[str, Any] | None = None,
        ) -> None: ...

    def __new__(
        cls: type[_TC],
        id: str,
        name: str,
        arguments: Mapping[str, Any] | str = EMPTY,
        extras: Mapping[str, Any] | None = None,
    ) -> _TC:
        # Hot path: no keyword-only parameters; their defaults are looked up in a
        # dict on every call (~50 ns), positional defaults come from a tuple. The
        # call is built in __new__ on a mutable twin (see _frozen.mutable_twin) and
        # the class keeps object.__init__: ~600 -> ~300 ns per call.
        if type(id) is not str or not id:
            raise ValidationError(
                "must be a non-empty str"
                if type(id) is str
                else f"expected str, got {type(id).__name__}",
                "id",
            )
        if type(name) is not str or name not in _KNOWN_NAMES:
            check_tool_name(name)
        raw: str | None = None
        frozen: Any = None
        if type(arguments) is dict:
            # Hot path: a flat dict of scalars is copied after one scan, inline
            # (saves the freeze_mapping call, ~70 ns).
            for k, v in arguments.items():
                if type(k) is not str or type(v) not in _SCALARS:
                    break
            else:
                frozen = FrozenDict(arguments) if arguments else EMPTY
        elif arguments is EMPTY:
            frozen = EMPTY
        elif type(arguments) is str or isinstance(arguments, str):
            raw = str(arguments)
            try:
                arguments = _json.loads_object(raw, "arguments")
            except DecodeError as exc:
                raise ValidationError(exc.message, "arguments") from None
        if frozen is None:
            frozen = freeze_mapping(arguments, "arguments")
        ex = EMPTY if extras is None else freeze_mapping(extras, "extras")
        self = _new(_Building if cls is ToolCall else _twin_of(cls))
        self.id = id
        self.name = name
        self.arguments = frozen
        self.extras = ex
        self._raw = raw
        self.__class__ = cls
        return self  # type: ignore[no-any-return]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Not zero-argument super(): slots=True makes a new class, unknown to the cell.
        super(ToolCall, cls).__init_subclass__(**kwargs)
        support_own_init(cls, _CONCRETE)

    @property
    def arguments_json(self) -> str:
        """The arguments as a compact JSON string (the original string when decoded from one)."""
        raw = self._raw
        if raw is None:
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
        return ToolCall(self.id, self.name, arguments, extras=self.extras)

    def to_dict(self) -> dict[str, Any]:
        """This call as ``{"id", "type": "function", "function": {"name", "arguments"}}`` plus extras."""
        return _part_codec.tool_call_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ToolCall:
        """Decode a canonical tool call dict (``arguments`` as JSON text or an object)."""
        return _part_codec.tool_call_from_dict(d)

    def __repr__(self) -> str:
        return f"ToolCall(id={self.id!r}, name={self.name!r}, arguments={len(self.arguments)} keys)"

    @classmethod
    def _trusted(
        cls,
        id: str,
        name: str,
        arguments: FrozenDict,
        extras: FrozenDict,
        raw: str | None,
    ) -> ToolCall:
        """Build without validation (decoders that already validated use this)."""
        self = _new(_Building if cls is ToolCall else _twin_of(cls))
        self.id = id
        self.name = name
        self.arguments = arguments
        self.extras = extras
        self._raw = raw
        self.__class__ = cls
        return self  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            ToolCall._trusted,
            (self.id, self.name, self.arguments, self.extras, self._raw),
        )


# The raw-arguments cache is filled on first read (arguments_json), past the frozen
# __setattr__; building stores on a mutable twin (see _frozen.mutable_twin).
_set_raw: Any = ToolCall.__dict__["_raw"].__set__
_new = object.__new__
_CONCRETE = frozenset((ToolCall,))
_Building: Any = twin_of(ToolCall)
_twin_of = twin_of


@dataclass(frozen=True, slots=True)
class InvalidToolCall:
    """A tool call whose arguments are not a JSON object; the raw text is kept, never repaired."""

    id: str | None
    name: str | None
    raw_arguments: str
    error: str

    def __repr__(self) -> str:
        return (
            f"InvalidToolCall(id={self.id!r}, name={self.name!r}, "
            f"raw_len={len(self.raw_arguments)}, error={self.error!r})"
        )


from ._arguments import build_from_arguments  # noqa: E402 - after the classes it serves

# The codec is imported on first use (import time); see _lazy.
if TYPE_CHECKING:
    from . import _part_codec
else:
    _part_codec = LazyModule("._part_codec", __package__, globals(), "_part_codec")
