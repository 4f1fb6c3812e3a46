"""The message classes: one per role, plus the assistant turn that calls tools.

Hot path: messages are built in agent loops, so each class has a hand-written
``__init__`` that validates inline and assigns through slot setters bound once
(the dataclass features stay: eq, hash, replace, fields, pickling). Decoders use
the ``trusted_*`` builders below, which skip validation they already did.
``id`` and ``created_at`` are formatted lazily from one int stamp (see ``_ids``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, TypeVar, Union, overload

from ._frozen import EMPTY, FrozenDict, freeze_mapping
from ._ids import UTC, stamp, stamp_created_at, stamp_id
from ._parts import AudioPart, ContentPart, FilePart, ImagePart, ReasoningPart, TextPart
from ._role import MessageRole
from ._tool_call import ToolCall
from .errors import ValidationError

if TYPE_CHECKING:
    from ._tool_result import ToolResult

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

M = TypeVar("M", bound="Message")

Content = Union[str, Sequence[ContentPart]]
"""What a message's content may be given as: a string or a sequence of parts."""

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
    return value  # type: ignore[return-value]


def _check_created_at(value: object) -> datetime:
    if not isinstance(value, datetime):
        _fail(f"expected an aware datetime, got {type(value).__name__}", "created_at")
    if value.tzinfo is None or value.utcoffset() is None:
        _fail("datetime must be timezone-aware", "created_at")
    return value if value.tzinfo is UTC else value.astimezone(UTC)


@dataclass(frozen=True, slots=True, init=False, repr=False)
class Message:
    """Base of every message: id, name, metadata, extras and created_at.

    Equality and hash cover everything except ``id`` and ``created_at``.
    ``metadata`` is developer context; ``extras`` holds unknown fields captured
    when decoding and provider-specific fields (kept in storage, never sent).
    """

    id: str = field(compare=False)
    name: str | None
    metadata: Mapping[str, Any]
    extras: Mapping[str, Any]
    created_at: datetime = field(compare=False)

    role: ClassVar[MessageRole]

    def __init__(self) -> None:
        raise TypeError("Message is abstract: use a subclass or a Message.* factory")

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
        return dataclasses.replace(self, content=content)  # type: ignore[misc]

    def with_name(self: M, name: str | None) -> M:
        """Return a copy with another name."""
        return dataclasses.replace(self, name=name)  # type: ignore[misc]

    def with_metadata(self: M, metadata: Mapping[str, Any] | None = None, **more: Any) -> M:
        """Return a copy whose metadata is ``metadata`` (default: the current one) plus ``more``."""
        base = dict(self.metadata if metadata is None else metadata)
        base.update(more)
        return dataclasses.replace(self, metadata=base)  # type: ignore[misc]

    def with_extras(self: M, extras: Mapping[str, Any] | None) -> M:
        """Return a copy with other extras."""
        return dataclasses.replace(self, extras=extras)  # type: ignore[misc]

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

    @overload
    @staticmethod
    def assistant(content: Content, tool_calls: tuple[()] = (), **kwargs: Any) -> AssistantMessage: ...

    @overload
    @staticmethod
    def assistant(
        content: Content | None = None, tool_calls: Sequence[ToolCall] = (), **kwargs: Any
    ) -> AssistantMessage: ...

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


# Hot path: slot setters bound once; they bypass the frozen __setattr__ (~40 ns each
# instead of ~120 ns through object.__setattr__).
_id_slot: Any = Message.__dict__["id"]
_created_slot: Any = Message.__dict__["created_at"]
_get_id = _id_slot.__get__
_set_id = _id_slot.__set__
_get_created = _created_slot.__get__
_set_created = _created_slot.__set__
_set_name = Message.__dict__["name"].__set__
_set_metadata = Message.__dict__["metadata"].__set__
_set_extras = Message.__dict__["extras"].__set__


class _LazyId:
    """Formats an auto-generated id on first read (the slot holds an int stamp until then)."""

    __slots__ = ()

    def __get__(self, obj: Message | None, owner: type | None = None) -> Any:
        if obj is None:
            return _id_slot
        v = _get_id(obj)
        if v.__class__ is int:
            v = stamp_id(v)
            _set_id(obj, v)
        return v

    def __set__(self, obj: Message, value: Any) -> None:
        _set_id(obj, value)


class _LazyCreatedAt:
    """Builds an auto-set created_at datetime on first read."""

    __slots__ = ()

    def __get__(self, obj: Message | None, owner: type | None = None) -> Any:
        if obj is None:
            return _created_slot
        v = _get_created(obj)
        if v.__class__ is int:
            v = stamp_created_at(v)
            _set_created(obj, v)
        return v

    def __set__(self, obj: Message, value: Any) -> None:
        _set_created(obj, value)


type.__setattr__(Message, "id", _LazyId())
type.__setattr__(Message, "created_at", _LazyCreatedAt())


