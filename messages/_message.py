"""The message classes: one per role, plus the assistant turn that calls tools.

Every class is a ``@dataclass(frozen=True, slots=True)`` whose checks live in
``__post_init__``, and every construction runs them: the dataclass ``__init__``,
a user's subclass and ``dataclasses.replace`` alike. Decoders and provider parsers,
which have checked what they read, build through ``_build`` instead (the one
trusted path). The common fields (``name``, ``metadata``, ``extras``, ``cache``,
``id``, ``created_at``) are keyword-only, so a subclass's own fields may have
defaults.

``id`` and ``created_at`` are made lazily: see ``_ids.LazyId`` and
``_ids.LazyCreatedAt``, the one mechanism behind them. Reading either always gives
a ``str`` and an aware ``datetime``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
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
    check_opt_str,
    check_str,
)
from ._frozen import EMPTY
from ._ids import MessageStamps
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
    "created_at_text",
    "start_stamps",
]

Content = str | Sequence[ContentPart | str]
"""What a message's content may be given as: a string or a sequence of parts (plain strings in the sequence become TextParts)."""

_NO_ID: Any = None  # the default of id and created_at: "make one"
_store = object.__setattr__


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
        if type(self) is Message:
            raise TypeError("Message is abstract: use a subclass or a Message.* factory")
        if self.name is not None:
            _store(self, "name", check_str(self.name, "name"))
        if self.metadata is not EMPTY:
            _store(self, "metadata", check_mapping(self.metadata, "metadata"))
        if self.extras is not EMPTY:
            _store(self, "extras", check_mapping(self.extras, "extras"))
        if self.cache is not None:
            _store(self, "cache", check_cache(self.cache))
        given_id, given_time = _STAMPS.given(self)
        _STAMPS.start(
            self,
            None if given_id is None else check_id(given_id),
            None if given_time is None else check_created_at(given_time),
        )

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


_STAMPS = MessageStamps(Message)


def created_at_text(message: Message) -> str:
    """``message.created_at`` as canonical text (``YYYY-MM-DDTHH:MM:SS.ffffffZ``)."""
    return _STAMPS.created_at_text(message)


def start_stamps(message: object, id: str | None, created_at: datetime | str | None) -> None:
    """Give a message built on the trusted path (``_build``) its id and creation time."""
    _STAMPS.start(message, id, created_at)


# -- the classes ------------------------------------------------------------------------
#
# Each class declares its ``__init__`` signature for the type checker only (the common
# fields also take None there); at run time the dataclass ``__init__`` stores the
# arguments and calls ``__post_init__``, where the checks are.


@dataclass(frozen=True, slots=True, repr=False)
class SystemMessage(Message):
    """Instructions from the application (role ``system``)."""

    content: str = field(repr=False)
    role = MessageRole.SYSTEM

    if TYPE_CHECKING:

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
        ) -> None: ...

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        if type(self.content) is not str:
            _store(self, "content", check_str(self.content, "content"))


@dataclass(frozen=True, slots=True, repr=False)
class DeveloperMessage(Message):
    """Instructions from the developer (role ``developer``)."""

    content: str = field(repr=False)
    role = MessageRole.DEVELOPER

    if TYPE_CHECKING:

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
        ) -> None: ...

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        if type(self.content) is not str:
            _store(self, "content", check_str(self.content, "content"))


@dataclass(frozen=True, slots=True, repr=False)
class UserMessage(Message):
    """What the user said: a string or text, image, audio and file parts."""

    content: str | tuple[ContentPart, ...] = field(repr=False)
    role = MessageRole.USER

    if TYPE_CHECKING:

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
        ) -> None: ...

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        if type(self.content) is not str:
            _store(self, "content", check_content(self.content, USER_PARTS))


