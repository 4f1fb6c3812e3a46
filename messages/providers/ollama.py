"""Ollama's native chat API (``/api/chat``, NDJSON streaming).

Differences from chat completions that shape the rules here:

* ``images`` is a list of bare base64 strings (no media type, no URLs, no
  ``data:`` prefix): an image URL cannot be sent (dropped, a loss); decoding
  sniffs the media type from the magic bytes (``application/octet-stream``
  when unknown). Audio and file parts cannot be sent (dropped, a loss).
* ``tool_calls[].function.arguments`` is a JSON object, never a string.
* Call ids are optional: the documented shape has none, the current server
  sets ``call_xxxxxxxx`` and accepts ``tool_call_id`` on tool messages. A call
  without an id gets a stable derived id (``call_derived_…``); derived ids are
  not sent back, and tool results are then matched by ``tool_name`` and order.
  Importing a conversation pairs id-less tool messages the same way, so each
  result carries its call's derived id.
* ``thinking`` carries plain reasoning text both ways.
* ``done_reason`` ``stop`` (or missing on ``done: true``) is STOP, or TOOL_CALLS
  when the message has calls (``load`` / ``unload``, sent when a request only
  loads or unloads the model, are STOP too); ``length`` is LENGTH; usage is
  ``prompt_eval_count`` / ``eval_count``, a missing count meaning 0.
* ``developer`` messages are sent as ``system``; ``is_error`` is sent as an
  ``Error:`` prefix (both losses).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from .._build import tool_call
from .._frozen import EMPTY, FrozenDict, freeze_mapping
from .._ids import DERIVED_ID_PREFIX, derive_call_id
from .._json import dumps_compact
from .._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from .._parts import AudioPart, ContentPart, FilePart, ImagePart, ReasoningPart, TextPart
from .._role import MessageRole
from .._tool_call import InvalidToolCall, ToolCall
from ..errors import DecodeError, MessageError, ValidationError
from ._base import (
    GUARDED_ERRORS,
    ChatResponse,
    Conversion,
    CountingStream,
    FinishReason,
    Losses,
    Provider,
    StreamAccumulator,
    StreamDelta,
    Usage,
    as_list,
    as_mapping,
    format_error,
    guard_error,
    opt_int,
    opt_str,
    plain_arguments,
    raw_json_text,
    request_messages,
    unique_calls,
)
from ._chat_completions import (
    _GOOD_NAMES,
    ToolPairing,
    args_path,
    call_state_losses,
    check_unique_ids,
    error_prefixed,
    freeze_arguments,
    function_tools,
    guarded,
    is_derived_id,
    new_response,
    new_usage,
    own_extras,
    parse_arguments,
    parse_function_tools,
    read_error,
    reasoning_to_send,
    respond,
    stream_delta,
    tool_call_delta,
    tool_name_ok,
)

if TYPE_CHECKING:
    from .._tool_definition import ToolDefinition

__all__ = ["PROVIDER", "OllamaProvider", "OllamaStream", "sniff_image_type"]

_SYSTEM = MessageRole.SYSTEM
_DEVELOPER = MessageRole.DEVELOPER
_USER = MessageRole.USER
_ASSISTANT = MessageRole.ASSISTANT
_TOOL = MessageRole.TOOL

_NO_DELTAS: tuple[StreamDelta, ...] = ()

_BASE64 = re.compile(r"[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*")

#: Base64 prefixes of the image formats Ollama's vision models read.
_MAGIC: Final = (
    ("iVBORw0KGgo", "image/png"),
    ("/9j/", "image/jpeg"),
    ("R0lGOD", "image/gif"),
    ("UklGR", "image/webp"),
    ("Qk", "image/bmp"),
)

#: Media type given to an image whose format is not recognised.
UNKNOWN_IMAGE_TYPE: Final = "application/octet-stream"


def sniff_image_type(data: str) -> str:
    """The media type of base64 image data, from its first bytes."""
    for prefix, media_type in _MAGIC:
        if data.startswith(prefix):
            return media_type
    return UNKNOWN_IMAGE_TYPE


_STOP_REASONS: Final = frozenset(("stop", "load", "unload"))

# The classes convert() writes out inline (see there), and their wire roles.
_FAST_ROLES: Final[dict[type, str]] = {
    UserMessage: "user",
    AssistantMessage: "assistant",
    SystemMessage: "system",
    ToolCallMessage: "assistant",
    ToolResultMessage: "tool",
}
_FAST_TYPES: Final = frozenset(_FAST_ROLES)
_DERIVED_LEN: Final = len(DERIVED_ID_PREFIX) + 24  # see is_derived_id


def _finish(done_reason: str | None, has_calls: bool) -> FinishReason:
    # "load" / "unload": a request that only loaded or unloaded the model ended normally.
    if done_reason is None or done_reason in _STOP_REASONS:
        return FinishReason.TOOL_CALLS if has_calls else FinishReason.STOP
    if done_reason == "length":
        return FinishReason.LENGTH
    return FinishReason.OTHER


def _usage(b: Mapping[str, Any]) -> Usage:
    # Go's omitempty drops zero counts: a missing count is 0, not unknown.
    inp = b.get("prompt_eval_count")
    if inp.__class__ is not int or inp < 0:
        inp = opt_int(inp, "prompt_eval_count") or 0
    out = b.get("eval_count")
    if out.__class__ is not int or out < 0:
        out = opt_int(out, "eval_count") or 0
    return new_usage(inp, out, inp + out, None, None, None)


def _text(value: object, path: str) -> str:
    if value is None:
        return ""
    if type(value) is str:
        return value
    raise DecodeError(f"expected a string, got {type(value).__name__}", path)


def _calls(
    raw: object, path: str, seed: str, start: int, lenient: bool
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """Ollama tool calls (arguments are objects; ids optional).

    ``lenient`` (responses): a string of arguments that is not a JSON object, or
    an invalid tool name, makes an InvalidToolCall; otherwise DecodeError.
    """
    items = as_list(raw, path)
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for j, item in enumerate(items):
        tc = item if type(item) is dict else as_mapping(item, f"{path}[{j}]")
        fn = tc.get("function")
        if type(fn) is not dict:
            fn = as_mapping(fn, f"{path}[{j}].function")
        name = fn.get("name")
        if type(name) is not str or not name:
            raise DecodeError(
                "tool name is required (a non-empty string)", f"{path}[{j}].function.name"
            )
        args = fn.get("arguments")
        raw_args: str | None = None
        call_id = tc.get("id")
        if call_id is not None and type(call_id) is not str:
            raise DecodeError(f"expected a string, got {type(call_id).__name__}", f"{path}[{j}].id")
        bad_id = call_id or derive_call_id(DERIVED_ID_PREFIX, seed, start + j, name, "invalid")
        if args.__class__ is dict:
            # hot path: no path function unless freezing fails (then it runs again)
            try:
                frozen = freeze_mapping(args, "")
            except ValidationError:
                try:
                    frozen = freeze_arguments(args, args_path(path, j))
                except DecodeError as exc:
                    if not lenient:
                        raise
                    # an object holding what JSON cannot (NaN from a lenient decoder)
                    invalid.append(InvalidToolCall(bad_id, name, raw_json_text(args), str(exc)))
                    continue
        elif args is None:
            frozen = EMPTY
        elif type(args) is str:
            # The server sends objects; a string (an OpenAI habit) is read if it is one.
            raw_args = args
            try:
                frozen = parse_arguments(args, args_path(path, j))
            except DecodeError as exc:
                if not lenient:
                    raise
                invalid.append(InvalidToolCall(bad_id, name, args, str(exc)))
                continue
        else:
            raise DecodeError(
                f"expected an object, got {type(args).__name__}", f"{path}[{j}].function.arguments"
            )
        if name not in _GOOD_NAMES and not tool_name_ok(name):
            if not lenient:
                raise DecodeError("invalid tool name", f"{path}[{j}].function.name")
            invalid.append(
                InvalidToolCall(
                    bad_id,
                    name,
                    raw_args or dumps_compact(frozen),
                    f"{path}[{j}].function.name: invalid tool name",
                )
            )
            continue
        if not call_id:
            call_id = derive_call_id(
                DERIVED_ID_PREFIX, seed, start + j, name, raw_args or dumps_compact(frozen)
            )
        calls.append(tool_call(ToolCall, call_id, name, frozen, EMPTY, raw_args))
    return calls, invalid


def _images(raw: object, path: str) -> list[ImagePart]:
    items = as_list(raw, path)
    images: list[ImagePart] = []
    for j, data in enumerate(items):
        if type(data) is not str:
            raise DecodeError(
                f"expected a base64 string, got {type(data).__name__}", f"{path}[{j}]"
            )
        if data.startswith("data:"):
            raise DecodeError(
                "a data: URL is not valid here: Ollama images are bare base64", f"{path}[{j}]"
            )
        if _BASE64.fullmatch(data) is None:
            raise DecodeError("image is not base64 data", f"{path}[{j}]")
        images.append(ImagePart(data=data, media_type=sniff_image_type(data)))
    return images


class OllamaProvider(Provider):
    """Ollama ``/api/chat``."""

    name = "ollama"

    def stream(self) -> StreamAccumulator:
        """A fresh accumulator for one NDJSON stream."""
        return OllamaStream()

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The function tools of a request body (or a ``tools`` list), ``strict=False``."""
        return parse_function_tools(body_or_list, False)

    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """The ``tools`` part of a request (function tools; no ``strict`` flag)."""
        return function_tools(tools, openai_strict=False)

    # -- formatting -----------------------------------------------------------------

    def convert(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> Conversion:
        """Format a request and list every loss instead of warning."""
        try:
            return self._convert(messages, tools)
        except MessageError:
            raise
        except GUARDED_ERRORS as exc:
            raise format_error(exc) from None

    def _convert(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> Conversion:
        losses = Losses()
        out: list[dict[str, Any]] = []
        names: dict[str, str] = {}
        # hot path: one cast for the loop; no per-message cast() call.
        items: Sequence[Any] = cast("Sequence[Any]", messages)
        for i, m in enumerate(items):
            # hot path: the usual messages (exact classes, str content, no name,
            # metadata or extras, no opaque call state) written out inline; anything
            # else takes the general branches below, which give the same result
            t = type(m)
            if t in _FAST_TYPES and m.name is None and not m.extras:
                c = m.content
                if t is ToolCallMessage:
                    if c is None or type(c) is str:
                        wire: list[dict[str, Any]] = []
                        for j, tc in enumerate(m.tool_calls):
                            if tc.extras:
                                break
                            cid = tc.id
                            names[cid] = tc.name
                            fn = {
                                "index": j,
                                "name": tc.name,
                                "arguments": plain_arguments(tc.arguments),
                            }
                            wire.append(
                                {"function": fn}
                                if cid.startswith(DERIVED_ID_PREFIX) and len(cid) == _DERIVED_LEN
                                else {"id": cid, "function": fn}
                            )
                        else:
                            out.append(
                                {"role": "assistant", "content": c or "", "tool_calls": wire}
                            )
                            continue
                elif type(c) is str:
                    if t is ToolResultMessage:
                        if not m.is_error:
                            d: dict[str, Any] = {"role": "tool"}
                            call_id = m.tool_call_id
                            if not (
                                call_id.startswith(DERIVED_ID_PREFIX)
                                and len(call_id) == _DERIVED_LEN
                            ):
                                d["tool_call_id"] = call_id
                            name = m.tool_name or names.get(call_id)
                            if name:
                                d["tool_name"] = name
                            d["content"] = c
                            out.append(d)
                            continue
                    else:
                        out.append({"role": _FAST_ROLES[t], "content": c})
                        continue
            try:
                role = m.role
            except AttributeError:
                raise ValidationError(
                    f"expected a Message, got {type(m).__name__}", f"messages[{i}]"
                ) from None
            if m.extras:
                own_extras(m, self.name, i, losses)  # ollama keeps no state of its own
            if m.name is not None:
                losses.add(
                    f"messages[{i}].name", "message name", "dropped: ollama messages have no name"
                )
            if role is _USER:
                out.append(self._user(m, i, losses))
            elif role is _ASSISTANT:
                out.append(self._assistant(m, i, losses, names))
            elif role is _TOOL:
                out.append(self._tool(m, i, losses, names))
            elif role is _SYSTEM:
                out.append({"role": "system", "content": m.text})
            elif role is _DEVELOPER:
                out.append({"role": "system", "content": m.text})
                losses.add(
                    f"messages[{i}]",
                    "developer role",
                    "sent as a system message: ollama has no developer role",
                )
            else:  # pragma: no cover - MessageRole has five members
                raise ValidationError("unsupported role", f"messages[{i}].role")
        body: dict[str, Any] = {"messages": out}
        if tools:
            body["tools"] = self.format_tools(tools)
        return Conversion(body, tuple(losses.items))

    def _parts(
        self, content: Sequence[ContentPart], i: int, losses: Losses
    ) -> tuple[str, list[str]]:
        texts: list[str] = []
        images: list[str] = []
        for j, p in enumerate(content):
            if type(p) is TextPart or isinstance(p, TextPart):
                texts.append(p.text)
            elif isinstance(p, ImagePart):
                if p.data is None:
                    losses.add(
                        f"messages[{i}].content[{j}]",
                        "image URL",
                        "dropped: ollama takes base64 images only (download it and send the data)",
                    )
                    continue
                images.append(p.data)
                if p.detail not in (None, "auto"):
                    losses.add(
                        f"messages[{i}].content[{j}].detail",
                        "image detail",
                        "dropped: ollama images have no detail setting",
                    )
            elif isinstance(p, AudioPart):
                losses.add(
                    f"messages[{i}].content[{j}]", "audio part", "dropped: ollama takes no audio"
                )
            elif isinstance(p, FilePart):
                losses.add(
                    f"messages[{i}].content[{j}]", "file part", "dropped: ollama takes no files"
                )
            else:
                losses.add(
                    f"messages[{i}].content[{j}]",
                    f"{type(p).__name__} in a user or tool message",
                    "dropped: not a content part this wire carries",
                )
        return "".join(texts), images

    def _user(self, m: UserMessage, i: int, losses: Losses) -> dict[str, Any]:
        c = m.content
        if isinstance(c, str):
            return {"role": "user", "content": c}
        text, images = self._parts(c, i, losses)
        d: dict[str, Any] = {"role": "user", "content": text}
        if images:
            d["images"] = images
        return d

    def _assistant(
        self, m: AssistantMessage, i: int, losses: Losses, names: dict[str, str]
    ) -> dict[str, Any]:
        c = m.content
        d: dict[str, Any] = {"role": "assistant", "content": m.text}
        if c and not isinstance(c, str):
            thinking = reasoning_to_send(self.name, "thinking", c, i, losses)
            if thinking:
                d["thinking"] = thinking
        calls = m.tool_calls
        if calls:
            call_state_losses(calls, self.name, i, losses)
            wire: list[dict[str, Any]] = []
            for j, tc in enumerate(calls):
                names[tc.id] = tc.name
                fn = {"index": j, "name": tc.name, "arguments": plain_arguments(tc.arguments)}
                # A derived id was never on the wire: leave it out, as it came.
                wire.append(
                    {"function": fn} if is_derived_id(tc.id) else {"id": tc.id, "function": fn}
                )
            d["tool_calls"] = wire
        return d

    def _tool(
        self, m: ToolResultMessage, i: int, losses: Losses, names: dict[str, str]
    ) -> dict[str, Any]:
        d: dict[str, Any] = {"role": "tool"}
        call_id = m.tool_call_id
        if not is_derived_id(call_id):
            d["tool_call_id"] = call_id
        name = m.tool_name or names.get(call_id)
        if name:
            d["tool_name"] = name
        c = m.content
        images: list[str] = []
        if isinstance(c, str):
            text = c
        else:
            text, images = self._parts(c, i, losses)
        if m.is_error:
            losses.add(
                f"messages[{i}].is_error",
                "is_error flag",
                "the wire has no error flag: the text is sent, prefixed 'Error: ' unless it already starts so",
            )
            text = error_prefixed(text)
        d["content"] = text
        if images:
            d["images"] = images
        return d

    # -- parsing ------------------------------------------------------------------------

    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a non-streaming ``/api/chat`` response (or ``{"error": ...}``)."""
        # hot path: the guard decorator written out (~90 ns less per parse)
        try:
            return self._parse_response(body)
        except DecodeError:
            raise
        except GUARDED_ERRORS as exc:
            raise guard_error(exc) from None

    def _parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        b = body if body.__class__ is dict else as_mapping(body, "")
        # hot path: opt_str only when a value is not a str (it then reports or passes None)
        model = b.get("model")
        if model.__class__ is not str:
            model = opt_str(model, "model")
        if "message" not in b and b.get("error") is not None:
            text, details = read_error(b["error"], "error")
            message = respond("", None, self.name, (), None, None, details)
            return ChatResponse(message, FinishReason.ERROR, None, model, error=text)
        msg = b.get("message")
        if msg.__class__ is not dict:
            msg = as_mapping(msg, "message")
        content = msg.get("content")
        text = content if content.__class__ is str else _text(content, "message.content")
        thinking = msg.get("thinking")
        if thinking.__class__ is not str:
            thinking = opt_str(thinking, "message.thinking")
        calls: list[ToolCall] = []
        invalid: list[InvalidToolCall] = []
        raw_calls = msg.get("tool_calls")
        if raw_calls is not None:
            seed = f"{model}|{opt_str(b.get('created_at'), 'created_at')}"
            calls, invalid = _calls(raw_calls, "message.tool_calls", seed, 0, lenient=True)
            if len(calls) > 1:
                kept, repeated = unique_calls(calls, "message.tool_calls")
                calls, invalid = list(kept), invalid + repeated
        done_reason = b.get("done_reason")
        if done_reason.__class__ is not str:
            done_reason = opt_str(done_reason, "done_reason")
        usage = _usage(b)
        message = respond(text, thinking or None, self.name, calls, usage, None, None, invalid)
        return new_response(
            message,
            _finish(done_reason, bool(calls or invalid)),
            usage,
            model,
            tuple(invalid),
            done_reason,
            None,
            None,
            None,
        )

    @guarded()
    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as an ``/api/chat`` request (or its ``messages``)."""
        items, prefix = request_messages(body_or_list)
        pairing = ToolPairing()
        out: list[Message] = []
        for i, raw in enumerate(items):
            path = f"{prefix}[{i}]"
            m = as_mapping(raw, path)
            role = m.get("role")
            if not isinstance(role, str):
                raise DecodeError("role is required (a string)", f"{path}.role")
            try:
                out.append(self._decode(role, m, path, i, pairing))
            except ValidationError as exc:
                raise DecodeError(exc.message, exc.at(path).path) from None
        return out

    def _decode(
        self, role: str, m: Mapping[str, Any], path: str, i: int, pairing: ToolPairing
    ) -> Message:
        text = _text(m.get("content"), f"{path}.content")
        if role in ("user", "tool"):
            raw_images = m.get("images")
            images = _images(raw_images, f"{path}.images") if raw_images is not None else []
            content: str | tuple[ContentPart, ...] = text
            if images:
                content = (TextPart(text), *images) if text else tuple(images)
            if role == "user":
                return UserMessage(content)
            call_id = opt_str(m.get("tool_call_id"), f"{path}.tool_call_id")
            tool_name = opt_str(m.get("tool_name"), f"{path}.tool_name") or None
            return ToolResultMessage(
                pairing.answer(call_id, tool_name, i), content, tool_name=tool_name
            )
        if role == "assistant":
            thinking = opt_str(m.get("thinking"), f"{path}.thinking")
            parts: list[ContentPart] = []
            if thinking:
                parts.append(ReasoningPart(thinking, provider=self.name))
            if text:
                parts.append(TextPart(text))
            raw_calls = m.get("tool_calls")
            if raw_calls is not None:
                calls, _ = _calls(raw_calls, f"{path}.tool_calls", f"request|{i}", 0, lenient=False)
                if calls:
                    check_unique_ids(calls, f"{path}.tool_calls")
                    pairing.open(calls)
                    return ToolCallMessage(calls, parts or None)
            return AssistantMessage(parts if thinking else text)
        if role == "system":
            return SystemMessage(text)
        if role == "developer":
            return DeveloperMessage(text)
        raise DecodeError(
            "unsupported role; expected system, user, assistant or tool", f"{path}.role"
        )


class OllamaStream(CountingStream):
    """Accumulates ``/api/chat`` NDJSON lines.

    Tool calls arrive whole, one or more per line, and are appended across
    lines. A ``{"error": ...}`` line ends with finish_reason ERROR, keeping what
    came before. A stream that ends before ``done: true`` (truncated) finishes
    with what it has: finish_reason ERROR, ``error`` saying so, no usage.
    """

    __slots__ = (
        "_calls",
        "_created",
        "_done",
        "_done_reason",
        "_error",
        "_error_details",
        "_events",
        "_invalid",
        "_model",
        "_text",
        "_thinking",
        "_usage",
    )

    def __init__(self) -> None:
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._calls: list[ToolCall] = []
        self._invalid: list[InvalidToolCall] = []
        self._done = False
        self._done_reason: str | None = None
        self._usage: Usage | None = None
        self._model: str | None = None
        self._created: str | None = None
        self._error: str | None = None
        self._error_details: FrozenDict | None = None
        self._events = 0

    @guarded()
    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one NDJSON line (decoded); returns the deltas it carried."""
        # hot path: exact-type checks first; a path string is built only on failure.
        if type(event) is not dict:
            event = as_mapping(event, "")
        self._events += 1
        if self._model is None:
            self._model = opt_str(event.get("model"), "model")
            self._created = opt_str(event.get("created_at"), "created_at")
        out = _NO_DELTAS
        msg = event.get("message")
        if msg is not None:
            if type(msg) is not dict:
                msg = as_mapping(msg, "message")
            c = msg.get("content")
            if c:
                if type(c) is not str:
                    raise DecodeError(
                        f"expected a string, got {type(c).__name__}", "message.content"
                    )
                self._text.append(c)
                out = (stream_delta("text", c),)
            t = msg.get("thinking")
            if t:
                if type(t) is not str:
                    raise DecodeError(
                        f"expected a string, got {type(t).__name__}", "message.thinking"
                    )
                self._thinking.append(t)
                out = (*out, stream_delta("reasoning", t))
            tcs = msg.get("tool_calls")
            if tcs:
                out = out + self._tool_calls(tcs)
        elif event.get("error") is not None:
            self._error, self._error_details = read_error(event["error"], "error")
        if event.get("done") is True:
            self._done = True
            self._done_reason = opt_str(event.get("done_reason"), "done_reason")
            self._usage = _usage(event)
        return out

    def _tool_calls(self, tcs: object) -> tuple[StreamDelta, ...]:
        start = len(self._calls) + len(self._invalid)
        seed = f"{self._model}|{self._created}"
        calls, invalid = _calls(tcs, "message.tool_calls", seed, start, lenient=True)
        out: list[StreamDelta] = []
        for c in calls:
            out.append(tool_call_delta(start + len(out), c.id, c.name, c.arguments_json))
        for bad in invalid:
            out.append(tool_call_delta(start + len(out), bad.id, bad.name, bad.raw_arguments))
        self._calls.extend(calls)
        self._invalid.extend(invalid)
        return tuple(out)

    @guarded()
    def finish(self) -> ChatResponse:
        """The response assembled from every line fed so far."""
        calls: Sequence[ToolCall] = self._calls
        invalid = self._invalid
        if len(calls) > 1:
            calls, repeated = unique_calls(calls, "tool_calls")
            invalid = invalid + repeated
        error = self._error
        if error is not None:
            finish = FinishReason.ERROR
        elif self._done:
            finish = _finish(self._done_reason, bool(calls or invalid))
        else:
            finish = FinishReason.ERROR
            error = "stream ended before done: true (truncated)"
        message = respond(
            "".join(self._text),
            "".join(self._thinking) or None,
            "ollama",
            calls,
            self._usage,
            None,
            self._error_details,
            invalid,
        )
        return new_response(
            message,
            finish,
            self._usage,
            self._model,
            tuple(invalid),
            self._done_reason,
            None,
            None,
            error,
        )


PROVIDER = OllamaProvider()
"""The Ollama provider."""
