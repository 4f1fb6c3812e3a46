"""Cohere v2 chat streams: each SSE ``data:`` payload (an event with a ``type``) in turn.

Events: ``message-start`` (the response ``id``), ``content-start`` /
``content-delta`` / ``content-end`` (text and ``thinking`` blocks, by ``index``),
``tool-plan-delta``, ``tool-call-start`` / ``tool-call-delta`` / ``tool-call-end``
(calls by their own ``index``), ``citation-start`` / ``citation-end`` and
``message-end`` (``finish_reason``, ``usage``, an ``error`` text). A ``[DONE]``
string is skipped; an event of a type Cohere may add later (``debug``) is skipped
too. A stream that ends without ``message-end`` finishes with what it has:
finish_reason ERROR, ``error`` saying it was truncated. The finished turn reads as
a response's would: thinking blocks and the tool plan are reasoning tagged with
the provider, citations are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

from ..._frozen import FrozenDict
from ..._parts import ContentPart, ReasoningPart, TextPart
from ..._streaming import ToolCallAccumulator, ToolCallDelta
from ...errors import DecodeError
from .._base import (
    ChatResponse,
    CountingStream,
    FinishReason,
    StreamDelta,
    Usage,
    as_mapping,
    freeze_decoded,
    is_mapping,
    make_response,
    opt_int,
    opt_str,
    parser,
)
from .._chat_completions._readers import unique_ids
from .._sse import is_done
from ._common import read_usage
from ._read import assistant_message
from ._response import finish_of, usage_metadata

__all__ = ["CohereStream"]

_NONE: Final[tuple[StreamDelta, ...]] = ()
_KINDS: Final[dict[str, Literal["text", "reasoning"]]] = {"text": "text", "thinking": "reasoning"}


class CohereStream(CountingStream):
    """Accumulates one Cohere v2 chat stream into a ChatResponse."""

    __slots__ = (
        "_blocks",
        "_calls",
        "_citations",
        "_ended",
        "_error",
        "_events",
        "_finish",
        "_id",
        "_plan",
        "_tag",
        "_usage",
    )

    def __init__(self, tag: str) -> None:
        self._tag = tag
        self._events = 0
        self._id: str | None = None
        self._blocks: dict[int, tuple[str, list[str]]] = {}
        self._plan: list[str] = []
        self._calls = ToolCallAccumulator()
        self._citations: list[Any] = []
        self._finish: str | None = None
        self._usage: Usage | None = None
        self._error: str | None = None
        self._ended = False

    @parser
    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one event; the text, reasoning and tool-call deltas it carries."""
        if is_done(event):
            return _NONE
        event = as_mapping(event, "")
        self._events += 1
        kind = event.get("type")
        if type(kind) is not str:
            raise DecodeError("expected a Cohere v2 stream event (with a string type)", "type")
        handler = _HANDLERS.get(kind)
        return _NONE if handler is None else handler(self, event)

    # -- one handler per event type ------------------------------------------------------

    def _start(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        self._id = opt_str(event.get("id"), "id") or self._id
        return _NONE

    def _content(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        index = opt_int(event.get("index"), "index") or 0
        content = _inner(event, "content")
        if content is None:
            return _NONE
        content = as_mapping(content, "delta.message.content")
        block = self._blocks.get(index)
        declared = content.get("type")
        if block is None:
            kind = (
                declared
                if declared in _KINDS
                else ("thinking" if "thinking" in content else "text")
            )
            block = self._blocks[index] = (kind, [])
        text = opt_str(content.get(block[0]), f"delta.message.content.{block[0]}")
        if not text:
            return _NONE
        block[1].append(text)
        return (StreamDelta(_KINDS[block[0]], text),)

    def _plan_delta(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        text = opt_str(_inner(event, "tool_plan"), "delta.message.tool_plan")
        if not text:
            return _NONE
        self._plan.append(text)
        return (StreamDelta("reasoning", text),)

    def _call(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        index = opt_int(event.get("index"), "index") or 0
        raw = _inner(event, "tool_calls")
        if raw is None:
            return _NONE
        call = as_mapping(raw, "delta.message.tool_calls")
        call_id = opt_str(call.get("id"), "delta.message.tool_calls.id")
        fn = call.get("function")
        name = arguments = None
        if fn is not None:
            fn = as_mapping(fn, "delta.message.tool_calls.function")
            name = opt_str(fn.get("name"), "delta.message.tool_calls.function.name")
            arguments = opt_str(fn.get("arguments"), "delta.message.tool_calls.function.arguments")
        if not (call_id or name or arguments):
            return _NONE
        self._calls.add(index, call_id, name, arguments)
        return (StreamDelta("tool_call", tool_call=ToolCallDelta(index, call_id, name, arguments)),)

    def _citation(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        raw = _inner(event, "citations")
        if raw is not None:
            self._citations.append(freeze_decoded(raw, "delta.message.citations"))
        return _NONE

    def _end(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        self._ended = True
        delta = event.get("delta")
        if delta is None:
            return _NONE
        delta = as_mapping(delta, "delta")
        self._finish = opt_str(delta.get("finish_reason"), "delta.finish_reason") or self._finish
        self._error = opt_str(delta.get("error"), "delta.error") or self._error
        if delta.get("usage") is not None:
            self._usage = read_usage(delta["usage"], "delta.usage")
        return _NONE

    # -- the response --------------------------------------------------------------------

    @parser
    def finish(self) -> ChatResponse:
        """The response made of everything fed so far."""
        tag = self._tag
        blocks: list[ContentPart] = []
        for index in sorted(self._blocks):
            kind, texts = self._blocks[index]
            text = "".join(texts)
            if text:
                blocks.append(
                    ReasoningPart(text, provider=tag) if kind == "thinking" else TextPart(text)
                )
        valid, bad = self._calls.result()
        calls, invalid = unique_ids(list(valid), list(bad), "tool_calls")
        own: dict[str, Any] = {}
        if self._citations:
            own["citations"] = self._citations
        meta = usage_metadata(self._usage)
        error = self._error
        if not (error or self._ended):
            error = "stream ended before message-end (truncated)"
        if error:
            meta = FrozenDict({**meta, "error": FrozenDict({"message": error})})
        message = assistant_message(blocks, "".join(self._plan), calls, invalid, own, tag, meta)
        finish = finish_of(self._finish, bool(calls or invalid))
        if error:
            finish = FinishReason.ERROR
        return make_response(
            message, finish, self._usage, None, message.invalid_tool_calls, self._finish,
            None, self._id, error,
        )  # fmt: skip


def _inner(event: Mapping[str, Any], key: str) -> object:
    """``event["delta"]["message"][key]`` (None where any step is absent)."""
    delta = event.get("delta")
    if delta is None:
        return None
    message = as_mapping(delta, "delta").get("message")
    if message is None:
        return None
    if not is_mapping(message):
        as_mapping(message, "delta.message")
    return message.get(key)


_HANDLERS: Final[
    dict[str, Callable[[CohereStream, Mapping[str, Any]], tuple[StreamDelta, ...]]]
] = {
    "message-start": CohereStream._start,
    "content-start": CohereStream._content,
    "content-delta": CohereStream._content,
    "tool-plan-delta": CohereStream._plan_delta,
    "tool-call-start": CohereStream._call,
    "tool-call-delta": CohereStream._call,
    "citation-start": CohereStream._citation,
    "message-end": CohereStream._end,
}
