"""Streaming: ConverseStream events, as the JSON payloads an AWS SDK yields, into a ChatResponse.

Each event is an object with one member naming its type: ``messageStart``,
``contentBlockStart`` (a ``toolUse`` block's id and name; text and reasoning blocks
have none), ``contentBlockDelta`` (``text``, ``toolUse.input`` fragments,
``reasoningContent`` text, signature or ``redactedContent``), ``contentBlockStop``,
``messageStop`` (``stopReason``), ``metadata`` (``usage``, ``metrics``, ``trace``), or
one of the stream's exceptions (``internalServerException``,
``modelStreamErrorException``, ``validationException``, ``throttlingException``,
``serviceUnavailableException``), which ends it with an ERROR response. A ``"[DONE]"``
string (or bytes) is skipped. An event given as its bare payload (without the member
naming its type, as the event stream's frames carry it) is told by its members. A block kind this module does not know (a citation, a server
tool's result) is kept in ``extras[tag]["streamed"]`` with its start and deltas.
A stream that ends without ``messageStop`` (and without an exception) is truncated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from ..._frozen import EMPTY, FrozenDict
from ..._json import json_type, loads
from ..._parts import ReasoningPart
from ..._streaming import ToolCallDelta
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError
from .._base import (
    ChatResponse,
    CountingStream,
    StreamDelta,
    as_mapping,
    freeze_decoded,
    make_response,
    opt_str,
)
from .._sse import is_done
from ._blocks import AssistantTurn
from ._common import b64_text, entry_error
from ._response import error_response, finish_of, kept_state, read_usage
from ._tools import read_call

_Deltas = tuple[StreamDelta, ...]
_NONE: _Deltas = ()
_EXCEPTIONS: Final = frozenset(
    (
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    )
)


class _Block:
    """A content block being streamed."""

    __slots__ = ("call", "chunks", "kind", "ordinal", "redacted", "signature", "start")

    def __init__(self, kind: str) -> None:
        self.kind = kind  # text, toolUse, reasoningContent, or another block kind
        self.chunks: list[str] = []
        self.signature: str | None = None
        self.redacted: str | None = None
        self.call: tuple[str, str] | None = None
        self.ordinal = 0
        self.start: list[Any] = []  # an unknown block's start and deltas, as they came


class BedrockStream(CountingStream):
    """Accumulates ConverseStream events into a ChatResponse (module docstring)."""

    def __init__(self, tag: str) -> None:
        self._tag = tag
        self._blocks: dict[int, _Block] = {}
        self._calls = 0
        self._stop: str | None = None
        self._stopped = False
        self._usage: Any = None
        self._kept: dict[str, Any] = {}
        self._error: str | None = None
        self._events = 0

    def feed(self, event: Any) -> _Deltas:
        """Consume one event; the text, reasoning and tool-call deltas it carries."""
        if is_done(event):
            return _NONE
        n = self._events
        self._events += 1
        try:
            return self._feed(event, n)
        except DecodeError:
            raise
        except Exception as exc:
            raise entry_error(exc, f"events[{n}]") from None

    def _feed(self, event: Any, n: int) -> _Deltas:
        e = as_mapping(event, f"events[{n}]")
        for key, value in e.items():
            handler = _EVENTS.get(key)
            if handler is not None:
                return handler(self, as_mapping(value, f"events[{n}].{key}"), f"events[{n}].{key}")
            if key in _EXCEPTIONS:
                self._error = error_response(
                    as_mapping(value, f"events[{n}].{key}"), f"events[{n}].{key}", key
                ).error
                return _NONE
        if "type" in e or "choices" in e or "candidates" in e:
            raise DecodeError(
                "not a ConverseStream event (another format's stream)", f"events[{n}]"
            )
        kind = _bare_kind(e)
        if kind is not None:  # an event-stream payload read without its event-type header
            return _EVENTS[kind](self, e, f"events[{n}]")
        return _NONE  # an event type added later

    # -- events -------------------------------------------------------------------------------

    def _message_start(self, e: Mapping[str, Any], path: str) -> _Deltas:
        role = e.get("role")
        if role is not None and role != "assistant":
            raise DecodeError("expected role 'assistant'", f"{path}.role")
        return _NONE

    def _block_start(self, e: Mapping[str, Any], path: str) -> _Deltas:
        index = _index(e, path)
        if index in self._blocks:
            raise DecodeError("block index started twice", f"{path}.contentBlockIndex")
        start = as_mapping(e.get("start"), f"{path}.start")
        if "toolUse" in start:
            use = as_mapping(start["toolUse"], f"{path}.start.toolUse")
            call_id = opt_str(use.get("toolUseId"), f"{path}.start.toolUse.toolUseId")
            name = opt_str(use.get("name"), f"{path}.start.toolUse.name")
            if not call_id or name is None:
                raise DecodeError(
                    "a toolUse start needs its toolUseId and name", f"{path}.start.toolUse"
                )
            block = _Block("toolUse")
            block.call = (call_id, name)
            block.ordinal = self._calls
            self._calls += 1
            self._blocks[index] = block
            return _call_delta(block.ordinal, call_id, name or None, None)
        if not start:  # nothing to say yet: the deltas tell the block's kind
            return _NONE
        kind = next(iter(start))
        block = _Block(kind if isinstance(kind, str) else "start")
        if block.kind not in _KNOWN:  # a block kind added later: its start is kept
            block.start.append(freeze_decoded(start, f"{path}.start"))
        self._blocks[index] = block
        return _NONE

    def _block_delta(self, e: Mapping[str, Any], path: str) -> _Deltas:
        index = _index(e, path)
        delta = as_mapping(e.get("delta"), f"{path}.delta")
        for kind, value in delta.items():
            owner, reader = _DELTAS.get(kind, (None, None))
            block = self._blocks.get(index)
            if block is None:
                if kind == "toolUse":
                    raise DecodeError(
                        "toolUse delta for a block that was not started",
                        f"{path}.contentBlockIndex",
                    )
                block = self._blocks[index] = _Block(owner or str(kind))
            if reader is None or block.kind != owner:
                if block.kind in _KNOWN:
                    raise DecodeError(f"a {kind} delta for a {block.kind} block", f"{path}.delta")
                block.start.append(freeze_decoded({kind: value}, f"{path}.delta"))
                return _NONE
            return reader(block, value, f"{path}.delta.{kind}")
        return _NONE

    def _block_stop(self, e: Mapping[str, Any], path: str) -> _Deltas:
        _index(e, path)
        return _NONE

    def _message_stop(self, e: Mapping[str, Any], path: str) -> _Deltas:
        self._stop = opt_str(e.get("stopReason"), f"{path}.stopReason")
        self._stopped = True
        self._kept.update(kept_state(e, f"{path}."))
        return _NONE

    def _metadata(self, e: Mapping[str, Any], path: str) -> _Deltas:
        usage = read_usage(e.get("usage"), f"{path}.usage")
        if usage is not None:
            self._usage = usage
        self._kept.update(kept_state(e, f"{path}."))
        return _NONE

    # -- the response -------------------------------------------------------------------------

    def finish(self) -> ChatResponse:
        """The response assembled from every event fed so far."""
        try:
            return self._finish()
        except DecodeError:
            raise
        except Exception as exc:
            raise entry_error(exc, "events") from None

    def _finish(self) -> ChatResponse:
        if self._error is not None:
            return error_response({"message": self._error}, "")
        if not self._stopped:
            raise DecodeError("stream ended before messageStop (truncated)", "messageStop")
        turn = AssistantTurn(self._tag)
        streamed = []
        for index in sorted(self._blocks):
            block = self._blocks[index]
            if block.kind in _KNOWN:
                _gather(turn, block, index)
            else:
                item = {"index": index, "type": block.kind, "events": tuple(block.start)}
                streamed.append(FrozenDict(item))
        more = dict(self._kept)
        if streamed:
            more["streamed"] = tuple(streamed)
        usage = self._usage
        metadata = (
            FrozenDict({"usage": FrozenDict(usage.to_dict())}) if usage is not None else EMPTY
        )
        message = turn.message("content", False, metadata, more)
        return make_response(message, finish_of(self._stop), usage, None, (), self._stop)


def _bare_kind(e: Mapping[str, Any]) -> str | None:
    """The type of an event given as its bare payload (the members of ``{"contentBlockDelta":
    {...}}`` without the wrapper, as the event stream carries them beside an
    ``:event-type`` header), told by its members; None when they tell none."""
    if "contentBlockIndex" in e:
        if "delta" in e:
            return "contentBlockDelta"
        return "contentBlockStart" if "start" in e else "contentBlockStop"
    if "stopReason" in e:
        return "messageStop"
    if "usage" in e or "metrics" in e:
        return "metadata"
    return "messageStart" if e.get("role") == "assistant" else None


def _index(e: Mapping[str, Any], path: str) -> int:
    index = e.get("contentBlockIndex")
    if type(index) is not int or index < 0:
        raise DecodeError("expected a non-negative integer", f"{path}.contentBlockIndex")
    return index


def _call_delta(index: int, call_id: str | None, name: str | None, args: str | None) -> _Deltas:
    return (StreamDelta("tool_call", tool_call=ToolCallDelta(index, call_id, name, args)),)


# -- deltas -------------------------------------------------------------------------------------


def _text(block: _Block, value: Any, path: str) -> _Deltas:
    if type(value) is not str:
        raise DecodeError(f"expected a string, got {json_type(value)}", path)
    block.chunks.append(value)
    return (StreamDelta("text", value),) if value else _NONE


def _tool_input(block: _Block, value: Any, path: str) -> _Deltas:
    fragment = as_mapping(value, path).get("input")
    if type(fragment) is not str:
        raise DecodeError("expected a string", f"{path}.input")
    block.chunks.append(fragment)
    return _call_delta(block.ordinal, None, None, fragment) if fragment else _NONE


def _reasoning(block: _Block, value: Any, path: str) -> _Deltas:
    delta = as_mapping(value, path)
    if "redactedContent" in delta:
        block.redacted = (block.redacted or "") + b64_text(
            delta["redactedContent"], f"{path}.redactedContent"
        )
    signature = opt_str(delta.get("signature"), f"{path}.signature")
    if signature is not None:
        block.signature = (block.signature or "") + signature
    text = opt_str(delta.get("text"), f"{path}.text")
    if text:
        block.chunks.append(text)
        return (StreamDelta("reasoning", text),)
    return _NONE


def _citation(block: _Block, value: Any, path: str) -> _Deltas:
    """A citation of the text block it comes in (the block is then a ``citationsContent``)."""
    block.start.append(freeze_decoded(as_mapping(value, path), path))
    return _NONE


#: Each delta kind: the kind of block it builds, and its reader.
_DELTAS: Final[dict[str, tuple[str, Callable[[_Block, Any, str], _Deltas]]]] = {
    "text": ("text", _text),
    "citation": ("text", _citation),
    "toolUse": ("toolUse", _tool_input),
    "reasoningContent": ("reasoningContent", _reasoning),
}
_KNOWN: Final = frozenset(kind for kind, _ in _DELTAS.values())


def _gather(turn: AssistantTurn, block: _Block, index: int) -> None:
    """Add a finished block to the turn, as the non-streaming response would have it."""
    if block.kind == "text" and block.start:  # cited text: as the response has it
        content = {"content": [{"text": "".join(block.chunks)}], "citations": list(block.start)}
        turn.add({"citationsContent": content}, f"content[{index}]")
        return
    if block.kind == "text":
        turn.parts.append("".join(block.chunks))
    elif block.kind == "toolUse":
        turn.add_call(_finish_call(block, index))
    elif block.redacted is not None:
        turn.parts.append(ReasoningPart(block.redacted, None, True, turn.tag))
    else:
        turn.parts.append(
            ReasoningPart("".join(block.chunks), block.signature or None, False, turn.tag)
        )
    turn.index += 1


def _finish_call(block: _Block, index: int) -> ToolCall | InvalidToolCall:
    """A streamed ``toolUse`` block's call, its input joined and parsed."""
    assert block.call is not None
    call_id, name = block.call
    raw = "".join(block.chunks)
    args: Any = {}
    if raw.strip():
        try:
            args = loads(raw, f"content[{index}].toolUse.input")
        except DecodeError as exc:
            return InvalidToolCall(call_id, name, raw, f"{exc.path}: {exc.message}")
    return read_call(
        {"toolUseId": call_id, "name": name, "input": args},
        raw or None,
        f"content[{index}].toolUse",
    )


_EVENTS: Final[dict[str, Callable[[BedrockStream, Mapping[str, Any], str], _Deltas]]] = {
    "messageStart": BedrockStream._message_start,
    "contentBlockStart": BedrockStream._block_start,
    "contentBlockDelta": BedrockStream._block_delta,
    "contentBlockStop": BedrockStream._block_stop,
    "messageStop": BedrockStream._message_stop,
    "metadata": BedrockStream._metadata,
}
