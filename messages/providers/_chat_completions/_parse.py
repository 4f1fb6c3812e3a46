"""Parsing chat-completions responses and stored requests; the provider class.

``ChatCompletionsProvider`` puts the family together: the rules and formatting of
``ChatCompletionsFormat``, the parsers here and the stream of ``_stream``. A
dialect (openai, groq, vllm; Mistral or DeepSeek later) is a subclass setting
rules, and its stream a subclass of ``ChatCompletionsStream`` where the wire adds
vendor data.

Everything parsed is tagged with the provider's ``tag``: reasoning parts, and
the state kept in ``extras[tag]`` (a refusal, an audio answer, Mistral's
``prefix``, content parts of unknown types and keys of known parts the model has
no field for; a response's ``logprobs``, the lists of ``KEPT_LISTS`` such
as ``annotations``, and with ``n > 1`` the ``choices`` after the first, which a
request has no field for and formatting never sends). A cache-hint key on the last content part of a message, the one
the dialect writes (``cache_key``), is read as the message's ``cache``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._frozen import EMPTY
from ..._json import json_type
from ..._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ..._parts import (
    AudioPart,
    ContentPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    TextPart,
    parse_data_url,
)
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ValidationError, ident
from .._base import (
    ChatResponse,
    FinishReason,
    StreamAccumulator,
    Usage,
    as_list,
    as_mapping,
    freeze_decoded,
    make_response,
    opt_str,
    request_messages,
)
from .._cache_hints import CONTROL_KEY
from ._calls import read_calls, read_legacy_call
from ._format import ChatCompletionsFormat
from ._readers import (
    FINISH,
    KEPT_LISTS,
    ToolPairing,
    chat_usage,
    keep_keys,
    keep_unknown,
    lift_hint,
    parser,
    read_error,
    req_str,
    respond,
    thinking_text,
)
from ._stream import ChatCompletionsStream
from ._tools import parse_function_tools

if TYPE_CHECKING:
    from ...tools import ToolDefinition

__all__ = ["ChatCompletionsProvider", "PartDecoder", "content_text", "decode_part"]

#: Reads one content part of a dialect's own type at a path: the part and the keys it
#: read besides ``type`` and the type's own key (None: keep the part as it is).
PartDecoder = Callable[[Mapping[str, Any], str], tuple[ContentPart, tuple[str, ...]] | None]


class ChatCompletionsProvider(ChatCompletionsFormat):
    """OpenAI chat completions; dialects subclass it and set the rules of
    ``ChatCompletionsFormat`` (and ``stream_class`` when their stream adds vendor data)."""

    #: The stream accumulator of this dialect.
    stream_class: type[ChatCompletionsStream] = ChatCompletionsStream
    #: Raw ``finish_reason`` -> FinishReason (anything else is OTHER).
    finish_reasons: Mapping[str, FinishReason] = FINISH
    #: Reads ``reasoning_details`` with ``_details`` (OpenRouter's reasoning blocks).
    reasoning_blocks: bool = False
    #: Readers of content-part types the family does not share, by type (Mistral's
    #: ``document_url``): each gives a part, or None to keep the part as it is.
    part_decoders: Mapping[str, PartDecoder] = EMPTY

    def stream(self) -> StreamAccumulator:
        """A fresh accumulator for one streamed response."""
        return self.stream_class(self.tag, self.name, self.finish_reasons, self._usage)

    def _usage(self, raw: object, path: str) -> tuple[Usage | None, Mapping[str, Any] | None]:
        """The usage of a response or chunk, and metadata keys it adds (a dialect reads its
        vendor fields here, e.g. a cost)."""
        return chat_usage(raw, path), None

    def _details(
        self, msg: Mapping[str, Any], path: str, own: dict[str, Any], reasoning: str | None
    ) -> str | Sequence[ReasoningPart] | None:
        """The reasoning of a message that has reasoning blocks (see ``reasoning_blocks``):
        ``reasoning`` is what the plain fields gave; blocks kept go in ``own``."""
        return reasoning

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The function tools of a request body (or a ``tools`` list); DecodeError when malformed.

        ``parameters`` are kept as given (missing: an object without properties);
        ``strict`` is read where the provider has OpenAI's strict mode. Entries that
        are not function tools (a ``custom`` tool) are skipped.
        """
        return parse_function_tools(body_or_list, self.strict_tools)

    # -- responses ------------------------------------------------------------------------

    @parser
    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a non-streaming response body (or an error body: finish_reason ERROR)."""
        b = as_mapping(body, "")
        model = opt_str(b.get("model"), "model")
        choices = b.get("choices")
        if not choices:
            if choices is None and (b.get("error") is not None or b.get("object") == "error"):
                return self._error_response(b, model)
            if not as_list(choices, "choices"):
                raise DecodeError("no choices: the response carries no message", "choices")
        choices = as_list(choices, "choices")
        resp_id = opt_str(b.get("id"), "id")
        choice = as_mapping(choices[0], "choices[0]")
        msg = as_mapping(choice.get("message"), "choices[0].message")
        own: dict[str, Any] = {}
        if len(choices) > 1:
            # n > 1: the answer is choice 0; the others are kept as they came
            own["choices"] = tuple(
                freeze_decoded(c, f"choices[{k}]") for k, c in enumerate(choices[1:], 1)
            )
        path = "choices[0].message"
        text, plain, refusal = _assistant_fields(msg, path, own)
        logprobs = choice.get("logprobs")
        if logprobs is not None:  # token logprobs of the content and the refusal
            own["logprobs"] = freeze_decoded(
                as_mapping(logprobs, "choices[0].logprobs"), "choices[0].logprobs"
            )
        calls, invalid = _message_calls(msg, path, resp_id or model or "", 0, self.tag)
        reasoning: str | Sequence[ReasoningPart] | None = plain or None
        if self.reasoning_blocks:
            reasoning = self._details(msg, path, own, plain or None)
        raw_finish = opt_str(choice.get("finish_reason"), "choices[0].finish_reason")
        if raw_finish is None:
            finish = FinishReason.TOOL_CALLS if calls or invalid else FinishReason.STOP
        else:
            finish = self.finish_reasons.get(raw_finish, FinishReason.OTHER)
        usage, more = self._usage(b.get("usage"), "usage")
        tag = self.tag if reasoning or own else ""
        extras = {tag: own} if own else None
        message = respond(text, reasoning, tag, calls, usage, extras, None, invalid, more)
        return make_response(message, finish, usage, model, (), raw_finish, refusal, resp_id)

    def _error_response(self, body: Mapping[str, Any], model: str | None) -> ChatResponse:
        """An error body: ``{"error": {...}}``, or vLLM's flat ``{"object": "error", ...}``."""
        err = body.get("error")
        said, details = read_error(body, "") if err is None else read_error(err, "error")
        message = respond("", None, self.tag, (), None, None, details)
        return ChatResponse(message, FinishReason.ERROR, None, model, error=said)

    # -- stored requests ------------------------------------------------------------------

    @parser
    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as a chat-completions request (or its ``messages``).

        A malformed tool call (arguments that are not a JSON object, a name that breaks
        the name rule) is an InvalidToolCall of its turn, as in a response.
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
            decoder = _DECODERS.get(role)
            if decoder is None:
                raise DecodeError(
                    f"unsupported role {ident(role)}; expected system, developer, user,"
                    " assistant, tool or function",
                    f"{path}.role",
                )
            try:
                out.append(decoder(self, m, path, i, pairing))
            except ValidationError as exc:
                raise DecodeError(exc.message, exc.at(path).path) from None
        return out

    def _decode_system(
        self, m: Mapping[str, Any], path: str, i: int, pairing: ToolPairing
    ) -> Message:
        cls = DeveloperMessage if m.get("role") == "developer" else SystemMessage
        own: dict[str, Any] = {}
        raw = m.get("content")
        text = _system_text(raw, f"{path}.content", own)
        cache = None
        if own and self.cache_key is not None:
            cache = lift_hint(own, raw, self.cache_key)
            if cache is not None and "keys" not in own and len(own["lengths"]) == 1:
                own.clear()  # one part, its only key the hint: nothing left to keep
        extras = {self.tag: own} if own else None
        return cls(text, name=_name(m, path), extras=extras, cache=cache)

    def _decode_user(
        self, m: Mapping[str, Any], path: str, i: int, pairing: ToolPairing
    ) -> Message:
        raw = m.get("content")
        content, own = _user_content(raw, f"{path}.content", self.part_decoders)
        cache = None
        if own and self.cache_key is not None:
            cache = lift_hint(own, raw, self.cache_key)
        extras = {self.tag: own} if own else None
        return UserMessage(content, name=_name(m, path), extras=extras, cache=cache)

    def _decode_assistant(
        self, m: Mapping[str, Any], path: str, i: int, pairing: ToolPairing
    ) -> Message:
        tag = self.tag
        own: dict[str, Any] = {}
        text, plain, _ = _assistant_fields(m, path, own)
        cache = None
        if own and self.cache_key == CONTROL_KEY:  # (OpenAI takes no assistant breakpoint)
            cache = lift_hint(own, m.get("content"), CONTROL_KEY)
        prefix = m.get("prefix")
        if prefix is not None:  # Mistral: the turn the model is to continue
            if not isinstance(prefix, bool):
                raise DecodeError(f"expected a boolean, got {json_type(prefix)}", f"{path}.prefix")
            own["prefix"] = prefix
        reasoning: str | Sequence[ReasoningPart] | None = plain
        if self.reasoning_blocks:
            reasoning = self._details(m, path, own, plain or None)
        calls, invalid = _message_calls(m, path, f"request\x1f{i}", "function_call", tag)
        parts: list[ContentPart] = []
        if isinstance(reasoning, str):
            if reasoning:
                parts.append(ReasoningPart(reasoning, provider=tag))
        elif reasoning:
            parts.extend(reasoning)
        if text:
            parts.append(TextPart(text))
        name = _name(m, path)
        ext = {tag: own} if own else None
        if calls or invalid:
            pairing.open(calls, invalid)
            return ToolCallMessage(
                calls, parts or None, invalid, name=name, extras=ext, cache=cache
            )
        content = parts if len(parts) > bool(text) else text
        return AssistantMessage(content, name=name, extras=ext, cache=cache)

    def _decode_tool(
        self, m: Mapping[str, Any], path: str, i: int, pairing: ToolPairing
    ) -> Message:
        call_id = opt_str(m.get("tool_call_id"), f"{path}.tool_call_id")
        raw = m.get("content")
        content, own = _user_content(raw, f"{path}.content", self.part_decoders)
        cache = None
        if own and self.cache_key is not None:
            cache = lift_hint(own, raw, self.cache_key)
        extras = {self.tag: own} if own else None
        answers = pairing.answer(call_id, None, i)
        return ToolResultMessage(answers, content, name=_name(m, path), extras=extras, cache=cache)

    def _decode_function(
        self, m: Mapping[str, Any], path: str, i: int, pairing: ToolPairing
    ) -> Message:
        # The deprecated ``role: "function"`` result: it names the function, not a call id.
        name = req_str(m.get("name"), f"{path}.name")
        content = m.get("content")
        text = "" if content is None else _system_text(content, f"{path}.content", {})
        return ToolResultMessage(pairing.answer(None, name, i), text, tool_name=name)


