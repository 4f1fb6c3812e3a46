"""Formatting: canonical messages as the message part of a Converse request.

One ``_Writer`` per request writes the conversation (the rules are in the package
docstring), one method per message kind. ``out`` holds the wire turns; the open
turn is ``out[-1]``, whose first ``n_res`` blocks are tool results (and the cache
points after them) while it is a user turn. ``unanswered`` holds the calls of the
latest assistant turn still without a result.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ..._frozen import EMPTY, thaw
from ..._kinds import ASSISTANT, DEVELOPER, SYSTEM, TOOL_CALL, TOOL_RESULT, USER, kind_or_none
from ..._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ..._parts import TextPart
from ..._repair import UNANSWERED_TEXT
from ...errors import ValidationError
from .._base import Losses, plain_arguments
from .._cache_hints import NOT_SENT, hint_loss, no_part_rule
from .._json_results import json_object_of
from ._common import BLANK_RULE, blank, own_state
from ._hints import cache_point, limit_points
from ._parts import PartWriter
from ._tools import call_state_losses, invalid_tool_use, tool_use

_UNANSWERED_RULE: Final = "answered with an error result: Bedrock requires a result for every call"
_EMPTY_RULE: Final = "omitted: Bedrock rejects a message without content"
_MOVED_RULE: Final = "moved to the top-level system prompt: Converse has no system role in messages"
_UNPAIRED_RULE: Final = (
    "dropped: Bedrock rejects a toolResult that answers no toolUse of the turn before"
)


def format_messages(
    messages: Sequence[Message], tag: str
) -> tuple[dict[str, Any], Losses, list[str]]:
    """The ``messages`` and ``system`` of a Converse request, every loss, and the names of
    the tools the formatted turns call (for a ``toolConfig`` when none is given)."""
    writer = _Writer(tag)
    for i, m in enumerate(messages):
        kind = kind_or_none(m)
        if kind is None:
            raise ValidationError(
                f"cannot format a message of type {type(m).__name__}", f"messages[{i}]"
            )
        _WRITE[kind](writer, m, i)
    return writer.body(), writer.losses, writer.called


class _Writer:
    """One request being formatted (module docstring)."""

    __slots__ = (
        "called",
        "calls",
        "last",
        "losses",
        "marks",
        "n_res",
        "out",
        "parts",
        "role",
        "system",
        "tag",
        "unanswered",
    )

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.losses = Losses()
        self.parts = PartWriter(self.losses, tag)
        self.out: list[dict[str, Any]] = []
        self.system: list[dict[str, Any]] = []
        self.role = ""  # the role of out[-1]
        self.n_res = 0
        self.calls: set[str] = set()  # the call ids of the latest assistant turn
        self.unanswered: dict[str, tuple[int, int]] = {}  # call id -> (message, call index)
        self.called: list[str] = []  # tool names called, first use first
        self.last = -1  # the latest assistant message sent
        self.marks: list[tuple[dict[str, Any], int]] = []  # (cachePoint block, its message)

    # -- one method per message kind ---------------------------------------------------------

    def system_message(self, m: SystemMessage | DeveloperMessage, i: int) -> None:
        own = self.state(m, i)
        if self.out:
            self.losses.add(
                f"messages[{i}]", f"{m.role.value} message after the first turn", _MOVED_RULE
            )
        kept = own.get("system")
        if kept and _system_text(kept) == m.content:
            blocks = list(thaw(kept))
        elif kept:
            rule = "dropped: the text was changed since it was parsed; the text is sent"
            self.losses.add(f"messages[{i}]", "kept system blocks", rule)
            blocks = [] if blank(m.content) else [{"text": m.content}]
        elif blank(m.content):
            if m.content:
                self.losses.add(f"messages[{i}].content", "whitespace-only text", BLANK_RULE)
            blocks = []
        else:
            blocks = [{"text": m.content}]
        self.system.extend(blocks)
        self.hint(m, i, self.system, bool(blocks))

    def user(self, m: UserMessage, i: int) -> None:
        own = self.state(m, i)
        blocks = self.content(m.content, own, i, assistant=False)
        if not blocks:
            self.empty(m, i)
            return
        self.hint(m, i, blocks, True)
        self.turn("user").extend(blocks)

    def assistant(self, m: AssistantMessage, i: int) -> None:
        own = self.state(m, i)
        blocks = self.content(m.content, own, i, assistant=True)
        if not blocks:
            self.empty(m, i)
            return
        self.hint(m, i, blocks, True)
        self.assistant_turn(i).extend(blocks)
        self.last = i

    def tool_calls(self, m: ToolCallMessage, i: int) -> None:
        own = self.state(m, i)
        content = m.content if m.content is not None else ""
        blocks = self.content(content, own, i, assistant=True)
        calls: dict[str, tuple[int, int]] = {}
        for k, c in enumerate(m.tool_calls):
            if c.extras:
                call_state_losses(c.extras, self.tag, f"messages[{i}].tool_calls[{k}]", self.losses)
            blocks.append(tool_use(c, plain_arguments(c.arguments)))
            calls[c.id] = (i, k)
        for k, bad in enumerate(m.invalid_tool_calls, len(m.tool_calls)):
            block = invalid_tool_use(bad, self.tag, f"messages[{i}].tool_calls[{k}]", self.losses)
            if block is not None:
                blocks.append(block)
                calls[bad.id] = (i, k)
        if not blocks:
            self.empty(m, i)
            return
        self.hint(m, i, blocks, True)
        self.assistant_turn(i).extend(blocks)
        self.last = i
        self.unanswered.update(calls)
        self.calls.update(calls)
        for block in blocks:
            if "toolUse" in block:
                self.note_call(block["toolUse"]["name"])

    def tool_result(self, m: ToolResultMessage, i: int) -> None:
        own = self.state(m, i)
        if self.unanswered.pop(m.tool_call_id, None) is None:
            why = (
                "a second result for the call"
                if m.tool_call_id in self.calls
                else "no matching toolUse"
            )
            self.losses.add(f"messages[{i}]", f"tool result with {why}", _UNPAIRED_RULE)
            if m.cache is not None:
                hint_loss(self.losses, i, NOT_SENT)
            return
        blocks = [self.result_block(m, own, i)]
        self.hint(m, i, blocks, True)
        self.add_results(blocks)

    # -- pieces --------------------------------------------------------------------------------

    def state(self, m: Message, i: int) -> Mapping[str, Any]:
        """A message's name (a loss) and its state for this tag (others' state: losses)."""
        if m.name is not None:
            self.losses.add(
                f"messages[{i}].name", "message name", "dropped: Bedrock messages have no name"
            )
        if not m.extras:
            return EMPTY
        own = own_state(m.extras, self.tag, f"messages[{i}]", self.losses)
        if own.get("streamed"):
            rule = "dropped: a streamed block of a kind this package does not rebuild"
            self.losses.add(f"messages[{i}]", "streamed content blocks", rule)
        return own

    def content(self, content: Any, own: Mapping[str, Any], i: int, assistant: bool) -> list[Any]:
        """A message's blocks: its text or parts, with its kept blocks put back."""
        blocks: list[Any] = []
        if isinstance(content, str):
            if not blank(content):
                blocks.append({"text": content})
            elif content:
                self.losses.add(f"messages[{i}].content", "whitespace-only text", BLANK_RULE)
        else:
            # whitespace-only text is refused alone but taken beside other text
            keep_blank = any(isinstance(p, TextPart) and not blank(p.text) for p in content)
            for j, p in enumerate(content):
                path = f"messages[{i}].content[{j}]"
                if isinstance(p, TextPart) and blank(p.text):
                    if p.text and keep_blank:
                        blocks.append({"text": p.text})
                    elif p.text:
                        self.losses.add(path, "whitespace-only text", BLANK_RULE)
                    continue
                block = self.parts.block(p, path, assistant)
                if block is not None:
                    blocks.append(block)
        if own:
            put_back(blocks, own, f"messages[{i}]", self.losses)
        return blocks

    def result_block(self, m: ToolResultMessage, own: Mapping[str, Any], i: int) -> dict[str, Any]:
        """The ``toolResult`` block of a result."""
        inner: list[Any] = []
        if isinstance(m.content, str):
            # a JSON object goes as a json block, unless it was read from Bedrock as text
            value = None if m.is_error or "json" in own else json_object_of(m.content)
            if value is not None:
                inner.append({"json": value})
            elif m.content:
                inner.append({"text": m.content})
        else:
            for j, p in enumerate(m.content):
                block = self.parts.block(p, f"messages[{i}].content[{j}]", False)
                if block is not None:
                    inner.append(block)
        if own:
            _as_json(inner, own.get("json"))
            put_back(inner, own, f"messages[{i}]", self.losses)
        result: dict[str, Any] = {"toolUseId": m.tool_call_id, "content": inner}
        if m.is_error:
            result["status"] = "error"
        elif own.get("status") == "success":
            result["status"] = "success"
        return {"toolResult": result}

    def hint(self, m: Message, i: int, blocks: list[Any], sent: bool) -> None:
        """A message's cache hint: a ``cachePoint`` block after its blocks."""
        if m.cache is None:
            return
        if not sent:
            hint_loss(self.losses, i, no_part_rule("content block"))
            return
        point = cache_point(m.cache)
        blocks.append(point)
        self.marks.append((point, i))

    def empty(self, m: Message, i: int) -> None:
        self.losses.add(f"messages[{i}]", f"empty {m.role.value} message", _EMPTY_RULE)
        if m.cache is not None:
            hint_loss(self.losses, i, NOT_SENT)

    def note_call(self, name: str) -> None:
        if name not in self.called:
            self.called.append(name)

    # -- turns ---------------------------------------------------------------------------------

    def turn(self, role: str) -> list[Any]:
        """The content of the open turn of ``role`` (opened if need be)."""
        if role == "user" and self.role == "assistant" and self.unanswered:
            self.answer(self.turn_open("user"))
        if self.role != role:
            self.turn_open(role)
        content: list[Any] = self.out[-1]["content"]
        return content

    def turn_open(self, role: str) -> list[Any]:
        content: list[Any] = []
        self.out.append({"role": role, "content": content})
        self.role = role
        self.n_res = 0
        return content

    def assistant_turn(self, i: int) -> list[Any]:
        """The open assistant turn; the calls before it are answered first."""
        if self.unanswered:
            self.answer(self.turn("user") if self.role == "user" else self.turn_open("user"))
        if self.role != "assistant":
            self.calls = set()
        return self.turn("assistant")

    def add_results(self, blocks: list[Any]) -> None:
        """A result's blocks, after the results already in the open user turn."""
        content = self.turn("user") if self.role == "user" else self.turn_open("user")
        content[self.n_res : self.n_res] = blocks
        self.n_res += len(blocks)

    def answer(self, content: list[Any]) -> None:
        """An error result, in the open user turn, for each call still without one."""
        for call_id, (i, k) in self.unanswered.items():
            block = {
                "toolResult": {
                    "toolUseId": call_id,
                    "content": [{"text": UNANSWERED_TEXT}],
                    "status": "error",
                }
            }
            content.insert(self.n_res, block)
            self.n_res += 1
            self.losses.add(
                f"messages[{i}].tool_calls[{k}]", "unanswered tool call", _UNANSWERED_RULE
            )
        self.unanswered.clear()

    def body(self) -> dict[str, Any]:
        """The ``messages`` and ``system`` of the request."""
        if self.role == "user" and self.unanswered:
            self.answer(self.out[-1]["content"])
        if self.role == "assistant":
            _strip_final(self.out[-1]["content"], self.last, self.losses)
        if self.marks:
            limit_points(self.system, self.out, self.marks, self.losses)
        body: dict[str, Any] = {"messages": self.out}
        if self.system:
            body["system"] = self.system
        return body


