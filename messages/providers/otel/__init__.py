"""OpenTelemetry GenAI semantic-convention messages (``get_provider("otel")``).

How a conversation is recorded on a span (or an ``gen_ai.client.inference.operation.details``
event), as the semantic conventions of release ``SEMCONV_VERSION`` define it
(``gen-ai-input-messages.json``, ``gen-ai-output-messages.json``,
``gen-ai-system-instructions.json``, ``gen_ai.tool.definitions``):

* ``format_request(conversation)`` returns ``{"gen_ai.system_instructions": [...],
  "gen_ai.input.messages": [...]}`` (and ``"gen_ai.tool.definitions"`` with tools): the
  leading system messages as the instructions' text parts, every other message as
  ``{"role", "parts", "name"?}`` with ``text``, ``reasoning``, ``blob`` / ``uri`` / ``file``
  (modality ``image``, ``audio`` or ``document``), ``tool_call`` and
  ``tool_call_response`` parts. The attributes hold lists; an exporter writes each as
  JSON text (``json.dumps``).
* ``format_output(message, finish_reason)`` is one ``gen_ai.output.messages`` entry.
* ``parse_messages`` reads that mapping (values as lists or JSON text, with
  ``gen_ai.output.messages`` appended when present) or a bare list of input messages;
  ``parse_response`` the output messages list of one message (or that message).
* What the schemas define beyond these parts (``server_tool_call``, ``compaction``,
  any ``GenericPart``) is kept on the message as it came and written back only here.
* Reasoning is recorded as text: its signature (opaque state of the provider that made
  it) and redacted reasoning are a Loss. A message's cache hint is a Loss. The extra
  keys written where the schemas allow any (``additionalProperties``): ``detail`` of an
  image, ``filename`` of a file, ``is_error`` and ``name`` of a tool call response.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..._message import AssistantMessage, Message
from ..._parts import ReasoningPart, TextPart
from ..._streaming import ToolCallDelta
from ...errors import DecodeError
from .._arguments import on_loss_of
from .._base import (
    ChatResponse,
    FinishReason,
    Loss,
    Provider,
    StreamAccumulator,
    StreamDelta,
    as_list,
    as_mapping,
    opt_str,
    parser,
)
from .._losses import loss_error
from .._sse import is_done
from ._common import FINISH_NAMES, INPUT, OUTPUT, SEMCONV_VERSION, SYSTEM, TOOLS
from ._read import read_conversation, read_output, read_parts, read_tools
from ._write import format_body, format_output, format_tools

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...tools import ToolDefinition

__all__ = [
    "INPUT",
    "OUTPUT",
    "PROVIDER",
    "SEMCONV_VERSION",
    "SYSTEM",
    "TOOLS",
    "OtelFormat",
    "OtelStream",
]


class OtelFormat(Provider):
    """The OpenTelemetry GenAI messages of a conversation, both ways."""

    name = "otel"

    def _format(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> tuple[dict[str, Any], Sequence[Loss]]:
        body, losses = format_body(messages, tools, self.tag)
        return body, losses.items

    def format_output(
        self,
        message: AssistantMessage,
        finish_reason: FinishReason | str = FinishReason.STOP,
        *,
        on_loss: str = "warn",
    ) -> dict[str, Any]:
        """One ``gen_ai.output.messages`` entry for a response's message (a ChatResponse's
        ``message`` and ``finish_reason``); ``on_loss`` as in ``format_request``."""
        how = on_loss_of(on_loss, False)
        if isinstance(finish_reason, str):
            reason = finish_reason
        else:
            reason = FINISH_NAMES.get(finish_reason, "stop")
        entry, losses = format_output(message, reason, self.tag)
        if losses.items and how == "raise":
            raise loss_error(self.name, losses.items)
        if losses.items and how == "warn":
            self._warn(losses.items, [message], "format_output", stacklevel=3)
        return entry

    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """``gen_ai.tool.definitions``: ``{"type": "function", "name", "description", "parameters"}``."""
        return format_tools(tools)

    @parser
    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The tools of ``gen_ai.tool.definitions`` (or a mapping holding it), ``strict=False``."""
        return read_tools(body_or_list)

    @parser
    def parse_response(self, body: Mapping[str, Any] | Sequence[Any]) -> ChatResponse:
        """The response recorded as ``gen_ai.output.messages`` (one message with its
        ``finish_reason``), given as the list, its JSON text, or the message."""
        return read_output(body, self.tag)

    @parser
    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """The conversation of the span attributes (``gen_ai.system_instructions``,
        ``gen_ai.input.messages``, then ``gen_ai.output.messages``) or of a bare list of
        input messages."""
        return read_conversation(body_or_list, self.tag)

    def stream(self) -> OtelStream:
        """An accumulator of output messages recorded chunk by chunk (see OtelStream)."""
        return OtelStream(self.tag)


class OtelStream(StreamAccumulator):
    """A response recorded as a series of output messages, one per chunk.

    Each event is an output message (``{"role": "assistant", "parts": [...],
    "finish_reason"?}``): its text and reasoning parts are appended, its tool calls
    added, and the last ``finish_reason`` seen is the response's. ``[DONE]`` is skipped.
    """

    def __init__(self, tag: str) -> None:
        self._tag = tag
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[Mapping[str, Any]] = []
        self._reason: str | None = None

    @parser
    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """The deltas of one output message chunk."""
        if is_done(event):
            return ()
        m = as_mapping(event, "$")
        reason = opt_str(m.get("finish_reason"), "finish_reason")
        if reason is not None:
            self._reason = reason
        deltas: list[StreamDelta] = []
        for j, item in enumerate(as_list(m.get("parts", []), "parts")):
            p = as_mapping(item, f"parts[{j}]")
            if p.get("type") == "tool_call":
                deltas.append(self._call(p, j))
                continue
            for part in read_parts([p], f"parts[{j}]", self._tag):
                if isinstance(part, TextPart):
                    self._text.append(part.text)
                    deltas.append(StreamDelta("text", part.text))
                elif isinstance(part, ReasoningPart):
                    self._reasoning.append(part.text)
                    deltas.append(StreamDelta("reasoning", part.text))
                else:
                    raise DecodeError(
                        "a streamed output holds text, reasoning and tool calls", f"parts[{j}].type"
                    )
        return tuple(deltas)

    def _call(self, p: Mapping[str, Any], j: int) -> StreamDelta:
        index = len(self._calls)
        self._calls.append(p)
        call_id = opt_str(p.get("id"), f"parts[{j}].id")
        name = opt_str(p.get("name"), f"parts[{j}].name")
        return StreamDelta("tool_call", tool_call=ToolCallDelta(index, call_id, name, None))

    @parser
    def finish(self) -> ChatResponse:
        """The response of every chunk fed."""
        entry: dict[str, Any] = {"role": "assistant", "parts": []}
        if self._reasoning:
            entry["parts"].append({"type": "reasoning", "content": "".join(self._reasoning)})
        if self._text:
            entry["parts"].append({"type": "text", "content": "".join(self._text)})
        entry["parts"].extend(self._calls)
        if self._reason is not None:
            entry["finish_reason"] = self._reason
        return read_output(entry, self._tag)


PROVIDER = OtelFormat()
"""The OpenTelemetry GenAI messages format."""
