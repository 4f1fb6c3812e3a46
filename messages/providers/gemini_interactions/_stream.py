"""Interactions streams: the parsed payload of each SSE event in, deltas out, then the
response ``parse_response`` gives for the interaction the events assemble.

The current events (``Api-Revision: 2026-05-20`` on): ``interaction.created``,
``interaction.status_update``, per step ``step.start`` / ``step.delta`` / ``step.stop``
(``index`` names the step), ``interaction.completed`` (the interaction without its
steps: id, status, usage) and ``error``. The launch-era events are read too:
``interaction.start`` / ``interaction.complete`` and ``content.start`` /
``content.delta`` / ``content.stop`` (a content item per index, a text or image item
standing for a ``model_output`` step). Deltas: ``text``, ``thought_summary``
(reasoning), ``thought_signature``, ``arguments_delta`` (a function call's arguments
as JSON text, accumulated), a whole ``function_call`` (launch era), media items, and
the built-in tools' deltas (merged into their step, kept verbatim). A ``[DONE]``
string is skipped. A stream without ``interaction.completed`` ends with
finish_reason ERROR, ``error`` saying it was truncated; an ``error`` event ends with
ERROR, keeping what came before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from ..._build import stream_delta, tool_call_delta
from ..._json import json_type, loads
from ..._streaming import ToolCallDelta
from ...errors import DecodeError, MessageError
from .._base import ChatResponse, CountingStream, StreamDelta, parser
from .._sse import is_done
from ._content import CONTENT_TYPES
from ._parse import error_of, response_of
from ._wire import mapping, opt_string, string, type_of

__all__ = ["InteractionsStream"]

_NONE: tuple[StreamDelta, ...] = ()
_TRUNCATED: Final = "stream ended before interaction.completed (truncated)"


def _text(kind: str, text: str) -> StreamDelta:
    return stream_delta(StreamDelta, kind, text, None)


def _call(index: int, call_id: str | None, name: str | None, args: str | None) -> StreamDelta:
    return stream_delta(
        StreamDelta, "tool_call", "", tool_call_delta(ToolCallDelta, index, call_id, name, args)
    )


def _index(value: Any, path: str) -> int:
    if type(value) is int and value >= 0:
        return value
    raise DecodeError(f"expected an integer >= 0, got {json_type(value)}", path)


class _Step:
    """One step as it grows: the start payload, text runs, items, summary, arguments."""

    __slots__ = ("args", "call", "segments", "signature", "step", "summary")

    def __init__(self, step: Mapping[str, Any]) -> None:
        self.step = dict(step)
        self.segments: list[Any] = []  # model_output: text chunks (str) and items
        self.summary: list[Any] = []  # thought: text chunks (str) and items
        self.signature: str | None = None
        self.args: list[str] | None = None
        self.call = -1  # the tool-call delta index of a function_call step

    def assembled(self) -> dict[str, Any]:
        """The step with everything streamed into it."""
        step = dict(self.step)  # finish() may be called again: the slot stays as it was
        kind = step.get("type")
        if kind == "model_output":
            start = step.get("content")
            items = list(start) if isinstance(start, (list, tuple)) else []
            step["content"] = _joined(items, self.segments)
        elif kind == "thought":
            if self.signature is not None:
                step["signature"] = self.signature
            if self.summary:
                start = step.get("summary")
                items = list(start) if isinstance(start, (list, tuple)) else []
                step["summary"] = _joined(items, self.summary)
        elif kind == "function_call":
            if self.args is None:
                step.setdefault("arguments", {})  # a call without arguments takes none
                return step
            text = "".join(self.args)
            try:
                step["arguments"] = loads(text, "arguments") if text else {}
            except MessageError:
                step["arguments"] = text  # kept as written: an invalid call
        return step


def _joined(items: list[Any], segments: list[Any]) -> list[Any]:
    """``items`` followed by ``segments``, each run of text chunks one text item (one that
    continues the text item ``items`` ends with)."""
    for seg in segments:
        if type(seg) is str:
            last = items[-1] if items else None
            if (
                isinstance(last, dict)
                and last.get("type") == "text"
                and type(last.get("text")) is str
            ):
                items[-1] = {**last, "text": last["text"] + seg}  # the event's dict stays
                continue
            items.append({"type": "text", "text": seg})
        else:
            items.append(seg)
    return items


class InteractionsStream(CountingStream):
    """Accumulates Interactions SSE events (each the parsed ``data:`` payload)."""

    __slots__ = ("_calls", "_error", "_events", "_interaction", "_steps", "_tag", "_terminal")

    def __init__(self, tag: str) -> None:
        self._tag = tag
        self._steps: dict[int, _Step] = {}
        self._interaction: dict[str, Any] = {}
        self._terminal = False
        self._error: dict[str, Any] | None = None
        self._calls = 0
        self._events = 0

    @parser
    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one event; returns the text, reasoning and tool-call deltas it carried."""
        if is_done(event):  # the SSE end sentinel, as text or bytes
            return _NONE
        event = mapping(event, "")
        self._events += 1
        kind = event.get("event_type")
        if not isinstance(kind, str):
            if kind is None and ("candidates" in event or "type" in event):
                raise DecodeError(
                    "not an Interactions event (no event_type): a generateContent chunk "
                    "is read by 'gemini', a Responses event by 'openai_responses'",
                    "event_type",
                )
            raise DecodeError(f"expected a string, got {json_type(kind)}", "event_type")
        handler = _HANDLERS.get(kind)
        return _NONE if handler is None else handler(self, event)

    # -- the interaction ------------------------------------------------------------

    def _lifecycle(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        inter = mapping(event.get("interaction"), "interaction")
        self._interaction.update({k: v for k, v in inter.items() if v is not None})
        if event.get("event_type") in ("interaction.completed", "interaction.complete"):
            self._terminal = True
        return _NONE

    def _status(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        self._interaction["status"] = string(event.get("status"), "status")
        if event.get("usage") is not None:
            self._interaction["usage"] = mapping(event["usage"], "usage")
        return _NONE

    def _failed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        self._error = error_of(event.get("error"), "error") or {"message": "error event"}
        return _NONE

    # -- steps ------------------------------------------------------------------------

    def _start(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        index = _index(event.get("index"), "index")
        if "step" in event:
            step = mapping(event.get("step"), "step")
        else:  # launch era: a content item
            item = mapping(event.get("content"), "content")
            step = (
                {"type": "model_output", "content": [item]}
                if type_of(item) in CONTENT_TYPES
                else item
            )
            if item.get("type") == "text" and not item.get("text"):
                step = {"type": "model_output"}
        slot = _Step(step)
        self._steps[index] = slot
        kind = step.get("type")
        if kind == "function_call":
            slot.call = self._calls
            self._calls += 1
            return (
                _call(
                    slot.call,
                    opt_string(step.get("id"), "step.id"),
                    opt_string(step.get("name"), "step.name"),
                    None,
                ),
            )
        return _started_text(step)

    def _slot(self, index: int, kind: str) -> _Step:
        slot = self._steps.get(index)
        if slot is None:  # a delta without its start: the delta says what the step is
            step_kind = {
                "text": "model_output",
                "thought_summary": "thought",
                "thought_signature": "thought",
                "arguments_delta": "function_call",
            }
            slot = _Step(
                {"type": step_kind.get(kind, "model_output" if kind in CONTENT_TYPES else kind)}
            )
            if slot.step["type"] == "function_call":
                slot.call = self._calls
                self._calls += 1
            self._steps[index] = slot
        return slot

    def _delta(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        index = _index(event.get("index"), "index")
        delta = mapping(event.get("delta"), "delta")
        kind = string(delta.get("type"), "delta.type")
        slot = self._slot(index, kind)
        fn = _DELTAS.get(kind)
        if fn is not None:
            return fn(slot, delta)
        if kind in CONTENT_TYPES:
            slot.segments.append(dict(delta))
        else:  # a built-in tool's delta: merged into its step, kept verbatim
            slot.step.update({k: v for k, v in delta.items() if k != "type"})
        return _NONE

    def _stop(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        _index(event.get("index"), "index")
        if event.get("usage") is not None:
            self._interaction["usage"] = mapping(event["usage"], "usage")
        return _NONE

    @parser
    def finish(self) -> ChatResponse:
        """The response the events assembled."""
        body = dict(self._interaction)
        steps = [self._steps[k].assembled() for k in sorted(self._steps)]
        if not steps and isinstance(body.get("steps"), (list, tuple)):
            steps = list(body["steps"])  # an interaction.completed that carried them
        error = self._error
        if error is None and not self._terminal:
            error = {"message": _TRUNCATED}
        return response_of(body, steps, "steps", self._tag, error)


def _started_text(step: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
    """The deltas of what a ``step.start`` already carries (first text, first summary)."""
    kind = step.get("type")
    if kind not in ("model_output", "thought"):
        return _NONE
    key, delta = ("content", "text") if kind == "model_output" else ("summary", "reasoning")
    items = step.get(key)
    return tuple(
        _text(delta, item["text"])
        for item in (items if isinstance(items, (list, tuple)) else ())
        if isinstance(item, Mapping) and item.get("type") == "text" and _nonempty(item.get("text"))
    )


def _nonempty(text: object) -> bool:
    return type(text) is str and text != ""


def _text_delta(slot: _Step, delta: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
    text = string(delta.get("text"), "delta.text")
    if delta.get("annotations") is not None:
        slot.segments.append({"type": "text", "text": text, "annotations": delta["annotations"]})
    else:
        slot.segments.append(text)
    return (_text("text", text),) if text else _NONE


def _summary_delta(slot: _Step, delta: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
    content = delta.get("content")
    if content is None and "text" in delta:  # the launch-era shape
        content = {"type": "text", "text": delta["text"]}
    if content is None:
        return _NONE
    item = mapping(content, "delta.content")
    if item.get("type") != "text":
        slot.summary.append(dict(item))
        return _NONE
    text = string(item.get("text"), "delta.content.text")
    slot.summary.append(text)
    return (_text("reasoning", text),) if text else _NONE


def _signature_delta(slot: _Step, delta: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
    slot.signature = opt_string(delta.get("signature"), "delta.signature")
    return _NONE


def _arguments_delta(slot: _Step, delta: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
    raw = delta.get("arguments", delta.get("partial_arguments"))
    text = string(raw, "delta.arguments")
    if slot.args is None:
        slot.args = []
    slot.args.append(text)
    return (_call(max(slot.call, 0), None, None, text),) if text else _NONE


def _function_call_delta(slot: _Step, delta: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
    """A launch-era ``function_call`` delta: the whole call at once."""
    slot.step.update({k: v for k, v in delta.items() if v is not None})
    slot.step["type"] = "function_call"
    call_id = opt_string(delta.get("id"), "delta.id")
    name = opt_string(delta.get("name"), "delta.name")
    args = delta.get("arguments")
    from .._base import raw_json_text

    text = None if args is None else raw_json_text(args)
    return (_call(max(slot.call, 0), call_id, name, text),)


_DELTAS: Final[dict[str, Callable[[_Step, Mapping[str, Any]], tuple[StreamDelta, ...]]]] = {
    "text": _text_delta,
    "thought_summary": _summary_delta,
    "thought_signature": _signature_delta,
    "arguments_delta": _arguments_delta,
    "function_call": _function_call_delta,
}

_Handler = Callable[[InteractionsStream, Mapping[str, Any]], tuple[StreamDelta, ...]]
_HANDLERS: Final[dict[str, _Handler]] = {
    "interaction.created": InteractionsStream._lifecycle,
    "interaction.start": InteractionsStream._lifecycle,
    "interaction.completed": InteractionsStream._lifecycle,
    "interaction.complete": InteractionsStream._lifecycle,
    "interaction.status_update": InteractionsStream._status,
    "error": InteractionsStream._failed,
    "step.start": InteractionsStream._start,
    "content.start": InteractionsStream._start,
    "step.delta": InteractionsStream._delta,
    "content.delta": InteractionsStream._delta,
    "step.stop": InteractionsStream._stop,
    "content.stop": InteractionsStream._stop,
}