_Decoder = Callable[[ChatCompletionsProvider, Mapping[str, Any], str, int, ToolPairing], Message]
_DECODERS: dict[str, _Decoder] = {
    "system": ChatCompletionsProvider._decode_system,
    "developer": ChatCompletionsProvider._decode_system,
    "user": ChatCompletionsProvider._decode_user,
    "assistant": ChatCompletionsProvider._decode_assistant,
    "tool": ChatCompletionsProvider._decode_tool,
    "function": ChatCompletionsProvider._decode_function,
}


# -- readers of assistant messages (responses and stored requests) -------------------------


def _assistant_fields(
    m: Mapping[str, Any], path: str, own: dict[str, Any]
) -> tuple[str, str, str | None]:
    """What an assistant message has in a response and in a request alike: its text, its
    reasoning text and its refusal. The refusal, a previous audio answer and the lists of
    ``KEPT_LISTS`` are kept in ``own`` (as are content parts of other types)."""
    text, thinking = content_text(m.get("content"), f"{path}.content", own)
    refusal = opt_str(m.get("refusal"), f"{path}.refusal")
    if refusal:
        own["refusal"] = refusal
    else:
        refusal = own.get("refusal")  # a refusal part of the content, if any
    audio = m.get("audio")
    if audio is not None:  # id, data, expires_at, transcript
        own["audio"] = as_mapping(audio, f"{path}.audio")
    for key in KEPT_LISTS:  # e.g. a search model's url_citation annotations
        kept = m.get(key)
        if kept:
            where = f"{path}.{key}"
            own[key] = freeze_decoded(as_list(kept, where), where)
    reasoning = (reasoning_of(m, path) or "") + thinking
    return text, reasoning, refusal


