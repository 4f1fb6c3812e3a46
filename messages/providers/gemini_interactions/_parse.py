"""An Interaction object (the response of ``POST /v1beta/interactions``) to a ChatResponse.

The model's turn is the ``steps`` after the last ``user_input`` or ``function_result``
step (a unary response echoes the input first; a stored interaction read with
``GET`` holds its whole timeline); the launch-era schema's ``outputs`` (a flat list
of content, thought and call items) is read the same way. ``status`` gives the finish
reason: ``completed`` is STOP (TOOL_CALLS with calls), ``requires_action`` TOOL_CALLS,
``incomplete`` / ``requires_continuation`` / ``budget_exceeded`` LENGTH, ``failed``
ERROR, ``cancelled`` and the in-between states OTHER. An error body
(``{"error": {...}}``) is an empty answer with finish_reason ERROR.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..._frozen import thaw
from ..._message import AssistantMessage
from ...errors import DecodeError
from .._base import ChatResponse, FinishReason, Usage, make_response
from ._content import CONTENT_TYPES
from ._turns import ModelTurn
from ._wire import (
    INTERACTION_ID,
    array,
    frozen,
    mapping,
    opt_string,
    status_finish,
    type_of,
    usage,
)

__all__ = ["error_of", "parse_response", "response_of"]

#: The keys of which an Interaction (or an error body) has at least one.
_KNOWN: Final = frozenset(("steps", "outputs", "status", "id", "error"))

#: Steps that belong to the request, not the model's answer.
_INPUT_STEPS: Final = frozenset(("user_input", "function_result"))


def _model_steps(steps: Sequence[Any], path: str) -> tuple[Sequence[Any], int]:
    """The steps of the model's answer, and the index of the first."""
    start = 0
    for j, raw in enumerate(steps):
        if type_of(mapping(raw, f"{path}[{j}]")) in _INPUT_STEPS:
            start = j + 1
    return steps[start:], start


def _legacy_outputs(outputs: Sequence[Any], path: str) -> list[Mapping[str, Any]]:
    """The launch-era ``outputs`` as steps: runs of content items are one model_output."""
    steps: list[Mapping[str, Any]] = []
    run: list[Any] = []
    for j, raw in enumerate(outputs):
        item = mapping(raw, f"{path}[{j}]")
        if type_of(item) in CONTENT_TYPES:
            run.append(item)
            continue
        if run:
            steps.append({"type": "model_output", "content": run})
            run = []
        steps.append(item)
    if run:
        steps.append({"type": "model_output", "content": run})
    return steps


def error_of(err: Any, path: str) -> dict[str, Any] | None:
    """The error object of a body or an ``error`` event (a string is its message)."""
    if err is None:
        return None
    if type(err) is str:
        return {"message": err}
    e = mapping(err, path)
    opt_string(e.get("message"), f"{path}.message")
    details: dict[str, Any] = thaw(frozen(e, path))
    return details


def response_of(
    body: Mapping[str, Any],
    steps: Sequence[Any],
    path: str,
    tag: str,
    error: Mapping[str, Any] | None = None,
) -> ChatResponse:
    """The ChatResponse of an interaction ``body`` whose steps are ``steps`` (``error``:
    the error object of a stream's error event)."""
    iid = opt_string(body.get("id"), "id") or None
    status = opt_string(body.get("status"), "status")
    model = opt_string(body.get("model"), "model") or opt_string(body.get("agent"), "agent")
    used: Usage | None = usage(body.get("usage"), "usage")
    answer, start = _model_steps(steps, path)
    turn = ModelTurn(tag)
    for j, raw in enumerate(answer, start):
        turn.add(mapping(raw, f"{path}[{j}]"), f"{path}[{j}]", f"{iid or ''}:{j}")
    details = error_of(body.get("error"), "error") if error is None else dict(error)
    metadata: dict[str, Any] = {}
    if used is not None:
        metadata["usage"] = used.to_dict()
    if details is not None:
        metadata["error"] = details
    message: AssistantMessage = turn.message(metadata or None, **{INTERACTION_ID: iid})
    finish = status_finish(status, bool(turn.calls or turn.invalid))
    text = None
    if details is not None:
        finish = FinishReason.ERROR
        given = details.get("message")
        text = given if isinstance(given, str) and given else "error"
    return make_response(message, finish, used, model, (), status, None, iid, text)


def parse_response(body: Mapping[str, Any], tag: str) -> ChatResponse:
    """Parse an Interaction object (``steps``, or the launch-era ``outputs``)."""
    body = mapping(body, "")
    if not _KNOWN.intersection(body):
        hint = (
            " (a generateContent response: read it with 'gemini')" if "candidates" in body else ""
        )
        raise DecodeError(f"not an Interaction: no steps, outputs, status, id or error{hint}", "")
    if body.get("steps") is not None:
        return response_of(body, array(body["steps"], "steps"), "steps", tag)
    outputs = body.get("outputs")
    steps = [] if outputs is None else _legacy_outputs(array(outputs, "outputs"), "outputs")
    return response_of(body, steps, "outputs", tag)
