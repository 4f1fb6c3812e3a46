"""The message classes: one per role, plus the assistant turn that calls tools.

Hot path: messages are built in agent loops, so each class has a hand-written
``__new__`` that validates inline and stores the fields on the class's mutable
twin before switching the instance to the class (see ``_frozen.mutable_twin``;
the classes keep ``object.__init__``). The dataclass features stay: eq, hash,
replace, fields, pickling, FrozenInstanceError. Decoders use the ``trusted_*``
builders below, which skip validation they already did. ``id`` and
``created_at`` are formatted lazily from two ints (see ``_ids``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import _ids
from ._frozen import _TWINS, EMPTY, FrozenDict, freeze_mapping, support_own_init, twin_of
from ._ids import counter as _counter
from ._ids import new_id as _new_id
from ._ids import now as _now
from ._ids import stamp_created_at, stamp_id, text_created_at
from ._ids import time_ns as _time_ns
from ._lazy import LazyModule
from ._parts import AudioPart, ContentPart, FilePart, ImagePart, ReasoningPart, TextPart
from ._role import MessageRole
from ._tool_call import ToolCall
from .errors import ValidationError

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: this module must not import typing
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any, ClassVar, NoReturn, TypeVar

    from ._registry import MessageRegistry
    from ._tool_result import ToolResult

    M = TypeVar("M", bound="Message")

    __all__ = [
        "AssistantMessage",
        "Content",
        "DeveloperMessage",
        "Message",
        "SystemMessage",
        "ToolCallMessage",
        "ToolResultMessage",
        "UserMessage",
    ]

Content = str | Sequence[ContentPart | str]
"""What a message's content may be given as: a string or a sequence of parts (plain strings in the sequence become TextParts)."""

USER_PARTS: frozenset[type] = frozenset((TextPart, ImagePart, AudioPart, FilePart))
ASSISTANT_PARTS: frozenset[type] = frozenset((TextPart, ReasoningPart))
TOOL_PARTS: frozenset[type] = frozenset((TextPart, ImagePart, AudioPart, FilePart))

_KIND = {
    frozenset(USER_PARTS): "text, image, audio and file parts",
    frozenset(ASSISTANT_PARTS): "text and reasoning parts",
}


def _fail(message: str, path: str) -> NoReturn:
    raise ValidationError(message, path)


def check_content(
    content: object, allowed: frozenset[type], path: str = "content"
) -> str | tuple[ContentPart, ...]:
    """Validate content given as a str or a sequence of parts; return its stored form."""
    if type(content) is str:
        return content
    if isinstance(content, str):
        return str(content)
    if isinstance(content, (list, tuple)):
        parts: list[ContentPart] = []
        for i, p in enumerate(content):
            t = type(p)
            if t in allowed:
                parts.append(p)
            elif t is str or isinstance(p, str):
                parts.append(TextPart(str(p)))
            else:
                kind = _KIND.get(allowed, "text, image, audio and file parts")
                _fail(f"{t.__name__} is not allowed here; expected {kind}", f"{path}[{i}]")
        return tuple(parts)
    if content is None:
        _fail("content is required (an empty string is valid)", path)
    _fail(f"expected str or a sequence of parts, got {type(content).__name__}", path)


def _check_str(value: object, path: str) -> str:
    if type(value) is not str:
        if isinstance(value, str):
            return str(value)
        _fail(f"expected str, got {type(value).__name__}", path)
    return value


def _check_created_at(value: object) -> datetime:
    from datetime import datetime  # already imported by whoever made the value

    utc = _ids.UTC
    if not isinstance(value, datetime):
        _fail(f"expected an aware datetime, got {type(value).__name__}", "created_at")
    if value.tzinfo is None or value.utcoffset() is None:
        _fail("datetime must be timezone-aware", "created_at")
    return value if value.tzinfo is utc else value.astimezone(utc)


