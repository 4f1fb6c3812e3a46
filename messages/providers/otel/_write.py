"""A conversation as OpenTelemetry GenAI messages: ``gen_ai.system_instructions`` and
``gen_ai.input.messages`` (and a response as ``gen_ai.output.messages``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ..._audio import audio_mime_type
from ..._frozen import thaw
from ..._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ..._parts import AudioPart, ContentPart, FilePart, ImagePart, ReasoningPart, TextPart
from ..._tool_call import InvalidToolCall, ToolCall
from .._base import Losses, is_derived_id, kept_unknown, key_items, kind_at, plain_arguments
from .._cache_hints import hint_loss, no_breakpoints
from .._chat_completions import call_state_losses, own_extras
from ._common import FINISH_NAMES, INPUT, SYSTEM, TOOLS, modality_of

__all__ = ["format_body", "format_output", "format_tools"]

_CACHE_RULE: Final = no_breakpoints("otel", "telemetry records no cache breakpoints")
_OPAQUE: Final = "dropped: opaque reasoning state is sent back only to the provider that made it"


class _Writer:
    """One conversation being written: the messages, the system instructions, the losses."""

    __slots__ = ("losses", "messages", "system", "tag")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.losses = Losses()
        self.system: list[dict[str, Any]] = []
        self.messages: list[dict[str, Any]] = []

    def write(self, messages: Sequence[Message]) -> None:
        leading = True  # system messages before any other go to the system instructions
        for i, m in enumerate(messages):
            kind = kind_at(m, i)
            if (
                leading
                and type(m) is not DeveloperMessage
                and isinstance(m, SystemMessage)
                and not self.placed_in_input(m)
            ):
                self.state(m, i)
                self.system.append({"type": "text", "content": m.content})
                continue
            leading = False
            self.state(m, i)
            self.messages.append(_WRITERS[kind](self, m, i))

    def placed_in_input(self, m: Message) -> bool:
        """Whether a system message was read from the input messages (it goes back there)."""
        own = m.extras.get(self.tag) if m.extras else None
        return isinstance(own, Mapping) and own.get("placed") == "input"

    def state(self, m: Message, i: int) -> None:
        """The losses of what a message carries beyond its role, name and content."""
        if m.extras:
            own_extras(m, self.tag, i, self.losses)  # kept parts are put back by ``parts``
        if m.cache is not None:
            hint_loss(self.losses, i, _CACHE_RULE)

    def parts(self, content: str | Sequence[ContentPart] | None, i: int) -> list[dict[str, Any]]:
        if content is None:
            return []
        if isinstance(content, str):  # "" is no part: parts [] read back as ""
            return [{"type": "text", "content": content}] if content else []
        out = []
        for j, p in enumerate(content):
            part = self.part(p, f"messages[{i}].content[{j}]")
            if part is not None:
                out.append(part)
        return out

    def part(self, p: ContentPart, path: str) -> dict[str, Any] | None:
        if isinstance(p, TextPart):
            return {"type": "text", "content": p.text}
        if isinstance(p, ReasoningPart):
            return self.reasoning(p, path)
        if isinstance(p, ImagePart):
            return _image(p)
        if isinstance(p, AudioPart):
            mime = audio_mime_type(p.format)
            return {"type": "blob", "modality": "audio", "mime_type": mime, "content": p.data}
        return _file(p)

    def reasoning(self, p: ReasoningPart, path: str) -> dict[str, Any] | None:
        if p.redacted:
            self.losses.add(path, "redacted reasoning", _OPAQUE)
            return None
        if p.signature is not None and p.provider != self.tag:
            self.losses.add(path, f"reasoning signature from {p.provider or 'a provider'}", _OPAQUE)
        return {"type": "reasoning", "content": p.text}

    def named(self, role: str, m: Message, parts: list[dict[str, Any]]) -> dict[str, Any]:
        """The message entry; the parts this format read but does not model, put back where
        they were."""
        own = m.extras.get(self.tag) if m.extras else None
        if isinstance(own, Mapping):
            for item in sorted(kept_unknown(own), key=_index):
                parts.insert(min(_index(item), len(parts)), thaw(item.get("value")))
            for index, keys in key_items(own):  # keys as the wire had them (None: absent)
                if 0 <= index < len(parts):
                    for key, value in keys.items():
                        if value is None:
                            parts[index].pop(key, None)
                        else:
                            parts[index][key] = value
        d: dict[str, Any] = {"role": role, "parts": parts}
        if m.name is not None:
            d["name"] = m.name
        return d

    # -- one writer per message kind ---------------------------------------------------------

    def system_message(self, m: SystemMessage, i: int) -> dict[str, Any]:
        return self.named("system", m, self.parts(m.content, i))

    def developer(self, m: DeveloperMessage, i: int) -> dict[str, Any]:
        return self.named("developer", m, self.parts(m.content, i))

    def user(self, m: UserMessage, i: int) -> dict[str, Any]:
        return self.named("user", m, self.parts(m.content, i))

    def assistant(self, m: AssistantMessage, i: int) -> dict[str, Any]:
        return self.named("assistant", m, self.parts(m.content, i))

    def tool_calls(self, m: ToolCallMessage, i: int) -> dict[str, Any]:
        parts = self.parts(m.content, i)
        if any(c.extras for c in m.tool_calls):
            call_state_losses(m.tool_calls, self.tag, i, self.losses)
        parts.extend(_call(c) for c in m.tool_calls)
        for k, bad in enumerate(m.invalid_tool_calls):
            if bad.name is None:
                path = f"messages[{i}].invalid_tool_calls[{k}]"
                self.losses.add(
                    path, "invalid tool call without a name", "dropped: a tool call part needs one"
                )
                continue
            parts.append(_invalid_call(bad))
        return self.named("assistant", m, parts)

    def tool_result(self, m: ToolResultMessage, i: int) -> dict[str, Any]:
        response: dict[str, Any] = {"type": "tool_call_response", "id": m.tool_call_id}
        content = m.content
        response["response"] = content if isinstance(content, str) else m.text
        if m.is_error:
            response["is_error"] = True
        if m.tool_name is not None:
            response["name"] = m.tool_name
        parts = [response]
        if not isinstance(content, str):  # the media of the result follow its response
            parts.extend(self.parts([p for p in content if not isinstance(p, TextPart)], i))
        return self.named("tool", m, parts)


_WRITERS: Final[tuple[Callable[[_Writer, Any, int], dict[str, Any]], ...]] = (
    _Writer.system_message,
    _Writer.developer,
    _Writer.user,
    _Writer.assistant,
    _Writer.tool_calls,
    _Writer.tool_result,
)


def _index(item: Mapping[str, Any]) -> int:
    index = item.get("index")
    return index if type(index) is int and index >= 0 else 0


def _image(p: ImagePart) -> dict[str, Any]:
    if p.data is not None:
        d: dict[str, Any] = {"type": "blob", "modality": "image"}
        if p.media_type is not None:
            d["mime_type"] = p.media_type
        d["content"] = p.data
    else:
        d = {"type": "uri", "modality": "image"}
        if p.media_type is not None:
            d["mime_type"] = p.media_type
        d["uri"] = p.url
    if p.detail is not None:
        d["detail"] = p.detail
    return d


def _file(p: FilePart) -> dict[str, Any]:
    """A file: ``blob`` with its data, ``uri`` when its id is a URI (``gs://...``), else ``file``."""
    if p.data is not None:
        kind = "blob"
    else:
        kind = "uri" if p.file_id is not None and "://" in p.file_id else "file"
    d: dict[str, Any] = {"type": kind, "modality": modality_of(p)}
    if p.media_type is not None:
        d["mime_type"] = p.media_type
    if p.data is not None:
        d["content"] = p.data
    if kind == "uri":
        d["uri"] = p.file_id
    elif p.file_id is not None:
        d["file_id"] = p.file_id
    if p.filename is not None:
        d["filename"] = p.filename
    return d


def _call(c: ToolCall) -> dict[str, Any]:
    d: dict[str, Any] = {"type": "tool_call"}
    if not is_derived_id(c.id):
        d["id"] = c.id
    d["name"] = c.name
    d["arguments"] = plain_arguments(c.arguments)
    return d


def _invalid_call(c: InvalidToolCall) -> dict[str, Any]:
    """An invalid call: its raw arguments text as the arguments (a string, as the schema allows)."""
    d: dict[str, Any] = {"type": "tool_call"}
    if not is_derived_id(c.id):
        d["id"] = c.id
    d["name"] = c.name
    d["arguments"] = c.raw_arguments
    return d


def format_body(
    messages: Sequence[Message], tools: Sequence[Any], tag: str
) -> tuple[dict[str, Any], Losses]:
    """The span attributes of a conversation (and its tools): ``gen_ai.system_instructions``
    (when there are leading system messages), ``gen_ai.input.messages`` and
    ``gen_ai.tool.definitions`` (when there are tools)."""
    writer = _Writer(tag)
    writer.write(messages)
    body: dict[str, Any] = {}
    if writer.system:
        body[SYSTEM] = writer.system
    body[INPUT] = writer.messages
    if tools:
        body[TOOLS] = format_tools(tools)
    return body, writer.losses


def format_output(
    message: AssistantMessage, finish_reason: str, tag: str
) -> tuple[dict[str, Any], Losses]:
    """One ``gen_ai.output.messages`` entry: the assistant message with its finish reason."""
    writer = _Writer(tag)
    writer.state(message, 0)
    kind = kind_at(message, 0)
    d = _WRITERS[kind](writer, message, 0)
    d["finish_reason"] = finish_reason
    return d, writer.losses


def format_tools(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """``gen_ai.tool.definitions``: ``{"type": "function", "name", "description", "parameters"}``."""
    return [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.wire_parameters(),
        }
        for t in tools
    ]


def finish_name(reason: Any) -> str:
    """The semantic-convention name of a FinishReason (``stop``, ``tool_call``, ...)."""
    return FINISH_NAMES[reason]
