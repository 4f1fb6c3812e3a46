"""Responses: a Converse response body as a ChatResponse.

``output.message`` is the assistant turn; ``stopReason``, ``usage`` (input counts the
cache reads and writes: ``inputTokens`` leaves them out, ``totalTokens`` has them)
and, kept in the message's ``extras[tag]``, ``metrics``, ``trace`` and
``additionalModelResponseFields``. Of the ``ResponseMetadata`` boto3 adds (HTTP status,
headers) only the ``RequestId`` is read: it is the response's ``id``. A body with no
``output`` and a ``message`` string is an error body (an AWS error's JSON).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

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
    make_response,
    make_usage,
    opt_str,
)
from ._blocks import read_assistant
from ._common import STOP_REASONS, count

#: Response keys kept in the message's state, and the state key of each.
KEPT: Final = {"metrics": "metrics", "trace": "trace", "additionalModelResponseFields": "fields"}


def read_response(body: Mapping[str, Any], tag: str) -> ChatResponse:
    """A Converse response body as a ChatResponse."""
    body = as_mapping(body, "")
    if "output" not in body and type(body.get("message")) is str:
        return error_response(body, "")
    output = as_mapping(body.get("output"), "output")
    message = as_mapping(output.get("message"), "output.message")
    role = message.get("role")
    if role is not None and role != "assistant":
        raise DecodeError("expected role 'assistant'", "output.message.role")
    blocks = as_list(message.get("content"), "output.message.content")
    usage = read_usage(body.get("usage"), "usage")
    stop = opt_str(body.get("stopReason"), "stopReason")
    metadata = FrozenDict({"usage": FrozenDict(usage.to_dict())}) if usage is not None else EMPTY
    more = kept_state(body, "")
    reply = read_assistant(blocks, "output.message.content", tag, False, metadata, more)
    return make_response(reply, finish_of(stop), usage, None, (), stop, None, _request_id(body))


def _request_id(body: Mapping[str, Any]) -> str | None:
    """The AWS request id boto3 puts in ``ResponseMetadata``: the response's id."""
    meta = body.get("ResponseMetadata")
    if isinstance(meta, Mapping):
        request_id = meta.get("RequestId")
        if type(request_id) is str and request_id:
            return request_id
    return None


def finish_of(stop: str | None) -> FinishReason:
    """The FinishReason of a ``stopReason`` (OTHER for one this module does not know)."""
    return FinishReason.OTHER if stop is None else STOP_REASONS.get(stop, FinishReason.OTHER)


def kept_state(body: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The response keys kept in the message's state (``KEPT``)."""
    more: dict[str, Any] = {}
    for key, name in KEPT.items():
        value = body.get(key)
        if value is not None:
            more[name] = freeze_decoded(as_mapping(value, prefix + key), prefix + key)
    return more


def read_usage(raw: Any, path: str) -> Usage | None:
    """The usage of a response or a stream's ``metadata`` (input includes cache reads and writes)."""
    if raw is None:
        return None
    u = as_mapping(raw, path)
    inp = count(u, "inputTokens", path) or 0
    read = count(u, "cacheReadInputTokens", path)
    write = count(u, "cacheWriteInputTokens", path)
    out = count(u, "outputTokens", path) or 0
    count(u, "totalTokens", path)
    total_in = inp + (read or 0) + (write or 0)
    return make_usage(total_in, out, total_in + out, read, write)


def error_response(error: Mapping[str, Any], path: str, kind: str | None = None) -> ChatResponse:
    """The ERROR response of an AWS error body or a stream's exception event."""
    msg = opt_str(error.get("message"), f"{path}.message" if path else "message")
    detail = ": ".join(x for x in (kind, msg) if x) or "error"
    return ChatResponse(AssistantMessage(""), FinishReason.ERROR, None, None, error=detail)
