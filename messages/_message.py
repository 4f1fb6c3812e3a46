"""The message classes: one per role, plus the assistant turn that calls tools.

Every class is a ``@dataclass(frozen=True, slots=True)`` whose checks live in
``__post_init__``; a user may subclass one as a dataclass and add fields (see
``Message``). The common fields (``name``, ``metadata``, ``extras``, ``id``,
``created_at``) are keyword-only, so a subclass's own fields may have defaults.

Messages are built in agent loops, so the built-in classes take a faster
``__init__`` from ``_build`` that runs the same checks (``_fields``) on its
arguments before storing them; decoders build through ``_build``'s trusted
functions. ``id`` and ``created_at`` are formatted when first read (``_ids``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ._build import content_message_init, tool_call_message_init, tool_result_message_init
from ._fields import (
    ASSISTANT_PARTS,
    TOOL_PARTS,
    USER_PARTS,
    check_bool,
    check_cache,
    check_content,
    check_created_at,
    check_id,
    check_mapping,
    check_opt_str,
    check_str,
)
from ._frozen import EMPTY
from ._ids import LazyCreatedAt, LazyId, ms_of, new_id, stamp_id_ms, stamp_text, time_ns
from ._ids import counter as _counter
from ._lazy import LazyModule
from ._parts import ContentPart, ReasoningPart, TextPart
from ._role import MessageRole
from ._tool_call import InvalidToolCall, ToolCall
from .errors import ident, reject

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: this module must not import typing
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any, ClassVar, TypeVar

    from ._cache import CacheHint
    from ._registry import MessageRegistry
    from ._tool_result import ToolResult

    M = TypeVar("M", bound="Message")

__all__ = [
    "ASSISTANT_PARTS",
    "TOOL_PARTS",
    "USER_PARTS",
    "BUILTIN_CLASSES",
    "AssistantMessage",
    "Content",
    "DeveloperMessage",
    "Message",
    "SystemMessage",
    "ToolCallMessage",
    "ToolResultMessage",
    "UserMessage",
    "builtin_base",
    "check_content",
    "check_tool_calls",
    "created_at_raw",
    "created_at_text",
    "fresh_fields",
    "raw_stamp",
]

Content = str | Sequence[ContentPart | str]
"""What a message's content may be given as: a string or a sequence of parts (plain strings in the sequence become TextParts)."""