def raw_stamp(message: Message) -> int | None:
    """The int stamp of a message whose id was auto-generated and not yet read, else None."""
    v = _get_id(message)
    return v if v.__class__ is int else None


def _common(
    self: Message,
    name: object,
    metadata: Mapping[str, Any] | None,
    extras: Mapping[str, Any] | None,
    id: object,
    created_at: object,
) -> None:
    if name is not None and type(name) is not str:
        _check_str(name, "name")
    _set_name(self, name)
    _set_metadata(self, EMPTY if metadata is None else freeze_mapping(metadata, "metadata"))
    _set_extras(self, EMPTY if extras is None else freeze_mapping(extras, "extras"))
    if id is None:
        s = stamp()
        _set_id(self, s)
        _set_created(self, s if created_at is None else _check_created_at(created_at))
        return
    if type(id) is not str or not id:
        _fail("must be a non-empty str", "id")
    _set_id(self, id)
    _set_created(self, stamp() if created_at is None else _check_created_at(created_at))


@dataclass(frozen=True, slots=True, init=False, repr=False)
class SystemMessage(Message):
    """Instructions from the application (role ``system``)."""

    content: str
    role: ClassVar[MessageRole] = MessageRole.SYSTEM

    def __init__(
        self,
        content: str,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> None:
        _set_sys_content(self, content if type(content) is str else _check_str(content, "content"))
        _common(self, name, metadata, extras, id, created_at)


@dataclass(frozen=True, slots=True, init=False, repr=False)
class DeveloperMessage(Message):
    """Instructions from the developer (role ``developer``)."""

    content: str
    role: ClassVar[MessageRole] = MessageRole.DEVELOPER

    def __init__(
        self,
        content: str,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> None:
        _set_dev_content(self, content if type(content) is str else _check_str(content, "content"))
        _common(self, name, metadata, extras, id, created_at)


@dataclass(frozen=True, slots=True, init=False, repr=False)
class UserMessage(Message):
    """What the user said: a string or text, image, audio and file parts."""

    content: str | tuple[ContentPart, ...]
    role: ClassVar[MessageRole] = MessageRole.USER

    def __init__(
        self,
        content: Content,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> None:
        _set_user_content(
            self, content if type(content) is str else check_content(content, USER_PARTS)
        )
        _common(self, name, metadata, extras, id, created_at)


@dataclass(frozen=True, slots=True, init=False, repr=False)
class AssistantMessage(Message):
    """What the model answered: a string or text and reasoning parts.

    ``content`` is never None here; only a ToolCallMessage may have no content.
    """

    content: str | tuple[ContentPart, ...] | None
    role: ClassVar[MessageRole] = MessageRole.ASSISTANT

    def __init__(
        self,
        content: Content,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> None:
        if type(self) is not AssistantMessage and content is None:
            _set_asst_content(self, None)  # a subclass that allows no content
        else:
            _set_asst_content(
                self,
                content if type(content) is str else check_content(content, ASSISTANT_PARTS),
            )
        _common(self, name, metadata, extras, id, created_at)


@dataclass(frozen=True, slots=True, init=False, repr=False)
class ToolCallMessage(AssistantMessage):
    """An assistant turn that calls one or more tools (it may also carry text and reasoning)."""

    tool_calls: tuple[ToolCall, ...]  # type: ignore[assignment]

    def __init__(
        self,
        tool_calls: Sequence[ToolCall],
        content: Content | None = None,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> None:
        _set_tool_calls(self, check_tool_calls(tool_calls))
        if content is None or type(content) is str:
            _set_asst_content(self, content)
        else:
            _set_asst_content(self, check_content(content, ASSISTANT_PARTS))
        _common(self, name, metadata, extras, id, created_at)

    def _repr_more(self) -> str:
        return f", tool_calls={len(self.tool_calls)}"

    @property
    def tool_call_ids(self) -> tuple[str, ...]:
        """The ids of the calls, in order."""
        return tuple([c.id for c in self.tool_calls])


def check_tool_calls(tool_calls: object, path: str = "tool_calls") -> tuple[ToolCall, ...]:
    """Validate a non-empty sequence of ToolCall with unique ids."""
    if not isinstance(tool_calls, (list, tuple)):
        _fail(f"expected a sequence of ToolCall, got {type(tool_calls).__name__}", path)
    calls = tuple(tool_calls)
    if not calls:
        _fail("at least one tool call is required", path)
    seen: set[str] = set()
    for i, c in enumerate(calls):
        if type(c) is not ToolCall and not isinstance(c, ToolCall):
            _fail(f"expected ToolCall, got {type(c).__name__}", f"{path}[{i}]")
        if c.id in seen:
            _fail("duplicate tool call id within the message", f"{path}[{i}].id")
        seen.add(c.id)
    return calls


@dataclass(frozen=True, slots=True, init=False, repr=False)
class ToolResultMessage(Message):
    """The result of one tool call (role ``tool``)."""

    tool_call_id: str
    content: str | tuple[ContentPart, ...]
    is_error: bool
    tool_name: str | None
    role: ClassVar[MessageRole] = MessageRole.TOOL

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
    ) -> None:
        if type(tool_call_id) is not str or not tool_call_id:
            _fail("tool_call_id is required (a non-empty str)", "tool_call_id")
        if is_error is not False and is_error is not True:
            _fail(f"expected bool, got {type(is_error).__name__}", "is_error")
        if tool_name is not None and (type(tool_name) is not str or not tool_name):
            _fail("expected a non-empty str or None", "tool_name")
        _set_tr_call_id(self, tool_call_id)
        _set_tr_content(self, content if type(content) is str else check_content(content, TOOL_PARTS))
        _set_tr_is_error(self, is_error)
        _set_tr_tool_name(self, tool_name)
        _common(self, name, metadata, extras, id, created_at)

    @property
    def result(self) -> ToolResult:
        """This message as a ToolResult."""
        from ._tool_result import ToolResult

        return ToolResult(self.tool_call_id, self.content, self.is_error, self.tool_name)

    def _repr_more(self) -> str:
        return f", tool_call_id={self.tool_call_id!r}, is_error={self.is_error}"


_set_sys_content = SystemMessage.__dict__["content"].__set__
_set_dev_content = DeveloperMessage.__dict__["content"].__set__
_set_user_content = UserMessage.__dict__["content"].__set__
_set_asst_content = AssistantMessage.__dict__["content"].__set__
_set_tool_calls = ToolCallMessage.__dict__["tool_calls"].__set__
_set_tr_call_id = ToolResultMessage.__dict__["tool_call_id"].__set__
_set_tr_content = ToolResultMessage.__dict__["content"].__set__
_set_tr_is_error = ToolResultMessage.__dict__["is_error"].__set__
_set_tr_tool_name = ToolResultMessage.__dict__["tool_name"].__set__

_CONTENT_SETTERS: dict[type, Any] = {
    SystemMessage: _set_sys_content,
    DeveloperMessage: _set_dev_content,
    UserMessage: _set_user_content,
    AssistantMessage: _set_asst_content,
    ToolCallMessage: _set_asst_content,
    ToolResultMessage: _set_tr_content,
}


def _content_setter(cls: type) -> Any:
    setter = _CONTENT_SETTERS.get(cls)
    if setter is None:
        for base in cls.__mro__:
            if base in _CONTENT_SETTERS:
                setter = _CONTENT_SETTERS[cls] = _CONTENT_SETTERS[base]
                break
        else:
            raise TypeError(f"{cls.__name__} is not a message class with content")
    return setter


def _trusted_common(
    self: Message,
    name: str | None,
    metadata: FrozenDict,
    extras: FrozenDict,
    id: str | None,
    created_at: datetime | None,
) -> None:
    _set_name(self, name)
    _set_metadata(self, metadata)
    _set_extras(self, extras)
    if id is None:
        s = stamp()
        _set_id(self, s)
        _set_created(self, s if created_at is None else created_at)
    else:
        _set_id(self, id)
        _set_created(self, stamp() if created_at is None else created_at)


def trusted_content_message(
    cls: type[M],
    content: str | tuple[ContentPart, ...] | None,
    name: str | None = None,
    metadata: FrozenDict = EMPTY,
    extras: FrozenDict = EMPTY,
    id: str | None = None,
    created_at: datetime | None = None,
) -> M:
    """Build a System/Developer/User/Assistant message (or subclass) without validation."""
    self = object.__new__(cls)
    _content_setter(cls)(self, content)
    _trusted_common(self, name, metadata, extras, id, created_at)
    return self


def trusted_tool_call_message(
    cls: type[M],
    tool_calls: tuple[ToolCall, ...],
    content: str | tuple[ContentPart, ...] | None,
    name: str | None = None,
    metadata: FrozenDict = EMPTY,
    extras: FrozenDict = EMPTY,
    id: str | None = None,
    created_at: datetime | None = None,
) -> M:
    """Build a ToolCallMessage (or subclass) without validation."""
    self = object.__new__(cls)
    _set_tool_calls(self, tool_calls)
    _set_asst_content(self, content)
    _trusted_common(self, name, metadata, extras, id, created_at)
    return self


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
    created_at: datetime | None = None,
) -> M:
    """Build a ToolResultMessage (or subclass) without validation."""
    self = object.__new__(cls)
    _set_tr_call_id(self, tool_call_id)
    _set_tr_content(self, content)
    _set_tr_is_error(self, is_error)
    _set_tr_tool_name(self, tool_name)
    _trusted_common(self, name, metadata, extras, id, created_at)
    return self
