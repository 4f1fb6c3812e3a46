"""The OpenAI chat-completions wire format, shared by the openai, groq and vllm presets.

A preset is a :class:`ChatCompletionsProvider` subclass that sets capability flags
(developer role, reasoning field, audio and file input, OpenAI strict tools). This
module also holds the pieces the Ollama format shares: the reasoning replay rule,
the ``Error:`` prefix for tool errors, derived tool-call ids, pairing of tool
results that carry no id, and fast construction of stream deltas.

Rules (also in the README's table): what a preset cannot carry is converted or
dropped, and every such case is a :class:`Loss`; ``name``, ``metadata`` and
``extras`` of a message are never sent; paths in losses name positions in the
canonical message list (``messages[3].content[1]``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from .. import _build
from .._build import message, tool_call, tool_call_message
from .._fields import _NAME_RE
from .._frozen import EMPTY, FrozenDict, freeze, thaw
from .._ids import DERIVED_ID_PREFIX, derive_call_id
from .._json import loads
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
from .._parts import (
    AudioPart,
    ContentPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    TextPart,
    parse_data_url,
)
from .._repair import UNANSWERED_TEXT
from .._role import MessageRole
from .._streaming import ToolCallAccumulator, ToolCallDelta
from .._tool_call import InvalidToolCall, ToolCall
from ..errors import DecodeError, MessageError, ValidationError
from . import PROVIDERS
from ._base import (
    GUARDED_ERRORS,
    ChatResponse,
    Conversion,
    CountingStream,
    FinishReason,
    Loss,
    Losses,
    LossWarning,
    Provider,
    StreamAccumulator,
    StreamDelta,
    Usage,
    as_list,
    as_mapping,
    foreign_state_losses,
    format_error,
    guard_error,
    guarded,
    is_derived_id,
    kept_unknown,
    make_response,
    make_usage,
    opt_int,
    opt_str,
    raw_json_text,
    request_messages,
    unique_calls,
)

if TYPE_CHECKING:
    from .._tool_definition import ToolDefinition

__all__ = [
    "DERIVED_ID_PREFIX",
    "args_path",
    "PLAIN_REASONING_PROVIDERS",
    "ChatCompletionsProvider",
    "ChatCompletionsStream",
    "ToolPairing",
    "error_prefixed",
    "guarded",
    "is_derived_id",
    "new_response",
    "new_usage",
    "own_extras",
    "openai_strict_schema",
    "read_error",
    "reasoning_to_send",
    "respond",
    "stream_delta",
    "tool_call_delta",
    "tool_name_ok",
]


_SYSTEM = MessageRole.SYSTEM
_DEVELOPER = MessageRole.DEVELOPER
_USER = MessageRole.USER
_ASSISTANT = MessageRole.ASSISTANT
_TOOL = MessageRole.TOOL


#: Providers whose reasoning is plain model text with no opaque state: their
#: reasoning (and reasoning with no provider) may be replayed as text to a
#: provider that takes reasoning text. Anthropic and Gemini reasoning is tied to
#: their signatures and is never replayed elsewhere.
PLAIN_REASONING_PROVIDERS: Final = frozenset(("openai", "groq", "vllm", "ollama"))

_FINISH: Final = {
    "stop": FinishReason.STOP,
    "length": FinishReason.LENGTH,
    "tool_calls": FinishReason.TOOL_CALLS,
    "function_call": FinishReason.TOOL_CALLS,
    "content_filter": FinishReason.CONTENT_FILTER,
}

_NO_DELTAS: tuple[StreamDelta, ...] = ()


# -- stream deltas (built from checked values, see _build) ----------------------------


def stream_delta(kind: str, text: str) -> StreamDelta:
    """A text or reasoning StreamDelta from a checked str (no validation)."""
    return _build.stream_delta(StreamDelta, kind, text, None)


def tool_call_delta(index: int, id: str | None, name: str | None, args: str | None) -> StreamDelta:
    """A tool-call StreamDelta from checked values (no validation)."""
    delta = _build.tool_call_delta(ToolCallDelta, index, id, name, args)
    return _build.stream_delta(StreamDelta, "tool_call", "", delta)


# -- rules shared with Ollama ---------------------------------------------------------


def reasoning_to_send(
    provider: str,
    field: str | None,
    content: Sequence[ContentPart],
    index: int,
    losses: Losses,
) -> str:
    """The reasoning text a provider may receive for one assistant message.

    ``field`` is the wire key that carries reasoning text (None: the provider takes
    none). Signed or redacted reasoning is never sent (signatures go back only to
    the provider that made them, and these wires have no place for them); plain
    text from a provider outside PLAIN_REASONING_PROVIDERS is dropped too. Every
    part not sent is a loss.
    """
    texts: list[str] = []
    for j, p in enumerate(content):
        if type(p) is not ReasoningPart and not isinstance(p, ReasoningPart):
            continue
        path = f"messages[{index}].content[{j}]"
        source = p.provider or "an unnamed provider"
        if field is None:
            losses.add(path, "reasoning", f"dropped: {provider} takes no reasoning in requests")
        elif p.redacted or p.signature is not None:
            losses.add(
                path,
                f"signed reasoning from {source}",
                f"dropped: signatures are replayed only to {source}; {provider} has no place for them",
            )
        elif (
            p.provider is not None
            and p.provider != provider
            and p.provider not in PLAIN_REASONING_PROVIDERS
        ):
            losses.add(
                path,
                f"reasoning from {source}",
                f"dropped: only plain reasoning from {', '.join(sorted(PLAIN_REASONING_PROVIDERS))} "
                "is replayed to another provider",
            )
        else:
            texts.append(p.text)
    return "".join(texts)


_TOOL_NAME_RULE: Final = "dropped: tool messages carry no name (the call is named by its id)"
_ERROR_PREFIX: Final = "Error: "


def error_prefixed(text: str) -> str:
    """``text`` marked as a failure: ``"Error: "`` in front unless it already starts so."""
    if text[:5].lower() == "error":
        return text
    return _ERROR_PREFIX + text


_IS_ERROR_RULE: Final = (
    "the wire has no error flag: the text is sent, prefixed 'Error: ' unless it already starts so"
)


#: Keys of ``extras`` that hold one provider's opaque state.
_PROVIDER_KEYS: Final = frozenset((*PROVIDERS, "openai_responses"))


def own_extras(m: Message, provider: str, index: int, losses: Losses) -> Mapping[str, Any]:
    """``m.extras[provider]`` (this provider's kept state); another provider's kept
    blocks and refusal are losses: they are only ever re-sent to that provider."""
    extras = m.extras
    if not extras:
        return EMPTY
    own: Mapping[str, Any] = EMPTY
    for key, value in extras.items():
        if not isinstance(value, Mapping):
            continue
        if key == provider:
            own = value
        elif key in _PROVIDER_KEYS:
            foreign_state_losses(key, value, f"messages[{index}]", losses)
    return own


def call_state_losses(calls: Sequence[ToolCall], provider: str, index: int, losses: Losses) -> None:
    """A loss for each call carrying another provider's opaque state (e.g. a signature)."""
    for j, c in enumerate(calls):
        if c.extras:
            for key in c.extras:
                if key != provider:
                    losses.add(
                        f"messages[{index}].tool_calls[{j}]",
                        f"opaque state from {key} on a tool call",
                        f"dropped: only re-sent to {key}",
                    )


def reinsert_unknown(parts: list[dict[str, Any]], own: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Put this provider's kept unknown parts back at their original index."""
    items = [
        item for item in kept_unknown(own) if type(item.get("index")) is int and "value" in item
    ]
    for item in sorted(items, key=lambda it: int(it["index"])):
        parts.insert(min(item["index"], len(parts)), thaw(item["value"]))
    return parts


class ToolPairing:
    """Pairs tool results that carry no call id with calls, by tool name and order.

    Used when importing conversations (Ollama's documented shape has no ids):
    each assistant turn opens its calls; a result with an id answers that id, a
    result without one takes the first open call with its ``tool_name`` (or the
    first open call when it names none). A result that matches nothing gets an id
    derived from its position, so it stays an orphan that ``repair`` can see.
    """

    __slots__ = ("_open",)

    def __init__(self) -> None:
        self._open: list[tuple[str, str]] = []

    def open(self, calls: Sequence[ToolCall]) -> None:
        """An assistant turn made these calls."""
        self._open = [(c.id, c.name) for c in calls]

    def answer(self, call_id: str | None, tool_name: str | None, index: int) -> str:
        """The id a tool result at ``index`` answers."""
        pending = self._open
        if call_id:
            for k, (cid, _) in enumerate(pending):
                if cid == call_id:
                    del pending[k]
                    break
            return call_id
        for k, (cid, name) in enumerate(pending):
            if tool_name is None or name == tool_name:
                del pending[k]
                return cid
        return derive_call_id(DERIVED_ID_PREFIX, "orphan", index, tool_name or "")


def read_error(value: object, path: str) -> tuple[str, FrozenDict]:
    """A provider error (a string or an object) as (message, details)."""
    if isinstance(value, str):
        return value or "error", FrozenDict({"message": value})
    err = as_mapping(value, path)
    try:
        details = freeze(dict(err), path)
    except ValidationError as exc:
        raise DecodeError(exc.message, exc.path or path) from None
    for key in ("message", "code", "type"):
        v = err.get(key)
        if isinstance(v, str) and v:
            return v, details
    return "error", details


def respond(
    text: str,
    reasoning: str | None,
    provider: str,
    calls: Sequence[ToolCall],
    usage: Usage | None,
    extras: dict[str, Any] | None,
    error: FrozenDict | None = None,
    invalid: Sequence[InvalidToolCall] = (),
) -> AssistantMessage:
    """The assistant message of a response, with ``metadata["usage"]`` (and ``["error"]``).

    The same message ``build_assistant`` makes (reasoning first, then text; a
    ToolCallMessage with content None when it has neither), built from values
    already checked. hot path: the validated constructors and freezing of the
    metadata cost ~1.8 us of a ~3 us response parse.
    """
    meta = EMPTY
    if usage is not None:
        meta = FrozenDict({"usage": FrozenDict(usage.to_dict())})
    if error is not None:
        meta = FrozenDict({**meta, "error": error})
    ext = EMPTY if not extras else _freeze_extras(extras)
    content: str | tuple[ContentPart, ...] | None = text
    if reasoning:
        content = (
            (ReasoningPart(reasoning, provider=provider), TextPart(text))
            if text
            else (ReasoningPart(reasoning, provider=provider),)
        )
    if calls or invalid:
        return tool_call_message(
            ToolCallMessage,
            tuple(calls),
            content if content != "" else None,
            tuple(invalid),
            None,
            meta,
            ext,
        )
    return message(AssistantMessage, content, None, meta, ext)


def _freeze_extras(extras: Mapping[str, Any]) -> FrozenDict:
    try:
        frozen: FrozenDict = freeze(extras, "extras")
    except ValidationError as exc:
        raise DecodeError(exc.message, exc.path) from None
    return frozen


#: The trusted fast builders of ``_base`` under the names this module has always exported.
new_usage = make_usage
new_response = make_response


_DONE: object = "[DONE]"
_UNANSWERED: Final = error_prefixed(UNANSWERED_TEXT)


def _says_error(block: Mapping[str, Any]) -> bool:
    """True if a tool message's first block is text that already says it is an error."""
    text = block.get("text") if block.get("type") == "text" else None
    return type(text) is str and text.lower().startswith("error")


def check_unique_ids(calls: Sequence[ToolCall], path: str) -> None:
    """DecodeError naming the second call that repeats an id."""
    n = len(calls)
    if n == 2 and calls[0].id != calls[1].id:  # hot path: the usual parallel pair, no set
        return
    if n > 1:
        seen: set[str] = set()
        for j, c in enumerate(calls):
            if c.id in seen:
                raise DecodeError("duplicate tool call id", f"{path}[{j}].id")
            seen.add(c.id)


def parse_arguments(raw: str, where: str | Callable[[], str]) -> FrozenDict:
    """Tool arguments from a JSON string (blank means ``{}``); DecodeError otherwise.

    ``where`` may be a function giving the path, so the success path builds no string.
    """
    frozen = object_text(raw)  # hot path: the C scanner directly (see _part_codec)
    if frozen is not None:
        return frozen
    if not raw or raw.isspace():
        return EMPTY
    try:
        value = loads(raw)
        if type(value) is not dict:
            raise DecodeError("arguments are not a JSON object")
        frozen = cast("FrozenDict", freeze(value))
    except MessageError as exc:
        raise DecodeError(exc.message, where if isinstance(where, str) else where()) from None
    return frozen


def freeze_arguments(value: Mapping[str, Any], where: str | Callable[[], str]) -> FrozenDict:
    """Tool arguments given as an object, frozen; DecodeError when not JSON.

    ``where`` may be a function giving the path, so the success path builds no string.
    """
    try:
        frozen: FrozenDict = freeze(value)
    except ValidationError as exc:
        prefix = where if isinstance(where, str) else where()
        raise DecodeError(exc.message, exc.at(prefix).path) from None
    return frozen


# -- OpenAI strict tool schemas -------------------------------------------------------

_SCHEMA_MAPS: Final = frozenset(("properties", "$defs", "definitions", "patternProperties"))
_SCHEMA_LISTS: Final = frozenset(("anyOf", "oneOf", "allOf", "prefixItems"))
_SCHEMA_ONE: Final = frozenset(("items", "not", "additionalItems", "contains"))


def openai_strict_schema(schema: Any) -> Any:
    """``schema`` rewritten for OpenAI strict mode (a new value; the input is not changed).

    Every object with ``properties`` gets ``additionalProperties: false`` and lists
    all its properties in ``required``; a property that was optional becomes
    nullable (``"type": [t, "null"]``, ``null`` added to an ``enum``, or
    ``anyOf: [schema, {"type": "null"}]``), so the model sends ``null`` for "absent".
    """
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {k: openai_strict_schema(v) for k, v in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, (list, tuple)):
            out[key] = [openai_strict_schema(v) for v in value]
        elif key in _SCHEMA_ONE:
            out[key] = openai_strict_schema(value)
        elif isinstance(value, (Mapping, list, tuple)):
            out[key] = _plain(value)
        else:
            out[key] = value
    props = out.get("properties")
    if isinstance(props, dict) and (out.get("type") in (None, "object") or "properties" in schema):
        required = schema.get("required")
        needed = set(required) if isinstance(required, (list, tuple)) else set()
        out["properties"] = {k: v if k in needed else _nullable(v) for k, v in props.items()}
        out["required"] = list(props)
        out["additionalProperties"] = False
    elif out.get("type") == "object":
        out["additionalProperties"] = False
    return out


_SCHEMA_WORDS: Final = frozenset(("type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"))


def strict_expressible(schema: Any, depth: int = 0) -> bool:
    """False when OpenAI strict mode cannot express ``schema`` without changing it.

    Strict mode closes every object and needs every value typed, so a map (an
    object whose ``additionalProperties`` is a schema or true, or an object
    without ``properties``) and an untyped schema (``{}``, from ``Any``) cannot
    be sent strict.
    """
    if not isinstance(schema, Mapping) or depth > 64:
        return True
    if not any(word in schema for word in _SCHEMA_WORDS):
        return False  # {} or only annotations: any value
    extra = schema.get("additionalProperties")
    if extra is True or isinstance(extra, Mapping):
        return False
    if schema.get("type") == "object" and not schema.get("properties") and extra is not False:
        return False
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            subs: Any = value.values()
        elif key in _SCHEMA_LISTS and isinstance(value, (list, tuple)):
            subs = value
        elif key in _SCHEMA_ONE:
            subs = (value,)
        else:
            continue
        if not all(strict_expressible(v, depth + 1) for v in subs):
            return False
    return True


def _nullable(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    t = schema.get("type")
    out = dict(schema)
    if isinstance(t, str):
        if t != "null":
            out["type"] = [t, "null"]
    elif isinstance(t, list):
        if "null" not in t:
            out["type"] = [*t, "null"]
    else:
        any_of = schema.get("anyOf")
        if isinstance(any_of, list):
            if {"type": "null"} not in any_of:
                out["anyOf"] = [*any_of, {"type": "null"}]
            return out
        return {"anyOf": [schema, {"type": "null"}]}
    enum = out.get("enum")
    if isinstance(enum, list) and None not in enum:
        out["enum"] = [*enum, None]
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def function_tools(
    tools: Sequence[ToolDefinition], openai_strict: bool, losses: Losses | None = None
) -> list[dict[str, Any]]:
    """Tools in the ``{"type": "function", "function": {...}}`` shape.

    ``openai_strict``: a strict definition also gets ``"strict": true`` and the
    strict-mode schema rules (see :func:`openai_strict_schema`), unless its schema
    has what strict mode cannot express (a map: an object whose
    ``additionalProperties`` is a schema, an object without properties, or a
    schema without a type, such as ``Any``): closing it would change what the
    model may send, so it goes with ``"strict": false``, a loss in ``losses``.
    Elsewhere a strict definition is sent with its closed schema and no ``strict`` key.
    """
    out: list[dict[str, Any]] = []
    for k, tool in enumerate(tools):
        try:
            params = tool.wire_parameters()
            fn: dict[str, Any] = {
                "name": tool.name,
                "description": tool.description,
                "parameters": params,
            }
            if openai_strict and tool.strict:
                if strict_expressible(params):
                    fn["parameters"] = openai_strict_schema(params)
                    fn["strict"] = True
                else:
                    fn["strict"] = False
                    if losses is not None:
                        losses.add(
                            f"tools[{k}]",
                            "strict mode for a schema with open objects or untyped values",
                            "sent with strict false: OpenAI strict mode closes every object",
                        )
        except AttributeError:
            raise ValidationError(
                f"expected a ToolDefinition, got {type(tool).__name__}", f"tools[{k}]"
            ) from None
        out.append({"type": "function", "function": fn})
    return out


@guarded()
def parse_function_tools(body_or_list: object, read_strict: bool) -> list[ToolDefinition]:
    """ToolDefinitions from ``{"type": "function", "function": {...}}`` entries.

    ``read_strict``: a ``strict: true`` entry gives a strict definition (else every
    definition is ``strict=False``, its schema kept as written).
    """
    from .._tool_definition import ToolDefinition

    if isinstance(body_or_list, Mapping):
        prefix = "tools"
        raw: Any = body_or_list.get("tools")
        if raw is None:
            return []
    else:
        prefix = ""
        raw = body_or_list
    out: list[ToolDefinition] = []
    for i, item in enumerate(as_list(raw, prefix)):
        path = f"{prefix}[{i}]"
        entry = as_mapping(item, path)
        fn = entry.get("function")
        if entry.get("type", "function") != "function" or fn is None:
            continue  # a custom tool or another kind: not a function
        fn = as_mapping(fn, f"{path}.function")
        name = _req_str(fn.get("name"), f"{path}.function.name")
        description = opt_str(fn.get("description"), f"{path}.function.description") or name
        params = fn.get("parameters")
        if params is None:
            params = {"type": "object", "properties": {}}
        strict = read_strict and fn.get("strict") is True
        try:
            out.append(ToolDefinition(name, description, params, strict=strict))
        except ValidationError as exc:
            raise DecodeError(exc.message, exc.at(f"{path}.function").path) from None
    return out


# -- the chat-completions provider ----------------------------------------------------


class ChatCompletionsProvider(Provider):
    """OpenAI chat completions; presets set the capability flags below."""

    name = "openai"
    #: Sends ``developer`` messages as such (else as ``system``, a loss).
    developer_role: bool = True
    #: Key carrying plain reasoning text on assistant messages (None: not sent).
    reasoning_field: str | None = None
    #: Accepts ``input_audio`` parts.
    audio_input: bool = True
    #: Accepts ``file`` parts.
    file_input: bool = True
    #: Sends ``strict`` tool definitions with OpenAI's strict-mode schema rules.
    strict_tools: bool = True
    #: Rejects a request whose tool calls and tool messages do not pair up: a
    #: call left without a result before the next user or assistant message (or
    #: at the end, when its turn has other results) gets an error result, a result
    #: that answers no call is dropped (each a Loss); a last turn with no result at
    #: all is left pending. Off for servers that take any sequence (vLLM).
    pairs_tool_results: bool = True

    def stream(self) -> StreamAccumulator:
        """A fresh accumulator for one streamed response."""
        return ChatCompletionsStream(self.name)

    # -- formatting -----------------------------------------------------------------

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The function tools of a request body (or a ``tools`` list); DecodeError when malformed.

        ``parameters`` are kept as given (missing: an object without properties);
        ``strict`` is read where the provider has OpenAI's strict mode. Entries that
        are not function tools (a ``custom`` tool) are skipped.
        """
        return parse_function_tools(body_or_list, self.strict_tools)

    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """The ``tools`` part of a request (each loss warns, as in ``format_request``)."""
        losses = Losses()
        out = function_tools(tools, self.strict_tools, losses)
        for loss in losses.items:
            warnings.warn(LossWarning(f"{self.name}: {loss}"), stacklevel=2)
        return out

    def convert(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> Conversion:
        """Format a request and list every loss instead of warning."""
        try:
            body, losses = self._format(messages, tools)
        except MessageError:
            raise
        except GUARDED_ERRORS as exc:
            raise format_error(exc) from None
        return Conversion(body, tuple(losses))

    def _format(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> tuple[dict[str, Any], list[Loss]]:
        losses = Losses()
        out: list[dict[str, Any]] = []
        moved: list[dict[str, Any]] | None = None
        pairs = self.pairs_tool_results
        # the calls of the last assistant turn still without a result: id -> (i, k)
        # the calls of the last assistant turn, where it is, and the ids answered
        open_calls: Sequence[ToolCall] | None = None
        open_at = 0
        answered: list[str] = []
        # system/developer messages met between a call and its results: sent after
        # the results (the API wants the tool messages right after the call)
        held: list[dict[str, Any]] | None = None
        # hot path: one cast for the loop; no per-message cast() call.
        items: Sequence[Any] = cast("Sequence[Any]", messages)
        for i, m in enumerate(items):
            try:
                role = m.role
            except AttributeError:
                raise ValidationError(
                    f"expected a Message, got {type(m).__name__}", f"messages[{i}]"
                ) from None
            if role is not _TOOL:
                # calls still waiting for results keep what follows them waiting too
                waiting = open_calls is not None and len(answered) < len(open_calls)
                if role is _USER or role is _ASSISTANT:
                    if waiting and open_calls is not None:
                        self._answer_pending(out, open_calls, open_at, answered, losses)
                    open_calls = None
                    waiting = False
                if not waiting:
                    # the results are complete: the media moved out of them, then
                    # the system messages held back, in their order
                    if moved is not None:
                        out.append({"role": "user", "content": moved})
                        moved = None
                    if held is not None:
                        out.extend(held)
                        held = None
            name = m.name
            own = EMPTY if not m.extras else own_extras(m, self.name, i, losses)
            # hot path: the common roles first, exact-type checks before isinstance;
            # string content of users and tool results is written inline (~60 ns a message).
            if role is _USER:
                c = m.content
                if c.__class__ is str:
                    out.append({"role": "user", "content": c})
                else:
                    out.append(self._user(m, i, losses, own))
            elif role is _ASSISTANT:
                c = m.content
                if own is not EMPTY or not (c is None or c.__class__ is str):
                    out.append(self._assistant(m, i, losses, own))
                    if pairs and m.tool_calls:
                        open_calls, open_at, answered = m.tool_calls, i, []
                elif m.__class__ is ToolCallMessage:
                    # hot path: _assistant's usual tool-call turn written out
                    calls = m.tool_calls
                    for tc in calls:
                        if tc.extras:
                            call_state_losses(calls, self.name, i, losses)
                            break
                    wire = [
                        {
                            "id": tc.id,
                            "type": "function",
                            "function": {
                                "name": tc.name,
                                "arguments": tc.arguments_json if tc._raw is None else tc._raw,
                            },
                        }
                        for tc in calls
                    ]
                    out.append({"role": "assistant", "content": c or None, "tool_calls": wire})
                    if pairs:
                        open_calls, open_at, answered = calls, i, []
                elif m.__class__ is AssistantMessage:
                    out.append({"role": "assistant", "content": c})
                else:
                    out.append(self._assistant(m, i, losses, own))
                    if pairs and m.tool_calls:
                        open_calls, open_at, answered = m.tool_calls, i, []
            elif role is _TOOL:
                if pairs:
                    # hot path: a call turn has one or a few calls; no set, no dict
                    cid = m.tool_call_id
                    paired = False
                    if open_calls is not None and cid not in answered:
                        k = len(answered)  # results usually come in the calls' order
                        if k < len(open_calls) and open_calls[k].id == cid:
                            paired = True
                        else:
                            for tc in open_calls:
                                if tc.id == cid:
                                    paired = True
                                    break
                    if not paired:
                        losses.add(
                            f"messages[{i}]",
                            "tool result that answers no open call",
                            f"dropped: {self.name} rejects a tool message without its call",
                        )
                        continue
                    answered.append(cid)
                c = m.content
                if name is not None:
                    losses.add(f"messages[{i}].name", "message name", _TOOL_NAME_RULE)
                if c.__class__ is str and not m.is_error:
                    out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": c})
                    continue
                d, extra = self._tool(m, i, losses, own)
                out.append(d)
                if extra:
                    moved = extra if moved is None else moved + extra
            elif role is _SYSTEM or role is _DEVELOPER:
                if role is _SYSTEM:
                    d = {"role": "system", "content": m.content}  # always a str
                elif self.developer_role:
                    d = {"role": "developer", "content": m.text}
                else:
                    d = {"role": "system", "content": m.text}
                    losses.add(
                        f"messages[{i}]",
                        "developer role",
                        f"sent as a system message: {self.name} has no developer role",
                    )
                if name is not None:
                    d["name"] = name
                if pairs and open_calls is not None and len(answered) < len(open_calls):
                    losses.add(
                        f"messages[{i}]",
                        f"{d['role']} message between a tool call and its results",
                        f"moved after the results: {self.name} wants them right after the call",
                    )
                    held = [d] if held is None else [*held, d]
                else:
                    out.append(d)
                continue
            else:  # pragma: no cover - MessageRole has five members
                raise ValidationError("unsupported role", f"messages[{i}].role")
            if name is not None and role is not _TOOL:
                # chat completions carry a participant name on every role but tool
                out[-1]["name"] = name
        if open_calls is not None and answered and len(answered) < len(open_calls):
            # a last turn with some results: the rest are answered; one with none
            # at all is left pending (a tool may still be running), as repair does
            self._answer_pending(out, open_calls, open_at, answered, losses)
        if moved is not None:
            out.append({"role": "user", "content": moved})
        if held is not None:
            out.extend(held)
        body: dict[str, Any] = {"messages": out}
        if tools:
            body["tools"] = function_tools(tools, self.strict_tools, losses)
        return body, losses.items

    def _answer_pending(
        self,
        out: list[dict[str, Any]],
        calls: Sequence[ToolCall],
        i: int,
        answered: list[str],
        losses: Losses,
    ) -> None:
        """An error result for each call left unanswered (the API rejects the request else)."""
        for k, call in enumerate(calls):
            if call.id in answered:
                continue
            out.append({"role": "tool", "tool_call_id": call.id, "content": _UNANSWERED})
            losses.add(
                f"messages[{i}].tool_calls[{k}]",
                "unanswered tool call",
                f"answered with an error result: {self.name} requires a result for every call",
            )

    def _user(
        self, m: UserMessage, i: int, losses: Losses, own: Mapping[str, Any]
    ) -> dict[str, Any]:
        c = m.content
        if isinstance(c, str):
            return {"role": "user", "content": c}
        parts: list[dict[str, Any]] = []
        for j, p in enumerate(c):
            enc = self._part(p, i, j, losses)
            if enc is not None:
                parts.append(enc)
        if own:
            reinsert_unknown(parts, own)
        # An empty parts array is rejected by the API; "" says the same thing.
        return {"role": "user", "content": parts or ""}

    def _part(self, p: ContentPart, i: int, j: int, losses: Losses) -> dict[str, Any] | None:
        t = type(p)
        if t is TextPart:
            return {"type": "text", "text": cast("TextPart", p).text}
        if t is ImagePart or isinstance(p, ImagePart):
            img = cast("ImagePart", p)
            url: dict[str, Any] = {"url": img.data_url}
            if img.detail is not None:
                url["detail"] = img.detail
            return {"type": "image_url", "image_url": url}
        if isinstance(p, TextPart):
            return {"type": "text", "text": p.text}
        if isinstance(p, AudioPart):
            if self.audio_input:
                return {"type": "input_audio", "input_audio": {"data": p.data, "format": p.format}}
            losses.add(
                f"messages[{i}].content[{j}]",
                "audio part",
                f"dropped: {self.name} chat messages take no audio input",
            )
            return None
        if isinstance(p, FilePart):
            if self.file_input:
                f: dict[str, Any] = {}
                if p.data is not None:
                    f["file_data"] = (
                        f"data:{p.media_type};base64,{p.data}" if p.media_type else p.data
                    )
                if p.file_id:
                    f["file_id"] = p.file_id
                if p.filename:
                    f["filename"] = p.filename
                return {"type": "file", "file": f}
            losses.add(
                f"messages[{i}].content[{j}]",
                "file part",
                f"dropped: {self.name} chat messages take no file input",
            )
            return None
        losses.add(
            f"messages[{i}].content[{j}]",
            f"{t.__name__} in a user or tool message",
            "dropped: not a content part this wire carries",
        )
        return None

    def _assistant(
        self, m: AssistantMessage, i: int, losses: Losses, own: Mapping[str, Any]
    ) -> dict[str, Any]:
        c = m.content
        calls = m.tool_calls
        if isinstance(c, str):
            text = c
        elif not c:
            text = ""
        else:
            text = "".join([p.text for p in c if type(p) is TextPart or isinstance(p, TextPart)])
        d: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
        if c and not isinstance(c, str):
            reasoning = reasoning_to_send(self.name, self.reasoning_field, c, i, losses)
            if reasoning and self.reasoning_field is not None:
                d[self.reasoning_field] = reasoning
        if own:
            if isinstance(own.get("refusal"), str):
                d["refusal"] = own["refusal"]
            audio = own.get("audio")
            if isinstance(audio, Mapping) and isinstance(audio.get("id"), str):
                # a previous audio answer is referred to by its id (no content needed)
                d["audio"] = {"id": audio["id"]}
                if d["content"] == "":
                    del d["content"]
            for item in kept_unknown(own):
                kind = item.get("type")
                losses.add(
                    f"messages[{i}]",
                    f"{self.name} {kind or 'unknown'} block",
                    "dropped: assistant content is sent as one string",
                )
        if calls:
            call_state_losses(calls, self.name, i, losses)
            d["tool_calls"] = [
                {
                    "id": tc.id,
                    "type": "function",
                    "function": {"name": tc.name, "arguments": tc.arguments_json},
                }
                for tc in calls
            ]
        return d

    def _tool(
        self, m: ToolResultMessage, i: int, losses: Losses, own: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
        c = m.content
        moved: list[dict[str, Any]] | None = None
        content: str | list[dict[str, Any]]
        if isinstance(c, str):
            content = c
        else:
            texts: list[dict[str, Any]] = []
            for j, p in enumerate(c):
                if type(p) is TextPart or isinstance(p, TextPart):
                    texts.append({"type": "text", "text": p.text})
                    continue
                if moved is None:
                    moved = [{"type": "text", "text": f"[content of tool result {m.tool_call_id}]"}]
                losses.add(
                    f"messages[{i}].content[{j}]",
                    f"{type(p).__name__} in a tool result",
                    "moved to a user message after the tool results: tool messages carry text only",
                )
                enc = self._part(p, i, j, losses)
                if enc is not None:
                    moved.append(enc)
            if not texts and moved is not None:
                texts.append(
                    {"type": "text", "text": "[non-text content follows in a user message]"}
                )
            if own:
                reinsert_unknown(texts, own)
            content = texts or ""
        if m.is_error:
            losses.add(f"messages[{i}].is_error", "is_error flag", _IS_ERROR_RULE)
            if isinstance(content, str):
                content = error_prefixed(content)
            elif not content or not _says_error(content[0]):
                content = [{"type": "text", "text": _ERROR_PREFIX}, *content]
        d = {"role": "tool", "tool_call_id": m.tool_call_id, "content": content}
        return d, moved

    # -- parsing responses --------------------------------------------------------------

    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a non-streaming response body (or an error body: finish_reason ERROR)."""
        # hot path: the guard decorator written out (~90 ns less per parse)
        try:
            return self._parse_response(body)
        except DecodeError:
            raise
        except GUARDED_ERRORS as exc:
            raise guard_error(exc) from None

    def _parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        # hot path: exact-class checks first (x.__class__, ~15 ns less than type(x));
        # error paths are string constants.
        b = body if body.__class__ is dict else as_mapping(body, "")
        model = b.get("model")
        if model is not None and model.__class__ is not str:
            model = opt_str(model, "model")
        choices = b.get("choices")
        if choices.__class__ is not list or not choices:
            if choices is None and (b.get("error") is not None or b.get("object") == "error"):
                # {"error": {...}}, or vLLM's flat {"object": "error", "message": ...}
                err = b.get("error")
                text, details = read_error(b, "") if err is None else read_error(err, "error")
                message = respond("", None, self.name, (), None, None, details)
                return ChatResponse(message, FinishReason.ERROR, None, model, error=text)
            if not as_list(choices, "choices"):
                raise DecodeError("no choices: the response carries no message", "choices")
        resp_id = b.get("id")
        if resp_id is not None and resp_id.__class__ is not str:
            resp_id = opt_str(resp_id, "id")
        ch = choices[0]  # type: ignore[index]
        if ch.__class__ is not dict:
            ch = as_mapping(ch, "choices[0]")
        msg = ch.get("message")
        if msg.__class__ is not dict:
            msg = as_mapping(msg, "choices[0].message")
        own: dict[str, Any] = {}
        text = msg.get("content")
        if text is None:
            text = ""
        elif text.__class__ is not str:
            text = _content_text(text, "choices[0].message.content", own)
        refusal = msg.get("refusal")
        if refusal:
            own["refusal"] = opt_str(refusal, "choices[0].message.refusal")
        else:
            if refusal is not None:
                opt_str(refusal, "choices[0].message.refusal")
            refusal = own.get("refusal")
        audio = msg.get("audio")
        if audio is not None:  # an audio answer (id, data, expires_at, transcript)
            own["audio"] = as_mapping(audio, "choices[0].message.audio")
        # hot path: most responses carry neither reasoning key
        if msg.get("reasoning") is None and msg.get("reasoning_content") is None:
            reasoning = None
        else:
            reasoning = _reasoning_of(msg, "choices[0].message")
        raw_calls = msg.get("tool_calls")
        if raw_calls:
            calls, invalid = _calls(
                raw_calls, "choices[0].message.tool_calls", resp_id or model or ""
            )
        elif "function_call" in msg and msg["function_call"] is not None:
            # The deprecated single ``function_call`` (finish_reason "function_call").
            calls, invalid = _legacy_call(
                msg["function_call"], "choices[0].message.function_call", resp_id or model or ""
            )
        else:
            calls, invalid = _calls(raw_calls, "choices[0].message.tool_calls", "")
        raw_finish = ch.get("finish_reason")
        if raw_finish is None:
            finish = FinishReason.TOOL_CALLS if calls or invalid else FinishReason.STOP
        else:
            if raw_finish.__class__ is not str:
                opt_str(raw_finish, "choices[0].finish_reason")
            finish = _FINISH.get(raw_finish, FinishReason.OTHER)
        usage = chat_usage(b.get("usage"), "usage")
        message = respond(
            text,
            reasoning,
            self.name,
            calls,
            usage,
            {self.name: own} if own else None,
            None,
            invalid,
        )
        response: ChatResponse = new_response(
            message, finish, usage, model, invalid, raw_finish, refusal, resp_id, None
        )
        return response

    # -- parsing requests -------------------------------------------------------------

    @guarded()
    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as a chat-completions request (or its ``messages``)."""
        items, prefix = request_messages(body_or_list)
        pairing = ToolPairing()
        out: list[Message] = []
        for i, raw in enumerate(items):
            path = f"{prefix}[{i}]"
            m = as_mapping(raw, path)
            role = m.get("role")
            if not isinstance(role, str):
                raise DecodeError("role is required (a string)", f"{path}.role")
            decoder = _DECODERS.get(role)
            if decoder is None:
                raise DecodeError(
                    "unsupported role; expected system, developer, user, assistant, tool"
                    " or function",
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
        return cls(_system_text(m.get("content"), f"{path}.content"), name=_name(m, path))

    def _decode_user(
        self, m: Mapping[str, Any], path: str, i: int, pairing: ToolPairing
    ) -> Message:
        content, own = _user_content(m.get("content"), f"{path}.content")
        extras = {self.name: own} if own else None
        return UserMessage(content, name=_name(m, path), extras=extras)

    def _decode_assistant(
        self, m: Mapping[str, Any], path: str, i: int, pairing: ToolPairing
    ) -> Message:
        own: dict[str, Any] = {}
        text = _content_text(m.get("content"), f"{path}.content", own)
        refusal = opt_str(m.get("refusal"), f"{path}.refusal")
        if refusal:
            own["refusal"] = refusal
        audio = m.get("audio")
        if audio is not None:  # a previous audio answer, referred to by its id
            own["audio"] = as_mapping(audio, f"{path}.audio")
        reasoning = _reasoning_of(m, path)
        calls = _request_calls(m.get("tool_calls"), f"{path}.tool_calls", i)
        legacy = m.get("function_call")
        if not calls and legacy is not None:
            # The deprecated single ``function_call``: one call with a derived id,
            # answered by the next ``role: "function"`` message of that name.
            calls = (_request_legacy_call(legacy, f"{path}.function_call", i),)
        parts: list[ContentPart] = []
        if reasoning:
            parts.append(ReasoningPart(reasoning, provider=self.name))
        if text:
            parts.append(TextPart(text))
        name = _name(m, path)
        ext = {self.name: own} if own else None
        if calls:
            pairing.open(calls)
            return ToolCallMessage(calls, parts or None, name=name, extras=ext)
        return AssistantMessage(parts if reasoning else text, name=name, extras=ext)

    def _decode_tool(
        self, m: Mapping[str, Any], path: str, i: int, pairing: ToolPairing
    ) -> Message:
        call_id = opt_str(m.get("tool_call_id"), f"{path}.tool_call_id")
        content, own = _user_content(m.get("content"), f"{path}.content")
        extras = {self.name: own} if own else None
        return ToolResultMessage(
            pairing.answer(call_id, None, i), content, name=_name(m, path), extras=extras
        )

    def _decode_function(
        self, m: Mapping[str, Any], path: str, i: int, pairing: ToolPairing
    ) -> Message:
        # The deprecated ``role: "function"`` result: it names the function, not a call id.
        name = _req_str(m.get("name"), f"{path}.name")
        content = m.get("content")
        text = "" if content is None else _system_text(content, f"{path}.content")
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


def _name(m: Mapping[str, Any], path: str) -> str | None:
    name = m.get("name")
    if name is None or type(name) is str:
        return name
    raise DecodeError(f"expected a string, got {type(name).__name__}", f"{path}.name")


def _system_text(content: object, path: str) -> str:
    if type(content) is str:
        return content
    if content is None:
        raise DecodeError("content is required", path)
    parts = as_list(content, path)
    texts: list[str] = []
    for j, p in enumerate(parts):
        part = as_mapping(p, f"{path}[{j}]")
        if part.get("type") != "text":
            raise DecodeError(
                "system and developer content takes text parts only", f"{path}[{j}].type"
            )
        texts.append(_req_str(part.get("text"), f"{path}[{j}].text"))
    return "".join(texts)


def _req_str(value: object, path: str) -> str:
    if type(value) is str:
        return value
    if value is None:
        raise DecodeError("required string is missing", path)
    raise DecodeError(f"expected a string, got {_json_type(value)}", path)


def _json_type(value: object) -> str:
    from .._json import json_type

    return json_type(value)


def _content_text(content: object, path: str, own: dict[str, Any]) -> str:
    """Assistant content: a string, null, or text/refusal parts (others kept in ``own``)."""
    if content is None:
        return ""
    if type(content) is str:
        return content
    parts = as_list(content, path)
    texts: list[str] = []
    for j, p in enumerate(parts):
        part = as_mapping(p, f"{path}[{j}]")
        kind = part.get("type")
        if kind == "text":
            texts.append(_req_str(part.get("text"), f"{path}[{j}].text"))
        elif kind == "refusal":
            own["refusal"] = own.get("refusal", "") + _req_str(
                part.get("refusal"), f"{path}[{j}].refusal"
            )
        else:
            _unknown(own, j, f"{path}[{j}]", part)
    return "".join(texts)


def _unknown(own: dict[str, Any], index: int, path: str, part: Mapping[str, Any]) -> None:
    """Keep a part of a type this package does not model: ``{index, path, type, value}``."""
    kind = part.get("type")
    own.setdefault("unknown", []).append(
        {
            "index": index,
            "path": path,
            "type": kind if isinstance(kind, str) else _json_type(kind),
            "value": part,
        }
    )


def _user_content(
    content: object, path: str
) -> tuple[str | tuple[ContentPart, ...], dict[str, Any] | None]:
    """User or tool content: a string or parts (unknown part types kept in the second value)."""
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
        if part is None:
            _unknown(own, j, f"{path}[{j}]", raw)
        else:
            parts.append(part)
    return tuple(parts), own or None


def decode_part(p: Mapping[str, Any], path: str) -> ContentPart | None:
    """One chat-completions content part; None for a type this package does not model."""
    kind = p.get("type")
    where = path
    try:
        if kind == "text":
            return TextPart(_req_str(p.get("text"), f"{path}.text"))
        if kind == "image_url":
            iu = p.get("image_url")
            detail = None
            if isinstance(iu, Mapping):
                url = _req_str(iu.get("url"), f"{path}.image_url.url")
                detail = opt_str(iu.get("detail"), f"{path}.image_url.detail")
            else:
                url = _req_str(iu, f"{path}.image_url")
            where = f"{path}.image_url.url"
            if url.startswith("data:"):
                return ImagePart.from_data_url(url, detail)
            return ImagePart(url=url, detail=detail)
        if kind == "input_audio":
            where = f"{path}.input_audio"
            ia = as_mapping(p.get("input_audio"), where)
            return AudioPart(
                _req_str(ia.get("data"), f"{where}.data"),
                _req_str(ia.get("format"), f"{where}.format"),
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


def _reasoning_of(m: Mapping[str, Any], path: str) -> str | None:
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
        raise DecodeError(f"expected a string, got {_json_type(r)}", f"{path}.{key}")
    return r or None


def args_path(path: str, j: int) -> Callable[[], str]:
    """A function giving ``path[j].function.arguments`` (the string is built only on failure)."""
    return lambda: f"{path}[{j}].function.arguments"


# hot path: a set lookup (~30 ns) instead of the name regex (~250 ns) for the few
# tool names an application uses; bounded so that hostile input cannot grow it.
_GOOD_NAMES: set[str] = set()


def tool_name_ok(name: str) -> bool:
    """True when ``name`` is a valid tool name (``^[A-Za-z0-9_-]{1,64}$``)."""
    if name in _GOOD_NAMES:
        return True
    if _NAME_RE.fullmatch(name) is None:
        return False
    if len(_GOOD_NAMES) < 1024:
        _GOOD_NAMES.add(name)
    return True


def _calls(
    raw: object, path: str, seed: str
) -> tuple[tuple[ToolCall, ...], tuple[InvalidToolCall, ...]]:
    """Response tool calls; bad arguments or names go to the invalid list with their path."""
    if raw is None:
        return (), ()
    items = raw if type(raw) is list else as_list(raw, path)
    if not items:
        return (), ()
    # hot path: calls with an id, a known name and arguments that are exactly a JSON
    # object are built inline (~0.2 us less per call). At the first other call the
    # loop below starts over and does the full work, with the same result for these.
    calls: list[ToolCall] = []
    for item in items:
        if item.__class__ is dict:
            fn = item.get("function")
            if fn.__class__ is dict:
                name = fn.get("name")
                call_id = item.get("id")
                args = fn.get("arguments")
                if (
                    name.__class__ is str
                    and name in _GOOD_NAMES
                    and call_id.__class__ is str
                    and call_id
                    and args.__class__ is str
                ):
                    frozen_args = object_text(args)
                    if frozen_args is not None:
                        calls.append(tool_call(ToolCall, call_id, name, frozen_args, EMPTY, args))
                        continue
        break
    else:
        if len(calls) > 1:
            kept, repeated = unique_calls(calls, path)
            return tuple(kept), tuple(repeated)
        return tuple(calls), ()
    calls = []
    invalid: list[InvalidToolCall] = []
    for j, item in enumerate(items):
        tc = item if type(item) is dict else as_mapping(item, f"{path}[{j}]")
        fn = tc.get("function")
        if type(fn) is not dict:
            if fn is None and tc.get("type") == "custom":
                invalid.append(_custom_call(tc, f"{path}[{j}]"))
                continue
            fn = as_mapping(fn, f"{path}[{j}].function")
        name = fn.get("name")
        if type(name) is not str or not name:
            raise DecodeError(
                "tool name is required (a non-empty string)", f"{path}[{j}].function.name"
            )
        call_id = tc.get("id")
        args = fn.get("arguments")
        raw_args = args if type(args) is str else None
        if call_id is None or call_id == "":
            call_id = derive_call_id(DERIVED_ID_PREFIX, seed, j, name, raw_args or "")
        elif type(call_id) is not str:
            raise DecodeError(f"expected a string, got {_json_type(call_id)}", f"{path}[{j}].id")
        if name not in _GOOD_NAMES and not tool_name_ok(name):
            invalid.append(
                InvalidToolCall(
                    call_id, name, raw_args or "", f"{path}[{j}].function.name: invalid tool name"
                )
            )
            continue
        # hot path: arguments that are exactly a JSON object need no path function
        if raw_args is not None:
            frozen_args = object_text(raw_args)
            if frozen_args is not None:
                calls.append(tool_call(ToolCall, call_id, name, frozen_args, EMPTY, raw_args))
                continue
        try:
            if raw_args is not None:
                frozen = parse_arguments(raw_args, args_path(path, j))
            elif args is None:
                frozen = EMPTY
            elif isinstance(args, Mapping):
                frozen = freeze_arguments(args, f"{path}[{j}].function.arguments")
            else:
                raise DecodeError(
                    f"expected a JSON string, got {_json_type(args)}",
                    f"{path}[{j}].function.arguments",
                )
        except DecodeError as exc:
            if raw_args is None and not isinstance(args, Mapping):
                raise
            # arguments that are not a JSON object (text), or an object holding
            # what JSON cannot (NaN from a lenient decoder): an invalid call
            raw = raw_args if raw_args is not None else raw_json_text(args)
            invalid.append(InvalidToolCall(call_id, name, raw, str(exc)))
            continue
        calls.append(tool_call(ToolCall, call_id, name, frozen, EMPTY, raw_args))
    kept, repeated = unique_calls(calls, path)
    return tuple(kept), (*invalid, *repeated)


def _legacy_call(
    raw: object, path: str, seed: str
) -> tuple[tuple[ToolCall, ...], tuple[InvalidToolCall, ...]]:
    """A deprecated ``function_call`` object: one call with a derived id (the wire has none)."""
    fc = as_mapping(raw, path)
    name = fc.get("name")
    if type(name) is not str or not name:
        raise DecodeError("function name is required (a non-empty string)", f"{path}.name")
    args = fc.get("arguments")
    if args is not None and type(args) is not str:
        raise DecodeError(f"expected a JSON string, got {_json_type(args)}", f"{path}.arguments")
    raw_args = args or ""
    call_id = derive_call_id(DERIVED_ID_PREFIX, seed, 0, name, raw_args)
    if not tool_name_ok(name):
        return (), (InvalidToolCall(call_id, name, raw_args, f"{path}.name: invalid tool name"),)
    try:
        frozen = parse_arguments(raw_args, f"{path}.arguments")
    except DecodeError as exc:
        return (), (InvalidToolCall(call_id, name, raw_args, str(exc)),)
    return (tool_call(ToolCall, call_id, name, frozen, EMPTY, args),), ()


def _custom_call(tc: Mapping[str, Any], path: str) -> InvalidToolCall:
    """An OpenAI custom (free-form input) tool call: kept as an invalid call, its input
    intact, since its input is not JSON arguments."""
    custom = as_mapping(tc.get("custom"), f"{path}.custom")
    name = opt_str(custom.get("name"), f"{path}.custom.name")
    text = opt_str(custom.get("input"), f"{path}.custom.input") or ""
    call_id = opt_str(tc.get("id"), f"{path}.id") or derive_call_id(
        DERIVED_ID_PREFIX, "custom", path, name or "", text
    )
    return InvalidToolCall(
        call_id, name, text, f"{path}: a custom tool call has free-form input, not JSON arguments"
    )


def _request_function(fn: Mapping[str, Any], path: str) -> tuple[str, FrozenDict, str | None]:
    """The name, frozen arguments and raw argument text of a stored call's ``function``."""
    name = fn.get("name")
    if type(name) is not str or _NAME_RE.fullmatch(name) is None:
        raise DecodeError(
            "tool name is required and must match ^[A-Za-z0-9_-]{1,64}$", f"{path}.name"
        )
    args = fn.get("arguments")
    where = f"{path}.arguments"
    if type(args) is str:
        return name, parse_arguments(args, where), args
    if args is None:
        return name, EMPTY, None
    if isinstance(args, Mapping):
        return name, freeze_arguments(args, where), None
    raise DecodeError(f"expected a JSON string, got {_json_type(args)}", where)


def _request_legacy_call(raw: object, path: str, index: int) -> ToolCall:
    """The deprecated ``function_call`` of a stored assistant message, with a derived id."""
    name, frozen, raw_args = _request_function(as_mapping(raw, path), path)
    call_id = derive_call_id(
        DERIVED_ID_PREFIX, "request", index, "function_call", name, raw_args or ""
    )
    return tool_call(ToolCall, call_id, name, frozen, EMPTY, raw_args)


def _request_calls(raw: object, path: str, index: int) -> tuple[ToolCall, ...]:
    """Tool calls of a stored conversation: arguments must be valid (DecodeError otherwise)."""
    if raw is None:
        return ()
    items = as_list(raw, path)
    calls: list[ToolCall] = []
    for j, tc in enumerate(items):
        tcm = as_mapping(tc, f"{path}[{j}]")
        fpath = f"{path}[{j}].function"
        name, frozen, raw_args = _request_function(as_mapping(tcm.get("function"), fpath), fpath)
        call_id = tcm.get("id")
        if call_id is None or call_id == "":
            call_id = derive_call_id(DERIVED_ID_PREFIX, "request", index, j, name, raw_args or "")
        elif type(call_id) is not str:
            raise DecodeError(f"expected a string, got {_json_type(call_id)}", f"{path}[{j}].id")
        calls.append(tool_call(ToolCall, call_id, name, frozen, EMPTY, raw_args))
    check_unique_ids(calls, path)
    return tuple(calls)


def chat_usage(raw: object, path: str) -> Usage | None:
    """``prompt_tokens`` / ``completion_tokens`` / ``total_tokens`` (+ cached, reasoning)."""
    if raw is None:
        return None
    u = raw if raw.__class__ is dict else as_mapping(raw, path)
    # hot path: plain non-negative ints pass; anything else goes through opt_int,
    # which builds the error path only then.
    inp = u.get("prompt_tokens")
    if inp.__class__ is not int or inp < 0:
        inp = opt_int(inp, f"{path}.prompt_tokens") or 0
    out = u.get("completion_tokens")
    if out.__class__ is not int or out < 0:
        out = opt_int(out, f"{path}.completion_tokens") or 0
    total = u.get("total_tokens")
    if total.__class__ is not int or total < 0:
        total = opt_int(total, f"{path}.total_tokens")
        if total is None:
            total = inp + out
    cached = reasoning = None
    details = u.get("prompt_tokens_details")
    if details:
        d = (
            details
            if details.__class__ is dict
            else as_mapping(details, f"{path}.prompt_tokens_details")
        )
        cached = d.get("cached_tokens")
        if cached is not None and (cached.__class__ is not int or cached < 0):
            cached = opt_int(cached, f"{path}.prompt_tokens_details.cached_tokens")
    elif details is not None and details.__class__ is not dict:
        as_mapping(details, f"{path}.prompt_tokens_details")
    details = u.get("completion_tokens_details")
    if details:
        d = (
            details
            if details.__class__ is dict
            else as_mapping(details, f"{path}.completion_tokens_details")
        )
        reasoning = d.get("reasoning_tokens")
        if reasoning is not None and (reasoning.__class__ is not int or reasoning < 0):
            reasoning = opt_int(reasoning, f"{path}.completion_tokens_details.reasoning_tokens")
    elif details is not None and details.__class__ is not dict:
        as_mapping(details, f"{path}.completion_tokens_details")
    usage: Usage = new_usage(inp, out, total, cached, None, reasoning)
    return usage


# -- streaming --------------------------------------------------------------------------


class ChatCompletionsStream(CountingStream):
    """Accumulates chat-completion chunks (SSE ``data:`` payloads without ``[DONE]``).

    Tool-call fragments are keyed by ``index``; a fragment whose ``id`` differs
    from the call open at that index starts a new call (some servers send every
    call at index 0). Whole calls in one delta (Groq) and several calls per delta
    work the same way; a deprecated ``delta.function_call`` is one call with a
    derived id. A mid-stream ``{"error": ...}`` object ends with
    finish_reason ERROR and keeps what came before. A stream that ends before any
    ``finish_reason`` (truncated) finishes with what it has: finish_reason ERROR,
    ``error`` saying so, partial tool calls in ``invalid_tool_calls``.
    """

    __slots__ = (
        "_acc",
        "_error",
        "_error_details",
        "_events",
        "_finish",
        "_id",
        "_model",
        "_next",
        "_open",
        "_provider",
        "_reasoning",
        "_refusal",
        "_text",
        "_usage",
        "_vendor_usage",
    )

    def __init__(self, provider: str) -> None:
        self._provider = provider
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._refusal: list[str] = []
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

    @guarded()
    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one chunk; returns the text, reasoning and tool-call deltas it carried."""
        # hot path: exact-type checks first; a path string is built only on failure.
        if type(event) is not dict:
            if event == _DONE:  # the SSE end sentinel, if a caller passes it on
                return _NO_DELTAS
            event = as_mapping(event, "")
        self._events += 1
        # Azure opens with a prompt-filter chunk whose model and id are "".
        if not self._model:
            self._model = opt_str(event.get("model"), "model") or None
            self._id = opt_str(event.get("id"), "id") or None
        out = _NO_DELTAS
        choices = event.get("choices")
        if choices:
            if type(choices) is not list:
                choices = as_list(choices, "choices")
            ch = choices[0]
            if type(ch) is not dict:
                ch = as_mapping(ch, "choices[0]")
            # With n > 1 each chunk carries one choice; only the first answer is read.
            if ch.get("index", 0) != 0:
                return out
            delta = ch.get("delta")
            if delta:
                if type(delta) is not dict:
                    delta = as_mapping(delta, "choices[0].delta")
                out = self._delta(delta)
            fr = ch.get("finish_reason")
            if fr is not None:
                if type(fr) is not str:
                    raise DecodeError(
                        f"expected a string, got {_json_type(fr)}", "choices[0].finish_reason"
                    )
                self._finish = fr
        elif choices is None and "error" in event:
            self._set_error(event["error"], "error")
        elif choices is None and event.get("object") == "error":
            self._set_error(event, "")  # vLLM's flat ErrorResponse
        usage = event.get("usage")
        if usage is not None:
            self._usage = chat_usage(usage, "usage")
        if self.vendor_key is not None:
            vendor = event.get(self.vendor_key)
            if vendor is not None:
                self._vendor(vendor)
        return out

    #: Top-level key of vendor data in a chunk (Groq: ``x_groq``), read by ``_vendor``.
    vendor_key: str | None = None

    def _vendor(self, value: object) -> None:
        """Hook for the vendor data of a chunk."""

    def _set_error(self, value: object, path: str) -> None:
        self._error, self._error_details = read_error(value, path)

    def _delta(self, delta: dict[str, Any]) -> tuple[StreamDelta, ...]:
        out: tuple[StreamDelta, ...] = _NO_DELTAS
        c = delta.get("content")
        if c:
            if type(c) is not str:
                raise DecodeError(
                    f"expected a string, got {_json_type(c)}", "choices[0].delta.content"
                )
            self._text.append(c)
            out = (stream_delta("text", c),)
        r = delta.get("reasoning")
        if r is None:
            r = delta.get("reasoning_content")
        if r:
            if type(r) is not str:
                raise DecodeError(
                    f"expected a string, got {_json_type(r)}", "choices[0].delta.reasoning"
                )
            self._reasoning.append(r)
            out = (*out, stream_delta("reasoning", r))
        tcs = delta.get("tool_calls")
        if tcs:
            out = out + self._tool_deltas(tcs)
        elif "function_call" in delta and delta["function_call"] is not None:
            out = out + self._legacy_delta(delta["function_call"])
        refusal = delta.get("refusal")
        if refusal:
            if type(refusal) is not str:
                raise DecodeError(
                    f"expected a string, got {_json_type(refusal)}", "choices[0].delta.refusal"
                )
            self._refusal.append(refusal)
        return out

    def _tool_deltas(self, tcs: object) -> tuple[StreamDelta, ...]:
        items = tcs if type(tcs) is list else as_list(tcs, "choices[0].delta.tool_calls")
        out: list[StreamDelta] = []
        for k, item in enumerate(items):
            tc = (
                item
                if type(item) is dict
                else as_mapping(item, f"choices[0].delta.tool_calls[{k}]")
            )
            wire = tc.get("index")
            if wire is None:
                wire = k
            elif type(wire) is not int or wire < 0:
                raise DecodeError(
                    "index must be an integer >= 0", f"choices[0].delta.tool_calls[{k}].index"
                )
            cid = tc.get("id")
            if cid is not None and type(cid) is not str:
                raise DecodeError(
                    f"expected a string, got {_json_type(cid)}",
                    f"choices[0].delta.tool_calls[{k}].id",
                )
            name = args = None
            fn = tc.get("function")
            if fn is not None:
                if type(fn) is not dict:
                    fn = as_mapping(fn, f"choices[0].delta.tool_calls[{k}].function")
                name = fn.get("name")
                args = fn.get("arguments")
                if name is not None and type(name) is not str:
                    raise DecodeError(
                        f"expected a string, got {_json_type(name)}",
                        f"choices[0].delta.tool_calls[{k}].function.name",
                    )
                if args is not None and type(args) is not str:
                    if not isinstance(args, Mapping):
                        raise DecodeError(
                            f"expected a string, got {_json_type(args)}",
                            f"choices[0].delta.tool_calls[{k}].function.arguments",
                        )
                    from .._json import dumps_compact

                    args = dumps_compact(args)
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
            out.append(tool_call_delta(index, cid or None, name or None, args or None))
        return tuple(out)

    def _legacy_delta(self, fc: object) -> tuple[StreamDelta, ...]:
        """A deprecated ``function_call`` fragment: the one call, kept at wire index -1."""
        path = "choices[0].delta.function_call"
        f = as_mapping(fc, path)
        name = f.get("name")
        if name is not None and type(name) is not str:
            raise DecodeError(f"expected a string, got {_json_type(name)}", f"{path}.name")
        args = f.get("arguments")
        if args is not None and type(args) is not str:
            raise DecodeError(f"expected a string, got {_json_type(args)}", f"{path}.arguments")
        slot = self._open.get(-1)
        if slot is None:
            index = self._next
            self._next += 1
            self._open[-1] = [index, None]
        else:
            index = slot[0]
        self._acc.add(index, None, name or None, args or None)
        return (tool_call_delta(index, None, name or None, args or None),)

    def _derive(self, index: int, name: str | None) -> str:
        return derive_call_id(DERIVED_ID_PREFIX, self._id or self._model or "", index, name or "")

    @guarded()
    def finish(self) -> ChatResponse:
        """The response assembled from every chunk fed so far."""
        calls, invalid = self._acc.result(self._derive)
        if len(calls) > 1:
            kept, repeated = unique_calls(calls, "tool_calls")
            if repeated:
                calls, invalid = tuple(kept), (*invalid, *repeated)
        raw = self._finish
        error = self._error
        if error is not None:
            finish = FinishReason.ERROR
        elif raw is not None:
            finish = _FINISH.get(raw, FinishReason.OTHER)
        else:
            finish = FinishReason.ERROR
            error = "stream ended before a finish_reason (truncated)"
        refusal = "".join(self._refusal) or None
        extras = {self._provider: {"refusal": refusal}} if refusal else None
        reasoning = "".join(self._reasoning) or None
        usage = self._usage if self._usage is not None else self._vendor_usage
        message = respond(
            "".join(self._text),
            reasoning,
            self._provider,
            calls,
            usage,
            extras,
            self._error_details,
            invalid,
        )
        return new_response(
            message, finish, usage, self._model, invalid, raw, refusal, self._id, error
        )
