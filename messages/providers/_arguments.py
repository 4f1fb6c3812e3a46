"""What ``format_request`` and ``convert`` accept, made into what ``_format`` takes.

A conversation is what users hold: a ``ConversationHistory``, a stored session
(``ChatHistoryStorage``), ``Messages``, or any iterable of messages. Tools are a
``Toolbox`` or an iterable of ``ToolDefinition`` (and, for the providers that take
them, tool mappings written in their own wire shape). Anything else is a
ValidationError whose path names the argument and whose message names the type it
got, raised before a formatter runs, so that a wrong argument is never mistaken for
malformed provider state.

Nothing here imports the history, the collections or the storage: a history and a
stored session are read through their ``messages()`` method, ``Messages`` and the
rest by iterating them.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, cast

from .._message import Message
from ..errors import ValidationError, ident

if TYPE_CHECKING:
    from ..tools import ToolDefinition

__all__ = ["ON_LOSS", "OnLoss", "conversation_of", "on_loss_of", "tools_of"]

#: What to do with the losses of a request: warn about each (once), say nothing, or
#: raise ``LossError`` and format nothing.
OnLoss = Literal["warn", "ignore", "raise"]

#: The values ``on_loss`` takes.
ON_LOSS: Final[dict[str, OnLoss]] = {"warn": "warn", "ignore": "ignore", "raise": "raise"}

_CONVERSATION: Final = (
    "expected a conversation (ConversationHistory, ChatHistoryStorage, Messages "
    "or an iterable of Message)"
)
_TOOLS: Final = "expected tools (a Toolbox or an iterable of ToolDefinition)"

#: Iterable, but never a conversation or a list of tools: a text, a JSON object, one
#: message (iterating them would give characters, keys or nothing useful).
_NOT_A_LIST: Final = (str, bytes, bytearray, Mapping, Message)


def conversation_of(value: object) -> Sequence[Message]:
    """The messages of ``value`` (see the module docstring); ValidationError at
    ``messages`` (or ``messages[i]`` for an item that is not a message) otherwise."""
    if type(value) is list or type(value) is tuple:
        items: Sequence[object] = value
    elif isinstance(value, _NOT_A_LIST):
        raise ValidationError(f"{_CONVERSATION}, got {type(value).__name__}", "messages")
    else:
        read = getattr(value, "messages", None)
        if inspect.iscoroutinefunction(read):
            raise ValidationError(
                f"{_CONVERSATION}, got {type(value).__name__} (await its messages() "
                f"and pass what it returns)",
                "messages",
            )
        if callable(read):  # a ConversationHistory or a stored session: its snapshot
            value = read()
        if not isinstance(value, Iterable) or isinstance(value, _NOT_A_LIST):
            raise ValidationError(f"{_CONVERSATION}, got {type(value).__name__}", "messages")
        items = tuple(value)
    for i, m in enumerate(items):
        if not isinstance(m, Message):
            raise ValidationError(f"expected a Message, got {type(m).__name__}", f"messages[{i}]")
    return cast("Sequence[Message]", items)


def tools_of(value: object, mappings: bool = False) -> Sequence[ToolDefinition | Mapping[str, Any]]:
    """The tool definitions of ``value`` (a Toolbox's ``definitions``, the items of an
    iterable, none for None); ValidationError at ``tools`` (or ``tools[i]``) otherwise. With
    ``mappings``, an item may also be a tool mapping in the provider's wire shape."""
    if type(value) is tuple or type(value) is list:
        items: Sequence[object] = value
    elif value is None:  # no tools, as ``tools=None`` always meant
        return ()
    else:
        definitions = getattr(value, "definitions", None)
        if isinstance(definitions, tuple):  # a Toolbox
            value = definitions
        if not isinstance(value, Iterable) or isinstance(value, _NOT_A_LIST):
            raise ValidationError(f"{_TOOLS}, got {type(value).__name__}", "tools")
        items = tuple(value)
    if not items:
        return ()
    from ..tools import ToolDefinition

    for i, tool in enumerate(items):
        if not isinstance(tool, ToolDefinition) and not (mappings and isinstance(tool, Mapping)):
            wanted = "a ToolDefinition or a tool mapping" if mappings else "a ToolDefinition"
            raise ValidationError(f"expected {wanted}, got {type(tool).__name__}", f"tools[{i}]")
    return cast("Sequence[ToolDefinition | Mapping[str, Any]]", items)


def on_loss_of(on_loss: object, strict: bool) -> OnLoss:
    """``on_loss`` checked (``"raise"`` when ``strict``, the older spelling of it)."""
    checked = ON_LOSS.get(on_loss) if isinstance(on_loss, str) else None
    if checked is None:
        got = ident(on_loss) if isinstance(on_loss, str) else type(on_loss).__name__
        raise ValidationError(f"expected 'warn', 'ignore' or 'raise', got {got}", "on_loss")
    return "raise" if strict else checked
