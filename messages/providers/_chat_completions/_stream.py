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
    guard_error,
    make_response,
    opt_str,
)
from ._readers import (
    FINISH,
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

_DONE: object = "[DONE]"
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
        self._read_usage = usage
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

    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one chunk; returns the text, reasoning and tool-call deltas it carried."""
        # hot path: the guard of `parser` written out (its *args call cost ~90 ns a
        # chunk); exact-class checks first, a path string built only on failure.
        try:
            if event.__class__ is not dict:
                if event == _DONE:  # the SSE end sentinel, if a caller passes it on
                    return NO_DELTAS
                event = as_mapping(event, "")
            self._events += 1
            # Azure opens with a prompt-filter chunk whose model and id are "".
            if not self._model:
                self._model = opt_str(event.get("model"), "model") or None
                self._id = opt_str(event.get("id"), "id") or None
            out = NO_DELTAS
            choices = event.get("choices")
            if choices:
                if choices.__class__ is not list:
                    choices = as_list(choices, "choices")
                ch = choices[0]
                if ch.__class__ is not dict:
                    ch = as_mapping(ch, "choices[0]")
                # hot path: index and delta, which every choice has, by subscript (a get
                # is a call), by get when one is missing
                try:
                    index = ch["index"]
                    delta = ch["delta"]
                except KeyError:
                    index, delta = ch.get("index", 0), ch.get("delta")
                # With n > 1 each chunk carries one choice; the answer is choice 0 and
                # the deltas of the others are kept as they came (extras[tag]["choices"]).
                if index != 0 or len(choices) > 1:
                    others = [c for c in choices if not _first(c)]
                    if others:
                        self._listed.setdefault("choices", []).extend(others)
                    answer = [c for c in choices if _first(c)]
                    if not answer:
                        return out
                    ch = answer[0]  # choice 0, wherever it stands in the chunk
                    delta = ch.get("delta")
                if delta:
                    if delta.__class__ is not dict:
                        delta = as_mapping(delta, "choices[0].delta")
                    out = self._delta(delta)
                # hot path: this read and the one of each kept delta key cost ~40 ns a
                # chunk each (stream_text.jsonl, 10 chunks: 9.7 -> 10.5 us), the price of
                # keeping logprobs and citations instead of dropping them
                logprobs = ch.get("logprobs")
                if logprobs is not None:
                    self._add_logprobs(logprobs)
                fr = ch.get("finish_reason")
                if fr is not None:
                    if fr.__class__ is not str:
                        raise DecodeError(
                            f"expected a string, got {json_type(fr)}", "choices[0].finish_reason"
                        )
                    self._finish = fr
            elif choices is None:
                self._without_choices(event)
            usage = event.get("usage")
            if usage is not None:
                if self._read_usage is None:
                    self._usage = chat_usage(usage, "usage")
                else:
                    self._usage, self._more = self._read_usage(usage, "usage")
            if self.vendor_key is not None:
                vendor = event.get(self.vendor_key)
                if vendor is not None:
                    self._vendor(vendor)
            return out
        except DecodeError:
            raise
        except Exception as exc:
            raise guard_error(exc) from None

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
        out: tuple[StreamDelta, ...] = NO_DELTAS
        c = delta.get("content")
        if c:
            if c.__class__ is str:
                self._text.append(c)
                out = (stream_delta(StreamDelta, "text", c, None),)
            else:
                out = self._chunks(c)
        # hot path: keys most deltas lack are tested with ``in`` (no call), then read
        r = None
        if "reasoning" in delta:
            r = delta["reasoning"]
        if r is None and "reasoning_content" in delta:
            r = delta["reasoning_content"]
        if self.blocks_key is not None:
            blocks = delta.get(self.blocks_key)
            if blocks:
                # the chunk's plain reasoning repeats its blocks' text: read the blocks only
                out = out + self._blocks(blocks)
                r = None
        if r:
            if r.__class__ is not str:
                raise DecodeError(
                    f"expected a string, got {json_type(r)}", "choices[0].delta.reasoning"
                )
            self._reasoning.append(r)
            out = (*out, stream_delta(StreamDelta, "reasoning", r, None))
        # KEPT_LISTS (hot path: written out, ~460 instructions a chunk less than a loop)
        if "annotations" in delta:
            listed = delta["annotations"]
            if listed:
                self._add_listed("annotations", listed)
        if "executed_tools" in delta:
            listed = delta["executed_tools"]
            if listed:
                self._add_listed("executed_tools", listed)
        tcs = None
        if "tool_calls" in delta:
            tcs = delta["tool_calls"]
        if tcs:
            out = out + self._tool_deltas(tcs)
        elif "function_call" in delta and delta["function_call"] is not None:
            out = out + self._legacy_delta(delta["function_call"])
        refusal = None
        if "refusal" in delta:
            refusal = delta["refusal"]
        if refusal:
            if refusal.__class__ is not str:
                raise DecodeError(
                    f"expected a string, got {json_type(refusal)}", "choices[0].delta.refusal"
                )
            self._refusal.append(refusal)
        return out

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
        items = tcs if tcs.__class__ is list else as_list(tcs, "choices[0].delta.tool_calls")
        out: list[StreamDelta] = []
        for k, item in enumerate(items):
            tc = (
                item
                if item.__class__ is dict
                else as_mapping(item, f"choices[0].delta.tool_calls[{k}]")
            )
            wire = tc.get("index")
            if wire is None:
                wire = k
            elif wire.__class__ is not int or wire < 0:
                raise DecodeError(
                    "index must be an integer >= 0", f"choices[0].delta.tool_calls[{k}].index"
                )
            cid = tc.get("id")
            if cid is not None and cid.__class__ is not str:
                raise DecodeError(
                    f"expected a string, got {json_type(cid)}",
                    f"choices[0].delta.tool_calls[{k}].id",
                )
            name = args = None
            fn = tc.get("function")
            if fn is not None:
                if fn.__class__ is not dict:
                    fn = as_mapping(fn, f"choices[0].delta.tool_calls[{k}].function")
                name = fn.get("name")
                args = fn.get("arguments")
                if name is not None and name.__class__ is not str:
                    raise DecodeError(
                        f"expected a string, got {json_type(name)}",
                        f"choices[0].delta.tool_calls[{k}].function.name",
                    )
                if args is not None and args.__class__ is not str:
                    args = _args_text(args, f"choices[0].delta.tool_calls[{k}].function.arguments")
            slot = self._open.get(wire)
            if slot is None or (cid and slot[1] and cid != slot[1]):
                index = self._next
                self._next += 1
                self._open[wire] = [index, cid or None]
            else:
                index = slot[0]
                if cid and not slot[1]:
                    slot[1] = cid
            self._acc.add(index, cid or None, name or None, args or None)
            # hot path: the builders called as they are (a wrapper frame per chunk)
            call = tool_call_delta(ToolCallDelta, index, cid or None, name or None, args or None)
            out.append(stream_delta(StreamDelta, "tool_call", "", call))
        return tuple(out)

    def _legacy_delta(self, fc: object) -> tuple[StreamDelta, ...]:
        """A deprecated ``function_call`` fragment: the one call, kept at wire index -1."""
        path = "choices[0].delta.function_call"
        f = as_mapping(fc, path)
        name = f.get("name")
        if name is not None and name.__class__ is not str:
            raise DecodeError(f"expected a string, got {json_type(name)}", f"{path}.name")
        args = f.get("arguments")
        if args is not None and args.__class__ is not str:
            raise DecodeError(f"expected a string, got {json_type(args)}", f"{path}.arguments")
        slot = self._open.get(-1)
        if slot is None:
            index = self._next
            self._next += 1
            self._open[-1] = [index, None]
        else:
            index = slot[0]
        self._acc.add(index, None, name or None, args or None)
        call = tool_call_delta(ToolCallDelta, index, None, name or None, args or None)
        return (stream_delta(StreamDelta, "tool_call", "", call),)

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


def _args_text(args: object, path: str) -> str:
    """Arguments a server sent as an object instead of its text (vLLM), as compact JSON."""
    if not isinstance(args, Mapping):
        raise DecodeError(f"expected a string, got {json_type(args)}", path)
    return dumps_compact(args)
