"""The message classes: one per role, plus the assistant turn that calls tools.

Every class is a ``@dataclass(frozen=True, slots=True)``. Its checks live in its
``__init__``, which every construction runs: a call of the class, a user's subclass
(a dataclass subclass's generated ``__init__`` reaches it through ``__post_init__``)
and ``dataclasses.replace`` alike. Decoders and provider parsers, which have checked
what they read, build through ``_build`` instead (the one trusted path). The common
fields (``name``, ``metadata``, ``extras``, ``id``, ``created_at``, ``cache``) are
keyword-only, so a subclass's own fields may have defaults.

``id`` and ``created_at`` are made lazily: see ``_ids.LazyId`` and
``_ids.LazyCreatedAt``, the one mechanism behind them. Reading either always gives
a ``str`` and an aware ``datetime``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

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
    check_str,
)
from ._frozen import EMPTY
from ._ids import (
    counter,
    id_time_ns,
    new_id,
    stamp_created_at,
    stamp_id,
    stamp_text,
    text_created_at,
    time_ns,
)
from ._lazy import LazyModule
from ._parts import ContentPart, ReasoningPart, TextPart
from ._role import MessageRole
from ._tool_call import InvalidToolCall, ToolCall
from .errors import ident, reject

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: this module must not import typing
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any, ClassVar, NoReturn, TypeVar

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
    "created_at_text",
    "start_stamps",
]

Content = str | Sequence[ContentPart | str]
"""What a message's content may be given as: a string or a sequence of parts (plain strings in the sequence become TextParts)."""

_NO_ID: Any = None  # the default of id and created_at: "make one"


