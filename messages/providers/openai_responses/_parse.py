"""Response objects (``POST /v1/responses``) to ChatResponse.

``output`` items become one assistant message (see ``_items.decode_turn``);
``status`` and ``incomplete_details`` give the finish reason (MANIFEST
conventions): ``completed`` is STOP, or TOOL_CALLS when a ``function_call`` item is
present; ``incomplete`` for ``max_output_tokens`` is LENGTH, for
``content_filter`` CONTENT_FILTER, for another reason OTHER; ``failed`` (and an
error object) is ERROR; ``cancelled``, ``queued`` and ``in_progress`` are OTHER.
``provider_finish_reason`` is the incomplete reason when there is one, else the
status. Usage is the response's ``usage`` (cached, cache-write and reasoning
tokens from its details).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..._frozen import EMPTY, FrozenDict
from ...errors import DecodeError
from .._base import ChatResponse, FinishReason, make_response
from ._items import decode_turn
from ._read import error_details, mapping, opt_string, usage

__all__ = ["parse_response"]

_INCOMPLETE: Final = {
    "max_output_tokens": FinishReason.LENGTH,
    "content_filter": FinishReason.CONTENT_FILTER,
}
_STATUS: Final = {
    "failed": FinishReason.ERROR,
    "cancelled": FinishReason.OTHER,
    "queued": FinishReason.OTHER,
    "in_progress": FinishReason.OTHER,
}

_UNFINISHED: Final = frozenset(("in_progress", "queued", None))


def parse_response(
    body: Mapping[str, Any],
    tag: str,
    *,
    cut: frozenset[int] = frozenset(),
    truncated: str | None = None,
) -> ChatResponse:
    """One Response object (or an error body) as a ChatResponse.

    For streams: ``cut`` are output positions of calls the stream ended inside and
    ``truncated`` the error of a stream that ended before its last event.
    """
    b = mapping(body, "")
    rid = opt_string(b.get("id"), "id")
    model = opt_string(b.get("model"), "model")
    raw_error = b.get("error")
    items = _output(b, raw_error is None)
    u = usage(b.get("usage"), "usage")
    error: str | None = None
    details: FrozenDict | None = None
    if raw_error is not None:
        error, details = error_details(raw_error, "error")
    status = opt_string(b.get("status"), "status")
    reason = _incomplete_reason(b) if status == "incomplete" else None
    meta: FrozenDict = EMPTY
    if u is not None:
        meta = FrozenDict({"usage": FrozenDict(u.to_dict())})
    if details is not None:
        meta = FrozenDict({**meta, "error": details})
    message, refusal = decode_turn(
        items, tag, rid or model or "", metadata=meta, response_id=rid, cut=cut
    )
    called = bool(message.tool_calls or message.invalid_tool_calls)
    if truncated is not None:
        finish, error = FinishReason.ERROR, error or truncated
    else:
        finish = _finish(status, reason, error, called)
        if finish is FinishReason.ERROR and error is None:
            error = f"response {status}"
    raw = reason or status
    if truncated is not None and status in _UNFINISHED:
        raw = None  # a stream that never finished has no finish reason of its own
    return make_response(message, finish, u, model, (), raw, refusal, rid, error)


def _output(b: Mapping[str, Any], no_error: bool) -> list[tuple[Mapping[str, Any], str]]:
    """The ``output`` items of a Response, each with its path (none in an error body)."""
    output = b.get("output")
    if output is None:
        if no_error and b.get("object") != "response" and "status" not in b:
            raise DecodeError("no output: not a Response object", "output")
        return []
    if not isinstance(output, (list, tuple)):
        raise DecodeError("expected an array of output items", "output")
    items = []
    for k, item in enumerate(output):
        path = f"output[{k}]"
        items.append((mapping(item, path), path))
    return items


def _incomplete_reason(b: Mapping[str, Any]) -> str | None:
    """Why an incomplete response stopped (``incomplete_details.reason``)."""
    incomplete = b.get("incomplete_details")
    if incomplete is None:
        return None
    reason = mapping(incomplete, "incomplete_details").get("reason")
    return opt_string(reason, "incomplete_details.reason")


def _finish(
    status: str | None, reason: str | None, error: str | None, called: bool
) -> FinishReason:
    """The finish reason of a response's status (see the module docstring)."""
    if status == "completed" or (status is None and error is None):
        return FinishReason.TOOL_CALLS if called else FinishReason.STOP
    if status == "incomplete":
        return _INCOMPLETE.get(reason or "", FinishReason.OTHER)
    if error is not None:
        return FinishReason.ERROR
    return _STATUS.get(status or "", FinishReason.OTHER)