_WRITE: dict[int, Callable[[_Writer, Any, int], None]] = {
    SYSTEM: _Writer.system_message,
    DEVELOPER: _Writer.system_message,
    USER: _Writer.user,
    ASSISTANT: _Writer.assistant,
    TOOL_CALL: _Writer.tool_calls,
    TOOL_RESULT: _Writer.tool_result,
}


def put_back(blocks: list[Any], own: Mapping[str, Any], path: str, losses: Losses) -> None:
    """A message's kept blocks back at their indices, and blocks kept whole back in place of
    what their part formats to while it still does (else a Loss)."""
    unknown = own.get("unknown")
    for item in sorted(_items(unknown), key=_index):
        if isinstance(item.get("value"), Mapping):
            blocks.insert(min(item["index"], len(blocks)), thaw(item["value"]))
    for item in _items(own.get("keys")):
        index = item["index"]
        if index < len(blocks) and blocks[index] == thaw(item.get("sent")):
            blocks[index] = thaw(item.get("value"))
        else:
            rule = "dropped: the part was changed since it was parsed"
            losses.add(path, "keys of a content block that no part field carries", rule)


def _system_text(kept: Any) -> str | None:
    """The text of kept system blocks (their text blocks joined, the others skipped)."""
    if not isinstance(kept, (list, tuple)):
        return None
    texts = [b.get("text") for b in kept if isinstance(b, Mapping)]
    return "".join(t for t in texts if type(t) is str)