def _message_calls(
    m: Mapping[str, Any], path: str, seed: str, legacy: int | str, tag: str
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """An assistant message's ``tool_calls``; without any, its deprecated single
    ``function_call`` (one call with a derived id, position ``legacy`` in its seed,
    answered by the next ``role: "function"`` message of that name)."""
    raw = m.get("tool_calls")
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    if raw is not None:
        calls, invalid = read_calls(raw, f"{path}.tool_calls", seed, tag)
    fc = m.get("function_call")
    if not calls and not invalid and fc is not None:
        call = read_legacy_call(fc, f"{path}.function_call", seed, legacy)
        if isinstance(call, ToolCall):
            calls.append(call)
        else:
            invalid.append(call)
    return calls, invalid


# -- readers of content ---------------------------------------------------------------------


def _name(m: Mapping[str, Any], path: str) -> str | None:
    name = m.get("name")
    if name is None or type(name) is str:
        return name
    raise DecodeError(f"expected a string, got {json_type(name)}", f"{path}.name")


def _system_text(content: object, path: str, own: dict[str, Any]) -> str:
    """System, developer or function content: a string, or text parts joined (their
    lengths and any keys kept in ``own`` when a part has keys, so they can go back)."""
    if type(content) is str:
        return content
    if content is None:
        raise DecodeError("content is required", path)
    parts = as_list(content, path)
    texts: list[str] = []
    for j, p in enumerate(parts):
        part = as_mapping(p, f"{path}[{j}]")
        kind = part.get("type")
        if kind != "text":
            raise DecodeError(
                f"system and developer content takes text parts only, got {ident(kind)}",
                f"{path}[{j}].type",
            )
        texts.append(req_str(part.get("text"), f"{path}[{j}].text"))
        if len(part) > 2:
            keep_keys(own, j, part, "text")
    if own:
        own["lengths"] = [len(t) for t in texts]
    return "".join(texts)


def content_text(content: object, path: str, own: dict[str, Any]) -> tuple[str, str]:
    """Assistant content: (text, thinking) from a string, null, or parts: text, refusal
    (kept in ``own``) and thinking chunks (Mistral); parts of other types are kept in
    ``own``, as are keys of known parts."""
    if content is None:
        return "", ""
    if type(content) is str:
        return content, ""
    parts = as_list(content, path)
    texts: list[str] = []
    thoughts: list[str] = []
    for j, p in enumerate(parts):
        where = f"{path}[{j}]"
        part = as_mapping(p, where)
        kind = part.get("type")
        if kind == "text":
            texts.append(req_str(part.get("text"), f"{where}.text"))
        elif kind == "refusal":
            own["refusal"] = own.get("refusal", "") + req_str(
                part.get("refusal"), f"{where}.refusal"
            )
        elif kind == "thinking":
            thought = thinking_text(part.get("thinking"))
            if thought is None:
                keep_unknown(own, j, where, part)
                continue
            thoughts.append(thought)
        else:
            keep_unknown(own, j, where, part)
            continue
        if len(part) > 2:
            keep_keys(own, j, part, kind)
    return "".join(texts), "".join(thoughts)


def _user_content(
    content: object, path: str, decoders: Mapping[str, PartDecoder] = EMPTY
) -> tuple[str | tuple[ContentPart, ...], dict[str, Any] | None]:
    """User or tool content: a string or parts (unknown part types and keys of known
    parts kept in the second value; ``decoders`` read the dialect's own part types)."""
    if type(content) is str:
        return content, None
    if content is None:
        raise DecodeError("content is required", path)
    items = as_list(content, path)
    parts: list[ContentPart] = []
    own: dict[str, Any] = {}
    for j, p in enumerate(items):
        raw = as_mapping(p, f"{path}[{j}]")
        part = decode_part(raw, f"{path}[{j}]")
        read: tuple[str, ...] = ()
        if part is None:
            decode = decoders.get(raw["type"]) if decoders else None
            made = None if decode is None else decode(raw, f"{path}[{j}]")
            if made is None:
                keep_unknown(own, j, f"{path}[{j}]", raw)
                continue
            part, read = made
        parts.append(part)
        if len(raw) > 2 + len(read):
            keep_keys(own, j, raw, raw["type"], read)
    return tuple(parts), own or None


def decode_part(p: Mapping[str, Any], path: str) -> ContentPart | None:
    """One chat-completions content part; None for a type this package does not model."""
    kind = p.get("type")
    where = path
    try:
        if kind == "text":
            return TextPart(req_str(p.get("text"), f"{path}.text"))
        if kind == "image_url":
            iu = p.get("image_url")
            detail = None
            if isinstance(iu, Mapping):
                url = req_str(iu.get("url"), f"{path}.image_url.url")
                detail = opt_str(iu.get("detail"), f"{path}.image_url.detail")
            else:
                url = req_str(iu, f"{path}.image_url")
            where = f"{path}.image_url.url"
            if url.startswith("data:"):
                return ImagePart.from_data_url(url, detail)
            return ImagePart(url=url, detail=detail)
        if kind == "input_audio":
            where = f"{path}.input_audio"
            ia = as_mapping(p.get("input_audio"), where)
            return AudioPart(
                req_str(ia.get("data"), f"{where}.data"),
                req_str(ia.get("format"), f"{where}.format"),
            )
        if kind == "file":
            where = f"{path}.file"
            f = as_mapping(p.get("file"), where)
            data = opt_str(f.get("file_data"), f"{where}.file_data")
            media_type = None
            if data is not None and data.startswith("data:"):
                media_type, data = parse_data_url(data, f"{where}.file_data")
            return FilePart(
                data,
                opt_str(f.get("file_id"), f"{where}.file_id"),
                opt_str(f.get("filename"), f"{where}.filename"),
                media_type,
            )
    except ValidationError as exc:
        raise DecodeError(exc.message, exc.path if exc.path.startswith(path) else where) from None
    if not isinstance(kind, str):
        raise DecodeError("content part type is required (a string)", f"{path}.type")
    return None


def reasoning_of(m: Mapping[str, Any], path: str) -> str | None:
    """``reasoning`` (current vLLM, Groq), else legacy ``reasoning_content``; never both."""
    r = m.get("reasoning")
    if r is None:
        r = m.get("reasoning_content")
        if r is None:
            return None
        key = "reasoning_content"
    else:
        key = "reasoning"
    if type(r) is not str:
        raise DecodeError(f"expected a string, got {json_type(r)}", f"{path}.{key}")
    return r or None
