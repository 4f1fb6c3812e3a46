"""OpenTelemetry GenAI messages read back into a conversation or a response."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from ..._audio import audio_format
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._json import dumps_compact, loads
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
from ...errors import DecodeError, ident
from .._base import (
    ChatResponse,
    FinishReason,
    as_list,
    as_mapping,
    freeze_decoded,
    make_response,
    opt_str,
    required_str,
    tool_name_valid,
    with_state,
)
from ._common import FINISH_REASONS, INPUT, OUTPUT, SYSTEM, TOOLS, modality_of

__all__ = ["read_conversation", "read_output", "read_parts", "read_tools"]

#: The media part types and the modality each is read by.
_MEDIA: Final = frozenset(("blob", "uri", "file"))


def attribute(value: Any, path: str) -> Any:
    """A span attribute's value: as recorded (a list), or the JSON text an exporter wrote."""
    if isinstance(value, (str, bytes)):
        return loads(value, path)
    return value


def read_conversation(value: Any, tag: str) -> list[Message]:
    """The messages of a mapping of span attributes (or a bare list of input messages):
    system instructions first, then the input messages, then the output messages."""
    if isinstance(value, Mapping):
        out = [SystemMessage(t) for t in _system_texts(value.get(SYSTEM))]
        reader = _Reader(tag)
        raw = value.get(INPUT)
        if raw is not None:
            reader.messages(as_list(attribute(raw, INPUT), INPUT), INPUT)
        raw = value.get(OUTPUT)
        if raw is not None:
            reader.out.append(read_output(raw, tag, OUTPUT).message)
        return out + reader.out
    reader = _Reader(tag)
    reader.messages(as_list(attribute(value, "$"), "$"), "")
    return reader.out


def _system_texts(raw: Any) -> list[str]:
    if raw is None:
        return []
    texts = []
    for j, item in enumerate(as_list(attribute(raw, SYSTEM), SYSTEM)):
        part = as_mapping(item, f"{SYSTEM}[{j}]")
        if part.get("type") != "text":
            kind = ident(part.get("type"))
            raise DecodeError(
                f"system instructions hold text parts here, not {kind}", f"{SYSTEM}[{j}].type"
            )
        texts.append(required_str(part, "content", f"{SYSTEM}[{j}]"))
    return texts


def read_output(value: Any, tag: str, where: str = "") -> ChatResponse:
    """The response of ``gen_ai.output.messages`` (or of its one message). With several
    choices the first is the answer; the others are kept in ``extras[tag]["choices"]``."""
    items: Sequence[Any]
    if isinstance(value, Mapping):
        items, path = [value], where or "$"
    else:
        items = as_list(attribute(value, where or "$"), where or "$")
        path = f"{where}[0]"
    if not items:
        raise DecodeError("no output message: the response carries none", where or "$")
    m = as_mapping(items[0], path)
    reason = opt_str(m.get("finish_reason"), _under(path, "finish_reason"))
    reader = _Reader(tag)
    reader.one(m, path)
    message = reader.out[-1]
    if not isinstance(message, AssistantMessage) or len(reader.out) != 1:
        raise DecodeError("an output message is the assistant's", _under(path, "role"))
    if len(items) > 1:
        others = tuple(freeze_decoded(c, f"{where}[{k}]") for k, c in enumerate(items[1:], 1))
        message = replace(message, extras=with_state(message.extras, tag, choices=others))
    finish = FINISH_REASONS.get(reason or "", FinishReason.OTHER if reason else FinishReason.STOP)
    if finish is FinishReason.STOP and message.tool_calls:
        finish = FinishReason.TOOL_CALLS
    return make_response(message, finish, None, None, (), reason)


def _under(path: str, key: str) -> str:
    return key if path == "$" else f"{path}.{key}"


