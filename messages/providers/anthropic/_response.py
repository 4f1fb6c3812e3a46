"""Responses: a Messages API response body (or an ``error`` body) as a ChatResponse."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._build import chat_response
from ..._frozen import EMPTY, FrozenDict
from ..._message import AssistantMessage
from ...errors import DecodeError
from .._base import (
    ChatResponse,
    FinishReason,
    Usage,
    as_list,
    as_mapping,
    freeze_decoded,
    make_usage,
    opt_str,
)
from ._blocks import read_assistant
from ._common import STOP_REASONS, count


def read_response(body: Mapping[str, Any], tag: str) -> ChatResponse:
    """A response body as a ChatResponse (an ``error`` body gives an ERROR response)."""
    body = as_mapping(body, "")
    if body.get("type") == "error":
        return error_response(body.get("error"), "error")
    role = body.get("role")
    if role is not None and role != "assistant":
        raise DecodeError("expected role 'assistant'", "role")
    blocks = as_list(body.get("content"), "content")
    usage = read_usage(body.get("usage"), "usage")
    stop = opt_str(body.get("stop_reason"), "stop_reason")
    model = opt_str(body.get("model"), "model")
    resp_id = opt_str(body.get("id"), "id")
    details = body.get("stop_details")
    more = None
    refusal = None
    if details is not None:
        more, refusal = stop_details(details, stop, "stop_details")
    metadata = FrozenDict({"usage": FrozenDict(usage.to_dict())}) if usage is not None else EMPTY
    message = read_assistant(blocks, "content", tag, False, metadata, more)
    finish = STOP_REASONS.get(stop, FinishReason.OTHER) if stop is not None else FinishReason.OTHER
    return chat_response(
        ChatResponse, message, finish, usage, model, message.invalid_tool_calls, stop, refusal,
        resp_id, None,
    )  # fmt: skip


def stop_details(details: Any, stop: str | None, path: str) -> tuple[dict[str, Any], str | None]:
    """The state keeping a ``stop_details`` object, and the refusal explanation it gives.

    ``stop_details`` says why the model refused (``category``, ``explanation``); it is
    kept verbatim in the message's ``extras[tag]["stop_details"]``, and with stop
    reason ``refusal`` its explanation is the response's ``refusal``.
    """
    d = as_mapping(details, path)
    explanation = opt_str(d.get("explanation"), f"{path}.explanation")
    opt_str(d.get("category"), f"{path}.category")
    refusal = explanation if stop == "refusal" and explanation else None
    return {"stop_details": freeze_decoded(d, path)}, refusal


def read_usage(raw: Any, path: str) -> Usage | None:
    """The usage of a response (input includes cache reads and writes; MANIFEST)."""
    if raw is None:
        return None
    u = as_mapping(raw, path)
    return usage_of(
        count(u, "input_tokens", path),
        count(u, "output_tokens", path),
        count(u, "cache_creation_input_tokens", path),
        count(u, "cache_read_input_tokens", path),
    )


def usage_of(inp: int | None, out: int | None, creation: int | None, read: int | None) -> Usage:
    """A Usage from the wire's counts (input = input + cache creation + cache read)."""
    total_in = (inp or 0) + (creation or 0) + (read or 0)
    output = out or 0
    return make_usage(total_in, output, total_in + output, read, creation)


def error_response(error: Any, path: str) -> ChatResponse:
    """The ERROR response of an ``error`` body or event (its type and message kept)."""
    detail = None
    if isinstance(error, Mapping):
        kind = opt_str(error.get("type"), f"{path}.type")
        msg = opt_str(error.get("message"), f"{path}.message")
        detail = ": ".join(x for x in (kind, msg) if x) or None
    elif error is not None:
        detail = opt_str(error, path)
    return ChatResponse(
        AssistantMessage(""), FinishReason.ERROR, None, None, error=detail or "error"
    )