def _items(kept: Any) -> list[Mapping[str, Any]]:
    if not isinstance(kept, (list, tuple)):
        return []
    return [
        x
        for x in kept
        if isinstance(x, Mapping) and type(x.get("index")) is int and x["index"] >= 0
    ]


def _index(item: Mapping[str, Any]) -> int:
    index: int = item["index"]
    return index


def _as_json(inner: list[Any], indices: Any) -> None:
    """The text blocks that were ``json`` blocks, as ``json`` blocks again (while their text
    is still a JSON object: Bedrock refuses any other value in a ``json`` block)."""
    if not isinstance(indices, (list, tuple)):
        return
    for index in indices:
        if type(index) is int and 0 <= index < len(inner) and "text" in inner[index]:
            with contextlib.suppress(ValueError):  # edited into text that is not JSON: sent as text
                value = json.loads(inner[index]["text"])
                if type(value) is dict:  # Bedrock takes a JSON object only in a json block
                    inner[index] = {"json": value}


def _strip_final(content: list[Any], i: int, losses: Losses) -> None:
    """Strip the trailing whitespace of the final assistant turn (Bedrock's Claude models
    reject it)."""
    end = len(content) - 1
    while end >= 0 and "cachePoint" in content[end]:
        end -= 1
    if end < 0 or type(content[end].get("text")) is not str:
        return
    text = content[end]["text"]
    if not text or not text[-1].isspace():
        return
    stripped = text.rstrip()
    if stripped:
        content[end] = {**content[end], "text": stripped}
    elif len(content) > 1:
        del content[end]
    else:
        return
    rule = "stripped: Bedrock rejects a final assistant turn that ends in whitespace"
    losses.add(f"messages[{i}].content", "trailing whitespace of the final assistant turn", rule)