def read_tools(value: Any) -> list[Any]:
    """``gen_ai.tool.definitions`` (or a mapping holding it) as ToolDefinitions."""
    from ...tools import ToolDefinition

    raw = value.get(TOOLS, []) if isinstance(value, Mapping) else value
    prefix = TOOLS if isinstance(value, Mapping) else ""
    out = []
    for j, item in enumerate(as_list(attribute(raw, prefix or "$"), prefix or "$")):
        where = f"{prefix}[{j}]"
        t = as_mapping(item, where)
        name = required_str(t, "name", where)
        description = opt_str(t.get("description"), f"{where}.description") or name
        params = t.get("parameters")
        schema = (
            {"type": "object", "properties": {}}
            if params is None
            else as_mapping(params, f"{where}.parameters")
        )
        out.append(ToolDefinition(name, description, schema, strict=False))
    return out


class _Reader:
    """Messages read in order; a tool call without an id gets one derived from its place."""

    __slots__ = ("out", "tag")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.out: list[Message] = []

    def messages(self, items: Sequence[Any], prefix: str) -> None:
        for i, item in enumerate(items):
            path = f"{prefix}[{i}]"
            self.one(as_mapping(item, path), path)

    def one(self, m: Mapping[str, Any], path: str) -> None:
        """The message (or messages: tool results) of the entry ``m`` at ``path``."""
        role = m.get("role")
        if not isinstance(role, str):
            got = type(role).__name__
            raise DecodeError(f"role is required (a string), got {got}", _under(path, "role"))
        reader = _ROLES.get(role)
        if reader is None:
            raise DecodeError(
                f"unsupported role {ident(role)}; expected system, user, assistant or tool",
                _under(path, "role"),
            )
        name = opt_str(m.get("name"), _under(path, "name"))
        parts = as_list(m.get("parts"), _under(path, "parts"))
        reader(self, parts, _under(path, "parts"), name, len(self.out))

    def system(self, parts: Sequence[Any], path: str, name: str | None, at: int) -> None:
        """A system message of the input messages (marked so, to be written back there;
        the system instructions are read as unmarked system messages)."""
        extras = with_state({}, self.tag, placed="input")
        self.out.append(SystemMessage(_text_only(parts, path), name=name, extras=extras))

    def developer(self, parts: Sequence[Any], path: str, name: str | None, at: int) -> None:
        self.out.append(DeveloperMessage(_text_only(parts, path), name=name))

    def user(self, parts: Sequence[Any], path: str, name: str | None, at: int) -> None:
        """A user message; the tool call responses it holds (as some instrumentations write
        them) are results of their own, before it."""
        content, state = self.content(parts, path, results=True)
        if content or state or len(self.out) == at:  # not only the carrier of results
            self.out.append(UserMessage(_simplest(content), name=name, extras=self.kept(state)))

    def assistant(self, parts: Sequence[Any], path: str, name: str | None, at: int) -> None:
        calls: list[ToolCall] = []
        invalid: list[InvalidToolCall] = []
        content, state = self.content(parts, path, calls=calls, invalid=invalid)
        extras = self.kept(state)
        if calls or invalid:
            body = tuple(content) if content else None
            self.out.append(ToolCallMessage(calls, body, invalid, name=name, extras=extras))
        else:
            self.out.append(AssistantMessage(_simplest(content), name=name, extras=extras))

    def tool(self, parts: Sequence[Any], path: str, name: str | None, at: int) -> None:
        content, state = self.content(parts, path, results=True)
        if content or state.get("unknown"):  # a result's media keep no keys of their own
            raise DecodeError("a tool message holds tool call responses (and their media)", path)
        if name is not None:  # the message's name is each of its results'
            self.out[at:] = [replace(m, name=name) for m in self.out[at:]]

    # -- parts ---------------------------------------------------------------------------------

    def content(
        self,
        parts: Sequence[Any],
        path: str,
        *,
        results: bool = False,
        calls: list[ToolCall] | None = None,
        invalid: list[InvalidToolCall] | None = None,
    ) -> tuple[list[ContentPart], dict[str, Any]]:
        """The content parts at ``path``, and the state to keep with their message: the
        parts this format does not model (``unknown``) and the keys of a part that differ
        from what formatting writes (``keys``). The calls and results found go where they
        belong."""
        content: list[ContentPart] = []
        kept: list[dict[str, Any]] = []
        keys: list[dict[str, Any]] = []
        result: _Result | None = None
        for j, item in enumerate(parts):
            where = f"{path}[{j}]"
            p = as_mapping(item, where)
            kind = p.get("type")
            if kind == "tool_call_response" and results:
                result = _Result(p, where)
                self.out.append(result.message(self.tag))
                continue
            if kind == "tool_call" and calls is not None and invalid is not None:
                _read_call(p, where, calls, invalid, f"{len(self.out)}|{len(calls) + len(invalid)}")
                continue
            part = read_part(p, where, self.tag)
            if part is not None and kind in _MEDIA:
                given = p.get("modality")
                if given != modality_of(part):  # kept, to be written back as it came
                    keys.append({"index": j, "keys": {"modality": given}})
            if part is None or (calls is not None and kind in _MEDIA):
                # a part type this format does not model, or media an assistant made:
                # kept as it came
                kept.append(
                    {
                        "index": j,
                        "type": kind if isinstance(kind, str) else "",
                        "value": freeze_decoded(dict(p), where),
                    }
                )
            elif result is not None and kind in _MEDIA:
                result.add(part)
                self.out[-1] = result.message(self.tag)
            else:
                content.append(part)
        state = {name: tuple(v) for name, v in (("unknown", kept), ("keys", keys)) if v}
        return content, state

    def kept(self, state: dict[str, Any]) -> Any:
        """The extras of a message that keeps ``state`` (None when there is none)."""
        return with_state({}, self.tag, **state) if state else None


