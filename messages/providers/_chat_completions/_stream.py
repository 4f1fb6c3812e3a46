"""Streamed chat completions: chunks (SSE ``data:`` payloads) into deltas and a response.

A chunk is read when it is one of this format: it has ``choices`` (possibly empty:
usage-only chunks and Azure's prompt-filter chunk), or is an error (``{"error":
...}``, vLLM's flat ``{"object": "error", ...}``), or is a ``chat.completion.chunk``
or carries ``usage`` or the dialect's vendor data without choices. Anything else
(an event with a ``type`` such as ``message_start`` or ``response.output_text.delta``,
a Gemini or Ollama chunk) is another provider's stream: a DecodeError naming it,
instead of a response that ends empty and "truncated".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ..._build import stream_delta, tool_call_delta
from ..._frozen import FrozenDict
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._json import dumps_compact, json_type
from ..._parts import ReasoningPart
from ..._streaming import ToolCallAccumulator, ToolCallDelta
from ...errors import DecodeError
from .._base import (
    ChatResponse,
    CountingStream,
    FinishReason,
    StreamDelta,
    Usage,
    as_list,
    as_mapping,
    is_mapping,
    make_response,
    opt_str,
    opt_str_at,
)
from .._sse import is_done
from ._readers import (
    FINISH,
    KEPT_LISTS,
    NO_DELTAS,
    chat_usage,
    foreign_event,
    keep_unknown,
    parser,
    read_error,
    req_str,
    respond,
    thinking_text,
    unique_ids,
)

__all__ = ["ChatCompletionsStream", "UsageReader"]

#: Reads a usage object at a path: the Usage, and metadata keys it adds (e.g. a cost).
UsageReader = Callable[[object, str], tuple[Usage | None, Mapping[str, Any] | None]]

_READS: Final = "chat.completion.chunk objects (with choices)"


class ChatCompletionsStream(CountingStream):
    """Accumulates chat-completion chunks (SSE ``data:`` payloads without ``[DONE]``).

    Tool-call fragments are keyed by ``index``; a fragment whose ``id`` differs
    from the call open at that index starts a new call (some servers send every
    call at index 0). Whole calls in one delta (Groq) and several calls per delta
    work the same way; a deprecated ``delta.function_call`` is one call with a
    derived id. ``delta.content`` may be a string or an array of content chunks
    (Mistral: ``text`` and ``thinking`` chunks). A mid-stream ``{"error": ...}``
    object ends with finish_reason ERROR and keeps what came before. A stream that
    ends before any ``finish_reason`` (truncated) finishes with what it has:
    finish_reason ERROR, ``error`` saying so, partial tool calls invalid.
    """

    __slots__ = (
        "_acc",
        "_error",
        "_error_details",
        "_events",
        "_finish",
        "_finish_map",
        "_id",
        "_kept",
        "_listed",
        "_logprobs",
        "_model",
        "_more",
        "_name",
        "_next",
        "_open",
        "_read_usage",
        "_reasoning",
        "_refusal",
        "_tag",
        "_text",
        "_usage",
        "_vendor_usage",
    )

    #: Top-level key of vendor data in a chunk (Groq: ``x_groq``), read by ``_vendor``.
    vendor_key: str | None = None
    #: Key of reasoning blocks in a delta (OpenRouter: ``reasoning_details``), read by
    #: ``_blocks`` instead of the delta's plain reasoning.
    blocks_key: str | None = None

    def __init__(
        self,
        tag: str = "openai",
        name: str = "openai",
        finish_reasons: Mapping[str, FinishReason] = FINISH,
        usage: UsageReader | None = None,
    ) -> None:
        self._tag = tag
        self._name = name
        self._finish_map = finish_reasons
        self._read_usage = plain_usage if usage is None else usage
        self._more: Mapping[str, Any] | None = None
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._refusal: list[str] = []
        self._kept: dict[str, Any] = {}
        self._listed: dict[str, list[Any]] = {}
        self._logprobs: dict[str, Any] = {}
        self._acc = ToolCallAccumulator()
        self._open: dict[int, list[Any]] = {}
        self._next = 0
        self._finish: str | None = None
        self._usage: Usage | None = None
        self._vendor_usage: Usage | None = None
        self._model: str | None = None
        self._id: str | None = None
        self._error: str | None = None
        self._error_details: FrozenDict | None = None
        self._events = 0

    @parser
    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one chunk; returns the text, reasoning and tool-call deltas it carried."""
        if is_done(event):  # the SSE end marker, if a caller passes it on
            return NO_DELTAS
        event = as_mapping(event, "")
        self._events += 1
        if not self._model:  # Azure opens with a prompt-filter chunk whose model and id are ""
            self._model = opt_str(event.get("model"), "model") or None
            self._id = opt_str(event.get("id"), "id") or None
        out = NO_DELTAS
        choices = event.get("choices")
        if choices:
            out = self._choice(as_list(choices, "choices"))
        elif choices is None:
            self._without_choices(event)
        usage = event.get("usage")
        if usage is not None:
            self._usage, self._more = self._read_usage(usage, "usage")
        if self.vendor_key is not None:
            vendor = event.get(self.vendor_key)
            if vendor is not None:
                self._vendor(vendor)
        return out

    def _choice(self, choices: Sequence[Any]) -> tuple[StreamDelta, ...]:
        """The answer's choice of a chunk: its deltas, logprobs and finish reason. With
        n > 1 each chunk carries one choice; the answer is choice 0 and the deltas of the
        others are kept as they came (``extras[tag]["choices"]``)."""
        choice = as_mapping(choices[0], "choices[0]")
        if choice.get("index", 0) != 0 or len(choices) > 1:
            others = [c for c in choices if not _first(c)]
            if others:
                self._listed.setdefault("choices", []).extend(others)
            answer = [c for c in choices if _first(c)]
            if not answer:
                return NO_DELTAS
            choice = answer[0]  # choice 0, wherever it stands in the chunk
        delta = choice.get("delta")
        out = self._delta(as_mapping(delta, "choices[0].delta")) if delta else NO_DELTAS
        logprobs = choice.get("logprobs")
        if logprobs is not None:
            self._add_logprobs(logprobs)
        finish = opt_str(choice.get("finish_reason"), "choices[0].finish_reason")
        if finish is not None:
            self._finish = finish
        return out

    def _without_choices(self, event: Mapping[str, Any]) -> None:
        """A chunk without choices: an error, usage or vendor data only, or another format."""
        if "error" in event:
            self._set_error(event["error"], "error")
            return
        if event.get("object") == "error":
            self._set_error(event, "")  # vLLM's flat ErrorResponse
            return
        kind = event.get("type")
        if kind is None and (
            event.get("object") == "chat.completion.chunk"
            or "usage" in event
            or (self.vendor_key is not None and self.vendor_key in event)
        ):
            return
        raise foreign_event(event, self._name, _READS, "choices" if kind is None else "type")

    def _vendor(self, value: object) -> None:
        """Hook for the vendor data of a chunk (see ``vendor_key``)."""

    def _blocks(self, value: object) -> tuple[StreamDelta, ...]:
        """Hook for the reasoning blocks of a delta (see ``blocks_key``): their deltas."""
        return NO_DELTAS

    def _reasoning_parts(self, own: dict[str, Any]) -> str | Sequence[ReasoningPart] | None:
        """The reasoning of the finished response (a dialect with reasoning blocks keeps
        them in ``own`` and returns its parts)."""
        return "".join(self._reasoning) or None

    def _set_error(self, value: object, path: str) -> None:
        self._error, self._error_details = read_error(value, path)

    def _delta(self, delta: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """The deltas of a choice's ``delta`` (text, reasoning, then tool-call fragments);
        its refusal and kept lists are noted."""
        out = self._content(delta.get("content")) + self._thoughts(delta)
        for key in KEPT_LISTS:
            listed = delta.get(key)
            if listed:
                self._add_listed(key, listed)
        calls = delta.get("tool_calls")
        if calls:
            out += self._tool_deltas(calls)
        elif delta.get("function_call") is not None:
            out += self._legacy_delta(delta["function_call"])
        refusal = delta.get("refusal")
        if refusal:
            self._refusal.append(_text(refusal, "choices[0].delta.refusal"))
        return out

    def _content(self, content: object) -> tuple[StreamDelta, ...]:
        """``delta.content``: a string, or an array of content chunks (Mistral)."""
        if not content:
            return NO_DELTAS
        if isinstance(content, str):
            self._text.append(content)
            return (stream_delta(StreamDelta, "text", content, None),)
        return self._chunks(content)

    def _thoughts(self, delta: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """The reasoning of a delta: its blocks (``blocks_key``) when it has any, else
        ``reasoning`` (or the legacy ``reasoning_content``)."""
        if self.blocks_key is not None:
            blocks = delta.get(self.blocks_key)
            if blocks:  # the chunk's plain reasoning repeats its blocks' text
                return self._blocks(blocks)
        r = delta.get("reasoning")
        if r is None:
            r = delta.get("reasoning_content")
        if not r:
            return NO_DELTAS
        text = _text(r, "choices[0].delta.reasoning")
        self._reasoning.append(text)
        return (stream_delta(StreamDelta, "reasoning", text, None),)

    def _add_listed(self, key: str, value: object) -> None:
        """Items of a kept delta list (``KEPT_LISTS``): an item with the
        ``index`` of an earlier one completes it (Groq sends an executed tool's
        arguments, then its output); anything else is appended."""
        items = self._listed.setdefault(key, [])
        for item in as_list(value, f"choices[0].delta.{key}"):
            at = item.get("index") if isinstance(item, dict) else None
            for j, old in enumerate(items):
                if at is not None and isinstance(old, dict) and old.get("index") == at:
                    items[j] = {**old, **item}
                    break
            else:
                items.append(item)

    def _add_logprobs(self, value: object) -> None:
        """A chunk's ``logprobs``: its token lists (``content``, ``refusal``) appended to
        those of earlier chunks, so the result has the shape of a response's."""
        lp = as_mapping(value, "choices[0].logprobs")
        for key, tokens in lp.items():
            if isinstance(tokens, list):
                if self._logprobs.get(key) is None:  # absent, or null in an earlier chunk
                    self._logprobs[key] = []
                self._logprobs[key].extend(tokens)
            elif tokens is not None:
                raise DecodeError(
                    f"expected token lists, got {json_type(tokens)}", "choices[0].logprobs"
                )
            else:
                self._logprobs.setdefault(key, None)

    def _chunks(self, content: object) -> tuple[StreamDelta, ...]:
        """``delta.content`` as an array of content chunks (Mistral): text and thinking;
        a refusal part is the refusal, chunks of other types are kept."""
        path = "choices[0].delta.content"
        out: list[StreamDelta] = []
        for j, p in enumerate(as_list(content, path)):
            part = as_mapping(p, f"{path}[{j}]")
            kind = part.get("type")
            if kind == "text":
                text = req_str(part.get("text"), f"{path}[{j}].text")
                if text:
                    self._text.append(text)
                    out.append(stream_delta(StreamDelta, "text", text, None))
            elif kind == "thinking":
                thought = thinking_text(part.get("thinking"))
                if thought is None:
                    keep_unknown(self._kept, self._events - 1, f"{path}[{j}]", part)
                elif thought:
                    self._reasoning.append(thought)
                    out.append(stream_delta(StreamDelta, "reasoning", thought, None))
            elif kind == "refusal":
                self._refusal.append(req_str(part.get("refusal"), f"{path}[{j}].refusal"))
            else:
                keep_unknown(self._kept, self._events - 1, f"{path}[{j}]", part)
        return tuple(out)

    def _tool_deltas(self, tcs: object) -> tuple[StreamDelta, ...]:
        """``delta.tool_calls``: one delta per fragment."""
        path = "choices[0].delta.tool_calls"
        out: list[StreamDelta] = []
        for k, item in enumerate(as_list(tcs, path)):
            where = f"{path}[{k}]"
            out.append(self._fragment(as_mapping(item, where), where, k))
        return tuple(out)

    def _fragment(self, tc: Mapping[str, Any], where: str, k: int) -> StreamDelta:
        """Fragment ``k`` of ``delta.tool_calls`` (at ``where``), keyed by its ``index``."""
        wire = tc.get("index")
        if wire is None:
            wire = k
        elif type(wire) is not int or wire < 0:
            raise DecodeError("index must be an integer >= 0", f"{where}.index")
        cid = opt_str_at(tc, "id", where) or None
        name = args = None
        fn = tc.get("function")
        if fn is not None:
            if not is_mapping(fn):
                raise DecodeError(f"expected an object, got {json_type(fn)}", f"{where}.function")
            name = opt_str_at(fn, "name", where, "function")
            args = fn.get("arguments")
            if args is not None and not isinstance(args, str):
                args = _args_text(args, f"{where}.function.arguments")
        return self._call_delta(self._call_index(wire, cid), cid, name or None, args or None)

    def _legacy_delta(self, fc: object) -> tuple[StreamDelta, ...]:
        """A deprecated ``function_call`` fragment: the one call, kept at wire index -1."""
        path = "choices[0].delta.function_call"
        f = as_mapping(fc, path)
        name = opt_str_at(f, "name", path) or None
        args = opt_str_at(f, "arguments", path) or None
        return (self._call_delta(self._call_index(-1, None), None, name, args),)

    def _call_index(self, wire: int, cid: str | None) -> int:
        """The index of the call a fragment at wire index ``wire`` belongs to: the call open
        there, or a new one when none is, or when the fragment's id differs from the open
        call's (some servers send every call at index 0)."""
        slot = self._open.get(wire)
        if slot is None or (cid and slot[1] and cid != slot[1]):
            slot = self._open[wire] = [self._next, cid]
            self._next += 1
        elif cid and not slot[1]:
            slot[1] = cid
        index: int = slot[0]
        return index

    def _call_delta(
        self, index: int, cid: str | None, name: str | None, args: str | None
    ) -> StreamDelta:
        """A tool-call fragment, added to its call."""
        self._acc.add(index, cid, name, args)
        call = tool_call_delta(ToolCallDelta, index, cid, name, args)
        return stream_delta(StreamDelta, "tool_call", "", call)

    def _derive(self, index: int, name: str | None) -> str:
        return derive_call_id(DERIVED_ID_PREFIX, self._id or self._model or "", index, name or "")

    @parser
    def finish(self) -> ChatResponse:
        """The response assembled from every chunk fed so far."""
        calls, invalid = self._acc.result(self._derive)
        kept, bad = unique_ids(list(calls), list(invalid), "tool_calls")
        raw = self._finish
        error = self._error
        if error is not None:
            finish = FinishReason.ERROR
        elif raw is not None:
            finish = self._finish_map.get(raw, FinishReason.OTHER)
        else:
            finish = FinishReason.ERROR
            error = "stream ended before a finish_reason (truncated)"
        refusal = "".join(self._refusal) or None
        own = dict(self._kept)
        if refusal:
            own["refusal"] = refusal
        for key, items in self._listed.items():
            own[key] = list(items)
        if self._logprobs:
            own["logprobs"] = {k: v if v is None else list(v) for k, v in self._logprobs.items()}
        reasoning = self._reasoning_parts(own)
        usage = self._usage if self._usage is not None else self._vendor_usage
        message = respond(
            "".join(self._text),
            reasoning,
            self._tag,
            kept,
            usage,
            {self._tag: own} if own else None,
            self._error_details,
            bad,
            self._more,
        )
        return make_response(message, finish, usage, self._model, (), raw, refusal, self._id, error)


def _first(choice: object) -> bool:
    """Whether a chunk's choice is the answer read (index 0, or no index)."""
    return isinstance(choice, Mapping) and choice.get("index", 0) == 0


def _text(value: object, path: str) -> str:
    """``value`` when it is a string, else DecodeError at ``path``."""
    if isinstance(value, str):
        return value
    raise DecodeError(f"expected a string, got {json_type(value)}", path)


def plain_usage(raw: object, path: str) -> tuple[Usage | None, Mapping[str, Any] | None]:
    """The chat usage of a chunk, which adds no metadata (see ``UsageReader``)."""
    return chat_usage(raw, path), None


def _args_text(args: object, path: str) -> str:
    """Arguments a server sent as an object instead of its text (vLLM), as compact JSON."""
    if not isinstance(args, Mapping):
        raise DecodeError(f"expected a string, got {json_type(args)}", path)
    return dumps_compact(args)
