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
    as_mapping,
    freeze_decoded,
    make_response,
    opt_int,
    opt_str,
    required_str,
)
from .._sse import is_done
from ._blocks import AssistantTurn
from ._common import NAME, STOP_REASONS, entry_error
from ._response import stop_details, usage_of
from ._tools import read_call

_Deltas = tuple[StreamDelta, ...]
_NONE: _Deltas = ()


class _Block:
    """A content block being streamed."""

    __slots__ = ("call", "chunks", "extra", "kind", "ordinal", "raw", "signature", "start_input")

    def __init__(self, kind: str) -> None:
        self.kind = kind  # text, tool_use, thinking, redacted_thinking or unknown
        self.extra: dict[str, Any] | None = None  # a text block's other keys (citations)
        self.chunks: list[str] = []
        self.signature: str | None = None
        self.call: tuple[str, str] | None = None  # a tool_use block's id and name
        self.ordinal = 0  # a tool_use block's index among the calls
        self.start_input: Any = None
        self.raw: FrozenDict = EMPTY  # an unknown block as it started


def _text_delta(text: str) -> _Deltas:
    return (stream_delta(StreamDelta, "text", text, None),)


def _call_delta(index: int, call_id: str | None, name: str | None, args: str | None) -> _Deltas:
    fragment = tool_call_delta(ToolCallDelta, index, call_id, name, args)
    return (stream_delta(StreamDelta, "tool_call", "", fragment),)


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

    def feed(self, event: Mapping[str, Any]) -> _Deltas:
        """Consume one event (the SSE ``data:`` payload, decoded)."""
        if is_done(event):  # the SSE end marker, if a caller passes it on
            return ()
        n = self._n
        self._n = n + 1
        # any exception at all (a hostile Mapping's included) leaves as a DecodeError
        try:
            if not isinstance(event, (dict, Mapping)):
                raise DecodeError(
                    f"expected an event object, got {json_type(event)}", f"events[{n}]"
                )
            kind = event.get("type")
            handler = _EVENTS.get(kind) if isinstance(kind, str) else None
            if handler is None:
                return _other_event(event, kind, n)
            return handler(self, event, n)
        except DecodeError:
            raise
        except Exception as exc:
            raise entry_error(exc, f"events[{n}]") from None

    # -- events ---------------------------------------------------------------------------

    def _message_start(self, event: Mapping[str, Any], n: int) -> _Deltas:
        path = f"events[{n}].message"
        message = as_mapping(event.get("message"), path)
        self._started = True
        self._id = opt_str(message.get("id"), f"{path}.id")
        self._model = opt_str(message.get("model"), f"{path}.model")
        self._take_usage(message.get("usage"), f"{path}.usage")
        return _NONE

    def _take_usage(self, raw: Any, path: str) -> None:
        if raw is None:
            return
        u = as_mapping(raw, path)
        for k, key in enumerate(_USAGE_KEYS):
            value = opt_int(u.get(key), f"{path}.{key}")
            if value is not None:
                self._usage[k] = value

    def _block_start(self, event: Mapping[str, Any], n: int) -> _Deltas:
        index = event.get("index")
        if type(index) is not int or index < 0:
            raise DecodeError("expected a non-negative integer", f"events[{n}].index")
        if index in self._blocks:
            raise DecodeError("block index started twice", f"events[{n}].index")
        path = f"events[{n}].content_block"
        cb = as_mapping(event.get("content_block"), path)
        kind = cb.get("type")
        if not isinstance(kind, str):
            raise DecodeError("expected a block type string", f"{path}.type")
        start = _STARTS.get(kind, AnthropicStream._start_unknown)
        block, deltas = start(self, cb, path)
        self._blocks[index] = block
        return deltas

    def _start_text(self, cb: Mapping[str, Any], path: str) -> tuple[_Block, _Deltas]:
        block = _Block("text")
        text = opt_str(cb.get("text"), f"{path}.text") or ""
        if len(cb) > 2:  # e.g. "citations": [] that citations_delta events fill
            block.extra = {k: v for k, v in cb.items() if k not in ("type", "text")}
        if not text:
            return block, _NONE
        block.chunks.append(text)
        return block, _text_delta(text)

    def _start_tool_use(self, cb: Mapping[str, Any], path: str) -> tuple[_Block, _Deltas]:
        call_id = required_str(cb, "id", path)
        name = required_str(cb, "name", path)
        if not call_id:
            raise DecodeError("must not be empty", f"{path}.id")
        block = _Block("tool_use")
        block.ordinal = self._calls
        self._calls += 1
        block.call = (call_id, name)
        block.start_input = cb.get("input")
        return block, _call_delta(block.ordinal, call_id, name or None, None)

    def _start_thinking(self, cb: Mapping[str, Any], path: str) -> tuple[_Block, _Deltas]:
        block = _Block("thinking")
        text = opt_str(cb.get("thinking"), f"{path}.thinking") or ""
        block.signature = opt_str(cb.get("signature"), f"{path}.signature") or None
        if not text:
            return block, _NONE
        block.chunks.append(text)
        return block, (stream_delta(StreamDelta, "reasoning", text, None),)

    def _start_redacted(self, cb: Mapping[str, Any], path: str) -> tuple[_Block, _Deltas]:
        block = _Block("redacted_thinking")
        block.chunks.append(required_str(cb, "data", path))
        return block, _NONE

    def _start_unknown(self, cb: Mapping[str, Any], path: str) -> tuple[_Block, _Deltas]:
        block = _Block("unknown")
        block.raw = freeze_decoded(cb, path)
        return block, _NONE

    def _delta(self, event: Mapping[str, Any], n: int) -> _Deltas:
        index = event.get("index")
        block = self._blocks.get(index) if type(index) is int else None
        if block is None:
            raise DecodeError("delta for a block that was not started", f"events[{n}].index")
        delta = as_mapping(event.get("delta"), f"events[{n}].delta")
        dkind = delta.get("type")
        if not isinstance(dkind, str):
            raise DecodeError("expected a delta type string", f"events[{n}].delta.type")
        return _DELTAS.get(dkind, _later_delta)(block, delta, n)

    def _block_stop(self, event: Mapping[str, Any], n: int) -> _Deltas:
        index = event.get("index")
        if type(index) is not int or index not in self._blocks:
            raise DecodeError("stop for a block that was not started", f"events[{n}].index")
        return _NONE

    def _message_delta(self, event: Mapping[str, Any], n: int) -> _Deltas:
        delta = event.get("delta")
        if delta is not None:
            path = f"events[{n}].delta"
            delta = as_mapping(delta, path)
            stop = opt_str(delta.get("stop_reason"), f"{path}.stop_reason")
            if stop is not None:
                self._stop = stop
            details = delta.get("stop_details")
            if details is not None:
                stop_details(details, stop, f"{path}.stop_details")  # checked now
                self._details = details
                self._details_path = f"{path}.stop_details"
        self._take_usage(event.get("usage"), f"events[{n}].usage")
        return _NONE

    def _message_stop(self, event: Mapping[str, Any], n: int) -> _Deltas:
        self._stopped = True
        return _NONE

    def _error_event(self, event: Mapping[str, Any], n: int) -> _Deltas:
        error = event.get("error")
        detail = "error"
        if isinstance(error, Mapping):
            kind = opt_str(error.get("type"), f"events[{n}].error.type")
            msg = opt_str(error.get("message"), f"events[{n}].error.message")
            detail = ": ".join(x for x in (kind, msg) if x) or "error"
        self._error = detail
        return _NONE

    # -- the response -----------------------------------------------------------------------

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
        finish = STOP_REASONS.get(stop, FinishReason.OTHER) if stop else FinishReason.OTHER
        return make_response(message, finish, usage, self._model, (), stop, refusal, self._id)

    def _message(self, metadata: FrozenDict, more: dict[str, Any] | None) -> AssistantMessage:
        """The streamed blocks, in index order, as the non-streaming response has them."""
        turn = AssistantTurn(self._tag)
        for index in sorted(self._blocks):
            _gather(turn, self._blocks[index], index)
        return turn.message(False, metadata, more, "content")