@dataclass(frozen=True, slots=True, repr=False)
class AssistantMessage(Message):
    """What the model answered: a string or text and reasoning parts.

    ``content`` is never None here; only a ToolCallMessage may have no content.
    """

    content: str | tuple[ContentPart, ...] | None = field(repr=False)
    role = MessageRole.ASSISTANT

    if TYPE_CHECKING:

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
        ) -> None: ...

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        if type(self.content) is not str:
            _store(self, "content", check_content(self.content, ASSISTANT_PARTS))


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
    if not isinstance(value, (list, tuple)):
        reject(f"expected a sequence of {kind.__name__}, got {type(value).__name__}", path)
    for i, c in enumerate(value):
        if not isinstance(c, kind):
            reject(f"expected {kind.__name__}, got {type(c).__name__}", f"{path}[{i}]")
    return tuple(value)


@dataclass(frozen=True, slots=True, init=False, repr=False)
class ToolCallMessage(AssistantMessage):
    """An assistant turn that calls one or more tools (it may also carry text and reasoning).

    ``invalid_tool_calls`` holds the calls the model got wrong (arguments that are not
    a JSON object, a name that breaks the name rule), kept as written: each is
    answered like a valid call (usually ``ToolResult.error``). At least one call, valid
    or invalid, is required; ids are unique across both. Call order is
    ``tool_calls`` then ``invalid_tool_calls``.

    Its ``__init__`` takes ``tool_calls`` first; a dataclass subclass's generated
    ``__init__`` takes ``content`` first (the field order): pass ``tool_calls`` by
    keyword there.
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
        """The message, from its calls and content and the common fields (keyword-only).

        Stores the arguments as given, then ``__post_init__`` checks them, as the
        dataclass ``__init__`` would; only the order of the parameters differs.
        """
        _store(self, "content", content)
        _store(self, "tool_calls", tool_calls)
        _store(self, "invalid_tool_calls", invalid_tool_calls)
        _store(self, "name", name)
        _store(self, "metadata", EMPTY if metadata is None else metadata)
        _store(self, "extras", EMPTY if extras is None else extras)
        _store(self, "cache", cache)
        _store(self, "id", id)
        _store(self, "created_at", created_at)
        self.__post_init__()

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        calls, invalid = check_tool_calls(self.tool_calls, self.invalid_tool_calls)
        _store(self, "tool_calls", calls)
        _store(self, "invalid_tool_calls", invalid)
        content = self.content
        if content is not None and type(content) is not str:
            _store(self, "content", check_content(content, ASSISTANT_PARTS))

    def _repr_more(self) -> str:
        more = f", tool_calls={len(self.tool_calls)}"
        if self.invalid_tool_calls:
            more += f", invalid_tool_calls={len(self.invalid_tool_calls)}"
        return more

    @property
    def tool_call_ids(self) -> tuple[str, ...]:
        """The ids of every call, valid then invalid, in order."""
        return tuple([c.id for c in self.tool_calls] + [c.id for c in self.invalid_tool_calls])


@dataclass(frozen=True, slots=True, repr=False)
class ToolResultMessage(Message):
    """The result of one tool call (role ``tool``)."""

    tool_call_id: str
    content: str | tuple[ContentPart, ...] = field(repr=False)
    is_error: bool = False
    tool_name: str | None = None
    role = MessageRole.TOOL

    if TYPE_CHECKING:

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
        ) -> None: ...

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        if type(self.tool_call_id) is not str or not self.tool_call_id:
            if not isinstance(self.tool_call_id, str) or not self.tool_call_id:
                reject("tool_call_id is required (a non-empty str)", "tool_call_id")
            _store(self, "tool_call_id", str(self.tool_call_id))
        check_bool(self.is_error, "is_error")
        if self.tool_name is not None:
            tool_name = check_opt_str(self.tool_name, "tool_name")
            if not tool_name:
                reject("expected a non-empty str or None", "tool_name")
            _store(self, "tool_name", tool_name)
        if type(self.content) is not str:
            _store(self, "content", check_content(self.content, TOOL_PARTS))

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


# The codec is imported on first use (import time); see _lazy.
if TYPE_CHECKING:
    from . import _codec
else:
    _codec = LazyModule("._codec", __package__, globals(), "_codec")