_ROLES: Final = {
    "system": _Reader.system,
    "developer": _Reader.developer,
    "user": _Reader.user,
    "assistant": _Reader.assistant,
    "tool": _Reader.tool,
}


class _Result:
    """A tool call response and the media parts that follow it."""

    __slots__ = ("call_id", "is_error", "media", "name", "text")

    def __init__(self, p: Mapping[str, Any], where: str) -> None:
        call_id = opt_str(p.get("id"), f"{where}.id")
        if not call_id:
            raise DecodeError("a tool call response needs the id of its call", f"{where}.id")
        self.call_id = call_id
        response = p.get("response")
        self.text = response if isinstance(response, str) else dumps_compact(response)
        is_error = p.get("is_error", False)
        if type(is_error) is not bool:
            raise DecodeError(
                f"expected a bool, got {type(is_error).__name__}", f"{where}.is_error"
            )
        self.is_error = is_error
        self.name = opt_str(p.get("name"), f"{where}.name") or None
        self.media: list[ContentPart] = []

    def add(self, part: ContentPart) -> None:
        self.media.append(part)

    def message(self, tag: str) -> ToolResultMessage:
        content: str | tuple[ContentPart, ...] = self.text
        if self.media:
            content = (TextPart(self.text), *self.media) if self.text else tuple(self.media)
        return ToolResultMessage(self.call_id, content, self.is_error, self.name)


def _read_call(
    p: Mapping[str, Any],
    where: str,
    calls: list[ToolCall],
    invalid: list[InvalidToolCall],
    seed: str,
) -> None:
    name = required_str(p, "name", where)
    call_id = opt_str(p.get("id"), f"{where}.id")
    args = p.get("arguments")
    text = args if isinstance(args, str) else None
    problem = None
    if not tool_name_valid(name):
        problem = f"{where}.name: invalid tool name {ident(name)}"
    elif text is not None:
        try:
            args = loads(text, f"{where}.arguments")
        except DecodeError as exc:
            problem = str(exc)
    if problem is None and args is not None and not isinstance(args, Mapping):
        problem = f"{where}.arguments: expected an object"
    if not call_id:
        call_id = derive_call_id(DERIVED_ID_PREFIX, "otel", seed, name, text or dumps_compact(args))
    if problem is not None:
        raw = text if text is not None else dumps_compact(args)
        invalid.append(InvalidToolCall(call_id, name, raw, problem))
        return
    frozen = freeze_decoded(dict(args) if args is not None else {}, f"{where}.arguments")
    calls.append(ToolCall(call_id, name, frozen))


