"""Reading Cohere content: user, system and tool content blocks, and the assistant turn.

The assistant-turn builder (``assistant_message``) is shared by the response reader,
the request reader and the stream, so a turn reads the same wherever it comes from.
State the canonical model has no field for goes into a ``dict`` (``own``) that ends
up in ``extras[tag]``: unknown blocks (``unknown``), the lengths of system text
blocks (``lengths``), document blocks of tool results (``document_blocks``),
citations (``citations``), the tool plan's place (``tool_plan``), an assistant
content sent as a string (``string``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..._build import message, tool_call_message
from ..._frozen import EMPTY, FrozenDict
from ..._json import json_type
from ..._message import AssistantMessage, ToolCallMessage
from ..._parts import ContentPart, ImagePart, ReasoningPart, TextPart
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ValidationError
from .._base import as_list, as_mapping, decode_error, freeze_decoded, raw_json_text
from .._chat_completions._calls import read_calls
from .._chat_completions._readers import keep_unknown
from ._common import string_at

__all__ = [
    "assistant_blocks",
    "assistant_message",
    "extras_of",
    "read_assistant",
    "system_content",
    "tool_content",
    "user_content",
]

_IMAGE_URL: Final = "image_url"


def extras_of(tag: str, own: Mapping[str, Any], path: str) -> FrozenDict:
    """``{tag: own}`` frozen (EMPTY when nothing was kept); DecodeError when not JSON."""
    if not own:
        return EMPTY
    return FrozenDict({tag: freeze_decoded(dict(own), path)})


def system_content(raw: object, path: str, own: dict[str, Any]) -> str:
    """A system message's content: a string, or text blocks joined (their lengths kept)."""
    if type(raw) is str:
        return raw
    texts: list[str] = []
    for j, item in enumerate(as_list(raw, path)):
        where = f"{path}[{j}]"
        block = as_mapping(item, where)
        if block.get("type") != "text":
            raise DecodeError("a system message takes text blocks only", f"{where}.type")
        texts.append(string_at(block, "text", where))
    own["lengths"] = [len(t) for t in texts]
    return "".join(texts)


def user_content(raw: object, path: str, own: dict[str, Any]) -> str | tuple[ContentPart, ...]:
    """A user message's content: a string, or ``text`` and ``image_url`` blocks (any other
    block is kept in ``own``)."""
    if type(raw) is str:
        return raw
    parts: list[ContentPart] = []
    for j, item in enumerate(as_list(raw, path)):
        where = f"{path}[{j}]"
        block = as_mapping(item, where)
        kind = block.get("type")
        if kind == "text":
            parts.append(TextPart(string_at(block, "text", where)))
        elif kind == _IMAGE_URL:
            parts.append(_image(block.get(_IMAGE_URL), f"{where}.{_IMAGE_URL}"))
        else:
            keep_unknown(own, j, where, block)
    return tuple(parts)


def _image(raw: object, path: str) -> ImagePart:
    """An ``image_url`` object (or, as some clients write it, its URL string)."""
    if type(raw) is str:
        url, detail = raw, None
    else:
        obj = as_mapping(raw, path)
        url = string_at(obj, "url", path)
        detail = obj.get("detail")
        if detail is not None and type(detail) is not str:
            raise DecodeError(f"expected a string, got {json_type(detail)}", f"{path}.detail")
    try:
        if url.startswith("data:"):
            try:
                return ImagePart.from_data_url(url, detail)
            except ValidationError:
                pass  # a data: URL that is not base64: kept as a URL
        return ImagePart(url=url, detail=detail)
    except ValidationError as exc:
        raise decode_error(exc, path) from None


def tool_content(raw: object, path: str, own: dict[str, Any]) -> str | tuple[ContentPart, ...]:
    """A tool message's content: a string, or ``text`` and ``document`` blocks. A document
    is a text part (its ``data`` string, or its object as compact JSON); where it was a
    document, and its other keys (``id``), are kept in ``own["document_blocks"]``."""
    if type(raw) is str:
        return raw
    parts: list[ContentPart] = []
    for j, item in enumerate(as_list(raw, path)):
        where = f"{path}[{j}]"
        block = as_mapping(item, where)
        kind = block.get("type")
        if kind == "text":
            parts.append(TextPart(string_at(block, "text", where)))
        elif kind == "document":
            parts.append(_document(block.get("document"), f"{where}.document", j, own))
        else:
            keep_unknown(own, j, where, block)
    return tuple(parts)