@dataclass(frozen=True, slots=True, repr=False)
class Message:
    """Base of every message: name, metadata, extras, id and created_at.

    Equality and hash cover everything except ``id`` and ``created_at``.
    ``metadata`` is developer context; ``extras`` holds unknown fields captured
    when decoding and provider-specific fields (kept in storage, never sent).
    ``cache`` marks the end of a cacheable prompt prefix (see ``CacheHint``).
    ``id`` is made when not given (unique across processes, time-ordered) and
    ``created_at`` is the construction time unless given; both are formatted on
    first read.

    Subclass a message class as a dataclass to add fields::

        @dataclass(frozen=True, slots=True)
        class TaggedNote(UserMessage):
            tag: str = ""

    The common fields are keyword-only, so new fields may have defaults; a subclass
    that defines ``__post_init__`` calls the base's as ``UserMessage.__post_init__(self)``
    (zero-argument ``super()`` does not work in slotted dataclasses before Python 3.14).
    """

    name: str | None = field(default=None, kw_only=True)
    metadata: Mapping[str, Any] = field(default=EMPTY, kw_only=True, repr=False)
    extras: Mapping[str, Any] = field(default=EMPTY, kw_only=True, repr=False)
    cache: CacheHint | None = field(default=None, kw_only=True)
    id: str = field(default=None, kw_only=True, compare=False)  # type: ignore[assignment]
    created_at: datetime = field(default=None, kw_only=True, compare=False)  # type: ignore[assignment]

    if TYPE_CHECKING:  # a class attribute, never a dataclass field
        role: ClassVar[MessageRole]

    def __post_init__(self) -> None:
        if self.__class__ is Message:
            raise TypeError("Message is abstract: use a subclass or a Message.* factory")
        store = object.__setattr__
        name = self.name
        if name is not None:
            store(self, "name", check_str(name, "name"))
        store(self, "metadata", check_mapping(self.metadata, "metadata"))
        store(self, "extras", check_mapping(self.extras, "extras"))
        store(self, "cache", check_cache(self.cache))
        mid = _id_field.raw(self)
        created = _created_field.raw(self)
        if mid is None:
            if created is None:
                store(self, "created_at", time_ns())
                store(self, "id", next(_counter))
            else:  # the id is made now, from the clock, not from created_at
                store(self, "created_at", check_created_at(created))
                store(self, "id", new_id())
        else:
            store(self, "id", check_id(mid))
            store(self, "created_at", time_ns() if created is None else check_created_at(created))

    # -- the views every message offers -------------------------------------------

    @property
    def text(self) -> str:
        """All text parts joined with no separator; ``""`` when there are none."""
        c = self.content  # type: ignore[attr-defined]
        if type(c) is str:
            return c
        if not c:
            return ""
        return "".join([p.text for p in c if type(p) is TextPart or isinstance(p, TextPart)])

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
    def invalid_tool_calls(self) -> tuple[InvalidToolCall, ...]:
        """The malformed tool calls of this message (empty unless a ToolCallMessage)."""
        return ()

    @property
    def reasoning(self) -> tuple[ReasoningPart, ...]:
        """The reasoning parts of this message, in order."""
        c = self.content  # type: ignore[attr-defined]
        if not c or type(c) is str:
            return ()
        return tuple([p for p in c if isinstance(p, ReasoningPart)])

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

    def __copy__(self: M) -> M:
        return self

    def __deepcopy__(self: M, memo: dict[int, Any]) -> M:
        return self

    def __repr__(self) -> str:
        c = self.content  # type: ignore[attr-defined]
        if type(c) is str:
            size = f"text_len={len(c)}"
        elif c is None:
            size = "content=None"
        else:
            size = f"text_len={len(self.text)}, parts={len(c)}"
        cached = ", cache" if self.cache is not None else ""
        return f"{type(self).__name__}(id={ident(self.id)}, role={self.role.value}, {size}{self._repr_more()}{cached})"

    def _repr_more(self) -> str:
        return ""

    # -- factories ----------------------------------------------------------------

    @staticmethod
    def system(
        text: str,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
        cache: CacheHint | None = None,
    ) -> SystemMessage:
        """A system message."""
        return SystemMessage(
            text,
            name=name,
            metadata=metadata,
            extras=extras,
            id=id,
            created_at=created_at,
            cache=cache,
        )

    @staticmethod
    def developer(
        text: str,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
        cache: CacheHint | None = None,
    ) -> DeveloperMessage:
        """A developer message."""
        return DeveloperMessage(
            text,
            name=name,
            metadata=metadata,
            extras=extras,
            id=id,
            created_at=created_at,
            cache=cache,
        )

    @staticmethod
    def user(
        content: Content,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
        cache: CacheHint | None = None,
    ) -> UserMessage:
        """A user message from a string or parts."""
        return UserMessage(
            content,
            name=name,
            metadata=metadata,
            extras=extras,
            id=id,
            created_at=created_at,
            cache=cache,
        )

    @staticmethod
    def assistant(
        content: Content | None = None,
        tool_calls: Sequence[ToolCall] = (),
        *,
        invalid_tool_calls: Sequence[InvalidToolCall] = (),
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
        cache: CacheHint | None = None,
    ) -> AssistantMessage:
        """An assistant message; a ToolCallMessage when there are tool calls, valid or not."""
        if tool_calls or invalid_tool_calls:
            return ToolCallMessage(
                tool_calls,
                content,
                invalid_tool_calls,
                name=name,
                metadata=metadata,
                extras=extras,
                id=id,
                created_at=created_at,
                cache=cache,
            )
        return AssistantMessage(
            content,  # type: ignore[arg-type]  # None is refused at run time, by name
            name=name,
            metadata=metadata,
            extras=extras,
            id=id,
            created_at=created_at,
            cache=cache,
        )

    @staticmethod
    def tool_result(
        tool_call_id: str,
        content: Content,
        is_error: bool = False,
        tool_name: str | None = None,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
        cache: CacheHint | None = None,
    ) -> ToolResultMessage:
        """A tool result message answering ``tool_call_id``."""
        return ToolResultMessage(
            tool_call_id,
            content,
            is_error,
            tool_name,
            name=name,
            metadata=metadata,
            extras=extras,
            id=id,
            created_at=created_at,
            cache=cache,
        )


