"""Importing a conversation written as a Messages API request body.

The top-level ``system`` becomes a leading SystemMessage; each ``tool_result``
block of a user turn becomes a ToolResultMessage and the rest of the turn a
UserMessage; an assistant turn is read like a response, its layout kept; a
``role: "system"`` message inside ``messages`` (a mid-conversation system message)
becomes a SystemMessage in place. A malformed ``tool_use`` (a name that breaks the
rule, input that is not an object) is an invalid call of its message: the
conversation still imports. A ``cache_control`` on the last block of a message
(the last system block, a ``tool_result`` block, the last other block of a user
turn, the last block of an assistant turn) is the message's ``cache`` hint when
the formatter would write it back as it came; any other is a kept key.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Mapping
from typing import Any

from ..._build import message, tool_result_message
from ..._frozen import EMPTY, FrozenDict
from ..._json import json_type
from ..._message import AssistantMessage, Message, SystemMessage, ToolResultMessage, UserMessage
from ..._parts import ContentPart, FilePart, ImagePart, TextPart
from ...errors import DecodeError, ValidationError
from .._base import (
    as_list,
    as_mapping,
    decode_error,
    freeze_decoded,
    opt_str,
    required_str,
    with_state,
)
from .._cache_hints import CONTROL_KEY, lift_kept
from ._blocks import keys_item, read_assistant, unknown_item
from ._common import KNOWN_KEYS, state_extras
from ._hints import lift


def read_request(body_or_list: Any, tag: str) -> list[Message]:
    """The messages of a request body (or of its ``messages`` list)."""
    out: list[Message] = []
    if isinstance(body_or_list, Mapping):
        prefix = "messages"
        raw = as_list(body_or_list.get("messages"), "messages")
        system = body_or_list.get("system")
        if system is not None:
            out.append(_system(system, "system", tag, in_place=False))
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
        if role == "user":
            _user_turn(content, path, tag, out)
        elif role == "assistant":
            out.append(_assistant_turn(content, path, tag))
        elif role == "system":
            out.append(_system(content, f"{path}.content", tag, in_place=True))
        else:
            raise DecodeError("expected role 'user', 'assistant' or 'system'", f"{path}.role")
    return out


def _system(system: Any, path: str, tag: str, *, in_place: bool) -> SystemMessage:
    """A system prompt (a string or text blocks) as a SystemMessage.

    Its blocks are kept (``extras[tag]["system"]``) so that their keys go back with
    them (unless they are one plain text block); a ``cache_control`` on the last is
    the message's hint. ``in_place`` marks a system message that sat inside
    ``messages``, sent back there.
    """
    state: dict[str, Any] = {"in_place": True} if in_place else {}
    if type(system) is str:
        return message(SystemMessage, system, None, EMPTY, state_extras(tag, state))
    blocks = as_list(system, path)
    texts = []
    blk: Mapping[str, Any] = EMPTY
    for j, item in enumerate(blocks):
        bpath = f"{path}[{j}]"
        blk = as_mapping(item, bpath)
        if blk.get("type") != "text":
            raise DecodeError("system blocks must be text blocks", f"{bpath}.type")
        texts.append(required_str(blk, "text", bpath))
    last, cache = lift(blk)
    if cache is not None:
        blocks = [*blocks[:-1], last]
    if cache is None or len(blocks) > 1 or len(last) > 2:
        state["system"] = freeze_decoded(blocks, path)
    # else: one plain text block and the hint, all that the message itself says
    extras = state_extras(tag, state)
    return message(SystemMessage, "".join(texts), None, EMPTY, extras, cache=cache)


def _assistant_turn(content: Any, path: str, tag: str) -> AssistantMessage:
    if type(content) is str:
        return message(AssistantMessage, content)
    blocks = as_list(content, f"{path}.content")
    last = blocks[-1] if blocks else None
    if isinstance(last, Mapping):
        kind = last.get("type")
        if isinstance(kind, str) and kind in _MARKABLE:
            last, cache = lift(last)
            if cache is not None:
                m = read_assistant([*blocks[:-1], last], f"{path}.content", tag, True)
                return dataclasses.replace(m, cache=cache)
    return read_assistant(blocks, f"{path}.content", tag, True)


#: The blocks of an assistant turn the formatter puts a hint on (the others are kept
#: whole, their ``cache_control`` with them; thinking blocks take none).
_MARKABLE = frozenset(("text", "tool_use"))


def _user_turn(content: Any, path: str, tag: str, out: list[Message]) -> None:
    """A user turn: a ToolResultMessage per ``tool_result`` block, then the rest."""
    if type(content) is str:
        out.append(message(UserMessage, content))
        return
    blocks = as_list(content, f"{path}.content")
    parts: list[ContentPart] = []
    unknown: list[FrozenDict] = []
    keys: list[FrozenDict] = []
    produced = 0
    end = -1  # the last block that is not a tool result
    for j, item in enumerate(blocks):
        bpath = f"{path}.content[{j}]"
        blk = as_mapping(item, bpath)
        kind = blk.get("type")
        if type(kind) is not str:
            raise DecodeError("expected a block type string", f"{bpath}.type")
        if kind == "tool_result":
            out.append(_tool_result(blk, j, bpath, tag))
            produced += 1
            continue
        end = j
        part = _user_part(blk, kind, bpath)
        if part is None:
            unknown.append(unknown_item(blk, j, bpath))
        else:
            parts.append(part)
            _keys_of(blk, kind, j, bpath, keys)
    if parts or not produced:
        cache = lift_kept(keys, end, CONTROL_KEY) if keys else None
        extras = state_extras(tag, _kept(unknown, keys))
        out.append(message(UserMessage, tuple(parts), None, EMPTY, extras, cache=cache))
    elif unknown:
        # only tool results and unknown blocks: the blocks go with the last result
        last = out[-1]
        own = last.extras.get(tag)
        before = tuple(own.get("unknown", ())) if isinstance(own, Mapping) else ()
        out[-1] = last.with_extras(with_state(last.extras, tag, unknown=(*before, *unknown)))


def _keys_of(
    blk: Mapping[str, Any],
    kind: str,
    index: int,
    path: str,
    out: list[FrozenDict],
    within: bool = False,
) -> None:
    known = KNOWN_KEYS[kind]
    if not known.issuperset(blk):
        extra = {k: v for k, v in blk.items() if k not in known}
        out.append(keys_item(index, kind, extra, path, within))


def _user_part(blk: Mapping[str, Any], kind: str, path: str) -> ContentPart | None:
    """The part of a user block, or None for a block the canonical model has no part for."""
    if kind == "text":
        return TextPart(required_str(blk, "text", path))
    if kind == "image":
        return _image_part(blk, path)
    if kind == "document":
        return _document_part(blk, path)
    if kind in ("tool_use", "thinking", "redacted_thinking"):
        raise DecodeError(f"a {kind} block is not allowed in a user message", f"{path}.type")
    return None


def _tool_result(blk: Mapping[str, Any], j: int, path: str, tag: str) -> ToolResultMessage:
    call_id = required_str(blk, "tool_use_id", path)
    if not call_id:
        raise DecodeError("must not be empty", f"{path}.tool_use_id")
    is_error = blk.get("is_error", False)
    if is_error is None:
        is_error = False
    if type(is_error) is not bool:
        raise DecodeError(f"expected a boolean, got {json_type(is_error)}", f"{path}.is_error")
    raw = blk.get("content")
    unknown: list[FrozenDict] = []
    keys: list[FrozenDict] = []
    own, cache = lift(blk)
    _keys_of(own, "tool_result", j, path, keys)
    content = _result_content(raw, path, unknown, keys)
    state = _kept(unknown, keys)
    defaults: dict[str, Any] = {}
    if "is_error" in blk and not is_error:
        defaults["is_error"] = blk["is_error"]  # false or null, spelled out
    if raw in ("", []):
        defaults["content"] = "" if raw == "" else ()
    if defaults:
        state["defaults"] = FrozenDict(defaults)
    extras = state_extras(tag, state)
    return tool_result_message(
        ToolResultMessage, call_id, content, is_error, None, extras=extras, cache=cache
    )


def _result_content(
    raw: Any, path: str, unknown: list[FrozenDict], keys: list[FrozenDict]
) -> str | tuple[ContentPart, ...]:
    """The content of a ``tool_result`` block: its text, or the parts of its blocks
    (the blocks without a part go to ``unknown``, the keys without a field to ``keys``)."""
    if raw is None:
        return ""
    if type(raw) is str:
        return raw
    parts: list[ContentPart] = []
    for k, item in enumerate(as_list(raw, f"{path}.content")):
        spath = f"{path}.content[{k}]"
        sub = as_mapping(item, spath)
        kind = sub.get("type")
        if type(kind) is not str:
            raise DecodeError("expected a block type string", f"{spath}.type")
        part = _user_part(sub, kind, spath) if kind != "tool_result" else None
        if part is None:
            unknown.append(unknown_item(sub, k, spath, within=True))
        else:
            parts.append(part)
            _keys_of(sub, kind, k, spath, keys, within=True)
    return tuple(parts)


def _kept(unknown: list[FrozenDict], keys: list[FrozenDict]) -> dict[str, Any]:
    """The state keeping a turn's unknown blocks and the keys of its known ones."""
    state: dict[str, Any] = {}
    if unknown:
        state["unknown"] = tuple(unknown)
    if keys:
        state["keys"] = tuple(keys)
    return state