@dataclass(frozen=True, init=False, eq=False, repr=False)
class Message:
    """Base of every message: id, name, metadata, extras and created_at.

    Equality and hash cover everything except ``id`` and ``created_at``.
    ``metadata`` is developer context; ``extras`` holds unknown fields captured
    when decoding and provider-specific fields (kept in storage, never sent).
    """

    # Hot path: the storage behind the common fields is three slots, not five.
    # ``_id`` holds the id, or an int stamp until the id is first read; ``_created``
    # stays unset until created_at is first read (it is derived from the stamp);
    # ``_aux`` is None, or (name, metadata, extras) when any of them is set.
    # Each slot store costs ~45 ns, so this saves ~140 ns per message.
    __slots__ = ("_aux", "_created", "_id")

    id: str
    name: str | None
    metadata: Mapping[str, Any]
    extras: Mapping[str, Any]
    created_at: datetime

    if TYPE_CHECKING:  # a class attribute, never a dataclass field
        role: ClassVar[MessageRole]
        _aux: tuple[str | None, FrozenDict, FrozenDict] | None

    def __new__(cls: type[M], *args: Any, **kwargs: Any) -> M:
        if cls is Message:
            raise TypeError("Message is abstract: use a subclass or a Message.* factory")
        return object.__new__(cls)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            support_own_init(cls, _CONCRETE)

    # -- the views every message offers -------------------------------------------

    @property
    def text(self) -> str:
        """All text parts joined with no separator; ``""`` when there are none."""
        c = self.content  # type: ignore[attr-defined]
        if type(c) is str:
            return c
        if not c:
            return ""
        return "".join([p.text for p in c if type(p) is TextPart])

    @property
    def parts(self) -> tuple[ContentPart, ...]:
        """The content as parts (a str content is one TextPart; empty gives ``()``)."""
        c = self.content  # type: ignore[attr-defined]
        if type(c) is str:
            return (TextPart(c),) if c else ()
        return c or ()

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls of this message (empty unless a ToolCallMessage)."""
        return ()

    @property
    def reasoning(self) -> tuple[ReasoningPart, ...]:
        """The reasoning parts of this message, in order."""
        c = self.content  # type: ignore[attr-defined]
        if not c or type(c) is str:
            return ()
        return tuple([p for p in c if type(p) is ReasoningPart])

    # -- changing a message (keeps its id) -----------------------------------------

    def with_content(self: M, content: Any) -> M:
        """Return a copy with other content."""
        return dataclasses.replace(self, content=content)  # type: ignore[call-arg]

    def with_name(self: M, name: str | None) -> M:
        """Return a copy with another name."""
        return dataclasses.replace(self, name=name)

    def with_metadata(self: M, metadata: Mapping[str, Any] | None = None, **more: Any) -> M:
        """Return a copy whose metadata is ``metadata`` (default: the current one) plus ``more``."""
        base = dict(self.metadata if metadata is None else metadata)
        base.update(more)
        return dataclasses.replace(self, metadata=base)

    def with_extras(self: M, extras: Mapping[str, Any] | None) -> M:
        """Return a copy with other extras."""
        return dataclasses.replace(self, extras=EMPTY if extras is None else extras)

    # -- the canonical dict (see _codec) ---------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """This message as its canonical dict (OpenAI chat shape plus id, metadata, extras, created_at)."""
        return _codec.message_to_dict(self)

    @classmethod
    def from_dict(cls: type[M], d: Mapping[str, Any], registry: MessageRegistry | None = None) -> M:
        """Decode a canonical message dict; on a subclass, the dict must decode as that class."""
        return _codec.message_from_dict(cls, d, registry)

    # -- value semantics ------------------------------------------------------------

    def _key(self) -> tuple[Any, ...]:
        return (self.content,)  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        # Hot path: content first (it differs most often), then name/metadata/extras,
        # all as plain slot reads (a read needs no setter call) and identity before
        # equality for the shared None; ~314 ns -> ~150 ns for two equal messages.
        if other.__class__ is not self.__class__:
            return NotImplemented
        o: Message = other  # type: ignore[assignment,unused-ignore]
        a = self._aux
        b = o._aux
        if self.__class__ in _CONTENT_ONLY:
            return bool(self.content == o.content and (a is b or a == b))  # type: ignore[attr-defined]
        return bool((a is b or a == b) and self._key() == o._key())

    def __hash__(self) -> int:
        if self.__class__ in _CONTENT_ONLY:
            return hash((self.__class__, self._aux, self.content))  # type: ignore[attr-defined]
        return hash((self.__class__, self._aux, self._key()))

    def __getstate__(self) -> dict[str, Any]:
        state: dict[str, Any] = {}
        for cls in type(self).__mro__:
            for slot in cls.__dict__.get("__slots__", ()):
                if slot == "_created":
                    state[slot] = self.created_at
                elif slot == "_id":
                    state[slot] = self.id
                else:
                    state[slot] = object.__getattribute__(self, slot)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)

    def __reduce__(self) -> tuple[Any, ...]:
        # The constructors take arguments in __new__, so pickle must not call it.
        return (_restore, (type(self), self.__getstate__()))

    def __copy__(self: M) -> M:
        return self

    def __deepcopy__(self: M, memo: dict[int, Any]) -> M:
        return self

    def __repr__(self) -> str:
        c = self.content  # type: ignore[attr-defined]
        size = (
            f"text_len={len(c)}"
            if type(c) is str
            else f"text_len={len(self.text)}, parts={len(c or ())}"
        )
        return f"{type(self).__name__}(id={self.id!r}, role={self.role.value}, {size}{self._repr_more()})"

    def _repr_more(self) -> str:
        return ""

    # -- factories ----------------------------------------------------------------

    @staticmethod
    def system(text: str, **kwargs: Any) -> SystemMessage:
        """A system message."""
        return SystemMessage(text, **kwargs)

    @staticmethod
    def developer(text: str, **kwargs: Any) -> DeveloperMessage:
        """A developer message."""
        return DeveloperMessage(text, **kwargs)

    @staticmethod
    def user(content: Content, **kwargs: Any) -> UserMessage:
        """A user message from a string or parts."""
        return UserMessage(content, **kwargs)

    @staticmethod
    def assistant(
        content: Content | None = None, tool_calls: Sequence[ToolCall] = (), **kwargs: Any
    ) -> AssistantMessage:
        """An assistant message; a ToolCallMessage when there are tool calls."""
        if tool_calls:
            return ToolCallMessage(tool_calls, content, **kwargs)
        return AssistantMessage(content, **kwargs)  # type: ignore[arg-type]

    @staticmethod
    def tool_result(
        tool_call_id: str,
        content: Content,
        is_error: bool = False,
        tool_name: str | None = None,
        **kwargs: Any,
    ) -> ToolResultMessage:
        """A tool result message answering ``tool_call_id``."""
        return ToolResultMessage(tool_call_id, content, is_error, tool_name, **kwargs)


# Slot getters and setters bound once, for the lazy fields below (they bypass the
# frozen __setattr__; builders store on a mutable twin instead, see __new__).
_slot_id: Any = Message.__dict__["_id"]
_slot_created: Any = Message.__dict__["_created"]
_slot_aux: Any = Message.__dict__["_aux"]
_get_id = _slot_id.__get__
_set_id = _slot_id.__set__
_get_created = _slot_created.__get__
_set_created = _slot_created.__set__
_get_aux = _slot_aux.__get__
_set_aux = _slot_aux.__set__


class _IdField:
    """``id``: formats an auto-generated id on first read (the slot holds a sequence number until then)."""

    __slots__ = ()

    def __get__(self, obj: Message | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        v = _get_id(obj)
        if v.__class__ is int:
            # While the id is a sequence number, _created holds the clock's ns.
            v = stamp_id(_get_created(obj), v)
            _set_id(obj, v)
        return v

    def __set__(self, obj: Message, value: Any) -> None:
        _set_id(obj, value)


class _CreatedAtField:
    """``created_at``: derived from the clock's ns on first read unless it was given."""

    __slots__ = ()

    def __get__(self, obj: Message | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        v = _get_created(obj)
        if v.__class__ is int:
            seq = _get_id(obj)
            if seq.__class__ is int:  # the id is made from the same ns: format it first
                _set_id(obj, stamp_id(v, seq))
            v = stamp_created_at(v)
            _set_created(obj, v)
        elif v.__class__ is str:  # canonical text kept by the decoder (see trusted builders)
            v = text_created_at(v)
            _set_created(obj, v)
        return v

    def __set__(self, obj: Message, value: Any) -> None:
        _set_created(obj, value)


class _AuxField:
    """``name`` / ``metadata`` / ``extras``: one item of the ``_aux`` slot."""

    __slots__ = ("default", "index")

    def __init__(self, index: int, default: Any) -> None:
        self.index = index
        self.default = default

    def __get__(self, obj: Message | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        a = _get_aux(obj)
        return self.default if a is None else a[self.index]

    def __set__(self, obj: Message, value: Any) -> None:
        try:
            a = _get_aux(obj)
        except AttributeError:
            a = None
        items: list[Any] = [None, EMPTY, EMPTY] if a is None else list(a)
        items[self.index] = value
        _set_aux(obj, _aux(items[0], items[1], items[2]))


def _aux(name: str | None, metadata: FrozenDict, extras: FrozenDict) -> Any:
    if name is None and not metadata and not extras:
        return None
    return (name, metadata, extras)


type.__setattr__(Message, "id", _IdField())
type.__setattr__(Message, "created_at", _CreatedAtField())
type.__setattr__(Message, "name", _AuxField(0, None))
type.__setattr__(Message, "metadata", _AuxField(1, EMPTY))
type.__setattr__(Message, "extras", _AuxField(2, EMPTY))


def raw_stamp(message: Message) -> int | None:
    """The sequence number (unique in this process) of a message whose generated id is not yet formatted."""
    v = _get_id(message)
    return v if v.__class__ is int else None


def aux_of(message: Message) -> tuple[str | None, FrozenDict, FrozenDict] | None:
    """The raw ``_aux`` slot: None when name, metadata and extras are all unset."""
    return _get_aux(message)  # type: ignore[no-any-return]


def _common(
    self: Any,
    name: str | None,
    metadata: Mapping[str, Any] | None,
    extras: Mapping[str, Any] | None,
    id: object,
    created_at: object,
) -> None:
    """Store the common fields on a message being built (an instance of a mutable twin)."""
    if name is None and metadata is None and extras is None:
        self._aux = None
    else:
        if name is not None and type(name) is not str:
            name = _check_str(name, "name")
        self._aux = _aux(
            name,
            EMPTY if metadata is None else freeze_mapping(metadata, "metadata"),
            EMPTY if extras is None else freeze_mapping(extras, "extras"),
        )
    if id is None:
        if created_at is None:
            self._created = _time_ns()
            self._id = next(_counter)
        else:  # the id is made now, from the clock, not from created_at
            self._created = _check_created_at(created_at)
            self._id = _new_id()
        return
    if type(id) is not str or not id:
        _fail("must be a non-empty str", "id")
    self._id = id
    self._created = _now() if created_at is None else _check_created_at(created_at)


@dataclass(frozen=True, init=False, eq=False, repr=False)
class SystemMessage(Message):
    """Instructions from the application (role ``system``)."""

    __slots__ = ("content",)
    content: str
    role = MessageRole.SYSTEM

    if TYPE_CHECKING:  # the signature type checkers show for super().__init__(...)

        def __init__(
            self,
            content: str,
            name: str | None = None,
            metadata: Mapping[str, Any] | None = None,
            extras: Mapping[str, Any] | None = None,
            id: str | None = None,
            created_at: datetime | None = None,
        ) -> None: ...

    def __new__(
        cls: type[M],
        content: str,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> M:
        self = _new(_BUILD_SYSTEM if cls is SystemMessage else _building(cls))
        self.content = content if type(content) is str else _check_str(content, "content")
        _common(self, name, metadata, extras, id, created_at)
        self.__class__ = cls
        return self  # type: ignore[no-any-return]


@dataclass(frozen=True, init=False, eq=False, repr=False)
class DeveloperMessage(Message):
    """Instructions from the developer (role ``developer``)."""

    __slots__ = ("content",)
    content: str
    role = MessageRole.DEVELOPER

    if TYPE_CHECKING:  # the signature type checkers show for super().__init__(...)

        def __init__(
            self,
            content: str,
            name: str | None = None,
            metadata: Mapping[str, Any] | None = None,
            extras: Mapping[str, Any] | None = None,
            id: str | None = None,
            created_at: datetime | None = None,
        ) -> None: ...

    def __new__(
        cls: type[M],
        content: str,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> M:
        self = _new(_BUILD_DEVELOPER if cls is DeveloperMessage else _building(cls))
        self.content = content if type(content) is str else _check_str(content, "content")
        _common(self, name, metadata, extras, id, created_at)
        self.__class__ = cls
        return self  # type: ignore[no-any-return]


@dataclass(frozen=True, init=False, eq=False, repr=False)
class UserMessage(Message):
    """What the user said: a string or text, image, audio and file parts."""

    __slots__ = ("content",)
    content: str | tuple[ContentPart, ...]
    role = MessageRole.USER

    if TYPE_CHECKING:  # the signature type checkers show for super().__init__(...)

        def __init__(
            self,
            content: Content,
            name: str | None = None,
            metadata: Mapping[str, Any] | None = None,
            extras: Mapping[str, Any] | None = None,
            id: str | None = None,
            created_at: datetime | None = None,
        ) -> None: ...

    def __new__(
        cls: type[M],
        content: Content,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> M:
        # The common fields are positional-or-keyword on purpose: keyword-only
        # defaults are looked up in a dict on every call (~50 ns more).
        self = _new(_BUILD_USER if cls is UserMessage else _building(cls))
        self.content = content if type(content) is str else check_content(content, USER_PARTS)
        if (
            name is None
            and metadata is None
            and extras is None
            and id is None
            and created_at is None
        ):
            # Hot path: the usual call passes only content (saves the _common call, ~70 ns).
            self._aux = None
            self._created = _time_ns()
            self._id = next(_counter)
        else:
            _common(self, name, metadata, extras, id, created_at)
        self.__class__ = cls
        return self  # type: ignore[no-any-return]


@dataclass(frozen=True, init=False, eq=False, repr=False)
class AssistantMessage(Message):
    """What the model answered: a string or text and reasoning parts.

    ``content`` is never None here; only a ToolCallMessage may have no content.
    """

    __slots__ = ("content",)
    content: str | tuple[ContentPart, ...] | None
    role = MessageRole.ASSISTANT

    if TYPE_CHECKING:  # the signature type checkers show for super().__init__(...)

        def __init__(
            self,
            content: Content,
            name: str | None = None,
            metadata: Mapping[str, Any] | None = None,
            extras: Mapping[str, Any] | None = None,
            id: str | None = None,
            created_at: datetime | None = None,
        ) -> None: ...

    def __new__(
        cls: type[M],
        content: Content,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> M:
        self = _new(_BUILD_ASSISTANT if cls is AssistantMessage else _building(cls))
        if type(content) is str:
            self.content = content
        elif content is None and cls is not AssistantMessage:  # type: ignore[unreachable,unused-ignore]
            self.content = None  # type: ignore[unreachable,unused-ignore]
        else:
            self.content = check_content(content, ASSISTANT_PARTS)
        if (
            name is None
            and metadata is None
            and extras is None
            and id is None
            and created_at is None
        ):
            # Hot path: the usual call passes only content (saves the _common call, ~70 ns).
            self._aux = None
            self._created = _time_ns()
            self._id = next(_counter)
        else:
            _common(self, name, metadata, extras, id, created_at)
        self.__class__ = cls
        return self  # type: ignore[no-any-return]


@dataclass(frozen=True, init=False, eq=False, repr=False)
class ToolCallMessage(AssistantMessage):
    """An assistant turn that calls one or more tools (it may also carry text and reasoning)."""

    __slots__ = ("tool_calls",)
    tool_calls: tuple[ToolCall, ...]

    def _key(self) -> tuple[Any, ...]:
        return (self.content, self.tool_calls)

    if TYPE_CHECKING:  # the signature type checkers show for super().__init__(...)

        def __init__(
            self,
            tool_calls: Sequence[ToolCall],
            content: Content | None = None,
            name: str | None = None,
            metadata: Mapping[str, Any] | None = None,
            extras: Mapping[str, Any] | None = None,
            id: str | None = None,
            created_at: datetime | None = None,
        ) -> None: ...

    def __new__(
        cls: type[M],
        tool_calls: Sequence[ToolCall],
        content: Content | None = None,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> M:
        self = _new(_BUILD_TOOL_CALLS if cls is ToolCallMessage else _building(cls))
        # Hot path: one or two calls of the exact type, in a tuple, are checked inline.
        if (
            type(tool_calls) is tuple
            and (n := len(tool_calls)) <= 2
            and n
            and type(tool_calls[0]) is ToolCall
            and (
                n == 1 or (type(tool_calls[1]) is ToolCall and tool_calls[0].id != tool_calls[1].id)
            )
        ):
            self.tool_calls = tool_calls
        else:
            self.tool_calls = check_tool_calls(tool_calls)
        if content is None or type(content) is str:
            self.content = content
        else:
            self.content = check_content(content, ASSISTANT_PARTS)
        if (
            name is None
            and metadata is None
            and extras is None
            and id is None
            and created_at is None
        ):
            # Hot path: the usual call passes only content (saves the _common call, ~70 ns).
            self._aux = None
            self._created = _time_ns()
            self._id = next(_counter)
        else:
            _common(self, name, metadata, extras, id, created_at)
        self.__class__ = cls
        return self  # type: ignore[no-any-return]

    def _repr_more(self) -> str:
        return f", tool_calls={len(self.tool_calls)}"

    @property
    def tool_call_ids(self) -> tuple[str, ...]:
        """The ids of the calls, in order."""
        return tuple([c.id for c in self.tool_calls])


def check_tool_calls(tool_calls: object, path: str = "tool_calls") -> tuple[ToolCall, ...]:
    """Validate a non-empty sequence of ToolCall with unique ids."""
    t = type(tool_calls)
    calls: tuple[ToolCall, ...]
    if t is tuple:
        calls = tool_calls  # type: ignore[assignment]
    elif isinstance(tool_calls, (list, tuple)):
        calls = tuple(tool_calls)
    else:
        _fail(f"expected a sequence of ToolCall, got {t.__name__}", path)
    n = len(calls)
    if n == 0:
        _fail("at least one tool call is required", path)
    # Hot path: one or two calls of the exact type need no set of ids.
    if n == 1 and type(calls[0]) is ToolCall:
        return calls
    if (
        n == 2
        and type(calls[0]) is ToolCall
        and type(calls[1]) is ToolCall
        and calls[0].id != calls[1].id
    ):
        return calls
    seen: set[str] = set()
    for i, c in enumerate(calls):
        if type(c) is not ToolCall and not isinstance(c, ToolCall):
            _fail(f"expected ToolCall, got {type(c).__name__}", f"{path}[{i}]")
        if c.id in seen:
            _fail("duplicate tool call id within the message", f"{path}[{i}].id")
        seen.add(c.id)
    return calls


@dataclass(frozen=True, init=False, eq=False, repr=False)
class ToolResultMessage(Message):
    """The result of one tool call (role ``tool``)."""

    __slots__ = ("content", "is_error", "tool_call_id", "tool_name")
    tool_call_id: str
    content: str | tuple[ContentPart, ...]
    is_error: bool
    tool_name: str | None
    role = MessageRole.TOOL

    def _key(self) -> tuple[Any, ...]:
        return (self.tool_call_id, self.content, self.is_error, self.tool_name)

    if TYPE_CHECKING:  # the signature type checkers show for super().__init__(...)

        def __init__(
            self,
            tool_call_id: str,
            content: Content,
            is_error: bool = False,
            tool_name: str | None = None,
            name: str | None = None,
            metadata: Mapping[str, Any] | None = None,
            extras: Mapping[str, Any] | None = None,
            id: str | None = None,
            created_at: datetime | None = None,
        ) -> None: ...

    def __new__(
        cls: type[M],
        tool_call_id: str,
        content: Content,
        is_error: bool = False,
        tool_name: str | None = None,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> M:
        if type(tool_call_id) is not str or not tool_call_id:
            _fail("tool_call_id is required (a non-empty str)", "tool_call_id")
        if is_error is not False and is_error is not True:
            _fail(f"expected bool, got {type(is_error).__name__}", "is_error")
        if tool_name is not None and (type(tool_name) is not str or not tool_name):
            _fail("expected a non-empty str or None", "tool_name")
        self = _new(_BUILD_TOOL_RESULT if cls is ToolResultMessage else _building(cls))
        self.tool_call_id = tool_call_id
        self.content = content if type(content) is str else check_content(content, TOOL_PARTS)
        self.is_error = is_error
        self.tool_name = tool_name
        if (
            name is None
            and metadata is None
            and extras is None
            and id is None
            and created_at is None
        ):
            # Hot path: the usual call passes only content (saves the _common call, ~70 ns).
            self._aux = None
            self._created = _time_ns()
            self._id = next(_counter)
        else:
            _common(self, name, metadata, extras, id, created_at)
        self.__class__ = cls
        return self  # type: ignore[no-any-return]

    @property
    def result(self) -> ToolResult:
        """This message as a ToolResult."""
        from ._tool_result import ToolResult

        return ToolResult(self.tool_call_id, self.content, self.is_error, self.tool_name)

    def _repr_more(self) -> str:
        return f", tool_call_id={self.tool_call_id!r}, is_error={self.is_error}"


# Classes whose value is content plus the common fields (see Message.__eq__).
_CONTENT_ONLY: frozenset[type] = frozenset(
    (SystemMessage, DeveloperMessage, UserMessage, AssistantMessage)
)


# Trusted builders: decoders and provider parsers call these after validating.
# ``created_at`` may also be the canonical UTC text ``YYYY-MM-DDTHH:MM:SS.ffffffZ``
# (already checked by the caller): it is kept as text until ``created_at`` is read,
# and the encoder writes it back as it is.
#
# hot path: the common-field handling (``_aux`` tuple, id stamp, created_at) is
# written out in each builder instead of calling helpers: trusted_content_message
# went from ~460 to ~300 ns (each Python call costs ~60 ns here).


def trusted_content_message(
    cls: type[M],
    content: str | tuple[ContentPart, ...] | None,
    name: str | None = None,
    metadata: FrozenDict = EMPTY,
    extras: FrozenDict = EMPTY,
    id: str | None = None,
    created_at: datetime | str | None = None,
) -> M:
    """Build a System/Developer/User/Assistant message (or subclass) without validation."""
    self = _new(_BUILDING.get(cls) or _building(cls))
    self.content = content
    self._aux = None if name is None and not metadata and not extras else (name, metadata, extras)
    if id is None:
        if created_at is None:
            self._created = _time_ns()
            self._id = next(_counter)
        else:  # the id is made now, from the clock, not from created_at
            self._created = created_at
            self._id = _new_id()
    else:
        self._id = id
        self._created = _now() if created_at is None else created_at
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


def trusted_tool_call_message(
    cls: type[M],
    tool_calls: tuple[ToolCall, ...],
    content: str | tuple[ContentPart, ...] | None,
    name: str | None = None,
    metadata: FrozenDict = EMPTY,
    extras: FrozenDict = EMPTY,
    id: str | None = None,
    created_at: datetime | str | None = None,
) -> M:
    """Build a ToolCallMessage (or subclass) without validation."""
    self = _new(_BUILDING.get(cls) or _building(cls))
    self.tool_calls = tool_calls
    self.content = content
    self._aux = None if name is None and not metadata and not extras else (name, metadata, extras)
    if id is None:
        if created_at is None:
            self._created = _time_ns()
            self._id = next(_counter)
        else:  # the id is made now, from the clock, not from created_at
            self._created = created_at
            self._id = _new_id()
    else:
        self._id = id
        self._created = _now() if created_at is None else created_at
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


def trusted_tool_result_message(
    cls: type[M],
    tool_call_id: str,
    content: str | tuple[ContentPart, ...],
    is_error: bool = False,
    tool_name: str | None = None,
    name: str | None = None,
    metadata: FrozenDict = EMPTY,
    extras: FrozenDict = EMPTY,
    id: str | None = None,
    created_at: datetime | str | None = None,
) -> M:
    """Build a ToolResultMessage (or subclass) without validation."""
    self = _new(_BUILDING.get(cls) or _building(cls))
    self.tool_call_id = tool_call_id
    self.content = content
    self.is_error = is_error
    self.tool_name = tool_name
    self._aux = None if name is None and not metadata and not extras else (name, metadata, extras)
    if id is None:
        if created_at is None:
            self._created = _time_ns()
            self._id = next(_counter)
        else:  # the id is made now, from the clock, not from created_at
            self._created = created_at
            self._id = _new_id()
    else:
        self._id = id
        self._created = _now() if created_at is None else created_at
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


_new = object.__new__

# Every concrete class builds in __new__ on its mutable twin (see _frozen.mutable_twin):
# each field store is a plain attribute store instead of a slot-setter call.
_CONCRETE: frozenset[type] = frozenset(
    (
        SystemMessage,
        DeveloperMessage,
        UserMessage,
        AssistantMessage,
        ToolCallMessage,
        ToolResultMessage,
    )
)
_BUILDING: dict[type, Any] = _TWINS  # class -> its mutable twin (made on first use)
_BUILD_SYSTEM = twin_of(SystemMessage)
_BUILD_DEVELOPER = twin_of(DeveloperMessage)
_BUILD_USER = twin_of(UserMessage)
_BUILD_ASSISTANT = twin_of(AssistantMessage)
_BUILD_TOOL_CALLS = twin_of(ToolCallMessage)
_BUILD_TOOL_RESULT = twin_of(ToolResultMessage)


def _building(cls: type) -> Any:
    """The mutable twin of a message class (made on first use for subclasses)."""
    if not (isinstance(cls, type) and issubclass(cls, Message)):
        raise TypeError(f"{cls!r} is not a message class")
    return twin_of(cls)


def _restore(cls: type[M], state: dict[str, Any]) -> M:
    """Unpickle a message: allocate without building, then restore its slots."""
    self: M = object.__new__(cls)
    self.__setstate__(state)
    return self


# The codec is imported on first use (import time); see _lazy.
if TYPE_CHECKING:
    from . import _codec
else:
    _codec = LazyModule("._codec", __package__, globals(), "_codec")
