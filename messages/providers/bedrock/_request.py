"""Importing a conversation written as a Converse request body.

``system`` becomes a leading SystemMessage (its text blocks joined; the blocks kept
when they are more than one plain text block); each ``toolResult`` block of a user
turn becomes a ToolResultMessage and the rest of the turn a UserMessage; an
assistant turn is read like a response. A ``cachePoint`` that ends a message's
blocks is the message's ``cache`` hint (see ``_hints``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..._frozen import EMPTY, FrozenDict
from ..._json import json_type
from ..._message import AssistantMessage, Message, SystemMessage, ToolResultMessage, UserMessage
from ..._parts import ContentPart, TextPart
from ...errors import DecodeError, ValidationError
from .._base import Losses, as_list, as_mapping, decode_error, freeze_decoded, required_str
from .._json_results import json_object_of
from ._blocks import AssistantTurn, block_kind, kept_item, unknown_item
from ._common import state_extras
from ._hints import read_point
from ._parts import PartWriter, is_blockish, read_media

_MEDIA = frozenset(("image", "document", "video"))
_ASSISTANT_ONLY = frozenset(("toolUse", "reasoningContent"))


def read_request(body_or_list: Any, tag: str) -> list[Message]:
    """The messages of a request body (or of its ``messages`` list)."""
    out: list[Message] = []
    if isinstance(body_or_list, Mapping):
        prefix = "messages"
        raw = as_list(body_or_list.get("messages"), "messages")
        system = body_or_list.get("system")
        if system is not None:
            message = _system(as_list(system, "system"), tag)
            if message is not None:
                out.append(message)
    elif isinstance(body_or_list, (list, tuple)):
        prefix = ""
        raw = body_or_list
    else:
        raise DecodeError(
            f"expected a request body object or a list of messages, got {json_type(body_or_list)}",
            "",
        )
    for i, item in enumerate(raw):
        path = f"{prefix}[{i}]"
        wire = as_mapping(item, path)
        role = wire.get("role")
        content = wire.get("content")
        if content is None:
            raise DecodeError("missing", f"{path}.content")
        blocks = (
            [{"text": content}] if type(content) is str else as_list(content, f"{path}.content")
        )
        if role == "user":
            _user_turn(blocks, f"{path}.content", tag, out)
        elif role == "assistant":
            out.append(_assistant_turn(blocks, f"{path}.content", tag))
        else:
            raise DecodeError("expected role 'user' or 'assistant'", f"{path}.role")
    return out


def _system(blocks: Sequence[Any], tag: str) -> SystemMessage | None:
    """The system blocks as one SystemMessage (module docstring)."""
    if not blocks:
        return None
    checked = [is_blockish(b, f"system[{j}]") for j, b in enumerate(blocks)]
    cache = read_point(checked[-1])
    if cache is not None:
        checked = checked[:-1]
    texts = []
    for j, block in enumerate(checked):
        if "text" in block:
            texts.append(required_str(block, "text", f"system[{j}]"))
    state: dict[str, Any] = {}
    if len(checked) != 1 or len(texts) != 1 or len(checked[0]) != 1:
        state["system"] = freeze_decoded(list(checked), "system")
    return SystemMessage("".join(texts), extras=state_extras(tag, state) or None, cache=cache)


def _assistant_turn(blocks: Sequence[Any], path: str, tag: str) -> AssistantMessage:
    turn = AssistantTurn(tag)
    cache = None
    for j, item in enumerate(blocks):
        bpath = f"{path}[{j}]"
        block = is_blockish(item, bpath)
        if j == len(blocks) - 1 and j > 0 and block_kind(block) == "cachePoint":
            cache = read_point(block)
            if cache is not None:
                break
        turn.add(block, bpath)
    message = turn.message(path, True)
    return message if cache is None else dataclasses.replace(message, cache=cache)


class _UserTurn:
    """The non-result blocks of a user turn, read into one UserMessage."""

    __slots__ = ("index", "kept", "parts", "tag", "unknown")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.parts: list[ContentPart] = []
        self.unknown: list[FrozenDict] = []
        self.kept: list[FrozenDict] = []
        self.index = 0

    def add(self, block: Mapping[str, Any], kind: str, path: str) -> None:
        part = read_part(block, kind, path)
        if part is None:
            self.unknown.append(unknown_item(block, self.index, path))
        else:
            self.parts.append(part)
            keep_whole(block, part, self.index, path, self.tag, self.kept)
        self.index += 1

    def state(self) -> FrozenDict:
        inner: dict[str, Any] = {}
        if self.unknown:
            inner["unknown"] = tuple(self.unknown)
        if self.kept:
            inner["keys"] = tuple(self.kept)
        return state_extras(self.tag, inner)


def _user_turn(blocks: Sequence[Any], path: str, tag: str, out: list[Message]) -> None:
    """A user turn: a ToolResultMessage per ``toolResult`` block, then the rest."""
    rest = _UserTurn(tag)
    results = 0
    cache = None
    last = ""  # whose the latest block is: "result", "user" or none
    for j, item in enumerate(blocks):
        bpath = f"{path}[{j}]"
        block = is_blockish(item, bpath)
        kind = block_kind(block)
        hint = read_point(block) if kind == "cachePoint" else None
        if hint is not None and last == "result" and out[-1].cache is None:
            out[-1] = dataclasses.replace(out[-1], cache=hint)
            last = ""
            continue
        if hint is not None and last == "user" and j == len(blocks) - 1:
            cache = hint
            continue
        if kind == "toolResult":
            out.append(_tool_result(block["toolResult"], f"{bpath}.toolResult", tag))
            results += 1
            last = "result"
            continue
        if kind in _ASSISTANT_ONLY:
            raise DecodeError(f"a {kind} block is not allowed in a user message", bpath)
        rest.add(block, kind, bpath)
        last = "user"
    if rest.index or not results:
        extras = rest.state()
        parts = rest.parts
        content: str | tuple[ContentPart, ...] = tuple(parts)
        if len(parts) == 1 and isinstance(parts[0], TextPart) and not extras:
            content = parts[0].text
        out.append(UserMessage(content, extras=extras or None, cache=cache))


def read_part(block: Mapping[str, Any], kind: str, path: str) -> ContentPart | None:
    """The part of a user block, or None for a block no part carries."""
    if kind == "text":
        return TextPart(required_str(block, "text", path))
    if kind in _MEDIA:
        return read_media(kind, block[kind], path)
    return None


def keep_whole(
    block: Mapping[str, Any],
    part: ContentPart,
    index: int,
    path: str,
    tag: str,
    kept: list[FrozenDict],
) -> None:
    """Keep a block whole when its part does not format back to it (module docstring of
    ``_parts``)."""
    if isinstance(part, TextPart) and len(block) == 1:
        return
    sent = PartWriter(Losses(), tag).block(part, path, False)
    if sent != block:
        kept.append(kept_item(index, sent, block, path))


def _tool_result(value: Any, path: str, tag: str) -> ToolResultMessage:
    result = as_mapping(value, path)
    call_id = required_str(result, "toolUseId", path)
    if not call_id:
        raise DecodeError("must not be empty", f"{path}.toolUseId")
    status = result.get("status")
    if status not in (None, "success", "error"):
        raise DecodeError("expected 'success' or 'error'", f"{path}.status")
    inner = _UserTurn(tag)
    json_at: list[int] = []
    raw = result.get("content", [])
    for k, item in enumerate(as_list(raw, f"{path}.content")):
        cpath = f"{path}.content[{k}]"
        block = is_blockish(item, cpath)
        kind = block_kind(block)
        if kind == "json":
            json_at.append(k)
            block = {"text": _json_text(block["json"], f"{cpath}.json")}
            kind = "text"
        inner.add(block, kind, cpath)
    state: dict[str, Any] = dict(next(iter(inner.state().values()), EMPTY))
    if json_at:
        state["json"] = tuple(json_at)
    if status == "success":
        state["status"] = "success"
    content: str | tuple[ContentPart, ...] = tuple(inner.parts)
    if not inner.unknown and not inner.kept and len(inner.parts) <= 1:
        first = inner.parts[0] if inner.parts else TextPart("")
        if isinstance(first, TextPart):
            content = first.text
            if not json_at and json_object_of(content) is not None:
                state["json"] = ()  # a text block: it goes back as one, not as json
    try:
        return ToolResultMessage(
            call_id, content, status == "error", extras=state_extras(tag, state) or None
        )
    except ValidationError as exc:
        raise decode_error(exc, path) from None


def _json_text(value: Any, path: str) -> str:
    """A ``json`` block's value as compact JSON text."""
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        raise DecodeError("expected a JSON value", path) from None
