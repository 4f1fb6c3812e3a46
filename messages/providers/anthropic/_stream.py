"""Streaming: Messages API server-sent events accumulated into a ChatResponse.

``ping`` and event types this module does not know are ignored, as Anthropic's
versioning policy asks ("Anthropic may ... add new variants to enum-like output
values (for example, streaming event types)"). What is recognisably another
format's stream is refused at once, naming Anthropic, rather than ignored event
after event into an empty response: an OpenAI Responses event (``type`` starting
``response.``), and an object without a ``type`` (an OpenAI chat chunk, a Gemini
chunk).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..._build import stream_delta, tool_call_delta
from ..._frozen import EMPTY, FrozenDict, freeze
from ..._json import json_type, loads
from ..._message import AssistantMessage
from ..._parts import ReasoningPart
from ..._streaming import ToolCallDelta
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, MessageError, ident
from .._base import (
    ChatResponse,
    FinishReason,
    StreamAccumulator,
    StreamDelta,
    fast_mapping,
    freeze_decoded,
    make_response,
    opt_int,
    opt_str,
    required_str,
)
from ._blocks import assistant_message, extra_keys, unknown_item
from ._common import NAME, STOP_REASONS, entry_error
from ._response import stop_details, usage_of
from ._tools import read_call

_EMPTY_DELTAS: tuple[StreamDelta, ...] = ()


class _Block:
    __slots__ = ("call", "chunks", "extra", "kind", "ordinal", "raw", "signature", "start_input")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.extra: dict[str, Any] | None = None  # a text block's other keys (citations)
        self.chunks: list[str] = []
        self.signature: str | None = None
        self.call: tuple[str, str] | None = None  # a tool_use block's id and name
        self.ordinal = 0  # a tool_use block's index among the calls
        self.start_input: Any = None
        self.raw: Any = None


class AnthropicStream(StreamAccumulator):
    """Accumulates Messages API stream events into a ChatResponse.

    Input tokens come from ``message_start``; ``output_tokens`` in ``message_delta``
    is cumulative (the last value wins). ``ping`` and unknown event types are
    ignored; another format's events are refused (DecodeError). A stream that ends
    without ``message_stop`` (and without an ``error`` event) is truncated:
    ``finish()`` raises DecodeError naming ``message_stop``. An ``error`` event gives
    finish reason ERROR with the partial text kept. State (reasoning, kept blocks)
    is tagged with ``tag``.
    """

    __slots__ = (
        "_blocks",
        "_calls",
        "_details",
        "_details_path",
        "_error",
        "_id",
        "_model",
        "_n",
        "_started",
        "_stop",
        "_stopped",
        "_tag",
        "_usage",
    )

    def __init__(self, tag: str = NAME) -> None:
        self._tag = tag
        self._blocks: dict[int, _Block] = {}
        self._calls = 0
        self._n = 0
        self._started = False
        self._stopped = False
        self._stop: str | None = None
        self._details: Any = None
        self._details_path = ""
        self._error: str | None = None
        self._id: str | None = None
        self._model: str | None = None
        self._usage: list[int | None] = [None, None, None, None]

    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one event (the SSE ``data:`` payload, decoded)."""
        n = self._n
        self._n = n + 1
        # hot path: the guard written out (a decorator's *args call cost ~90 ns an event)
        try:
            if event.__class__ is not dict and not isinstance(event, Mapping):
                raise DecodeError(
                    f"expected an event object, got {json_type(event)}", f"events[{n}]"
                )
            kind = event.get("type")
            # hot path: deltas are nearly every event
            if kind == "content_block_delta":
                return self._delta(event, n)
            handler = _EVENTS.get(kind) if kind.__class__ is str else None
            if handler is None:
                return _other_event(event, kind, n)
            return handler(self, event, n)
        except DecodeError:
            raise
        except Exception as exc:
            raise entry_error(exc, f"events[{n}]") from None

    def _delta(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        index = event.get("index")
        block = self._blocks.get(index) if index.__class__ is int else None
        if block is None:
            raise DecodeError("delta for a block that was not started", f"events[{n}].index")
        delta = event.get("delta")
        if delta.__class__ is not dict:
            delta = fast_mapping(delta, f"events[{n}].delta")
        dkind = delta.get("type")
        if dkind == "text_delta":
            text = delta.get("text")
            if text.__class__ is not str:
                raise DecodeError("expected a string", f"events[{n}].delta.text")
            if block.kind != "text":
                raise DecodeError("text_delta for a non-text block", f"events[{n}].delta.type")
            block.chunks.append(text)
            return (stream_delta(StreamDelta, "text", text, None),)
        if dkind == "input_json_delta":
            part = delta.get("partial_json")
            if part.__class__ is not str:
                raise DecodeError("expected a string", f"events[{n}].delta.partial_json")
            kind = block.kind
            if kind == "tool_use":
                block.chunks.append(part)
                if not part:
                    return _EMPTY_DELTAS
                fragment = tool_call_delta(ToolCallDelta, block.ordinal, None, None, part)
                return (stream_delta(StreamDelta, "tool_call", "", fragment),)
            if kind == "unknown":
                block.chunks.append(part)
                return _EMPTY_DELTAS
            raise DecodeError(
                "input_json_delta for a block without input", f"events[{n}].delta.type"
            )
        if dkind == "thinking_delta":
            text = delta.get("thinking")
            if text.__class__ is not str:
                raise DecodeError("expected a string", f"events[{n}].delta.thinking")
            if block.kind != "thinking":
                raise DecodeError(
                    "thinking_delta for a non-thinking block", f"events[{n}].delta.type"
                )
            block.chunks.append(text)
            return (stream_delta(StreamDelta, "reasoning", text, None),)
        if dkind == "signature_delta":
            sig = delta.get("signature")
            if sig.__class__ is not str:
                raise DecodeError("expected a string", f"events[{n}].delta.signature")
            if block.kind != "thinking":
                raise DecodeError(
                    "signature_delta for a non-thinking block", f"events[{n}].delta.type"
                )
            block.signature = (block.signature or "") + sig
            return _EMPTY_DELTAS
        if dkind == "citations_delta":
            if block.kind == "text":
                extra = block.extra if block.extra is not None else {}
                block.extra = extra
                cited = extra.get("citations")
                citation = delta.get("citation")
                extra["citations"] = [*cited, citation] if isinstance(cited, list) else [citation]
            return _EMPTY_DELTAS
        if dkind.__class__ is not str:
            raise DecodeError("expected a delta type string", f"events[{n}].delta.type")
        if block.kind == "unknown":
            _merge_delta(block, delta)
        return _EMPTY_DELTAS  # later delta kinds of known blocks: nothing to accumulate

    def _message_start(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        path = f"events[{n}].message"
        message = fast_mapping(event.get("message"), path)
        self._started = True
        self._id = opt_str(message.get("id"), f"{path}.id")
        self._model = opt_str(message.get("model"), f"{path}.model")
        self._take_usage(message.get("usage"), f"{path}.usage")
        return _EMPTY_DELTAS

    def _take_usage(self, raw: Any, path: str) -> None:
        if raw is None:
            return
        u = fast_mapping(raw, path)
        for k, key in enumerate(_USAGE_KEYS):
            value = opt_int(u.get(key), f"{path}.{key}")
            if value is not None:
                self._usage[k] = value

    def _block_start(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        index = event.get("index")
        if index.__class__ is not int or index < 0:
            raise DecodeError("expected a non-negative integer", f"events[{n}].index")
        if index in self._blocks:
            raise DecodeError("block index started twice", f"events[{n}].index")
        path = f"events[{n}].content_block"
        cb = fast_mapping(event.get("content_block"), path)
        kind = cb.get("type")
        if kind == "text":
            block = _Block("text")
            text = opt_str(cb.get("text"), f"{path}.text") or ""
            if len(cb) > 2:  # e.g. "citations": [] that citations_delta events fill
                block.extra = {k: v for k, v in cb.items() if k not in ("type", "text")}
            self._blocks[index] = block
            if text:
                block.chunks.append(text)
                return (stream_delta(StreamDelta, "text", text, None),)
            return _EMPTY_DELTAS
        if kind == "tool_use":
            call_id = required_str(cb, "id", path)
            name = required_str(cb, "name", path)
            if not call_id:
                raise DecodeError("must not be empty", f"{path}.id")
            block = _Block("tool_use")
            block.ordinal = self._calls
            self._calls += 1
            block.call = (call_id, name)
            block.start_input = cb.get("input")
            self._blocks[index] = block
            start = tool_call_delta(ToolCallDelta, block.ordinal, call_id, name or None, None)
            return (stream_delta(StreamDelta, "tool_call", "", start),)
        if kind == "thinking":
            block = _Block("thinking")
            text = opt_str(cb.get("thinking"), f"{path}.thinking") or ""
            block.signature = opt_str(cb.get("signature"), f"{path}.signature") or None
            self._blocks[index] = block
            if text:
                block.chunks.append(text)
                return (stream_delta(StreamDelta, "reasoning", text, None),)
            return _EMPTY_DELTAS
        if kind == "redacted_thinking":
            block = _Block("redacted_thinking")
            block.chunks.append(required_str(cb, "data", path))
            self._blocks[index] = block
            return _EMPTY_DELTAS
        if kind.__class__ is not str:
            raise DecodeError("expected a block type string", f"{path}.type")
        block = _Block("unknown")
        block.raw = freeze_decoded(cb, path)
        self._blocks[index] = block
        return _EMPTY_DELTAS

    def _block_stop(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        index = event.get("index")
        if index.__class__ is not int or index not in self._blocks:
            raise DecodeError("stop for a block that was not started", f"events[{n}].index")
        return _EMPTY_DELTAS

    def _message_delta(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        delta = event.get("delta")
        if delta is not None:
            path = f"events[{n}].delta"
            delta = fast_mapping(delta, path)
            stop = opt_str(delta.get("stop_reason"), f"{path}.stop_reason")
            if stop is not None:
                self._stop = stop
            details = delta.get("stop_details")
            if details is not None:
                stop_details(details, stop, f"{path}.stop_details")  # checked now
                self._details = details
                self._details_path = f"{path}.stop_details"
        self._take_usage(event.get("usage"), f"events[{n}].usage")
        return _EMPTY_DELTAS

    def _message_stop(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        self._stopped = True
        return _EMPTY_DELTAS

    def _error_event(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        error = event.get("error")
        detail = "error"
        if isinstance(error, Mapping):
            kind = opt_str(error.get("type"), f"events[{n}].error.type")
            msg = opt_str(error.get("message"), f"events[{n}].error.message")
            detail = ": ".join(x for x in (kind, msg) if x) or "error"
        self._error = detail
        return _EMPTY_DELTAS

    def finish(self) -> ChatResponse:
        """The response assembled from every event fed so far."""
        try:
            return self._finish()
        except DecodeError:
            raise
        except Exception as exc:
            raise entry_error(exc, "events") from None

    def _finish(self) -> ChatResponse:
        if self._error is None:
            if not self._started:
                raise DecodeError("stream ended before message_start (missing)", "message_start")
            if not self._stopped:
                raise DecodeError("stream ended before message_stop (truncated)", "message_stop")
        more = None
        refusal = None
        stop = self._stop
        if self._details is not None:
            more, refusal = stop_details(self._details, stop, self._details_path)
        if self._error is not None:
            message = self._message(EMPTY, more)
            return make_response(
                message, FinishReason.ERROR, None, self._model, (), stop, refusal, self._id,
                self._error,
            )  # fmt: skip
        u = self._usage
        usage = None if u == _NO_USAGE else usage_of(u[0], u[1], u[2], u[3])
        metadata = (
            FrozenDict({"usage": FrozenDict(usage.to_dict())}) if usage is not None else EMPTY
        )
        message = self._message(metadata, more)
        finish = (
            STOP_REASONS.get(stop, FinishReason.OTHER) if stop is not None else FinishReason.OTHER
        )
        return make_response(message, finish, usage, self._model, (), stop, refusal, self._id)

    def _message(self, metadata: FrozenDict, more: dict[str, Any] | None) -> AssistantMessage:
        """The streamed blocks, in index order, as the non-streaming response has them."""
        tag = self._tag
        parts: list[Any] = []
        seq: list[str] = []
        calls: list[ToolCall] = []
        invalid: list[InvalidToolCall] | None = None
        unknown: list[FrozenDict] | None = None
        keys: list[FrozenDict] | None = None
        reasoning = False
        for index in sorted(self._blocks):
            block = self._blocks[index]
            kind = block.kind
            if kind == "text":
                parts.append("".join(block.chunks))
                seq.append("p")
                if block.extra:
                    keys = extra_keys(
                        keys, {"type": "text", **block.extra}, "text", index, f"content[{index}]"
                    )
            elif kind == "tool_use":
                call = _finish_call(block, index)
                if call.__class__ is ToolCall:
                    calls.append(call)
                    seq.append("c")
                else:
                    invalid = [call] if invalid is None else [*invalid, call]  # type: ignore[list-item]
                    seq.append("i")
            elif kind == "thinking":
                parts.append(ReasoningPart("".join(block.chunks), block.signature, False, tag))
                seq.append("p")
                reasoning = True
            elif kind == "redacted_thinking":
                parts.append(ReasoningPart(block.chunks[0], None, True, tag))
                seq.append("p")
                reasoning = True
            else:
                item = unknown_item(_streamed_block(block), index, f"content[{index}]")
                unknown = [item] if unknown is None else [*unknown, item]
        return assistant_message(
            parts, seq, calls, invalid, unknown, keys, reasoning, tag, False, metadata, more,
            "content",
        )  # fmt: skip


_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)
_NO_USAGE = [None, None, None, None]


def _finish_call(block: _Block, index: int) -> ToolCall | InvalidToolCall:
    """A streamed ``tool_use`` block's call, its input joined and parsed."""
    assert block.call is not None
    call_id, name = block.call
    raw = "".join(block.chunks)
    if raw.strip():
        try:
            args: Any = loads(raw, f"content[{index}].input")
        except DecodeError as exc:
            return _unparsed(call_id, name, raw, exc)
    else:
        start = block.start_input
        args = start if isinstance(start, Mapping) else {}
    return read_call(call_id, name, args, raw or None, "content", index)


def _unparsed(call_id: str, name: str, raw: str, exc: DecodeError) -> InvalidToolCall:
    return InvalidToolCall(call_id, name, raw, f"{exc.path}: {exc.message}")


def _merge_delta(block: _Block, delta: Mapping[str, Any]) -> None:
    """A later delta kind of a kept block (``compaction_delta``...): its fields kept.

    The block's fields come in the delta (a ``compaction`` block starts with
    ``content: null`` and gets its summary and ``encrypted_content`` in a
    ``compaction_delta``); string fields of several deltas are joined, others replaced.
    """
    extra = block.extra if block.extra is not None else {}
    block.extra = extra
    for key, value in delta.items():
        if key == "type":
            continue
        before = extra.get(key)
        if before.__class__ is str and value.__class__ is str:
            extra[key] = before + value
        else:
            extra[key] = value


def _streamed_block(block: _Block) -> FrozenDict:
    """An unknown block as the non-streaming response would carry it.

    A block with input (``server_tool_use``, ``mcp_tool_use`` and those added later)
    streams it as ``input_json_delta`` fragments; they are joined and parsed into
    ``input``, so the block goes back to the API as it came (after ``pause_turn``
    it must). Fragments that are not a JSON object are kept as ``partial_json``
    beside the start's input: nothing is guessed, nothing dropped.
    """
    value: FrozenDict = block.raw
    if block.extra:
        value = FrozenDict({**value, **freeze(block.extra, "delta")})
    if not block.chunks:
        return value
    text = "".join(block.chunks)
    if not text.strip():
        return value
    try:
        parsed = loads(text)
        if type(parsed) is dict:
            return FrozenDict({**value, "input": freeze(parsed, "input")})
    except MessageError:
        pass
    return FrozenDict({**value, "partial_json": text})


def _other_event(event: Mapping[str, Any], kind: Any, n: int) -> tuple[StreamDelta, ...]:
    """``ping`` and later event types are ignored; another format's events are refused."""
    if kind.__class__ is str:
        if kind.startswith("response."):
            raise DecodeError(
                f"an OpenAI Responses event {ident(kind)}, not an Anthropic Messages stream event",
                f"events[{n}].type",
            )
        return _EMPTY_DELTAS  # ping, and event types added later (versioning policy)
    if kind is None:
        raise DecodeError(f"{_looks_like(event)}, not an Anthropic Messages stream event (no type)",
                          f"events[{n}].type")  # fmt: skip
    raise DecodeError("expected an event type string", f"events[{n}].type")


def _looks_like(event: Mapping[str, Any]) -> str:
    if "choices" in event:
        return "an OpenAI chat completion chunk"
    if "candidates" in event or "usageMetadata" in event or "promptFeedback" in event:
        return "a Gemini response chunk"
    return "an object"


_EVENTS: dict[str, Callable[[AnthropicStream, Mapping[str, Any], int], tuple[StreamDelta, ...]]] = {
    "message_start": AnthropicStream._message_start,
    "content_block_start": AnthropicStream._block_start,
    "content_block_delta": AnthropicStream._delta,
    "content_block_stop": AnthropicStream._block_stop,
    "message_delta": AnthropicStream._message_delta,
    "message_stop": AnthropicStream._message_stop,
    "error": AnthropicStream._error_event,
}