_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)
_NO_USAGE = [None, None, None, None]

_Start = Callable[[AnthropicStream, Mapping[str, Any], str], tuple[_Block, _Deltas]]
_STARTS: dict[str, _Start] = {
    "text": AnthropicStream._start_text,
    "tool_use": AnthropicStream._start_tool_use,
    "thinking": AnthropicStream._start_thinking,
    "redacted_thinking": AnthropicStream._start_redacted,
}


# -- deltas -----------------------------------------------------------------------------------


def _string(delta: Mapping[str, Any], key: str, n: int) -> str:
    """The string a delta carries under ``key`` (DecodeError naming it otherwise)."""
    value = delta.get(key)
    if type(value) is not str:
        raise DecodeError("expected a string", f"events[{n}].delta.{key}")
    return value


def _text(block: _Block, delta: Mapping[str, Any], n: int) -> _Deltas:
    text = _string(delta, "text", n)
    if block.kind != "text":
        raise DecodeError("text_delta for a non-text block", f"events[{n}].delta.type")
    block.chunks.append(text)
    return _text_delta(text)


def _input_json(block: _Block, delta: Mapping[str, Any], n: int) -> _Deltas:
    part = _string(delta, "partial_json", n)
    if block.kind == "unknown":
        block.chunks.append(part)
        return _NONE
    if block.kind != "tool_use":
        raise DecodeError("input_json_delta for a block without input", f"events[{n}].delta.type")
    block.chunks.append(part)
    return _call_delta(block.ordinal, None, None, part) if part else _NONE


def _thinking(block: _Block, delta: Mapping[str, Any], n: int) -> _Deltas:
    text = _string(delta, "thinking", n)
    if block.kind != "thinking":
        raise DecodeError("thinking_delta for a non-thinking block", f"events[{n}].delta.type")
    block.chunks.append(text)
    return (stream_delta(StreamDelta, "reasoning", text, None),)