# ``id`` and ``created_at`` are formatted on first read: descriptors that wrap the
# dataclass's slot descriptors stand in for them (see ``_ids``). The slot descriptors
# stay reachable as ``_id_slot`` and ``_created_slot``: the codec's encoders read the
# raw slots through them. Hot path: a slot descriptor under another name is still a
# specialised slot read (~5 ns), where the lazy descriptor costs ~110 ns and a bound
# slot getter ~30 ns: to_dict of a decoded UserMessage ~310 -> ~250 ns.
_id_slot = Message.__dict__["id"]
_created_slot = Message.__dict__["created_at"]
_created_field = LazyCreatedAt(_created_slot)
_id_field = LazyId(_id_slot, _created_slot)
type.__setattr__(Message, "id", _id_field)
type.__setattr__(Message, "created_at", _created_field)
type.__setattr__(Message, "_id_slot", _id_slot)
type.__setattr__(Message, "_created_slot", _created_slot)
_set_created_text = _created_slot.__set__
_set_id_text = _id_slot.__set__


def raw_stamp(message: Message) -> int | None:
    """The sequence number (unique in this process) of a message whose generated id is not yet formatted."""
    v = _id_field.raw(message)
    return v if v.__class__ is int else None


def created_at_raw(message: Message) -> Any:
    """The ``created_at`` slot as stored: a datetime, the clock's ns or canonical text."""
    return _created_field.raw(message)


def created_at_text(message: Message) -> str:
    """``created_at`` as canonical text (``YYYY-MM-DDTHH:MM:SS.ffffffZ``), made once and kept.

    A fresh message's clock reading is formatted without building a datetime and the
    text is kept in place of it (``created_at`` then reads it back: the same instant).
    """
    c = message._created_slot  # type: ignore[attr-defined]
    if c.__class__ is str:
        return c
    if c.__class__ is int:
        text = stamp_text(c)
        _set_created_text(message, text)
        return text
    return _timestamps.iso_utc(c)


def fresh_fields(message: Message) -> tuple[str, str]:
    """The id and created_at text of a message whose id is not formatted yet (its first
    encode), made from its stamps and kept, as ``id`` and ``created_at_text`` would.

    Hot path: one frame where ``message.id`` and ``created_at_text`` took six (build +
    to_dict of a fresh UserMessage 25,824 -> 21,947 instructions). Threads may race
    here: every form of the stamps gives the same id and text.
    """
    c = message._created_slot  # type: ignore[attr-defined]
    if c.__class__ is int:
        text = stamp_text(c)
        _set_created_text(message, text)
        ms = c // 1_000_000
    else:  # its created_at was read or given: a datetime or its text
        text = created_at_text(message)
        ms = ms_of(c)
    seq = message._id_slot  # type: ignore[attr-defined]
    if seq.__class__ is int:
        seq = stamp_id_ms(ms, seq)
        _set_id_text(message, seq)
    return seq, text


# -- the classes ------------------------------------------------------------------------


def _system_content(content: object) -> str:
    return check_str(content, "content")


def _user_content(content: object) -> Any:
    return check_content(content, USER_PARTS)


def _assistant_content(content: object) -> Any:
    return check_content(content, ASSISTANT_PARTS)


def _tool_content(content: object) -> Any:
    return check_content(content, TOOL_PARTS)


@dataclass(frozen=True, slots=True, init=False, repr=False)
class SystemMessage(Message):
    """Instructions from the application (role ``system``)."""

    content: str = field(repr=False)
    role = MessageRole.SYSTEM

    def __init__(
        self,
        content: str,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
        cache: CacheHint | None = None,
    ) -> None:
        """The message, from its content and the common fields (keyword-only)."""

    if not TYPE_CHECKING:  # the same signature, made fast in _build
        __init__ = content_message_init(_system_content, __init__)

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        object.__setattr__(self, "content", _system_content(self.content))


