"""ShareGPT lines, as LLaMA-Factory reads them.

``{"conversations": [{"from": ..., "value": ...}], "system"?: "...", "tools"?: "..."}``:
``from`` is ``system``, ``human``, ``gpt``, ``function_call`` (``value``: the JSON text
of ``{"name", "arguments"}``, or of a list of them for parallel calls) or
``observation`` (a tool's result). ``tools`` is the JSON text of a list of function
definitions (``name``, ``description``, ``parameters``). The original ShareGPT dumps
carry the record's key as ``id``. ShareGPT has no call ids: results answer the calls
before them in order, and each call gets an id derived from its place and text.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from .. import _build
from .._fields import check_tool_name
from .._frozen import EMPTY, freeze_mapping
from .._ids import DERIVED_ID_PREFIX, call_id_of
from .._json import dumps_compact, json_type, loads
from .._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from .._parts import TextPart
from .._tool_call import ToolCall
from ..errors import DecodeError, MessageError, ValidationError, ident
from ..providers._base import Loss, is_derived_id
from ._common import (
    Encoded,
    foreign_extras,
    frozen,
    key_at,
    list_at,
    provider,
    split_tools,
    weight_losses,
)
from ._record import Record, trusted_record

__all__ = ["read", "write"]

_LINE = frozenset(("id", "conversations", "system", "tools"))
#: The ``from`` values read as the plain roles (ShareGPT dumps vary in spelling).
_TEXT_ROLES: dict[str, type[Message]] = {
    "system": SystemMessage,
    "human": UserMessage,
    "user": UserMessage,
    "gpt": AssistantMessage,
    "assistant": AssistantMessage,
}
_CALL = "function_call"
_RESULT = ("observation", "tool")


class _Reader:
    """The state of reading one conversation: the messages so far and the calls to answer."""

    __slots__ = ("answered", "messages", "pending")

    def __init__(self, messages: list[Message]) -> None:
        self.messages = messages
        self.pending: tuple[ToolCall, ...] = ()
        self.answered = 0

    def turns(self, turns: list[Any]) -> None:
        """Read every turn; text turns (most of them) on the short path."""
        append = self.messages.append
        build = _build.message
        roles = _TEXT_ROLES
        for i, turn in enumerate(turns):
            if type(turn) is dict:
                who = turn.get("from")
                value = turn.get("value")
                if type(who) is str and type(value) is str:
                    cls = roles.get(who)
                    if cls is not None:
                        append(build(cls, value))
                        self.pending = ()
                        continue
            self.other(i, turn)

    def other(self, i: int, turn: object) -> None:
        """A tool call or result turn, or a turn that is not valid (DecodeError)."""
        path = f"conversations[{i}]"
        if type(turn) is not dict:
            raise DecodeError(f"expected an object, got {json_type(turn)}", path)
        who = turn.get("from")
        value = turn.get("value")
        if type(value) is not str:
            what = (
                "is missing"
                if "value" not in turn
                else f"expected a string, got {json_type(value)}"
            )
            raise DecodeError(what, f"{path}.value")
        if who == _CALL:
            self._calls(i, value, path)
        elif who in _RESULT:
            self._result(value, path)
        else:
            raise DecodeError(f"unknown speaker {ident(who)}", f"{path}.from")

    def _calls(self, i: int, value: str, path: str) -> None:
        data = loads(value, f"{path}.value")
        items = data if type(data) is list else [data]
        calls = tuple(_call(item, value, i, j, data is items) for j, item in enumerate(items))
        if not calls:
            raise DecodeError("expected at least one call", f"{path}.value")
        self.messages.append(_build.tool_call_message(ToolCallMessage, calls))
        self.pending = calls
        self.answered = 0

    def _result(self, value: str, path: str) -> None:
        if self.answered >= len(self.pending):
            raise DecodeError(
                "a tool result that no function_call before it asked for", f"{path}.from"
            )
        call = self.pending[self.answered]
        self.answered += 1
        self.messages.append(
            _build.tool_result_message(ToolResultMessage, call.id, value, False, call.name)
        )


def _call(item: object, value: str, i: int, j: int, listed: bool) -> ToolCall:
    """One call of the ``function_call`` turn ``i`` (``value``: its text): ``{"name",
    "arguments"}``, the arguments an object or its JSON text. Its id is derived from the
    turn's place and text, so the same line always gives the same ids."""
    try:
        if type(item) is not dict:
            raise DecodeError(f"expected an object, got {json_type(item)}")
        name = check_tool_name(item.get("name"), "name")
        arguments = item.get("arguments", EMPTY)
        raw = arguments if type(arguments) is str else None
        if raw is not None:
            arguments = loads(raw, "arguments")
        if type(arguments) is not dict and arguments is not EMPTY:
            raise DecodeError(f"expected an object, got {json_type(arguments)}", "arguments")
        frozen_arguments = freeze_mapping(arguments, "arguments")
    except MessageError as exc:
        where = f"conversations[{i}].value" + (f"[{j}]" if listed else "")
        raise DecodeError(
            exc.message, where if exc.path in ("", "$") else f"{where}.{exc.path}"
        ) from None
    call_id = call_id_of(DERIVED_ID_PREFIX, f"sharegpt\x1f{i}\x1f{j}\x1f{value}")
    return _build.tool_call(ToolCall, call_id, name, frozen_arguments, EMPTY, raw)