def _signature(block: _Block, delta: Mapping[str, Any], n: int) -> _Deltas:
    sig = _string(delta, "signature", n)
    if block.kind != "thinking":
        raise DecodeError("signature_delta for a non-thinking block", f"events[{n}].delta.type")
    block.signature = (block.signature or "") + sig
    return _NONE


def _citation(block: _Block, delta: Mapping[str, Any], n: int) -> _Deltas:
    if block.kind == "text":
        extra = block.extra if block.extra is not None else {}
        block.extra = extra
        cited = extra.get("citations")
        citation = delta.get("citation")
        extra["citations"] = [*cited, citation] if isinstance(cited, list) else [citation]
    return _NONE


def _later_delta(block: _Block, delta: Mapping[str, Any], n: int) -> _Deltas:
    """A delta kind added later: a kept block keeps its fields (``compaction_delta``...).

    The block's fields come in the delta (a ``compaction`` block starts with
    ``content: null`` and gets its summary and ``encrypted_content`` in a
    ``compaction_delta``); string fields of several deltas are joined, others replaced.
    Known blocks have nothing to accumulate from such a delta.
    """
    if block.kind != "unknown":
        return _NONE
    extra = block.extra if block.extra is not None else {}
    block.extra = extra
    for key, value in delta.items():
        if key == "type":
            continue
        before = extra.get(key)
        if type(before) is str and type(value) is str:
            extra[key] = before + value
        else:
            extra[key] = value
    return _NONE


_DELTAS: dict[str, Callable[[_Block, Mapping[str, Any], int], _Deltas]] = {
    "text_delta": _text,
    "input_json_delta": _input_json,
    "thinking_delta": _thinking,
    "signature_delta": _signature,
    "citations_delta": _citation,
}


# -- finished blocks ----------------------------------------------------------------------------


def _gather(turn: AssistantTurn, block: _Block, index: int) -> None:
    """Add a finished block to the turn, as the non-streaming response would have it."""
    kind = block.kind
    if kind == "text":
        turn.add_text("".join(block.chunks))
        if block.extra:
            turn.keep_keys({"type": "text", **block.extra}, "text", "content", index)
    elif kind == "tool_use":
        turn.add_call(_finish_call(block, index))
    elif kind == "thinking":
        text = "".join(block.chunks)
        turn.add_reasoning(ReasoningPart(text, block.signature, False, turn.tag))
    elif kind == "redacted_thinking":
        turn.add_reasoning(ReasoningPart(block.chunks[0], None, True, turn.tag))
    else:
        turn.add_unknown(_streamed_block(block), index, f"content[{index}]")


def _finish_call(block: _Block, index: int) -> ToolCall | InvalidToolCall:
    """A streamed ``tool_use`` block's call, its input joined and parsed."""
    assert block.call is not None
    call_id, name = block.call
    raw = "".join(block.chunks)
    if raw.strip():
        try:
            args: Any = loads(raw, f"content[{index}].input")
        except DecodeError as exc:
            return InvalidToolCall(call_id, name, raw, f"{exc.path}: {exc.message}")
    else:
        start = block.start_input
        args = start if isinstance(start, Mapping) else {}
    return read_call(call_id, name, args, raw or None, "content", index)


def _streamed_block(block: _Block) -> FrozenDict:
    """An unknown block as the non-streaming response would carry it.

    A block with input (``server_tool_use``, ``mcp_tool_use`` and those added later)
    streams it as ``input_json_delta`` fragments; they are joined and parsed into
    ``input``, so the block goes back to the API as it came (after ``pause_turn``
    it must). Fragments that are not a JSON object are kept as ``partial_json``
    beside the start's input: nothing is guessed, nothing dropped.
    """
    value = block.raw
    if block.extra:
        value = FrozenDict({**value, **freeze(block.extra, "delta")})
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


# -- other events ---------------------------------------------------------------------------------


def _other_event(event: Mapping[str, Any], kind: Any, n: int) -> _Deltas:
    """``ping`` and later event types are ignored; another format's events are refused."""
    if isinstance(kind, str):
        if kind.startswith("response."):
            raise DecodeError(
                f"an OpenAI Responses event {ident(kind)}, not an Anthropic Messages stream event",
                f"events[{n}].type",
            )
        return _NONE  # ping, and event types added later (versioning policy)
    if kind is None:
        raise DecodeError(
            f"{_looks_like(event)}, not an Anthropic Messages stream event (no type)",
            f"events[{n}].type",
        )
    raise DecodeError("expected an event type string", f"events[{n}].type")


def _looks_like(event: Mapping[str, Any]) -> str:
    if "choices" in event:
        return "an OpenAI chat completion chunk"
    if "candidates" in event or "usageMetadata" in event or "promptFeedback" in event:
        return "a Gemini response chunk"
    return "an object"


_EVENTS: dict[str, Callable[[AnthropicStream, Mapping[str, Any], int], _Deltas]] = {
    "message_start": AnthropicStream._message_start,
    "content_block_start": AnthropicStream._block_start,
    "content_block_delta": AnthropicStream._delta,
    "content_block_stop": AnthropicStream._block_stop,
    "message_delta": AnthropicStream._message_delta,
    "message_stop": AnthropicStream._message_stop,
    "error": AnthropicStream._error_event,
}
