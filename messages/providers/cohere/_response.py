"""Parsing a Cohere v2 chat response body (``POST /v2/chat``, ``stream: false``)."""

from __future__ import annotations

from ..._frozen import EMPTY, FrozenDict
from ..._message import AssistantMessage
from ...errors import DecodeError
from .._base import (
    ChatResponse,
    FinishReason,
    Usage,
    as_mapping,
    make_response,
    opt_str_at,
)
from ._common import FINISH, read_usage
from ._read import read_assistant

__all__ = ["finish_of", "read_response", "usage_metadata"]


def read_response(body: object, tag: str) -> ChatResponse:
    """A response body: ``id``, ``finish_reason``, ``message``, ``usage``. A body whose
    ``message`` is a string (Cohere's error body, ``{"id"?, "message": "..."}``) is an
    ERROR response with the text as its error."""
    body = as_mapping(body, "")
    raw = body.get("message")
    response_id = opt_str_at(body, "id")
    if type(raw) is str and "finish_reason" not in body:
        return _error_response(raw, response_id)
    raw = as_mapping(raw, "message")
    usage = read_usage(body.get("usage"), "usage")
    finish_raw = opt_str_at(body, "finish_reason")
    message = read_assistant(raw, "message", tag, response_id or "response", usage_metadata(usage))
    return make_response(
        message,
        finish_of(finish_raw, bool(message.tool_calls or message.invalid_tool_calls)),
        usage,
        None,
        message.invalid_tool_calls,
        finish_raw,
        None,
        response_id,
        None,
    )


def finish_of(raw: str | None, called: bool) -> FinishReason:
    """The normalised finish reason (absent: TOOL_CALLS when the turn called tools, else
    STOP; a value Cohere has not documented: OTHER)."""
    if raw is None:
        return FinishReason.TOOL_CALLS if called else FinishReason.STOP
    return FINISH.get(raw, FinishReason.OTHER)


def usage_metadata(usage: Usage | None) -> FrozenDict:
    """The metadata of a response message: its usage as a dict."""
    return EMPTY if usage is None else FrozenDict({"usage": FrozenDict(usage.to_dict())})


def _error_response(text: str, response_id: str | None) -> ChatResponse:
    if not text:
        raise DecodeError("an error body without a message", "message")
    message = AssistantMessage("", metadata={"error": FrozenDict({"message": text})})
    return make_response(message, FinishReason.ERROR, None, None, (), None, None, response_id, text)
