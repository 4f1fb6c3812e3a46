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

#: Output item paths, made once (hot path: a response has a few items).
_PATHS: Final = tuple(f"output[{k}]" for k in range(64))


def _path(k: int) -> str:
    return _PATHS[k] if k < 64 else f"output[{k}]"


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
    output = b.get("output")
    rid = b.get("id")
    if rid.__class__ is not str:
        rid = opt_string(rid, "id")
    model = b.get("model")
    if model.__class__ is not str:
        model = opt_string(model, "model")
    raw_error = b.get("error")
    if output is None:
        if raw_error is None and b.get("object") != "response" and "status" not in b:
            raise DecodeError("no output: not a Response object", "output")
        output = ()
    elif output.__class__ is not list and not isinstance(output, (list, tuple)):
        raise DecodeError("expected an array of output items", "output")
    items = []
    for k, item in enumerate(output):
        path = _path(k)
        items.append((item if item.__class__ is dict else mapping(item, path), path))
    u = usage(b.get("usage"), "usage")
    error: str | None = None
    details: FrozenDict | None = None
    if raw_error is not None:
        error, details = error_details(raw_error, "error")
    status = b.get("status")
    if status.__class__ is not str:
        status = opt_string(status, "status")
    reason = None
    if status == "incomplete":
        incomplete = b.get("incomplete_details")
        if incomplete is not None:
            reason = opt_string(
                mapping(incomplete, "incomplete_details").get("reason"),
                "incomplete_details.reason",
            )
    meta: FrozenDict = EMPTY
    if u is not None:
        meta = FrozenDict({"usage": FrozenDict(u.to_dict())})
    if details is not None:
        meta = FrozenDict({**meta, "error": details})
    message, refusal = decode_turn(
        items, tag, rid or model or "", metadata=meta, response_id=rid, cut=cut
    )
    if truncated is not None:
        finish = FinishReason.ERROR
        error = error or truncated
    elif status == "completed" or (status is None and error is None):
        finish = (
            FinishReason.TOOL_CALLS
            if message.tool_calls or message.invalid_tool_calls
            else FinishReason.STOP
        )
    elif status == "incomplete":
        finish = _INCOMPLETE.get(reason, FinishReason.OTHER)  # type: ignore[arg-type]
    elif error is not None:
        finish = FinishReason.ERROR
    else:
        finish = _STATUS.get(status, FinishReason.OTHER)  # type: ignore[arg-type]
    if finish is FinishReason.ERROR and error is None:
        error = f"response {status}"
    raw = reason or status
    if truncated is not None and status in _UNFINISHED:
        raw = None  # a stream that never finished has no finish reason of its own
    return make_response(message, finish, u, model, (), raw, refusal, rid, error)
