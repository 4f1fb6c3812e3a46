"""Copies of messages as instances of user-defined subclasses, for provider tests.

A formatter picks its writer by the message class; a subclass a user defines must
be formatted exactly like its base class (body and losses).
"""

from __future__ import annotations

from typing import Any, cast

from messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from messages.providers import get_provider


class _System(SystemMessage):
    __slots__ = ()


class _Developer(DeveloperMessage):
    __slots__ = ()


class _User(UserMessage):
    __slots__ = ()


class _Assistant(AssistantMessage):
    __slots__ = ()


class _Calls(ToolCallMessage):
    __slots__ = ()


class _Result(ToolResultMessage):
    __slots__ = ()


_SUB = {
    SystemMessage: _System,
    DeveloperMessage: _Developer,
    UserMessage: _User,
    AssistantMessage: _Assistant,
    ToolCallMessage: _Calls,
    ToolResultMessage: _Result,
}


def as_subclass(m: Message) -> Message:
    """``m`` as an instance of a subclass of its class, with the same fields."""
    sub: Any = object.__new__(_SUB[type(m)])
    sub.__setstate__(cast(Any, m).__getstate__())
    return cast(Message, sub)


def same_as_subclasses(name: str, ms: list[Message]) -> None:
    """Provider ``name`` formats ``ms`` and their subclass copies alike."""
    p = get_provider(name)
    subs = [as_subclass(m) for m in ms]
    assert [type(s).__mro__[1] for s in subs] == [type(m) for m in ms]
    base, sub = p.convert(ms), p.convert(subs)
    assert base.body == sub.body
    assert base.losses == sub.losses
