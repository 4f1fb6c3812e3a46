"""Ollama's native chat API (``/api/chat``, NDJSON streaming).

Differences from chat completions that shape the rules here:

* ``images`` is a list of bare base64 strings (no media type, no URLs, no
  ``data:`` prefix): an image URL cannot be sent (dropped, a loss); decoding
  sniffs the media type from the magic bytes (``application/octet-stream``
  when unknown). Audio and file parts cannot be sent (dropped, a loss).
* ``tool_calls[].function.arguments`` is a JSON object, never a string. An
  invalid call (arguments that are not a JSON object, a name that breaks the
  rule) is kept with the message like a valid one; sent back, its raw name goes
  with its arguments when they are an object, else with ``{}`` (a loss).
* Call ids are optional: the documented shape has none, the current server
  sets ``call_xxxxxxxx`` and accepts ``tool_call_id`` on tool messages. A call
  without an id gets a stable derived id (``call_derived_…``); derived ids are
  not sent back, and tool results are then matched by ``tool_name`` and order.
  Importing a conversation pairs id-less tool messages the same way, so each
  result carries its call's derived id.
* ``thinking`` carries Ollama's own reasoning text both ways (reasoning from
  anywhere else is a loss).
* ``done_reason`` ``stop`` (or missing on ``done: true``) is STOP, or TOOL_CALLS
  when the message has calls (``load`` / ``unload``, sent when a request only
  loads or unloads the model, are STOP too); ``length`` is LENGTH; usage is
  ``prompt_eval_count`` / ``eval_count``, a missing count meaning 0 (a body with
  neither count and no ``done: true`` has no usage).
* ``developer`` messages are sent as ``system``; ``is_error`` is sent as an
  ``Error:`` prefix (both losses). Cache hints (``Message.cache``) are a Loss: the
  server keeps a loaded model's prompt cache by itself.
* A stream line has ``message``, ``done`` or ``error``; anything else (an OpenAI
  chunk, a Gemini chunk) is another provider's stream, a DecodeError.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from .._build import stream_delta, tool_call, tool_call_delta
from .._frozen import EMPTY, FrozenDict
from .._ids import DERIVED_ID_PREFIX, call_id_of, derive_call_id
from .._json import dumps_compact, json_type
from .._kinds import ASSISTANT, DEVELOPER, SYSTEM, TOOL_CALL, TOOL_RESULT, USER
from .._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from .._part_codec import object_text
from .._parts import AudioPart, ContentPart, FilePart, ImagePart, ReasoningPart, TextPart
from .._streaming import ToolCallDelta
from .._tool_call import InvalidToolCall, ToolCall
from ..errors import DecodeError, ValidationError, ident
from ._base import (
    ChatResponse,
    CountingStream,
    FinishReason,
    Loss,
    Losses,
    StreamAccumulator,
    StreamDelta,
    Usage,
    as_list,
    as_mapping,
    count_at,
    is_derived_id,
    make_response,
    make_usage,
    opt_str,
    opt_str_at,
    plain_arguments,
    raw_json_text,
    request_messages,
    tool_name_valid,
)
from ._cache_hints import hint_loss, no_breakpoints
from ._chat_completions import (
    IS_ERROR_RULE,
    FormattingProvider,
    ToolPairing,
    call_state_losses,
    error_prefixed,
    foreign_event,
    freeze_arguments,
    function_tools,
    kind_at,
    own_extras,
    parse_arguments,
    parse_function_tools,
    parser,
    read_error,
    reasoning_to_send,
    respond,
    unique_ids,
)
from ._sse import is_done

if TYPE_CHECKING:
    from ..tools import ToolDefinition

__all__ = ["PROVIDER", "UNKNOWN_IMAGE_TYPE", "OllamaProvider", "OllamaStream", "sniff_image_type"]

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

_CACHE_RULE: Final = no_breakpoints("ollama", "the server keeps a prompt cache by itself")


def sniff_image_type(data: str) -> str:
    """The media type of base64 image data, from its first bytes."""
    for prefix, media_type in _MAGIC:
        if data.startswith(prefix):
            return media_type
    return UNKNOWN_IMAGE_TYPE


_STOP_REASONS: Final = frozenset(("stop", "load", "unload"))
_READS: Final = "/api/chat lines (with message, done or error)"


def _finish(done_reason: str | None, has_calls: bool) -> FinishReason:
    # "load" / "unload": a request that only loaded or unloaded the model ended normally.
    if done_reason is None or done_reason in _STOP_REASONS:
        return FinishReason.TOOL_CALLS if has_calls else FinishReason.STOP
    if done_reason == "length":
        return FinishReason.LENGTH
    return FinishReason.OTHER


def _usage(b: Mapping[str, Any]) -> Usage:
    # Go's omitempty drops zero counts: a missing count is 0, not unknown.
    inp = count_at(b, "prompt_eval_count") or 0
    out = count_at(b, "eval_count") or 0
    return make_usage(inp, out, inp + out)


def _text(value: object, path: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise DecodeError(f"expected a string, got {json_type(value)}", path)


# -- tool calls -----------------------------------------------------------------------


def _calls(
    raw: object, path: str, seed: str, start: int
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """Ollama tool calls (arguments are objects; ids optional), ids unique across both.

    Arguments that are not a JSON object (a string that is not one, an object
    holding what JSON cannot) and names that break the rule give InvalidToolCalls;
    a missing name, or an id or arguments of the wrong JSON type, a DecodeError.
    ``start`` is the position of the first call in its turn (a stream's calls come
    over several lines).
    """
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for j, item in enumerate(as_list(raw, path)):
        where = f"{path}[{j}]"
        call = _call(as_mapping(item, where), where, seed, start + j)
        if isinstance(call, ToolCall):
            calls.append(call)
        else:
            invalid.append(call)
    return unique_ids(calls, invalid, path)


def _call(tc: Mapping[str, Any], where: str, seed: str, k: int) -> ToolCall | InvalidToolCall:
    """The call at ``where``, position ``k`` of its turn (ids derived from ``seed`` and
    ``k`` when the wire has none)."""
    fn = as_mapping(tc.get("function"), f"{where}.function")
    name = fn.get("name")
    if not isinstance(name, str):
        what = "required" if name is None else f"a string, got {json_type(name)}"
        raise DecodeError(f"tool name is {what}", f"{where}.function.name")
    call_id = opt_str_at(tc, "id", where)
    args = fn.get("arguments")
    frozen, raw, problem = _arguments(args, f"{where}.function.arguments")
    if not tool_name_valid(name):
        problem = f"{where}.function.name: invalid tool name {ident(name)}"
    if problem is not None:
        text = raw if raw is not None else raw_json_text(args) if args is not None else ""
        bad_id = call_id or derive_call_id(DERIVED_ID_PREFIX, seed, k, name, "invalid")
        return InvalidToolCall(bad_id, name, text, problem)
    if not call_id:
        key = f"{seed}\x1f{k}\x1f{name}\x1f{raw or dumps_compact(frozen)}"
        call_id = call_id_of(DERIVED_ID_PREFIX, key)
    return tool_call(ToolCall, call_id, name, frozen, EMPTY, raw)


def _arguments(args: object, path: str) -> tuple[FrozenDict, str | None, str | None]:
    """A call's arguments: (the object, the text the wire sent if it sent text, why the
    call is invalid if it is)."""
    if args is None:
        return EMPTY, None, None
    if isinstance(args, Mapping):
        try:
            return freeze_arguments(args, path), None, None
        except DecodeError as exc:  # what JSON cannot hold (NaN from a lenient decoder)
            return EMPTY, None, str(exc)
    if isinstance(args, str):
        # The server sends objects; a string (an OpenAI habit) is read if it is one.
        try:
            return parse_arguments(args, path), args, None
        except DecodeError as exc:
            return EMPTY, args, str(exc)
    raise DecodeError(f"expected an object, got {json_type(args)}", path)


def _call_entry(call_id: str, fn: dict[str, Any]) -> dict[str, Any]:
    """A ``tool_calls`` entry; a derived id was never on the wire: it is left out, as it came."""
    return {"function": fn} if is_derived_id(call_id) else {"id": call_id, "function": fn}


def _images(raw: object, path: str) -> list[ImagePart]:
    items = as_list(raw, path)
    images: list[ImagePart] = []
    for j, data in enumerate(items):
        if type(data) is not str:
            raise DecodeError(f"expected a base64 string, got {json_type(data)}", f"{path}[{j}]")
        if data.startswith("data:"):
            raise DecodeError(
                "a data: URL is not valid here: Ollama images are bare base64", f"{path}[{j}]"
            )
        if _BASE64.fullmatch(data) is None:
            raise DecodeError("image is not base64 data", f"{path}[{j}]")
        images.append(ImagePart(data=data, media_type=sniff_image_type(data)))
    return images


class OllamaProvider(FormattingProvider):
    """Ollama ``/api/chat``."""

    name = "ollama"

    def stream(self) -> StreamAccumulator:
        """A fresh accumulator for one NDJSON stream."""
        return OllamaStream(self.tag)

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The function tools of a request body (or a ``tools`` list), ``strict=False``."""
        return parse_function_tools(body_or_list, False)

    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """The ``tools`` part of a request (function tools; no ``strict`` flag)."""
        return function_tools(tools, openai_strict=False)

    def _format(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> tuple[dict[str, Any], list[Loss]]:
        request = _Request(self)
        for i, m in enumerate(messages):
            _WRITERS[kind_at(m, i)](request, m, i)
        body: dict[str, Any] = {"messages": request.out}
        if tools:
            body["tools"] = self.format_tools(tools)
        return body, request.losses.items

    # -- parsing ------------------------------------------------------------------------

    @parser
    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a non-streaming ``/api/chat`` response (or ``{"error": ...}``)."""
        b = as_mapping(body, "")
        model = opt_str(b.get("model"), "model")
        if "message" not in b and b.get("error") is not None:
            said, details = read_error(b["error"], "error")
            message = respond("", None, self.tag, (), None, None, details)
            return ChatResponse(message, FinishReason.ERROR, None, model, error=said)
        msg = as_mapping(b.get("message"), "message")
        text = _text(msg.get("content"), "message.content")
        thinking = opt_str(msg.get("thinking"), "message.thinking")
        calls: Sequence[ToolCall] = ()
        invalid: Sequence[InvalidToolCall] = ()
        raw_calls = msg.get("tool_calls")
        if raw_calls is not None:
            seed = f"{model}|{opt_str(b.get('created_at'), 'created_at')}"
            calls, invalid = _calls(raw_calls, "message.tool_calls", seed, 0)
        done_reason = opt_str(b.get("done_reason"), "done_reason")
        # no counts and no ``done: true``: the body carries no statistics (an
        # unfinished or hand-made body), so usage is unknown rather than zero
        counted = b.get("done") is True or "eval_count" in b or "prompt_eval_count" in b
        usage = _usage(b) if counted else None
        tag = self.tag if thinking else ""  # reasoning is the one thing tagged here
        message = respond(text, thinking or None, tag, calls, usage, None, None, invalid)
        finish = _finish(done_reason, bool(calls or invalid))
        return make_response(message, finish, usage, model, (), done_reason)

    @parser
    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as an ``/api/chat`` request (or its ``messages``).

        A malformed tool call is an InvalidToolCall of its turn, as in a response.
        """
        items, prefix = request_messages(body_or_list)
        pairing = ToolPairing()
        out: list[Message] = []
        for i, raw in enumerate(items):
            path = f"{prefix}[{i}]"
            m = as_mapping(raw, path)
            role = m.get("role")
            if not isinstance(role, str):
                raise DecodeError(
                    f"role is required (a string), got {json_type(role)}", f"{path}.role"
                )
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
                parts.append(ReasoningPart(thinking, provider=self.tag))
            if text:
                parts.append(TextPart(text))
            raw_calls = m.get("tool_calls")
            if raw_calls is not None:
                calls, invalid = _calls(raw_calls, f"{path}.tool_calls", f"request|{i}", 0)
                if calls or invalid:
                    pairing.open(calls, invalid)
                    return ToolCallMessage(calls, parts or None, invalid)
            return AssistantMessage(parts if thinking else text)
        if role == "system":
            return SystemMessage(text)
        if role == "developer":
            return DeveloperMessage(text)
        raise DecodeError(
            f"unsupported role {ident(role)}; expected system, user, assistant or tool",
            f"{path}.role",
        )


class _Request:
    """One request being written: the messages, the losses, and the tool name of each
    call (the results that answer it are named by it)."""

    __slots__ = ("losses", "name", "names", "out", "tag")

    def __init__(self, provider: OllamaProvider) -> None:
        self.tag = provider.tag
        self.name = provider.name
        self.losses = Losses()
        self.out: list[dict[str, Any]] = []
        self.names: dict[str, str] = {}  # call id -> tool name

    # -- one writer per message kind -------------------------------------------------

    def system(self, m: SystemMessage | DeveloperMessage, i: int) -> None:
        self.unsent(m, i)
        self.out.append({"role": "system", "content": m.content})

    def developer(self, m: DeveloperMessage, i: int) -> None:
        self.system(m, i)
        rule = "sent as a system message: ollama has no developer role"
        self.losses.add(f"messages[{i}]", "developer role", rule)

    def user(self, m: UserMessage, i: int) -> None:
        self.unsent(m, i)
        c = m.content
        self.out.append(
            {"role": "user", "content": c}
            if isinstance(c, str)
            else self.with_parts({"role": "user"}, c, i)
        )

    def assistant(self, m: AssistantMessage, i: int) -> None:
        self.unsent(m, i)
        c = m.content
        if c is None or isinstance(c, str):
            self.out.append({"role": "assistant", "content": c})
        else:
            self.out.append(self.assistant_parts(c, i))

    def tool_calls(self, m: ToolCallMessage, i: int) -> None:
        self.unsent(m, i)
        c = m.content
        if c is None or isinstance(c, str):
            d: dict[str, Any] = {"role": "assistant", "content": c or ""}
        else:
            d = self.assistant_parts(c, i)
        calls = m.tool_calls
        if calls:
            d["tool_calls"] = [self.call(tc, i, j) for j, tc in enumerate(calls)]
        if m.invalid_tool_calls:
            wire = d.setdefault("tool_calls", [])
            for k, bad in enumerate(m.invalid_tool_calls):
                entry = self.invalid_call(bad, i, k, len(calls) + k)
                if entry is not None:
                    wire.append(entry)
        self.out.append(d)

    def tool_result(self, m: ToolResultMessage, i: int) -> None:
        self.unsent(m, i)
        d: dict[str, Any] = {"role": "tool"}
        cid = m.tool_call_id
        if not is_derived_id(cid):
            d["tool_call_id"] = cid
        tool_name = m.tool_name or self.names.get(cid)
        if tool_name:
            d["tool_name"] = tool_name
        c = m.content
        if isinstance(c, str):
            d["content"] = c
        else:
            self.with_parts(d, c, i)
        if m.is_error:
            self.losses.add(f"messages[{i}].is_error", "is_error flag", IS_ERROR_RULE)
            d["content"] = error_prefixed(d["content"])
            if "images" in d:
                d["images"] = d.pop("images")  # keep the wire's key order: content first
        self.out.append(d)

    # -- the pieces of a message --------------------------------------------------------

    def unsent(self, m: Message, i: int) -> None:
        """The losses of what no Ollama message carries: kept state, a name, a cache hint."""
        if m.extras:
            own_extras(m, self.tag, i, self.losses)  # ollama keeps no state of its own
        if m.name is not None:
            rule = "dropped: ollama messages have no name"
            self.losses.add(f"messages[{i}].name", "message name", rule)
        if m.cache is not None:
            hint_loss(self.losses, i, _CACHE_RULE)

    def call(self, tc: ToolCall, i: int, j: int) -> dict[str, Any]:
        """A valid call (its tool name noted for its results)."""
        if tc.extras:
            call_state_losses((tc,), self.tag, i, self.losses, "tool_calls", j)
        self.names[tc.id] = tc.name
        fn = {"index": j, "name": tc.name, "arguments": plain_arguments(tc.arguments)}
        return _call_entry(tc.id, fn)

    def invalid_call(self, c: InvalidToolCall, i: int, k: int, index: int) -> dict[str, Any] | None:
        """An invalid call, after the valid ones: the raw name, with the arguments when their
        text is a JSON object, else ``{}`` (a loss); a call without a name is a loss."""
        path = f"messages[{i}].invalid_tool_calls[{k}]"
        if c.extras:
            call_state_losses((c,), self.tag, i, self.losses, "invalid_tool_calls", k)
        if c.name is None:
            self.losses.add(path, "invalid tool call without a name", "dropped: ollama needs one")
            return None
        self.names[c.id] = c.name
        args = object_text(c.raw_arguments)
        if args is None:
            rule = "sent as {}: ollama takes the arguments as an object"
            self.losses.add(path, "invalid tool call arguments", rule)
        fn = {
            "index": index,
            "name": c.name,
            "arguments": {} if args is None else plain_arguments(args),
        }
        return _call_entry(c.id, fn)

    def assistant_parts(self, content: Sequence[ContentPart], i: int) -> dict[str, Any]:
        """An assistant message whose content is parts: its text, and Ollama's own
        reasoning as ``thinking``."""
        text = "".join([p.text for p in content if isinstance(p, TextPart)])
        d: dict[str, Any] = {"role": "assistant", "content": text}
        thinking = reasoning_to_send(self.tag, self.name, "thinking", content, i, self.losses)
        if thinking:
            d["thinking"] = thinking
        return d

    def with_parts(
        self, d: dict[str, Any], content: Sequence[ContentPart], i: int
    ) -> dict[str, Any]:
        """``d`` with the text of ``content`` and its images (user and tool messages)."""
        texts: list[str] = []
        images: list[str] = []
        for j, p in enumerate(content):
            if isinstance(p, TextPart):
                texts.append(p.text)
            else:
                image = self.image(p, f"messages[{i}].content[{j}]")
                if image is not None:
                    images.append(image)
        d["content"] = "".join(texts)
        if images:
            d["images"] = images
        return d

    def image(self, p: ContentPart, path: str) -> str | None:
        """The base64 data of an image part; None (and a loss) for anything Ollama cannot
        take."""
        losses = self.losses
        if isinstance(p, ImagePart):
            if p.data is None:
                rule = "dropped: ollama takes base64 images only (download it and send the data)"
                losses.add(path, "image URL", rule)
                return None
            if p.detail not in (None, "auto"):
                rule = "dropped: ollama images have no detail setting"
                losses.add(f"{path}.detail", "image detail", rule)
            return p.data
        if isinstance(p, AudioPart):
            losses.add(path, "audio part", "dropped: ollama takes no audio")
        elif isinstance(p, FilePart):
            losses.add(path, "file part", "dropped: ollama takes no files")
        else:
            what = f"{type(p).__name__} in a user or tool message"
            losses.add(path, what, "dropped: not a content part this wire carries")
        return None


#: The writer of each message kind.
_WRITERS: Final[dict[int, Callable[[_Request, Any, int], None]]] = {
    SYSTEM: _Request.system,
    DEVELOPER: _Request.developer,
    USER: _Request.user,
    ASSISTANT: _Request.assistant,
    TOOL_CALL: _Request.tool_calls,
    TOOL_RESULT: _Request.tool_result,
}


class OllamaStream(CountingStream):
    """Accumulates ``/api/chat`` NDJSON lines.

    Tool calls arrive whole, one or more per line, and are appended across
    lines. A ``{"error": ...}`` line ends with finish_reason ERROR, keeping what
    came before. A stream that ends before ``done: true`` (truncated) finishes
    with what it has: finish_reason ERROR, ``error`` saying so, no usage. A line
    of another format (no ``message``, ``done`` or ``error``) is a DecodeError.
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
        "_tag",
        "_text",
        "_thinking",
        "_usage",
    )

    def __init__(self, tag: str = "ollama") -> None:
        self._tag = tag
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

    @parser
    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one NDJSON line (decoded); returns the deltas it carried."""
        if is_done(event):  # an SSE end marker, if a caller passes one on
            return _NO_DELTAS
        event = as_mapping(event, "")
        self._events += 1
        if self._model is None:
            self._model = opt_str(event.get("model"), "model")
            self._created = opt_str(event.get("created_at"), "created_at")
        out = _NO_DELTAS
        msg = event.get("message")
        if msg is not None:
            out = self._message(as_mapping(msg, "message"))
        elif event.get("error") is not None:
            self._error, self._error_details = read_error(event["error"], "error")
        elif "done" not in event:
            kind = event.get("type")
            raise foreign_event(event, "ollama", _READS, "message" if kind is None else "type")
        if event.get("done") is True:
            self._done = True
            self._done_reason = opt_str(event.get("done_reason"), "done_reason")
            self._usage = _usage(event)
        return out

    def _message(self, msg: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """The deltas of a line's message: text, reasoning, whole tool calls."""
        out = _NO_DELTAS
        text = msg.get("content")
        if text:
            text = _text(text, "message.content")
            self._text.append(text)
            out = (stream_delta(StreamDelta, "text", text, None),)
        thinking = msg.get("thinking")
        if thinking:
            thinking = _text(thinking, "message.thinking")
            self._thinking.append(thinking)
            out = (*out, stream_delta(StreamDelta, "reasoning", thinking, None))
        tcs = msg.get("tool_calls")
        if tcs:
            out += self._tool_calls(tcs)
        return out

    def _tool_calls(self, tcs: object) -> tuple[StreamDelta, ...]:
        start = len(self._calls) + len(self._invalid)
        seed = f"{self._model}|{self._created}"
        calls, invalid = _calls(tcs, "message.tool_calls", seed, start)
        out: list[StreamDelta] = []
        for c in calls:
            call = tool_call_delta(ToolCallDelta, start + len(out), c.id, c.name, c.arguments_json)
            out.append(stream_delta(StreamDelta, "tool_call", "", call))
        for bad in invalid:
            call = tool_call_delta(
                ToolCallDelta, start + len(out), bad.id, bad.name, bad.raw_arguments
            )
            out.append(stream_delta(StreamDelta, "tool_call", "", call))
        self._calls.extend(calls)
        self._invalid.extend(invalid)
        return tuple(out)

    @parser
    def finish(self) -> ChatResponse:
        """The response assembled from every line fed so far."""
        calls, invalid = unique_ids(self._calls, self._invalid, "tool_calls")
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
            self._tag,
            calls,
            self._usage,
            None,
            self._error_details,
            invalid,
        )
        return make_response(
            message, finish, self._usage, self._model, (), self._done_reason, None, None, error
        )


PROVIDER = OllamaProvider()
"""The Ollama provider."""
