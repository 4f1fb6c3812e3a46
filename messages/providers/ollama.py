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
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from .._build import chat_response, stream_delta, tool_call, tool_call_delta
from .._fields import check_tool_name, known_tool_name
from .._frozen import EMPTY, FrozenDict, freeze_mapping
from .._ids import DERIVED_ID_PREFIX, call_id_of, derive_call_id
from .._json import dumps_compact, json_type
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
from .._role import MessageRole
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
    guard_error,
    make_response,
    make_usage,
    opt_int,
    opt_str,
    plain_arguments,
    raw_json_text,
    request_messages,
)
from ._cache_hints import hint_loss, no_breakpoints
from ._chat_completions import (
    KIND_CALLS,
    KIND_RESULT,
    KIND_SYSTEM,
    KIND_TEXT,
    KIND_USER,
    KINDS,
    FormattingProvider,
    ToolPairing,
    call_state_losses,
    error_prefixed,
    foreign_event,
    freeze_arguments,
    function_tools,
    kind_of,
    own_extras,
    parse_arguments,
    parse_function_tools,
    parser,
    read_error,
    reasoning_to_send,
    respond,
    unique_ids,
)

if TYPE_CHECKING:
    from .._tool_definition import ToolDefinition

__all__ = ["PROVIDER", "UNKNOWN_IMAGE_TYPE", "OllamaProvider", "OllamaStream", "sniff_image_type"]

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

_CACHE_RULE: Final = no_breakpoints("ollama", "the server keeps a prompt cache by itself")


def sniff_image_type(data: str) -> str:
    """The media type of base64 image data, from its first bytes."""
    for prefix, media_type in _MAGIC:
        if data.startswith(prefix):
            return media_type
    return UNKNOWN_IMAGE_TYPE


_STOP_REASONS: Final = frozenset(("stop", "load", "unload"))
_DERIVED_LEN: Final = len(DERIVED_ID_PREFIX) + 24  # see _base.is_derived_id
_READS: Final = "/api/chat lines (with message, done or error)"
_IS_ERROR_RULE: Final = (
    "the wire has no error flag: the text is sent, prefixed 'Error: ' unless it already starts so"
)


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
    return make_usage(inp, out, inp + out, None, None, None)


def _text(value: object, path: str) -> str:
    if value is None:
        return ""
    if type(value) is str:
        return value
    raise DecodeError(f"expected a string, got {json_type(value)}", path)