def read_part(p: Mapping[str, Any], where: str, tag: str) -> ContentPart | None:
    """A content part (None: a part type this format keeps as it came)."""
    kind = p.get("type")
    if kind == "text":
        return TextPart(required_str(p, "content", where))
    if kind == "reasoning":
        return ReasoningPart(required_str(p, "content", where), provider=tag)
    if kind in _MEDIA:
        return _media(p, kind, where)
    if kind in ("tool_call", "tool_call_response"):
        raise DecodeError(f"a {kind} part does not belong in this message", f"{where}.type")
    if not isinstance(kind, str):
        raise DecodeError("a part's type is required (a string)", f"{where}.type")
    return None


def _media(p: Mapping[str, Any], kind: str, where: str) -> ContentPart:
    modality = opt_str(p.get("modality"), f"{where}.modality")
    mime = opt_str(p.get("mime_type"), f"{where}.mime_type")
    if modality is None and mime is not None:
        modality = mime.partition("/")[0]
    if kind == "uri":
        uri = required_str(p, "uri", where)
        if modality == "image":
            return ImagePart(
                url=uri, media_type=mime, detail=opt_str(p.get("detail"), f"{where}.detail")
            )
        return FilePart(
            file_id=uri, media_type=mime, filename=opt_str(p.get("filename"), f"{where}.filename")
        )
    if kind == "file":
        file_id = required_str(p, "file_id", where)
        return FilePart(
            file_id=file_id,
            media_type=mime,
            filename=opt_str(p.get("filename"), f"{where}.filename"),
        )
    data = required_str(p, "content", where)
    if modality == "image":
        return ImagePart(
            data=data, media_type=mime, detail=opt_str(p.get("detail"), f"{where}.detail")
        )
    if modality == "audio":
        return AudioPart(data, audio_format(mime or "audio/wav"))
    known_id = opt_str(p.get("file_id"), f"{where}.file_id")
    return FilePart(
        data=data,
        file_id=known_id,
        media_type=mime,
        filename=opt_str(p.get("filename"), f"{where}.filename"),
    )


def read_parts(items: Sequence[Any], path: str, tag: str) -> list[ContentPart]:
    """Content parts only (stream events): a part of another kind is a DecodeError."""
    out = []
    for j, item in enumerate(items):
        part = read_part(as_mapping(item, f"{path}[{j}]"), f"{path}[{j}]", tag)
        if part is None:
            raise DecodeError("expected a text, reasoning or media part", f"{path}[{j}].type")
        out.append(part)
    return out


def _text_only(parts: Sequence[Any], path: str) -> str:
    texts = []
    for j, item in enumerate(parts):
        p = as_mapping(item, f"{path}[{j}]")
        if p.get("type") != "text":
            raise DecodeError(
                f"a system message holds text parts, not {ident(p.get('type'))}",
                f"{path}[{j}].type",
            )
        texts.append(required_str(p, "content", f"{path}[{j}]"))
    return "".join(texts)


def _simplest(content: list[ContentPart]) -> str | tuple[ContentPart, ...]:
    """One non-empty text part as its text; no parts as ``""``; else the parts."""
    if not content:
        return ""
    if len(content) == 1 and isinstance(content[0], TextPart) and content[0].text:
        return content[0].text  # (an empty one stays a part: "" is written as no part)
    return tuple(content)