@dataclass(frozen=True, slots=True, init=False, repr=False)
class DeveloperMessage(Message):
    """Instructions from the developer (role ``developer``)."""

    content: str = field(repr=False)
    role = MessageRole.DEVELOPER

    def __init__(
        self,
        content: str,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
        cache: CacheHint | None = None,
    ) -> None:
        """The message, from its content and the common fields (keyword-only)."""

    if not TYPE_CHECKING:  # the same signature, made fast in _build
        __init__ = content_message_init(_system_content, __init__)

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        object.__setattr__(self, "content", _system_content(self.content))


@dataclass(frozen=True, slots=True, init=False, repr=False)
class UserMessage(Message):
    """What the user said: a string or text, image, audio and file parts."""

    content: str | tuple[ContentPart, ...] = field(repr=False)
    role = MessageRole.USER

    def __init__(
        self,
        content: Content,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
        cache: CacheHint | None = None,
    ) -> None:
        """The message, from its content and the common fields (keyword-only)."""

    if not TYPE_CHECKING:  # the same signature, made fast in _build
        __init__ = content_message_init(_user_content, __init__)

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        object.__setattr__(self, "content", _user_content(self.content))


@dataclass(frozen=True, slots=True, init=False, repr=False)
class AssistantMessage(Message):
    """What the model answered: a string or text and reasoning parts.

    ``content`` is never None here; only a ToolCallMessage may have no content.
    """

    content: str | tuple[ContentPart, ...] | None = field(repr=False)
    role = MessageRole.ASSISTANT

    def __init__(
        self,
        content: Content,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
        cache: CacheHint | None = None,
    ) -> None:
        """The message, from its content and the common fields (keyword-only)."""

    if not TYPE_CHECKING:  # the same signature, made fast in _build
        __init__ = content_message_init(_assistant_content, __init__)

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        object.__setattr__(self, "content", _assistant_content(self.content))


def check_tool_calls(
    tool_calls: object, invalid_tool_calls: object = ()
) -> tuple[tuple[ToolCall, ...], tuple[InvalidToolCall, ...]]:
    """Both call sequences of a ToolCallMessage: at least one call in all, ids unique across both."""
    calls = _call_tuple(tool_calls, ToolCall, "tool_calls")
    invalid = _call_tuple(invalid_tool_calls, InvalidToolCall, "invalid_tool_calls")
    if not calls and not invalid:
        reject("at least one tool call (valid or invalid) is required", "tool_calls")
    seen: set[str] = set()
    for path, group in (("tool_calls", calls), ("invalid_tool_calls", invalid)):
        for i, c in enumerate(group):
            if c.id in seen:
                reject(
                    f"duplicate tool call id {ident(c.id)} within the message", f"{path}[{i}].id"
                )
            seen.add(c.id)
    return calls, invalid


def _call_tuple(value: object, kind: type, path: str) -> tuple[Any, ...]:
    if value.__class__ is tuple:
        items: tuple[Any, ...] = value
    elif isinstance(value, (list, tuple)):
        items = tuple(value)
    else:
        reject(f"expected a sequence of {kind.__name__}, got {type(value).__name__}", path)
    for i, c in enumerate(items):
        if c.__class__ is not kind and not isinstance(c, kind):
            reject(f"expected {kind.__name__}, got {type(c).__name__}", f"{path}[{i}]")
    return items


def _optional_assistant_content(content: object) -> Any:
    return None if content is None else _assistant_content(content)