def read(obj: Mapping[str, Any]) -> Record:
    """A ShareGPT line as a Record."""
    key = key_at(obj, "id")
    turns = list_at(obj, "conversations")
    assert turns is not None
    messages: list[Message] = []
    system = obj.get("system")
    if system is not None:
        if type(system) is not str:
            raise DecodeError(f"expected a string, got {json_type(system)}", "system")
        messages.append(_build.message(SystemMessage, system))
    _Reader(messages).turns(turns)
    tools = _tools(obj["tools"]) if "tools" in obj else ()
    return trusted_record(key, tuple(messages), tools, frozen(obj, _LINE))


def _tools(value: object) -> tuple[Any, ...]:
    """The tool definitions of a line's ``tools``: JSON text (or a list) of function definitions."""
    if value is None or value == "":
        return ()
    if type(value) is str:
        return _tools_of_text(value)
    return _definitions(value)


@functools.lru_cache(maxsize=64)
def _tools_of_text(text: str) -> tuple[Any, ...]:
    """The definitions of a ``tools`` text, kept for the next lines: a dataset's lines
    mostly repeat a few tool lists, and the definitions are immutable."""
    return _definitions(loads(text, "tools"))


def _definitions(listed: object) -> tuple[Any, ...]:
    if type(listed) is not list:
        raise DecodeError(f"expected a list of tool definitions, got {json_type(listed)}", "tools")
    wrapped = [{"type": "function", "function": t} for t in listed]
    tools, _ = split_tools(provider("openai"), wrapped, "tools")
    return tools


# -- writing ------------------------------------------------------------------------------


def _text(message: Message, path: str, losses: list[Loss]) -> str:
    """The message's text; a loss for each part that is not text (and for reasoning)."""
    content = message.content
    if type(content) is str:
        return content
    for k, part in enumerate(content or ()):
        if not isinstance(part, TextPart):
            losses.append(
                Loss(
                    f"{path}.content[{k}]",
                    f"a {type(part).__name__}",
                    "not carried: ShareGPT holds text",
                )
            )
    return message.text


def _plain(speaker: str) -> Callable[[Message, str, list[Loss]], list[dict[str, str]]]:
    def turn(message: Message, path: str, losses: list[Loss]) -> list[dict[str, str]]:
        return [{"from": speaker, "value": _text(message, path, losses)}]

    return turn


def _developer(message: Message, path: str, losses: list[Loss]) -> list[dict[str, str]]:
    losses.append(Loss(path, "the developer role", "written as system"))
    return [{"from": "system", "value": _text(message, path, losses)}]


def _assistant(message: Message, path: str, losses: list[Loss]) -> list[dict[str, str]]:
    for k, _part in enumerate(message.reasoning):
        losses.append(
            Loss(f"{path}.reasoning[{k}]", "reasoning", "not carried: ShareGPT holds text")
        )
    turns = []
    text = _text(message, path, losses)
    calls = message.tool_calls
    if text or not calls:
        turns.append({"from": "gpt", "value": text})
    for k, invalid in enumerate(message.invalid_tool_calls):
        losses.append(
            Loss(
                f"{path}.invalid_tool_calls[{k}]",
                f"the invalid call of {ident(invalid.name)}",
                "not carried",
            )
        )
    if calls:
        items = []
        for k, call in enumerate(calls):
            if not is_derived_id(call.id):
                losses.append(
                    Loss(
                        f"{path}.tool_calls[{k}].id",
                        "the call id",
                        "not carried: ShareGPT pairs results with calls by position",
                    )
                )
            items.append({"name": call.name, "arguments": call.arguments})
        value = items[0] if len(items) == 1 else items
        turns.append({"from": _CALL, "value": dumps_compact(value)})
    return turns


def _observation(message: Message, path: str, losses: list[Loss]) -> list[dict[str, str]]:
    assert isinstance(message, ToolResultMessage)
    if message.is_error:
        losses.append(Loss(f"{path}.is_error", "the error flag of a tool result", "not carried"))
    return [{"from": "observation", "value": _text(message, path, losses)}]


_WRITERS: dict[type, Callable[[Message, str, list[Loss]], list[dict[str, str]]]] = {
    SystemMessage: _plain("system"),
    DeveloperMessage: _developer,
    UserMessage: _plain("human"),
    AssistantMessage: _assistant,
    ToolCallMessage: _assistant,
    ToolResultMessage: _observation,
}


def _writer(message: Message) -> Callable[[Message, str, list[Loss]], list[dict[str, str]]]:
    """The writer of the message's class, or of the nearest built-in class it extends."""
    for cls in type(message).__mro__:
        found = _WRITERS.get(cls)
        if found is not None:
            return found
    raise ValidationError(f"no ShareGPT turn for a {type(message).__name__}", "messages")


def write(record: Record, n: int) -> Encoded:
    """A Record as a ShareGPT line (its key as ``id``)."""
    losses: list[Loss] = []
    turns: list[dict[str, str]] = []
    for i, message in enumerate(record.messages):
        turns.extend(_writer(message)(message, f"messages[{i}]", losses))
    line: dict[str, Any] = {} if record.key is None else {"id": record.key}
    line["conversations"] = turns
    if record.tools:
        functions = [t["function"] for t in provider("openai").format_tools(record.tools)]
        line["tools"] = dumps_compact(functions)
    line.update(foreign_extras(record, "sharegpt", _LINE, losses))
    weight_losses(record, "sharegpt", losses)
    return line, losses
