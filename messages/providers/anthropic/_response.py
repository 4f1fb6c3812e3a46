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
    fast_list,
    fast_mapping,
    freeze_decoded,
    make_usage,
    opt_str,
)
from ._blocks import read_assistant
from ._common import STOP_REASONS, count


def read_response(body: Mapping[str, Any], tag: str) -> ChatResponse:
    """A response body as a ChatResponse (an ``error`` body gives an ERROR response)."""
    if body.__class__ is not dict:
        body = fast_mapping(body, "")
    # hot path: the keys every Messages response has read by subscript (a get is a
    # call), by get when one is missing (an error body, a partial one)
    try:
        kind = body["type"]
        role = body["role"]
        blocks = body["content"]
        raw_usage = body["usage"]
        stop = body["stop_reason"]
        model = body["model"]
        resp_id = body["id"]
    except KeyError:
        kind, role, blocks = body.get("type"), body.get("role"), body.get("content")
        raw_usage, stop = body.get("usage"), body.get("stop_reason")
        model, resp_id = body.get("model"), body.get("id")
    if kind == "error":
        return error_response(body.get("error"), "error")
    if role is not None and role != "assistant":
        raise DecodeError("expected role 'assistant'", "role")
    if blocks.__class__ is not list:
        blocks = fast_list(blocks, "content")
    usage = read_usage(raw_usage, "usage")
    # opt_str only when the value is not a str (it then reports or passes None)
    if stop.__class__ is not str:
        stop = opt_str(stop, "stop_reason")
    if model.__class__ is not str:
        model = opt_str(model, "model")
    if resp_id.__class__ is not str:
        resp_id = opt_str(resp_id, "id")
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
    d = fast_mapping(details, path)
    explanation = opt_str(d.get("explanation"), f"{path}.explanation")
    opt_str(d.get("category"), f"{path}.category")
    refusal = explanation if stop == "refusal" and explanation else None
    return {"stop_details": freeze_decoded(d, path)}, refusal


def read_usage(raw: Any, path: str) -> Usage | None:
    """The usage of a response (input includes cache reads and writes; MANIFEST)."""
    if raw is None:
        return None
    u = raw if raw.__class__ is dict else fast_mapping(raw, path)
    # hot path: plain non-negative ints need no call (count checks the rest)
    try:  # subscripts for the two counts every usage has
        inp = u["input_tokens"]
        out = u["output_tokens"]
    except KeyError:
        inp, out = u.get("input_tokens"), u.get("output_tokens")
    if inp.__class__ is not int or inp < 0:
        inp = count(u, "input_tokens", path)
    if out.__class__ is not int or out < 0:
        out = count(u, "output_tokens", path)
    creation = u.get("cache_creation_input_tokens")
    if creation.__class__ is not int or creation < 0:
        creation = count(u, "cache_creation_input_tokens", path)
    read = u.get("cache_read_input_tokens")
    if read.__class__ is not int or read < 0:
        read = count(u, "cache_read_input_tokens", path)
    return usage_of(inp, out, creation, read)


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