@dataclass(frozen=True, slots=True, repr=False)
class Message:
    """Base of every message: name, metadata, extras, cache, id and created_at.

    Equality and hash cover everything except ``id`` and ``created_at``.
    ``metadata`` is developer context; ``extras`` holds unknown fields captured
    when decoding and provider-specific fields (kept in storage, never sent).
    ``cache`` marks the end of a cacheable prompt prefix (see ``CacheHint``).
    ``id`` is made when not given (unique across processes, time-ordered) and
    ``created_at`` is the construction time unless given.

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
    id: str = field(default=_NO_ID, kw_only=True, compare=False)
    created_at: datetime = field(default=_NO_ID, kw_only=True, compare=False)
    cache: CacheHint | None = field(default=None, kw_only=True)

    if TYPE_CHECKING:  # declared by each subclass (a class attribute and a field)
        role: ClassVar[MessageRole]

        @property
        def content(self) -> str | tuple[ContentPart, ...] | None: ...

    def __post_init__(self) -> None:
        # Only a direct dataclass subclass of Message gets here (the built-in classes
        # have their own __init__): its generated __init__ stored the common fields as
        # given, and they are checked now.
        if type(self) is Message:
            raise TypeError("Message is abstract: use a subclass or a Message.* factory")
        _init_common(self, **_given(self))

    # -- the views every message offers -------------------------------------------

    @property
    def text(self) -> str:
        """All text parts joined with no separator; ``""`` when there are none."""
        c = self.content
        if type(c) is str:
            return c
        if not c:
            return ""
        return "".join([p.text for p in c if isinstance(p, TextPart)])

    @property
    def parts(self) -> tuple[ContentPart, ...]:
        """The content as parts (a str content is one TextPart; empty gives ``()``)."""
        c = self.content
        if isinstance(c, str):
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
        c = self.content
        if not c or isinstance(c, str):
            return ()
        return tuple([p for p in c if isinstance(p, ReasoningPart)])

    # -- changing a message (keeps its id) -----------------------------------------

    def with_content(self: M, content: Any) -> M:
        """Return a copy with other content."""
        changes: dict[str, Any] = {"content": content}  # a field of every subclass
        return dataclasses.replace(self, **changes)

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
        c = self.content
        if isinstance(c, str):
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
        if content is None:
            reject("content is required (an empty string is valid)", "content")
        return AssistantMessage(
            content,
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


# -- id and created_at, made when first read -----------------------------------------------
#
# Building a message reads the clock and takes a sequence number, but formats neither:
# its ``id`` slot holds the sequence number and its ``created_at`` slot the clock's
# nanoseconds. The two descriptors below stand in for the dataclass's slot descriptors:
# the first read of ``id`` formats the id, which carries the clock reading to the
# microsecond (``_ids.stamp_id``), stores it and empties the ``created_at`` slot
# (None), whose datetime is then read from the id; the first encode keeps the canonical
# text there (``created_at_text``). So reading ``id`` always gives a ``str``, reading
# ``created_at`` an aware ``datetime``, and a message whose id was read holds one
# 32-character string where it held two ints. A given created_at (a datetime, or a
# decoded message's canonical text) stays in its slot.
#
# Threads may race on a first read: the id is stored before the created_at slot is
# emptied, so a reader that finds the slot empty finds the id made; every thread that
# formats the id stores an equal string. This section is the only code that looks at
# the two slots; other modules use ``created_at_text`` and ``start_stamps``.

_id_slot, _created_slot = Message.__dict__["id"], Message.__dict__["created_at"]
_get_id: Callable[[object], str | int] = _id_slot.__get__
_set_id: Callable[[object, object], None] = _id_slot.__set__
_get_created: Callable[[object], datetime | str | int | None] = _created_slot.__get__
_set_created: Callable[[object, object], None] = _created_slot.__set__
_next_seq = counter.__next__


def _read_created_at(message: object) -> datetime:
    value = _get_created(message)
    if value is None:  # read from the id (see above)
        return stamp_created_at(id_time_ns(str(_get_id(message))))
    if isinstance(value, int):
        return stamp_created_at(value)
    if isinstance(value, str):
        return text_created_at(value)
    return value


class _Id:
    """The ``id`` attribute of the message classes (see above)."""

    __slots__ = ()

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = _get_id(obj)
        if not isinstance(value, int):
            return value
        created = _get_created(obj)
        if not isinstance(created, int):  # another thread made the id meanwhile
            return _get_id(obj)
        made = stamp_id(created, value)
        _set_id(obj, made)
        _set_created(obj, None)
        return made

    def __set__(self, obj: object, value: object) -> None:
        _set_id(obj, value)


class _CreatedAt:
    """The ``created_at`` attribute of the message classes (see above)."""

    __slots__ = ()

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        return self if obj is None else _read_created_at(obj)

    def __set__(self, obj: object, value: object) -> None:
        _set_created(obj, value)


type.__setattr__(Message, "id", _Id())
type.__setattr__(Message, "created_at", _CreatedAt())


def start_stamps(message: object, id: str | None, created_at: datetime | str | None) -> None:
    """Give a new message its id and creation time: the ones given (checked), or new ones.

    ``created_at`` may be the canonical text of a decoded message. With no id, the id
    is made from the clock now (not from a given ``created_at``).
    """
    if id is None:
        if created_at is None:
            _set_created(message, time_ns())
            _set_id(message, _next_seq())
            return
        id = new_id()
    _set_id(message, id)
    _set_created(message, time_ns() if created_at is None else created_at)


def created_at_text(message: Message) -> str:
    """``message.created_at`` as canonical text (``YYYY-MM-DDTHH:MM:SS.ffffffZ``)."""
    value = _get_created(message)
    if isinstance(value, str):
        return value
    if value is None:  # kept: a message is encoded again each time it is stored or sent
        text = stamp_text(id_time_ns(str(_get_id(message))))
        _set_created(message, text)
        return text
    if isinstance(value, int):
        return stamp_text(value)
    return _timestamps.iso_utc(value)  # a given datetime: its text is kept there


# -- building a message -------------------------------------------------------------------
#
# The built-in classes are built in agent loops, so each has a hand-written ``__init__``
# where its checks live: it checks each argument and stores the checked value once,
# through the field's slot setter (a frozen dataclass refuses ``self.x = v``; its
# generated ``__init__`` stores every field through ``object.__setattr__`` and
# ``__post_init__`` would store the checked ones again: see docs/performance.md).
# A user's dataclass subclass gets a generated ``__init__``, which stores the fields
# as given and calls ``__post_init__``: there each class runs its own ``__init__`` on
# those values, so the same checks run for every construction.


def _setter(cls: type, name: str) -> Callable[[object, object], None]:
    setter: Callable[[object, object], None] = cls.__dict__[name].__set__
    return setter


_set_name = _setter(Message, "name")
_set_metadata = _setter(Message, "metadata")
_set_extras = _setter(Message, "extras")
_set_cache = _setter(Message, "cache")


def _init_common(
    self: Message,
    name: str | None,
    metadata: Mapping[str, Any] | None,
    extras: Mapping[str, Any] | None,
    id: str | None,
    created_at: datetime | None,
    cache: CacheHint | None,
) -> None:
    """Check and store the fields every message has."""
    _set_name(self, None if name is None else check_str(name, "name"))
    _set_metadata(self, EMPTY if metadata is None else check_mapping(metadata, "metadata"))
    _set_extras(self, EMPTY if extras is None else check_mapping(extras, "extras"))
    _set_cache(self, None if cache is None else check_cache(cache))
    if id is None and created_at is None:  # the usual call: a new id and the current time
        _set_created(self, time_ns())
        _set_id(self, _next_seq())
    else:
        start_stamps(
            self,
            None if id is None else check_id(id),
            None if created_at is None else check_created_at(created_at),
        )


def _given(self: Message) -> dict[str, Any]:
    """The common fields as a dataclass ``__init__`` stored them (id and created_at as given)."""
    return {
        "name": self.name,
        "metadata": self.metadata,
        "extras": self.extras,
        "id": _get_id(self),
        "created_at": _get_created(self),
        "cache": self.cache,
    }


# -- the classes ------------------------------------------------------------------------


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
        _set_system_content(self, check_str(content, "content"))
        _init_common(self, name, metadata, extras, id, created_at, cache)

    def __post_init__(self) -> None:
        SystemMessage.__init__(self, self.content, **_given(self))


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
        _set_developer_content(self, check_str(content, "content"))
        _init_common(self, name, metadata, extras, id, created_at, cache)

    def __post_init__(self) -> None:
        DeveloperMessage.__init__(self, self.content, **_given(self))


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
        _set_user_content(self, check_content(content, USER_PARTS))
        _init_common(self, name, metadata, extras, id, created_at, cache)

    def __post_init__(self) -> None:
        UserMessage.__init__(self, self.content, **_given(self))


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
        _set_assistant_content(self, check_content(content, ASSISTANT_PARTS))
        _init_common(self, name, metadata, extras, id, created_at, cache)

    def __post_init__(self) -> None:
        content: Any = self.content  # None is refused by the check, naming the field
        AssistantMessage.__init__(self, content, **_given(self))


def check_tool_calls(
    tool_calls: object, invalid_tool_calls: object = ()
) -> tuple[tuple[ToolCall, ...], tuple[InvalidToolCall, ...]]:
    """Both call sequences of a ToolCallMessage: at least one call in all, ids unique across both."""
    if not isinstance(tool_calls, (list, tuple)):
        _not_calls(tool_calls, ToolCall, "tool_calls")
    if not isinstance(invalid_tool_calls, (list, tuple)):
        _not_calls(invalid_tool_calls, InvalidToolCall, "invalid_tool_calls")
    ids = set()
    for c in tool_calls:
        if not isinstance(c, ToolCall):
            _not_calls(tool_calls, ToolCall, "tool_calls")
        ids.add(c.id)
    for c in invalid_tool_calls:
        if not isinstance(c, InvalidToolCall):
            _not_calls(invalid_tool_calls, InvalidToolCall, "invalid_tool_calls")
        ids.add(c.id)
    if len(ids) != len(tool_calls) + len(invalid_tool_calls) or not ids:
        _bad_ids(tool_calls, invalid_tool_calls)
    return tuple(tool_calls), tuple(invalid_tool_calls)


def _not_calls(value: object, kind: type, path: str) -> NoReturn:
    """Reject ``value`` (not a sequence of ``kind``), naming the first bad item."""
    if isinstance(value, (list, tuple)):
        for i, c in enumerate(value):
            if not isinstance(c, kind):
                reject(f"expected {kind.__name__}, got {type(c).__name__}", f"{path}[{i}]")
    reject(f"expected a sequence of {kind.__name__}, got {type(value).__name__}", path)


def _bad_ids(calls: Sequence[ToolCall], invalid: Sequence[InvalidToolCall]) -> NoReturn:
    """Reject calls with no call at all, or with an id twice, naming the second one."""
    seen: set[str] = set()
    groups: tuple[tuple[str, Sequence[ToolCall | InvalidToolCall]], ...] = (
        ("tool_calls", calls),
        ("invalid_tool_calls", invalid),
    )
    for path, group in groups:
        for i, c in enumerate(group):
            if c.id in seen:
                reject(
                    f"duplicate tool call id {ident(c.id)} within the message", f"{path}[{i}].id"
                )
            seen.add(c.id)
    reject("at least one tool call (valid or invalid) is required", "tool_calls")


@dataclass(frozen=True, slots=True, init=False, repr=False)
class ToolCallMessage(AssistantMessage):
    """An assistant turn that calls one or more tools (it may also carry text and reasoning).

    ``invalid_tool_calls`` holds the calls the model got wrong (arguments that are not
    a JSON object, a name that breaks the name rule), kept as written: each is
    answered like a valid call (usually ``ToolResult.error``). At least one call, valid
    or invalid, is required; ids are unique across both. Call order is
    ``tool_calls`` then ``invalid_tool_calls``.

    A dataclass subclass's generated ``__init__`` takes ``content`` first (the field
    order): pass ``tool_calls`` by keyword there.
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
        calls, invalid = check_tool_calls(tool_calls, invalid_tool_calls)
        if content is not None:
            content = check_content(content, ASSISTANT_PARTS)
        _set_assistant_content(self, content)
        _set_tool_calls(self, calls)
        _set_invalid_tool_calls(self, invalid)
        _init_common(self, name, metadata, extras, id, created_at, cache)

    def __post_init__(self) -> None:
        ToolCallMessage.__init__(
            self, self.tool_calls, self.content, self.invalid_tool_calls, **_given(self)
        )

    def _repr_more(self) -> str:
        more = f", tool_calls={len(self.tool_calls)}"
        if self.invalid_tool_calls:
            more += f", invalid_tool_calls={len(self.invalid_tool_calls)}"
        return more

    @property
    def tool_call_ids(self) -> tuple[str, ...]:
        """The ids of every call, valid then invalid, in order."""
        return tuple([c.id for c in self.tool_calls] + [c.id for c in self.invalid_tool_calls])


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
        if not isinstance(tool_call_id, str) or not tool_call_id:
            reject("tool_call_id is required (a non-empty str)", "tool_call_id")
        if tool_name is not None:
            tool_name = check_str(tool_name, "tool_name")
            if not tool_name:
                reject("expected a non-empty str or None", "tool_name")
        _set_tool_call_id(self, str(tool_call_id))
        _set_result_content(self, check_content(content, TOOL_PARTS))
        _set_is_error(self, check_bool(is_error, "is_error"))
        _set_tool_name(self, tool_name)
        _init_common(self, name, metadata, extras, id, created_at, cache)

    def __post_init__(self) -> None:
        ToolResultMessage.__init__(
            self, self.tool_call_id, self.content, self.is_error, self.tool_name, **_given(self)
        )

    @property
    def result(self) -> ToolResult:
        """This message as a ToolResult."""
        from ._tool_result import ToolResult

        return ToolResult(self.tool_call_id, self.content, self.is_error, self.tool_name)

    def _repr_more(self) -> str:
        return f", tool_call_id={ident(self.tool_call_id)}, is_error={self.is_error}"


_set_system_content = _setter(SystemMessage, "content")
_set_developer_content = _setter(DeveloperMessage, "content")
_set_user_content = _setter(UserMessage, "content")
_set_assistant_content = _setter(AssistantMessage, "content")
_set_tool_calls = _setter(ToolCallMessage, "tool_calls")
_set_invalid_tool_calls = _setter(ToolCallMessage, "invalid_tool_calls")
_set_tool_call_id = _setter(ToolResultMessage, "tool_call_id")
_set_result_content = _setter(ToolResultMessage, "content")
_set_is_error = _setter(ToolResultMessage, "is_error")
_set_tool_name = _setter(ToolResultMessage, "tool_name")


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