def _calls(
    raw: object, path: str, seed: str, start: int
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """Ollama tool calls (arguments are objects; ids optional), ids unique across both.

    Arguments that are not a JSON object (a string that is not one, an object
    holding what JSON cannot) and names that break the rule give InvalidToolCalls;
    a missing name, or an id or arguments of the wrong JSON type, a DecodeError.
    """
    items = raw if raw.__class__ is list else as_list(raw, path)
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for j, item in enumerate(items):
        tc = item if item.__class__ is dict else as_mapping(item, f"{path}[{j}]")
        fn = tc.get("function")
        if fn.__class__ is not dict:
            fn = as_mapping(fn, f"{path}[{j}].function")
        name = fn.get("name")
        args = fn.get("arguments")
        call_id = tc.get("id")
        # hot path: arguments given as an object are frozen once, here; with a known
        # name the call is built here too. Anything else, and every error, goes to
        # _call with what was read and frozen (or why it could not be).
        frozen: FrozenDict | None = None
        failed: ValidationError | None = None
        if args.__class__ is dict:
            try:
                frozen = freeze_mapping(args, "")
            except ValidationError as exc:  # what JSON cannot hold (NaN from a lenient decoder)
                failed = exc
            if frozen is not None and name.__class__ is str and name in known_tool_name:
                if call_id.__class__ is not str or not call_id:
                    call_id = _call_id(call_id, f"{path}[{j}]", seed, start + j, name, frozen)
                calls.append(tool_call(ToolCall, call_id, name, frozen, EMPTY, None))
                continue
        c = _call(name, args, frozen, failed, call_id, f"{path}[{j}]", seed, start + j)
        if isinstance(c, InvalidToolCall):
            invalid.append(c)
        else:
            calls.append(c)
    return unique_ids(calls, invalid, path)


def _call_id(call_id: object, where: str, seed: str, k: int, name: str, frozen: FrozenDict) -> str:
    """The wire id of a call, or one derived from the call when it has none."""
    if call_id is None or call_id == "":
        return call_id_of(DERIVED_ID_PREFIX, f"{seed}\x1f{k}\x1f{name}\x1f{dumps_compact(frozen)}")
    if call_id.__class__ is not str:
        raise DecodeError(f"expected a string, got {json_type(call_id)}", f"{where}.id")
    return call_id


def _call(
    name: object,
    args: object,
    frozen: FrozenDict | None,
    failed: ValidationError | None,
    call_id: object,
    where: str,
    seed: str,
    k: int,
) -> ToolCall | InvalidToolCall:
    """One call from its fields as read (the usual case aside); ``frozen`` / ``failed``:
    arguments given as an object, frozen or why they could not be (None when not tried)."""
    if name.__class__ is not str:
        what = "required" if name is None else f"a string, got {json_type(name)}"
        raise DecodeError(f"tool name is {what}", f"{where}.function.name")
    assert isinstance(name, str)
    if call_id is not None and call_id.__class__ is not str:
        raise DecodeError(f"expected a string, got {json_type(call_id)}", f"{where}.id")
    raw: str | None = None  # the arguments text, when the wire sent text
    problem: str | None = None
    path = f"{where}.function.arguments"
    if failed is not None:
        problem = str(DecodeError(failed.message, failed.at(path).path))
    elif frozen is not None:
        pass
    elif isinstance(args, Mapping):
        try:
            frozen = freeze_arguments(args, path)
        except DecodeError as exc:  # what JSON cannot hold (NaN from a lenient decoder)
            problem = str(exc)
    elif args.__class__ is str:
        # The server sends objects; a string (an OpenAI habit) is read if it is one.
        raw = args
        try:
            frozen = parse_arguments(raw, path)
        except DecodeError as exc:
            problem = str(exc)
    elif args is not None:
        raise DecodeError(f"expected an object, got {json_type(args)}", path)
    if name not in known_tool_name:
        try:
            check_tool_name(name)
        except ValidationError:
            problem = f"{where}.function.name: invalid tool name {ident(name)}"
    if problem is not None:
        text = raw if raw is not None else raw_json_text(args) if args is not None else ""
        bad_id = call_id or derive_call_id(DERIVED_ID_PREFIX, seed, k, name, "invalid")
        return InvalidToolCall(bad_id, name, text, problem)
    if frozen is None:
        frozen = EMPTY
    if not call_id:
        # hot path: the key as one f-string (see call_id_of)
        call_id = call_id_of(
            DERIVED_ID_PREFIX, f"{seed}\x1f{k}\x1f{name}\x1f{raw or dumps_compact(frozen)}"
        )
    return tool_call(ToolCall, call_id, name, frozen, EMPTY, raw)


def _unsent(m: Message, i: int, tag: str, losses: Losses) -> None:
    """The losses of what no Ollama message carries: kept state, a name, a cache hint."""
    if m.extras:
        own_extras(m, tag, i, losses)  # ollama keeps no state of its own
    if m.name is not None:
        losses.add(f"messages[{i}].name", "message name", "dropped: ollama messages have no name")
    if m.cache is not None:
        hint_loss(losses, i, _CACHE_RULE)


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

    # -- formatting -----------------------------------------------------------------

    def _format(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> tuple[dict[str, Any], list[Loss]]:
        losses = Losses()
        out: list[dict[str, Any]] = []
        names: dict[str, str] = {}  # call id -> tool name, for the results
        tag = self.tag
        # hot path: one cast for the loop; no per-message cast() call.
        items: Sequence[Any] = cast("Sequence[Any]", messages)
        for i, m in enumerate(items):
            # hot path: the message class picks the writer (see _chat_completions._format)
            try:
                kind = KINDS[type(m)]
            except KeyError:
                kind = kind_of(m, i)
            # string content is written here, parts in the helpers. hot path: each
            # kind's branch opens with the same lines reading the message's extras,
            # name, cache hint and content, so that the loads see one class and stay
            # specialised (read once above the branches, for four classes in turn, they
            # cost ~560 instructions a message: 685k -> 629k a request)
            if kind is KIND_USER:
                if m.extras or m.name is not None or m.cache is not None:
                    _unsent(m, i, tag, losses)
                c = m.content
                if c.__class__ is str:
                    out.append({"role": "user", "content": c})
                else:
                    out.append(self._with_parts({"role": "user"}, c, i, losses))
            elif kind is KIND_CALLS:
                if m.extras or m.name is not None or m.cache is not None:
                    _unsent(m, i, tag, losses)
                c = m.content
                if c is None or c.__class__ is str:
                    d: dict[str, Any] = {"role": "assistant", "content": c or ""}
                else:
                    d = self._assistant_parts(c, i, losses)
                calls: Sequence[ToolCall] = m.tool_calls
                if calls:
                    wire: list[dict[str, Any]] = []
                    for j, tc in enumerate(calls):
                        if tc.extras:
                            call_state_losses((tc,), tag, i, losses, "tool_calls", j)
                        cid = tc.id
                        names[cid] = tc.name
                        fn = {
                            "index": j,
                            "name": tc.name,
                            "arguments": plain_arguments(tc.arguments),
                        }
                        # A derived id was never on the wire: leave it out, as it came.
                        if len(cid) == _DERIVED_LEN and cid.startswith(DERIVED_ID_PREFIX):
                            wire.append({"function": fn})
                        else:
                            wire.append({"id": cid, "function": fn})
                    d["tool_calls"] = wire
                if m.invalid_tool_calls:
                    self._invalid_calls(d, m.invalid_tool_calls, len(calls), i, losses, names)
                out.append(d)
            elif kind is KIND_RESULT:
                if m.extras or m.name is not None or m.cache is not None:
                    _unsent(m, i, tag, losses)
                c = m.content
                d = {"role": "tool"}
                cid = m.tool_call_id
                if not (len(cid) == _DERIVED_LEN and cid.startswith(DERIVED_ID_PREFIX)):
                    d["tool_call_id"] = cid
                tool_name = m.tool_name or names.get(cid)
                if tool_name:
                    d["tool_name"] = tool_name
                if c.__class__ is str and not m.is_error:
                    d["content"] = c
                else:
                    self._tool_content(d, m, i, losses)
                out.append(d)
            elif kind is KIND_TEXT:
                if m.extras or m.name is not None or m.cache is not None:
                    _unsent(m, i, tag, losses)
                c = m.content
                if c.__class__ is str:
                    out.append({"role": "assistant", "content": c})
                else:
                    out.append(self._assistant_parts(c, i, losses))
            else:  # system or developer
                if m.extras or m.name is not None or m.cache is not None:
                    _unsent(m, i, tag, losses)
                c = m.content
                out.append({"role": "system", "content": c})
                if kind is not KIND_SYSTEM:
                    losses.add(
                        f"messages[{i}]",
                        "developer role",
                        "sent as a system message: ollama has no developer role",
                    )
        body: dict[str, Any] = {"messages": out}
        if tools:
            body["tools"] = self.format_tools(tools)
        return body, losses.items

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

    def _with_parts(
        self, d: dict[str, Any], content: Sequence[ContentPart], i: int, losses: Losses
    ) -> dict[str, Any]:
        """``d`` with the text of ``content`` and its images (user and tool messages)."""
        text, images = self._parts(content, i, losses)
        d["content"] = text
        if images:
            d["images"] = images
        return d

    def _assistant_parts(
        self, content: Sequence[ContentPart], i: int, losses: Losses
    ) -> dict[str, Any]:
        """An assistant message whose content is parts: its text, and Ollama's own
        reasoning as ``thinking``."""
        text = "".join([p.text for p in content if type(p) is TextPart or isinstance(p, TextPart)])
        d: dict[str, Any] = {"role": "assistant", "content": text}
        thinking = reasoning_to_send(self.tag, self.name, "thinking", content, i, losses)
        if thinking:
            d["thinking"] = thinking
        return d

    def _invalid_calls(
        self,
        d: dict[str, Any],
        invalid: Sequence[InvalidToolCall],
        start: int,
        i: int,
        losses: Losses,
        names: dict[str, str],
    ) -> None:
        """Invalid calls after the valid ones: the raw name, with the arguments when their
        text is a JSON object, else ``{}`` (a loss); a call without a name is a loss."""
        wire = d.setdefault("tool_calls", [])
        for k, c in enumerate(invalid):
            path = f"messages[{i}].invalid_tool_calls[{k}]"
            if c.extras:
                call_state_losses((c,), self.tag, i, losses, "invalid_tool_calls", k)
            if c.name is None:
                losses.add(path, "invalid tool call without a name", "dropped: ollama needs one")
                continue
            names[c.id] = c.name
            args = object_text(c.raw_arguments)
            if args is None:
                losses.add(
                    path,
                    "invalid tool call arguments",
                    "sent as {}: ollama takes the arguments as an object",
                )
            fn = {
                "index": start + k,
                "name": c.name,
                "arguments": {} if args is None else plain_arguments(args),
            }
            derived = len(c.id) == _DERIVED_LEN and c.id.startswith(DERIVED_ID_PREFIX)
            wire.append({"function": fn} if derived else {"id": c.id, "function": fn})

    def _tool_content(
        self, d: dict[str, Any], m: ToolResultMessage, i: int, losses: Losses
    ) -> None:
        """The content of a tool result given as parts or marked as an error."""
        c = m.content
        if isinstance(c, str):
            d["content"] = c
        else:
            self._with_parts(d, c, i, losses)
        if m.is_error:
            losses.add(f"messages[{i}].is_error", "is_error flag", _IS_ERROR_RULE)
            d["content"] = error_prefixed(d["content"])
            if "images" in d:
                d["images"] = d.pop("images")  # keep the wire's key order: content first

    # -- parsing ------------------------------------------------------------------------

    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a non-streaming ``/api/chat`` response (or ``{"error": ...}``)."""
        # hot path: the guard of `parser` written out (its *args call costs ~90 ns a parse)
        try:
            return self._parse_response(body)
        except DecodeError:
            raise
        except Exception as exc:
            raise guard_error(exc) from None

    def _parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        b = body if body.__class__ is dict else as_mapping(body, "")
        # hot path: the keys of a finished response read by subscript (a get is a call),
        # by get when one is missing (an error body, a hand-made one); opt_str only when
        # a value is not a str (it then reports or passes None)
        try:
            model = b["model"]
            msg = b["message"]
            done_reason = b["done_reason"]
        except KeyError:
            model, msg, done_reason = b.get("model"), b.get("message"), b.get("done_reason")
        if model.__class__ is not str:
            model = opt_str(model, "model")
        if "message" not in b and b.get("error") is not None:
            said, details = read_error(b["error"], "error")
            message = respond("", None, self.tag, (), None, None, details)
            return ChatResponse(message, FinishReason.ERROR, None, model, error=said)
        if msg.__class__ is not dict:
            msg = as_mapping(msg, "message")
        content = msg.get("content")
        text = content if content.__class__ is str else _text(content, "message.content")
        thinking = msg.get("thinking")
        if thinking.__class__ is not str:
            thinking = opt_str(thinking, "message.thinking")
        calls: Sequence[ToolCall] = ()
        invalid: Sequence[InvalidToolCall] = ()
        raw_calls = msg.get("tool_calls")
        if raw_calls is not None:
            seed = f"{model}|{opt_str(b.get('created_at'), 'created_at')}"
            calls, invalid = _calls(raw_calls, "message.tool_calls", seed, 0)
        if done_reason.__class__ is not str:
            done_reason = opt_str(done_reason, "done_reason")
        # no counts and no ``done: true``: the body carries no statistics (an
        # unfinished or hand-made body), so usage is unknown rather than zero
        usage = (
            _usage(b)
            if b.get("done") is True or "eval_count" in b or "prompt_eval_count" in b
            else None
        )
        # the tag only for reasoning, the one thing tagged here
        tag = self.tag if thinking else ""
        message = respond(text, thinking or None, tag, calls, usage, None, None, invalid)
        finish = _finish(done_reason, bool(calls or invalid))
        # hot path: the builder called as it is (make_response's frame ~500 instructions)
        return chat_response(
            ChatResponse, message, finish, usage, model,
            message.invalid_tool_calls if invalid else (),  # (a property on a plain turn)
            done_reason, None, None, None,
        )  # fmt: skip

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

    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one NDJSON line (decoded); returns the deltas it carried."""
        # hot path: the guard of `parser` written out (its *args call cost ~90 ns a
        # line); exact-class checks first, a path string built only on failure.
        try:
            if event.__class__ is not dict:
                event = as_mapping(event, "")
            self._events += 1
            if self._model is None:
                self._model = opt_str(event.get("model"), "model")
                self._created = opt_str(event.get("created_at"), "created_at")
            out = _NO_DELTAS
            msg = event.get("message")
            if msg is not None:
                if msg.__class__ is not dict:
                    msg = as_mapping(msg, "message")
                c = msg.get("content")
                if c:
                    if c.__class__ is not str:
                        raise DecodeError(
                            f"expected a string, got {json_type(c)}", "message.content"
                        )
                    self._text.append(c)
                    out = (stream_delta(StreamDelta, "text", c, None),)
                t = msg.get("thinking")
                if t:
                    if t.__class__ is not str:
                        raise DecodeError(
                            f"expected a string, got {json_type(t)}", "message.thinking"
                        )
                    self._thinking.append(t)
                    out = (*out, stream_delta(StreamDelta, "reasoning", t, None))
                tcs = msg.get("tool_calls")
                if tcs:
                    out = out + self._tool_calls(tcs)
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
        except DecodeError:
            raise
        except Exception as exc:
            raise guard_error(exc) from None

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
