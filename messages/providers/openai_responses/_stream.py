"""Responses streams: the parsed payload of each SSE event in, deltas out, then the
response that ``parse_response`` gives for the completed Response object.

Each event names its item by ``item_id`` and ``output_index``; deltas are routed by
them (parallel calls interleave), never to "the last item". An ``item_id`` not seen
before with the ``output_index`` of a known item renames that item (the GitHub
Copilot proxy gives every event a new id): it keeps the last id seen. The stream
keeps each output item as it grows (``output_item.added``, content parts, text, refusal,
reasoning and argument deltas and their ``done`` events) and replaces it by the
item of ``output_item.done``. ``finish()`` parses the terminal Response
(``response.completed`` / ``incomplete`` / ``failed``) with its ``output``, or,
when it carries none, the items assembled here, through the one response parser.
An ``error`` event ends with finish_reason ERROR, keeping what came before; a
stream without a terminal event (truncated) ends with ERROR, ``error`` saying so,
and calls left open become invalid calls. Events of other wire formats (chat
chunks, Anthropic and Gemini events, Ollama lines) are refused with a DecodeError
naming the provider that reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from ..._build import stream_delta, tool_call_delta
from ..._frozen import thaw
from ..._json import json_type
from ..._streaming import ToolCallDelta
from ...errors import DecodeError
from .._base import ChatResponse, CountingStream, StreamDelta, parser
from .._sse import is_done
from ._parse import parse_response
from ._read import error_details, mapping, opt_string, string

__all__ = ["ResponsesStream"]

_NONE: tuple[StreamDelta, ...] = ()
_TERMINAL: Final = frozenset(("response.completed", "response.incomplete", "response.failed"))
_SNAPSHOTS: Final = frozenset(("response.created", "response.in_progress", "response.queued"))
_ANTHROPIC: Final = frozenset(
    (
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
    )
)
_TRUNCATED: Final = "stream ended before response.completed (truncated)"


def _text(kind: str, text: str) -> StreamDelta:
    return stream_delta(StreamDelta, kind, text, None)


def _call(index: int, call_id: str | None, name: str | None, args: str | None) -> StreamDelta:
    call = tool_call_delta(ToolCallDelta, index, call_id, name, args)
    return stream_delta(StreamDelta, "tool_call", "", call)


def _index(value: Any, path: str) -> int:
    if type(value) is int and value >= 0:
        return value
    raise DecodeError(f"expected an integer >= 0, got {json_type(value)}", path)


class _Item:
    """One output item as it grows: the item itself, its streamed chunks, its parts."""

    __slots__ = ("call", "chunks", "done", "item", "parts", "streamed")

    def __init__(self, item: Mapping[str, Any]) -> None:
        self.item = item
        self.done = False
        self.streamed = False
        self.call = -1  # the tool-call delta index of a function_call
        # (field, index) -> text chunks; field is "text", "refusal", "summary",
        # "reasoning" (reasoning_text content) or "arguments"
        self.chunks: dict[tuple[str, int], list[str]] = {}
        # (field, index) -> the part from content_part / summary_part events
        self.parts: dict[tuple[str, int], Mapping[str, Any]] = {}

    def assembled(self) -> Mapping[str, Any]:
        """The item with everything streamed into it (the done item, once there is one)."""
        if self.done or not (self.chunks or self.parts):
            return self.item
        item = dict(self.item)
        kind = item.get("type")
        chunks = self.chunks
        if kind == "function_call":
            args = chunks.get(("arguments", 0))
            if args is not None:
                item["arguments"] = "".join(args)
            return item
        if kind == "message":
            item["content"] = self._list(("text", "refusal"), {"text": "output_text"})
        elif kind == "reasoning":
            item["summary"] = self._list(("summary",), {"summary": "summary_text"})
            content = self._list(("reasoning",), {"reasoning": "reasoning_text"})
            if content:
                item["content"] = content
        return item

    def _list(self, fields: tuple[str, ...], types: dict[str, str]) -> list[dict[str, Any]]:
        keys = sorted(
            {k for k in self.chunks if k[0] in fields} | {k for k in self.parts if k[0] in fields},
            key=lambda k: k[1],
        )
        out: list[dict[str, Any]] = []
        for field, index in keys:
            part = dict(self.parts.get((field, index)) or {})
            chunks = self.chunks.get((field, index))
            key = "refusal" if field == "refusal" else "text"
            if field == "refusal":
                part.setdefault("type", "refusal")
            else:
                part.setdefault("type", types.get(field, field))
                if part["type"] == "output_text":
                    part.setdefault("annotations", [])
            if chunks is not None:
                part[key] = "".join(chunks)
            else:
                part.setdefault(key, "")
            out.append(part)
        return out


class ResponsesStream(CountingStream):
    """Accumulates Responses SSE events (each the parsed ``data:`` payload)."""

    __slots__ = (
        "_by_id",
        "_calls",
        "_error",
        "_events",
        "_items",
        "_response",
        "_tag",
        "_terminal",
    )

    def __init__(self, tag: str) -> None:
        self._tag = tag
        self._items: dict[int, _Item] = {}
        self._by_id: dict[str, _Item] = {}
        self._response: Mapping[str, Any] | None = None
        self._terminal = False
        self._error: Any = None
        self._calls = 0
        self._events = 0

    @parser
    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one event; returns the text, reasoning and tool-call deltas it carried."""
        if is_done(event):  # the SSE end marker, if a caller passes it on
            return _NONE
        event = mapping(event, "")
        self._events += 1
        kind = event.get("type")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            return handler(self, event)
        return self._other(event, kind)

    def _other(self, event: Mapping[str, Any], kind: Any) -> tuple[StreamDelta, ...]:
        if isinstance(kind, str):
            if kind in _TERMINAL:
                self._response = mapping(event.get("response"), "response")
                self._terminal = True
            elif kind in _SNAPSHOTS:
                if not self._terminal:
                    self._response = mapping(event.get("response"), "response")
            elif kind == "error":
                err = event.get("error")
                self._error = event if err is None else err
            elif kind in _ANTHROPIC:
                raise DecodeError(
                    f"an Anthropic Messages event ({kind}), not a Responses event: "
                    "read it with the 'anthropic' provider",
                    "type",
                )
            # other response.* events (built-in tool progress, annotations, audio,
            # custom tool input...): their items arrive whole in output_item.done
            return _NONE
        if kind is not None:
            raise DecodeError(f"expected a string, got {json_type(kind)}", "type")
        if "choices" in event or event.get("object") == "chat.completion.chunk":
            reader = "a chat-completions chunk, not a Responses event: read it with the 'openai' provider"
        elif "candidates" in event or "usageMetadata" in event or "promptFeedback" in event:
            reader = "a Gemini event, not a Responses event: read it with the 'gemini' provider"
        elif "done" in event and ("message" in event or "model" in event):
            reader = "an Ollama line, not a Responses event: read it with the 'ollama' provider"
        else:
            reader = "an event without a type: not a Responses stream event"
        raise DecodeError(reader, "type")

    # -- routing -------------------------------------------------------------------

    def _slot(self, event: Mapping[str, Any], kind: str) -> _Item:
        """The item an event is about, by ``item_id``, else ``output_index``."""
        iid = event.get("item_id")
        if isinstance(iid, str):
            slot = self._by_id.get(iid)
            if slot is not None:
                return slot
        elif iid is not None:
            raise DecodeError(f"expected a string, got {json_type(iid)}", "item_id")
        raw = event.get("output_index")
        if raw is None:
            if iid is None:
                raise DecodeError("an item event needs item_id or output_index", "item_id")
            index = max(self._items, default=-1) + 1
        else:
            index = _index(raw, "output_index")
            slot = self._items.get(index)
            if slot is not None:
                if iid is not None:
                    self._renamed(slot, iid)
                return slot
        item: dict[str, Any] = {"type": kind}
        if iid is not None:
            item["id"] = iid
        if kind == "message":
            item["role"] = "assistant"
        return self._add(index, item)

    def _renamed(self, slot: _Item, iid: str) -> None:
        """An event names the item at its ``output_index`` by a new id: the item keeps it.

        Proxies (GitHub Copilot's) give an item a new id in every event; the item is
        the one at ``output_index`` and the last id seen is the one it is sent back with.
        """
        if slot.item.get("id") != iid:
            slot.item = {**slot.item, "id": iid}
        self._by_id[iid] = slot

    def _add(self, index: int, item: Mapping[str, Any]) -> _Item:
        slot = _Item(item)
        self._items[index] = slot
        iid = item.get("id")
        if isinstance(iid, str):
            self._by_id[iid] = slot
        if item.get("type") == "function_call":
            slot.call = self._calls
            self._calls += 1
        return slot

    # -- events ----------------------------------------------------------------------

    def _item_added(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        index = _index(event.get("output_index"), "output_index")
        item = mapping(event.get("item"), "item")
        slot = self._items.get(index)
        if slot is None:
            slot = self._add(index, item)
        else:  # an event for the item came first: keep what it streamed
            slot.item = {**slot.item, **item}
            iid = item.get("id")
            if isinstance(iid, str):
                self._by_id[iid] = slot
        if item.get("type") != "function_call":
            return _NONE
        call_id = opt_string(item.get("call_id"), "item.call_id")
        name = opt_string(item.get("name"), "item.name")
        args = opt_string(item.get("arguments"), "item.arguments") or None
        slot.streamed = True
        if args is not None:
            slot.chunks[("arguments", 0)] = [args]
        return (_call(slot.call, call_id, name, args),)

    def _item_done(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        index = _index(event.get("output_index"), "output_index")
        item = mapping(event.get("item"), "item")
        slot = self._items.get(index)
        if slot is None:
            slot = self._add(index, item)
        slot.item = item
        slot.done = True
        iid = item.get("id")
        if isinstance(iid, str):
            self._by_id[iid] = slot
        if slot.streamed:
            return _NONE
        return self._whole(slot, item)

    def _whole(self, slot: _Item, item: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """The deltas of an item that arrived whole (nothing of it was streamed)."""
        kind = item.get("type")
        out: list[StreamDelta] = []
        if kind == "message":
            for p in item.get("content") or ():
                if isinstance(p, Mapping) and p.get("type") == "output_text":
                    text = string(p.get("text"), "item.content.text")
                    if text:
                        out.append(_text("text", text))
        elif kind == "reasoning":
            for key in ("summary", "content"):
                out.extend(
                    _text("reasoning", p["text"])
                    for p in item.get(key) or ()
                    if isinstance(p, Mapping) and isinstance(p.get("text"), str) and p["text"]
                )
        elif kind == "function_call":
            if slot.call < 0:
                slot.call = self._calls
                self._calls += 1
            out.append(
                _call(
                    slot.call,
                    opt_string(item.get("call_id"), "item.call_id"),
                    opt_string(item.get("name"), "item.name"),
                    opt_string(item.get("arguments"), "item.arguments") or None,
                )
            )
        return tuple(out)

    def _part(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        part = mapping(event.get("part"), "part")
        slot = self._slot(event, "message")
        ci = _index(event.get("content_index"), "content_index")
        kind = part.get("type")
        field = (
            "refusal" if kind == "refusal" else "reasoning" if kind == "reasoning_text" else "text"
        )
        slot.parts[(field, ci)] = part
        if event.get("type") == "response.content_part.done":
            text = part.get("refusal" if field == "refusal" else "text")
            if isinstance(text, str):
                slot.chunks[(field, ci)] = [text]
        return _NONE

    def _summary_part(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        part = mapping(event.get("part"), "part")
        slot = self._slot(event, "reasoning")
        si = _index(event.get("summary_index"), "summary_index")
        slot.parts[("summary", si)] = part
        if event.get("type") == "response.reasoning_summary_part.done":
            text = part.get("text")
            if isinstance(text, str):
                slot.chunks[("summary", si)] = [text]
        return _NONE

    def _text_delta(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        delta = string(event.get("delta"), "delta")
        slot = self._slot(event, "message")
        ci = _index(event.get("content_index"), "content_index")
        slot.chunks.setdefault(("text", ci), []).append(delta)
        slot.streamed = True
        return (_text("text", delta),)

    def _refusal_delta(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        delta = string(event.get("delta"), "delta")
        slot = self._slot(event, "message")
        ci = _index(event.get("content_index"), "content_index")
        slot.chunks.setdefault(("refusal", ci), []).append(delta)
        slot.streamed = True
        return _NONE

    def _summary_delta(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        delta = string(event.get("delta"), "delta")
        slot = self._slot(event, "reasoning")
        si = _index(event.get("summary_index"), "summary_index")
        slot.chunks.setdefault(("summary", si), []).append(delta)
        slot.streamed = True
        return (_text("reasoning", delta),)

    def _reasoning_delta(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        delta = string(event.get("delta"), "delta")
        slot = self._slot(event, "reasoning")
        ci = _index(event.get("content_index"), "content_index")
        slot.chunks.setdefault(("reasoning", ci), []).append(delta)
        slot.streamed = True
        return (_text("reasoning", delta),)

    def _arguments_delta(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        delta = string(event.get("delta"), "delta")
        slot = self._slot(event, "function_call")
        if slot.call < 0:
            slot.call = self._calls
            self._calls += 1
        slot.chunks.setdefault(("arguments", 0), []).append(delta)
        slot.streamed = True
        return (_call(slot.call, None, None, delta),)

    def _text_done(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        return self._set(event, "message", "text", "content_index", "text")

    def _refusal_done(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        return self._set(event, "message", "refusal", "content_index", "refusal")

    def _summary_done(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        return self._set(event, "reasoning", "summary", "summary_index", "text")

    def _reasoning_done(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        return self._set(event, "reasoning", "reasoning", "content_index", "text")

    def _arguments_done(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        slot = self._slot(event, "function_call")
        args = string(event.get("arguments"), "arguments")
        slot.chunks[("arguments", 0)] = [args]
        return _NONE

    def _set(
        self, event: Mapping[str, Any], kind: str, field: str, index_key: str, text_key: str
    ) -> tuple[StreamDelta, ...]:
        """A ``*.done`` event: its full text replaces the chunks streamed before it."""
        slot = self._slot(event, kind)
        index = _index(event.get(index_key), index_key)
        slot.chunks[(field, index)] = [string(event.get(text_key), text_key)]
        return _NONE

    # -- the end -----------------------------------------------------------------------

    @parser
    def finish(self) -> ChatResponse:
        """The response assembled from every event fed so far."""
        body: dict[str, Any] = dict(self._response) if self._response is not None else {}
        output = body.get("output")
        cut: frozenset[int] = frozenset()
        if not (self._terminal and isinstance(output, (list, tuple)) and output):
            items = [self._items[k] for k in sorted(self._items)]
            body["output"] = [slot.assembled() for slot in items]
            if not self._terminal and self._error is None:
                cut = frozenset(
                    k
                    for k, slot in enumerate(items)
                    if not slot.done and slot.item.get("type") == "function_call"
                )
        forced: str | None = None
        if self._error is not None:
            text, details = error_details(self._error, "error")
            if body.get("error") is None:
                body["error"] = thaw(details)
            forced = text
        elif not self._terminal:
            forced = _TRUNCATED
            body.setdefault("object", "response")
        return parse_response(body, self._tag, cut=cut, truncated=forced)


_Handler = Callable[[ResponsesStream, Mapping[str, Any]], tuple[StreamDelta, ...]]

#: Event type -> handler (the terminal, snapshot and error events go through _other).
_HANDLERS: dict[str, _Handler] = {
    "response.output_text.delta": ResponsesStream._text_delta,
    "response.function_call_arguments.delta": ResponsesStream._arguments_delta,
    "response.reasoning_summary_text.delta": ResponsesStream._summary_delta,
    "response.reasoning_text.delta": ResponsesStream._reasoning_delta,
    "response.refusal.delta": ResponsesStream._refusal_delta,
    "response.output_item.added": ResponsesStream._item_added,
    "response.output_item.done": ResponsesStream._item_done,
    "response.content_part.added": ResponsesStream._part,
    "response.content_part.done": ResponsesStream._part,
    "response.reasoning_summary_part.added": ResponsesStream._summary_part,
    "response.reasoning_summary_part.done": ResponsesStream._summary_part,
    "response.output_text.done": ResponsesStream._text_done,
    "response.refusal.done": ResponsesStream._refusal_done,
    "response.reasoning_summary_text.done": ResponsesStream._summary_done,
    "response.reasoning_text.done": ResponsesStream._reasoning_done,
    "response.function_call_arguments.done": ResponsesStream._arguments_done,
}
