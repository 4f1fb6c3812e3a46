"""Request bodies (``input`` and ``instructions``) to canonical messages.

``instructions`` is a leading system message; ``input`` is a string (one user
message) or a list of items. Message items (with ``type: "message"`` or in the
short ``{role, content}`` form) of the user, system and developer are those
messages; consecutive assistant-side items (assistant messages, reasoning,
function calls and every item this package does not model) form one assistant
message; a ``function_call_output`` is a tool result. An output without a
``call_id`` answers the first call of the turn before it still unanswered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ... import _build
from ..._frozen import EMPTY, FrozenDict
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._message import Message, SystemMessage, UserMessage
from ...errors import DecodeError, ident
from ._items import decode_output, decode_system, decode_turn, decode_user
from ._read import INPUT, array, mapping, opt_string

__all__ = ["parse_messages"]


def parse_messages(body_or_list: Mapping[str, Any] | Sequence[Any], tag: str) -> list[Message]:
    """The conversation of a request body (or of its ``input`` list)."""
    reader = _Reader(tag)
    if isinstance(body_or_list, Mapping):
        reader.body(body_or_list)
    elif isinstance(body_or_list, (list, tuple)):
        reader.items(body_or_list, "")
    else:
        raise DecodeError("expected a request body or a list of input items", "")
    return reader.out


class _Reader:
    """A request's input being read: the messages so far, the run of assistant-side items
    not made a message yet (and where it starts), and the ids of the calls of the last
    turn still unanswered."""

    __slots__ = ("open_calls", "out", "run", "start", "tag")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.out: list[Message] = []
        self.run: list[tuple[Mapping[str, Any], str]] = []
        self.start = 0
        self.open_calls: list[str] = []

    def body(self, body: Mapping[str, Any]) -> None:
        """``instructions`` (a leading system message), then ``input``."""
        instructions = body.get("instructions")
        if instructions is not None:
            if not isinstance(instructions, str):
                raise DecodeError("expected a string of instructions", "instructions")
            self.out.append(SystemMessage(str(instructions)))
        raw = body.get("input")
        if raw is None:
            return
        if isinstance(raw, str):
            # the input was this string: it goes back as one (see _format)
            state = FrozenDict({self.tag: FrozenDict({INPUT: True})})
            self.out.append(_build.message(UserMessage, str(raw), None, EMPTY, state))
            return
        self.items(array(raw, "input"), "input")

    def items(self, items: Sequence[Any], prefix: str) -> None:
        """The input items (``prefix``: their path)."""
        for i, raw in enumerate(items):
            path = f"{prefix}[{i}]"
            self.item(mapping(raw, path), path, i)
        self.flush()

    def item(self, item: Mapping[str, Any], path: str, i: int) -> None:
        t = item.get("type")
        role = item.get("role")
        if t == "function_call_output":
            self.flush()
            call_id = opt_string(item.get("call_id"), f"{path}.call_id")
            self.out.append(decode_output(item, path, self.tag, self.answer(call_id, i)))
        elif (t == "message" or (t is None and role is not None)) and role != "assistant":
            self.flush()
            self.out.append(self.message(item, path, role))
        else:  # an assistant message, reasoning, a call, an item this package does not model
            if not self.run:
                self.start = i
            self.run.append((item, path))

    def message(self, item: Mapping[str, Any], path: str, role: object) -> Message:
        """A user, system or developer message item."""
        if role == "user":
            return decode_user(item, path, self.tag)
        if isinstance(role, str) and role in ("system", "developer"):
            return decode_system(item, path, self.tag, role, leading=not self.out)
        raise DecodeError(
            f"unsupported role {ident(role)}; expected user, assistant, system or developer",
            f"{path}.role",
        )

    def flush(self) -> None:
        """The run of assistant-side items so far as one assistant message."""
        if not self.run:
            return
        message, _ = decode_turn(self.run, self.tag, f"request|{self.start}")
        self.out.append(message)
        self.open_calls = [c.id for c in message.tool_calls]
        self.open_calls += [c.id for c in message.invalid_tool_calls]
        self.run = []

    def answer(self, call_id: str | None, index: int) -> str:
        """The call id an output at ``index`` answers (an output that names none answers
        the first call of the last turn still unanswered)."""
        if call_id:
            if call_id in self.open_calls:
                self.open_calls.remove(call_id)
            return call_id
        if self.open_calls:
            return self.open_calls.pop(0)
        return derive_call_id(DERIVED_ID_PREFIX, "orphan", index, "")
