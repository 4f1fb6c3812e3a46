"""Importing a conversation written as a Cohere v2 chat request body (or its ``messages``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from ..._message import Message, SystemMessage, ToolResultMessage, UserMessage
from ...errors import DecodeError, ValidationError, ident
from .._base import as_list, as_mapping, decode_error, freeze_decoded
from ._common import string_at
from ._read import (
    extras_of,
    read_assistant,
    system_content,
    tool_content,
    user_content,
)

__all__ = ["read_request"]


def read_request(body_or_list: object, tag: str) -> list[Message]:
    """The messages of a request body (``messages``, with the top-level ``documents``
    kept on the first message) or of a list of wire messages."""
    documents: object = None
    if isinstance(body_or_list, Mapping):
        raw, prefix = as_list(body_or_list.get("messages"), "messages"), "messages"
        documents = body_or_list.get("documents")
    elif isinstance(body_or_list, (list, tuple)):
        raw, prefix = body_or_list, ""
    else:
        raise DecodeError("expected a request body or a list of messages", "")
    out: list[Message] = []
    for i, item in enumerate(raw):
        path = f"{prefix}[{i}]"
        d = as_mapping(item, path)
        role = d.get("role")
        reader = _READERS.get(role) if isinstance(role, str) else None
        if reader is None:
            what = "missing" if role is None else f"unknown role {ident(role)}"
            raise DecodeError(what, f"{path}.role")
        try:
            out.append(reader(d, path, tag, i))
        except ValidationError as exc:
            raise decode_error(exc, path) from None
    if documents is not None:
        _keep_documents(out, documents, tag)
    return out


def _keep_documents(out: list[Message], documents: object, tag: str) -> None:
    """The request's ``documents`` (grounding for the whole request), kept on its first
    message and sent back top-level."""
    docs = as_list(documents, "documents")
    if not docs:
        return
    if not out:
        raise DecodeError("documents given without messages", "documents")
    first = out[0]
    own = dict(first.extras.get(tag) or {})
    own["documents"] = freeze_decoded(list(docs), "documents")
    out[0] = first.with_extras({**first.extras, **extras_of(tag, own, "documents")})


def _system(d: Mapping[str, Any], path: str, tag: str, i: int) -> Message:
    own: dict[str, Any] = {}
    text = system_content(d.get("content"), f"{path}.content", own)
    return SystemMessage(text, extras=extras_of(tag, own, path))


def _user(d: Mapping[str, Any], path: str, tag: str, i: int) -> Message:
    own: dict[str, Any] = {}
    content = user_content(d.get("content"), f"{path}.content", own)
    return UserMessage(content, extras=extras_of(tag, own, path))


def _tool(d: Mapping[str, Any], path: str, tag: str, i: int) -> Message:
    own: dict[str, Any] = {}
    call_id = string_at(d, "tool_call_id", path)
    content = tool_content(d.get("content"), f"{path}.content", own)
    return ToolResultMessage(call_id, content, extras=extras_of(tag, own, path))


def _assistant(d: Mapping[str, Any], path: str, tag: str, i: int) -> Message:
    return read_assistant(d, path, tag, f"request\x1f{i}")


_READERS: Final[dict[str, Callable[[Mapping[str, Any], str, str, int], Message]]] = {
    "system": _system,
    "user": _user,
    "assistant": _assistant,
    "tool": _tool,
}
