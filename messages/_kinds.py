"""The kind of each message: the one table every module that dispatches on messages uses.

A message's kind is fixed by its class (a user's subclass has the kind of the built-in
class it derives from). The turn-order rules (``_ordering``) and every provider's
formatter look kinds up here and never keep a table of their own.

=================  =======================================
``SYSTEM``         ``SystemMessage``
``DEVELOPER``      ``DeveloperMessage``
``USER``           ``UserMessage``
``ASSISTANT``      ``AssistantMessage`` (a text turn)
``TOOL_CALL``      ``ToolCallMessage``
``TOOL_RESULT``    ``ToolResultMessage``
=================  =======================================
"""

from __future__ import annotations

from ._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from .errors import reject

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "ASSISTANT",
    "DEVELOPER",
    "KIND_NAMES",
    "SYSTEM",
    "TOOL_CALL",
    "TOOL_RESULT",
    "USER",
    "kind_of",
    "kind_or_none",
]

SYSTEM: Final = 0
DEVELOPER: Final = 1
USER: Final = 2
ASSISTANT: Final = 3
TOOL_CALL: Final = 4
TOOL_RESULT: Final = 5
KIND_NAMES: Final = ("system", "developer", "user", "assistant", "tool_call", "tool_result")

#: Message class -> kind. The built-in classes are here from the start; a subclass is
#: added the first time it is met (its kind is that of its nearest built-in base).
_KINDS: dict[type, int] = {
    SystemMessage: SYSTEM,
    DeveloperMessage: DEVELOPER,
    UserMessage: USER,
    AssistantMessage: ASSISTANT,
    ToolCallMessage: TOOL_CALL,
    ToolResultMessage: TOOL_RESULT,
}


def kind_or_none(message: object) -> int | None:
    """The kind of ``message``, or None when it is not an instance of a built-in message class."""
    cls = type(message)
    kind = _KINDS.get(cls)
    if kind is None and isinstance(message, Message):
        for base in cls.__mro__:  # the nearest built-in base decides
            kind = _KINDS.get(base)
            if kind is not None:
                _KINDS[cls] = kind
                break
    return kind


def kind_of(message: object, path: str) -> int:
    """The kind of ``message``; a ValidationError at ``path`` when it is not a message."""
    kind = _KINDS.get(type(message))
    if kind is None:
        kind = kind_or_none(message)
        if kind is None:
            reject(f"expected a Message, got {type(message).__name__}", path)
    return kind