def _document(raw: object, path: str, index: int, own: dict[str, Any]) -> TextPart:
    doc = as_mapping(raw, path)
    data = doc.get("data")
    if type(data) is str:
        text, is_object = data, False
    elif isinstance(data, Mapping):
        freeze_decoded(data, f"{path}.data")  # JSON only (no NaN), or DecodeError
        text, is_object = raw_json_text(data), True
    else:
        what = (
            "missing" if data is None else f"expected an object or a string, got {json_type(data)}"
        )
        raise DecodeError(what, f"{path}.data")
    keys = {k: v for k, v in doc.items() if k != "data"}
    entry: dict[str, Any] = {"index": index, "object": is_object}
    if keys:
        entry["keys"] = keys
    own.setdefault("document_blocks", []).append(entry)
    return TextPart(text)


def assistant_blocks(raw: object, path: str, tag: str, own: dict[str, Any]) -> list[ContentPart]:
    """An assistant content list: ``text`` and ``thinking`` blocks in order (thinking is
    reasoning tagged ``tag``); any other block is kept in ``own``."""
    parts: list[ContentPart] = []
    for j, item in enumerate(as_list(raw, path)):
        where = f"{path}[{j}]"
        block = as_mapping(item, where)
        kind = block.get("type")
        if kind == "text":
            parts.append(TextPart(string_at(block, "text", where)))
        elif kind == "thinking":
            parts.append(ReasoningPart(string_at(block, "thinking", where), provider=tag))
        else:
            keep_unknown(own, j, where, block)
    return parts


def assistant_message(
    blocks: Sequence[ContentPart],
    plan: str,
    calls: Sequence[ToolCall],
    invalid: Sequence[InvalidToolCall],
    own: dict[str, Any],
    tag: str,
    metadata: FrozenDict = EMPTY,
) -> AssistantMessage:
    """The canonical assistant turn: the content blocks in order, a ToolCallMessage when
    there are calls.

    The tool plan ("a chain-of-thought style reflection and plan", in Cohere's words) is
    reasoning tagged ``tag``, placed after the leading thinking blocks; its place among
    the parts is kept as ``own["plan"]``, so it goes back to Cohere as ``tool_plan``.
    """
    parts = list(blocks)
    if plan:
        lead = 0
        while lead < len(parts) and isinstance(parts[lead], ReasoningPart):
            lead += 1
        parts.insert(lead, ReasoningPart(plan, provider=tag))
        own["plan"] = lead
    content: str | tuple[ContentPart, ...] | None
    if len(parts) == 1 and isinstance(parts[0], TextPart) and own.get("string"):
        content = parts[0].text
    else:
        content = tuple(parts)
    if not parts or isinstance(content, str):
        own.pop("string", None)  # implied (a string), or nothing to send as one
    extras = extras_of(tag, own, "message")
    # every value is checked already: built without checking again
    if calls or invalid:
        return tool_call_message(
            ToolCallMessage, tuple(calls), content or None, tuple(invalid), None, metadata, extras
        )
    return message(AssistantMessage, content if content else "", None, metadata, extras)


def read_assistant(
    d: Mapping[str, Any],
    path: str,
    tag: str,
    seed: str,
    metadata: FrozenDict = EMPTY,
) -> AssistantMessage:
    """An assistant message (of a request, or a response's ``message``): its content (a
    string or blocks), ``tool_plan``, ``tool_calls`` (ids derived from ``seed`` where the
    wire has none) and ``citations`` (kept)."""
    own: dict[str, Any] = {}
    raw = d.get("content")
    blocks: Sequence[ContentPart]
    if raw is None:
        blocks = ()
    elif type(raw) is str:
        blocks = (TextPart(raw),) if raw else ()
        own["string"] = True
    else:
        blocks = assistant_blocks(raw, f"{path}.content", tag, own)
    plan = d.get("tool_plan")
    if plan is not None and type(plan) is not str:
        raise DecodeError(f"expected a string, got {json_type(plan)}", f"{path}.tool_plan")
    calls: Sequence[ToolCall] = ()
    invalid: Sequence[InvalidToolCall] = ()
    if d.get("tool_calls") is not None:
        calls, invalid = read_calls(d["tool_calls"], f"{path}.tool_calls", seed, tag)
    citations = d.get("citations")
    if citations:
        own["citations"] = as_list(citations, f"{path}.citations")
    return assistant_message(blocks, plan or "", calls, invalid, own, tag, metadata)