def _image_part(blk: Mapping[str, Any], path: str) -> ImagePart | None:
    spath = f"{path}.source"
    source = as_mapping(blk.get("source"), spath)
    kind = source.get("type")
    try:
        if kind == "base64":
            return ImagePart(
                data=required_str(source, "data", spath),
                media_type=required_str(source, "media_type", spath),
            )
        if kind == "url":
            return ImagePart(url=required_str(source, "url", spath))
    except ValidationError as exc:
        raise decode_error(exc, spath) from None
    return None  # another source kind (e.g. "file"): kept as an unknown block


def _document_part(blk: Mapping[str, Any], path: str) -> FilePart | None:
    spath = f"{path}.source"
    source = as_mapping(blk.get("source"), spath)
    kind = source.get("type")
    title = opt_str(blk.get("title"), f"{path}.title")
    if kind == "base64":
        return FilePart(
            data=required_str(source, "data", spath),
            media_type=opt_str(source.get("media_type"), f"{spath}.media_type"),
            filename=title,
        )
    if kind == "text":
        text = required_str(source, "data", spath)
        data = base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")
        media_type = opt_str(source.get("media_type"), f"{spath}.media_type") or "text/plain"
        return FilePart(data=data, media_type=media_type, filename=title)
    if kind == "file":
        file_id = required_str(source, "file_id", spath)
        if not file_id:
            raise DecodeError("must not be empty", f"{spath}.file_id")
        return FilePart(file_id=file_id, filename=title)
    return None  # url / content sources: kept as an unknown block