@dataclass(frozen=True, slots=True, init=False, repr=False)
class ToolCallMessage(AssistantMessage):
    """An assistant turn that calls one or more tools (it may also carry text and reasoning).

    ``invalid_tool_calls`` holds the calls the model got wrong (arguments that are not
    a JSON object, a name that breaks the name rule), kept as written: each is
    answered like a valid call (usually ``ToolResult.error``). At least one call, valid
    or invalid, is required; ids are unique across both. Call order is
    ``tool_calls`` then ``invalid_tool_calls``.

    A subclass's generated ``__init__`` takes ``content`` first (the dataclass field
    order); pass ``tool_calls`` by keyword there.
    """

    content: str | tuple[ContentPart, ...] | None = field(default=None, repr=False)
    tool_calls: tuple[ToolCall, ...] = ()
    invalid_tool_calls: tuple[InvalidToolCall, ...] = ()
    __match_args__ = ("tool_calls", "content", "invalid_tool_calls")

    def __init__(
        self,
        tool_calls: Sequence[ToolCall] = (),
        content: Content | None = None,
        invalid_tool_calls: Sequence[InvalidToolCall] = (),
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
        cache: CacheHint | None = None,
    ) -> None:
        """The message, from its calls and content and the common fields (keyword-only)."""

    if not TYPE_CHECKING:  # the same signature, made fast in _build
        __init__ = tool_call_message_init(ToolCall, _assistant_content, check_tool_calls, __init__)

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        store = object.__setattr__
        calls, invalid = check_tool_calls(self.tool_calls, self.invalid_tool_calls)
        store(self, "tool_calls", calls)
        store(self, "invalid_tool_calls", invalid)
        store(self, "content", _optional_assistant_content(self.content))

    def _repr_more(self) -> str:
        more = f", tool_calls={len(self.tool_calls)}"
        if self.invalid_tool_calls:
            more += f", invalid_tool_calls={len(self.invalid_tool_calls)}"
        return more

    @property
    def tool_call_ids(self) -> tuple[str, ...]:
        """The ids of every call, valid then invalid, in order."""
        return tuple([c.id for c in self.tool_calls] + [c.id for c in self.invalid_tool_calls])


def _result_head(
    tool_call_id: object, is_error: object, tool_name: object
) -> tuple[str, bool, str | None]:
    if type(tool_call_id) is not str or not tool_call_id:
        if not isinstance(tool_call_id, str) or not tool_call_id:
            reject("tool_call_id is required (a non-empty str)", "tool_call_id")
        tool_call_id = str(tool_call_id)
    check_bool(is_error, "is_error")
    name = check_opt_str(tool_name, "tool_name")
    if name is not None and not name:
        reject("expected a non-empty str or None", "tool_name")
    return tool_call_id, is_error, name  # type: ignore[return-value]


@dataclass(frozen=True, slots=True, init=False, repr=False)
class ToolResultMessage(Message):
    """The result of one tool call (role ``tool``)."""

    tool_call_id: str
    content: str | tuple[ContentPart, ...] = field(repr=False)
    is_error: bool = False
    tool_name: str | None = None
    role = MessageRole.TOOL

    def __init__(
        self,
        tool_call_id: str,
        content: Content,
        is_error: bool = False,
        tool_name: str | None = None,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
        cache: CacheHint | None = None,
    ) -> None:
        """The message, from the result's fields and the common fields (keyword-only)."""

    if not TYPE_CHECKING:  # the same signature, made fast in _build
        __init__ = tool_result_message_init(_tool_content, _result_head, __init__)

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        store = object.__setattr__
        call_id, _, tool_name = _result_head(self.tool_call_id, self.is_error, self.tool_name)
        store(self, "tool_call_id", call_id)
        store(self, "tool_name", tool_name)
        store(self, "content", _tool_content(self.content))

    @property
    def result(self) -> ToolResult:
        """This message as a ToolResult."""
        from ._tool_result import ToolResult

        return ToolResult(self.tool_call_id, self.content, self.is_error, self.tool_name)

    def _repr_more(self) -> str:
        return f", tool_call_id={ident(self.tool_call_id)}, is_error={self.is_error}"


#: The built-in message classes, most specific first (ToolCallMessage before AssistantMessage).
BUILTIN_CLASSES: tuple[type[Message], ...] = (
    SystemMessage,
    DeveloperMessage,
    UserMessage,
    ToolCallMessage,
    AssistantMessage,
    ToolResultMessage,
)


def builtin_base(cls: type) -> type[Message] | None:
    """The nearest built-in message class ``cls`` derives from, or None."""
    for base in cls.__mro__:
        if base in BUILTIN_CLASSES:
            return base
    return None


# The codec and datetime are imported on first use (import time); see _lazy.
if TYPE_CHECKING:
    from . import _codec, _timestamps
else:
    _codec = LazyModule("._codec", __package__, globals(), "_codec")
    _timestamps = LazyModule("._timestamps", __package__, globals(), "_timestamps")
