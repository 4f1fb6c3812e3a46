"""Assistant turns: their content blocks read once, in order, into one message.

One reader serves a response, a request's assistant turn and a finished stream. A
turn of one text block is a message of that text; otherwise each text and reasoning
block is its own part, in wire order, and the calls follow. Blocks the canonical
model has no part for (``citationsContent``, a server tool's ``toolResult``, an
image...) are kept in ``extras[tag]["unknown"]`` at their index and sent back to
this provider only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..._build import message, tool_call_message
from ..._frozen import EMPTY, FrozenDict
from ..._message import AssistantMessage, ToolCallMessage
from ..._parts import ContentPart, ReasoningPart, TextPart
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ident
from .._base import as_mapping, freeze_decoded, joined_text, opt_str, unique_calls
from ._common import b64_text, state_extras
from ._parts import is_blockish
from ._tools import read_call


def block_kind(block: Mapping[str, Any]) -> str:
    """The member a content block sets (its first key: the union has one)."""
    for key in block:
        if type(key) is str:
            return key
        break
    return ""


def unknown_item(block: Mapping[str, Any], index: int, path: str) -> FrozenDict:
    """The kept form of a block the canonical model has no part for (``path``: where it was)."""
    value = freeze_decoded(block, path)
    return FrozenDict({"index": index, "path": path, "type": block_kind(block), "value": value})


def kept_item(index: int, sent: Any, value: Mapping[str, Any], path: str) -> FrozenDict:
    """The kept form of a block whose part formats to ``sent`` instead (see ``_common``);
    its ``keys`` are the members of the block that ``sent`` does not have alike (of a
    ``citationsContent`` block read as its text: all but its ``content``)."""
    kind = block_kind(value)
    inner = value.get(kind)
    mine = sent.get(kind) if isinstance(sent, Mapping) else None
    if isinstance(inner, Mapping) and kind == "citationsContent":
        keys = {k: v for k, v in inner.items() if k != "content"}
    elif isinstance(inner, Mapping) and isinstance(mine, Mapping):
        keys = {k: v for k, v in inner.items() if mine.get(k) != v}
    else:
        keys = {kind: inner}
    item = {"index": index, "keys": keys, "sent": sent, "value": value}
    return FrozenDict(freeze_decoded(item, path))


def citations_text(value: Any) -> str | None:
    """The text of a ``citationsContent`` block (its ``content`` texts joined), or None when
    it holds anything else."""
    content = value.get("content") if isinstance(value, Mapping) else None
    return joined_text(content)


def reasoning_part(value: Any, path: str, tag: str) -> ReasoningPart:
    """The part of a ``reasoningContent`` block: signed text, or redacted bytes (base64)."""
    content = as_mapping(value, path)
    if "redactedContent" in content:
        data = b64_text(content["redactedContent"], f"{path}.redactedContent")
        return ReasoningPart(data, None, True, tag)
    text_box = as_mapping(content.get("reasoningText"), f"{path}.reasoningText")
    text = text_box.get("text")
    if type(text) is not str:
        raise DecodeError(
            "expected a string" if text is not None else "missing", f"{path}.reasoningText.text"
        )
    signature = opt_str(text_box.get("signature"), f"{path}.reasoningText.signature")
    return ReasoningPart(text, signature or None, False, tag)


class AssistantTurn:
    """The blocks of one assistant turn, in wire order, as they are read."""

    __slots__ = ("calls", "index", "invalid", "keys", "parts", "tag", "unknown")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.parts: list[str | ReasoningPart] = []
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []
        self.unknown: list[FrozenDict] = []
        self.keys: list[FrozenDict] = []
        self.index = 0  # blocks read so far

    def add(self, block: Mapping[str, Any], path: str) -> None:
        """Read one block of the turn."""
        kind = block_kind(block)
        if kind == "text":
            text = block["text"]
            if type(text) is not str:
                raise DecodeError("expected a string", f"{path}.text")
            self.parts.append(text)
        elif kind == "toolUse":
            self.add_call(read_call(block["toolUse"], None, f"{path}.toolUse"))
        elif kind == "reasoningContent":
            self.parts.append(
                reasoning_part(block["reasoningContent"], f"{path}.reasoningContent", self.tag)
            )
        elif kind == "citationsContent" and citations_text(block[kind]) is not None:
            text = citations_text(block[kind]) or ""
            self.parts.append(text)  # the cited answer is answer text; the citations kept
            self.keys.append(kept_item(self.index, {"text": text}, block, path))
        else:
            self.unknown.append(unknown_item(block, self.index, path))
        self.index += 1

    def add_call(self, call: ToolCall | InvalidToolCall) -> None:
        if isinstance(call, ToolCall):
            self.calls.append(call)
        else:
            self.invalid.append(call)

    def message(
        self,
        where: str,
        request: bool,
        metadata: FrozenDict = EMPTY,
        more: Mapping[str, Any] | None = None,
    ) -> AssistantMessage:
        """The turn as one message; ``more`` joins its state."""
        calls: Sequence[ToolCall] = self.calls
        invalid = list(self.invalid)
        if request:
            _no_repeated_ids(calls, invalid, where)
        else:
            calls, repeated = unique_calls(calls, where)
            invalid.extend(repeated)
        state: dict[str, Any] = dict(more) if more else {}
        if self.unknown:
            state["unknown"] = tuple(self.unknown)
        if self.keys:
            state["keys"] = tuple(self.keys)
        extras = state_extras(self.tag, state)
        content: str | tuple[ContentPart, ...]
        if len(self.parts) == 1 and type(self.parts[0]) is str:
            content = self.parts[0]
        else:
            content = tuple(TextPart(p) if isinstance(p, str) else p for p in self.parts)
        # the calls' ids are unique (checked above), the parts and calls built checked
        if calls or invalid:
            return tool_call_message(
                ToolCallMessage,
                tuple(calls),
                content or None,
                tuple(invalid),
                None,
                metadata,
                extras,
            )
        return message(AssistantMessage, content, None, metadata, extras)


def read_assistant(
    blocks: Sequence[Any],
    prefix: str,
    tag: str,
    request: bool,
    metadata: FrozenDict = EMPTY,
    more: Mapping[str, Any] | None = None,
) -> AssistantMessage:
    """The message of an assistant turn's content blocks."""
    turn = AssistantTurn(tag)
    for j, item in enumerate(blocks):
        path = f"{prefix}[{j}]"
        turn.add(is_blockish(item, path), path)
    return turn.message(prefix, request, metadata, more)


def _no_repeated_ids(calls: Sequence[ToolCall], invalid: list[InvalidToolCall], where: str) -> None:
    seen: set[str] = set()
    every: list[ToolCall | InvalidToolCall] = [*calls, *invalid]
    for k, c in enumerate(every):
        if c.id in seen:
            raise DecodeError(
                f"duplicate toolUseId {ident(c.id)} within the message",
                f"{where}.toolUse[{k}].toolUseId",
            )
        seen.add(c.id)
