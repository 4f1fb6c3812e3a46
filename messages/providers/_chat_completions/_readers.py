"""Readers, builders and rules shared by the chat-completions dialects and Ollama.

What every module of the family needs and nothing provider-specific: small readers
(strings, arguments, usage, errors), the ``convert`` of a provider that formats in
one pass, the trusted builders of deltas and response messages, the replay rules
for opaque state and reasoning (tied to ``Provider.tag``), the pairing of id-less
tool results, and the check that a stream event is of the format its stream reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from ... import _build
from ..._build import message, tool_call_message
from ..._frozen import EMPTY, FrozenDict, freeze, thaw
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._json import json_type, loads
from ..._message import AssistantMessage, Message, ToolCallMessage
from ..._part_codec import object_text
from ..._parts import ContentPart, ReasoningPart
from ..._repair import UNANSWERED_TEXT
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, MessageError, ValidationError, ident
from .. import PROVIDERS
from .._base import (
    DROP_OTHER_REASONING,
    FinishReason,
    Losses,
    Provider,
    StreamDelta,
    Usage,
    as_mapping,
    count_at,
    foreign_state_losses,
    kept_unknown,
    key_items,
    kind_at,
    make_usage,
    parser,
)
from .._cache_hints import lift_kept

if TYPE_CHECKING:
    from ..._cache import CacheHint

__all__ = [
    "KEPT_LISTS",
    "ERROR_PREFIX",
    "FormattingProvider",
    "FINISH",
    "IS_ERROR_RULE",
    "NO_DELTAS",
    "UNANSWERED",
    "ToolPairing",
    "call_state_losses",
    "chat_usage",
    "error_prefixed",
    "foreign_event",
    "freeze_arguments",
    "keep_keys",
    "keep_unknown",
    "kind_at",
    "lift_hint",
    "own_extras",
    "own_reasoning",
    "parse_arguments",
    "parser",
    "read_error",
    "reasoning_to_send",
    "req_str",
    "respond",
    "says_error",
    "thinking_text",
    "text_arguments",
    "unique_ids",
    "put_call_keys",
]

NO_DELTAS: tuple[StreamDelta, ...] = ()

#: Chat-completions finish reasons (openai, groq, vllm and their dialects).
FINISH: Final = {
    "stop": FinishReason.STOP,
    "length": FinishReason.LENGTH,
    "tool_calls": FinishReason.TOOL_CALLS,
    "function_call": FinishReason.TOOL_CALLS,
    "content_filter": FinishReason.CONTENT_FILTER,
}


# -- small readers -----------------------------------------------------------------------


def req_str(value: object, path: str) -> str:
    """``value`` if it is a string, else DecodeError at ``path``."""
    if type(value) is str:
        return value
    if value is None:
        raise DecodeError("required string is missing", path)
    raise DecodeError(f"expected a string, got {json_type(value)}", path)


def parse_arguments(raw: str, where: str) -> FrozenDict:
    """Tool arguments from a JSON string (blank means ``{}``); DecodeError otherwise."""
    frozen = object_text(raw)  # exactly an object's text, the usual case
    return frozen if frozen is not None else text_arguments(raw, where)


def text_arguments(raw: str, where: str) -> FrozenDict:
    """Arguments text that is not exactly a JSON object's (``object_text`` gave None):
    blank means ``{}``, an object with space around it is read, anything else is a
    DecodeError at ``where``."""
    if not raw or raw.isspace():
        return EMPTY
    try:
        value = loads(raw)
        if type(value) is not dict:
            raise DecodeError(f"arguments must be a JSON object, got {json_type(value)}")
        frozen = cast("FrozenDict", freeze(value))
    except MessageError as exc:
        raise DecodeError(exc.message, where) from None
    return frozen


def freeze_arguments(value: Mapping[str, Any], where: str) -> FrozenDict:
    """Tool arguments given as an object, frozen; DecodeError when not JSON."""
    try:
        frozen: FrozenDict = freeze(value)
    except ValidationError as exc:
        raise DecodeError(exc.message, exc.at(where).path) from None
    return frozen


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


def chat_usage(raw: object, path: str) -> Usage | None:
    """``prompt_tokens`` / ``completion_tokens`` / ``total_tokens`` (+ cached, reasoning)."""
    if raw is None:
        return None
    u = as_mapping(raw, path)
    inp = count_at(u, "prompt_tokens", path) or 0
    out = count_at(u, "completion_tokens", path) or 0
    total = count_at(u, "total_tokens", path)
    cached = _detail(u, "prompt_tokens_details", "cached_tokens", path)
    reasoning = _detail(u, "completion_tokens_details", "reasoning_tokens", path)
    return make_usage(inp, out, inp + out if total is None else total, cached, None, reasoning)


def _detail(usage: Mapping[str, Any], key: str, count: str, path: str) -> int | None:
    """The count ``usage[key][count]`` of a usage's details object, or None."""
    details = usage.get(key)
    if details is None:
        return None
    if not isinstance(details, Mapping):
        raise DecodeError(f"expected an object, got {json_type(details)}", f"{path}.{key}")
    return count_at(details, count, path, key)


# -- the providers of the family ---------------------------------------------------------


class FormattingProvider(Provider):
    """A provider of the chat-completions family: its ``_format`` writes the body and
    lists the losses in one pass (``format_request`` and ``convert`` are
    ``Provider``'s)."""


# -- builders of checked values (see _build) ------------------------------------------------


def respond(
    text: str,
    reasoning: str | Sequence[ReasoningPart] | None,
    tag: str,
    calls: Sequence[ToolCall],
    usage: Usage | None,
    extras: Mapping[str, Any] | None,
    error: FrozenDict | None = None,
    invalid: Sequence[InvalidToolCall] = (),
    meta_more: Mapping[str, Any] | None = None,
) -> AssistantMessage:
    """The assistant message of a response, with ``metadata["usage"]`` (and ``["error"]``).

    The same message ``build_assistant`` makes (reasoning first, tagged ``tag``, then
    text; a ToolCallMessage, with content None when it has neither, when there are
    calls, valid or invalid), built from values already checked. ``reasoning`` is a
    text, or the reasoning parts already made (several, signed or redacted: OpenRouter's
    ``reasoning_details``); ``meta_more`` adds metadata keys (checked, frozen values,
    e.g. OpenRouter's ``cost``). Built with the trusted builders: every value is checked
    already.
    """
    meta = EMPTY
    if usage is not None:
        meta = FrozenDict({"usage": FrozenDict(usage.to_dict())})
    if error is not None:
        meta = FrozenDict({**meta, "error": error})
    if meta_more:
        meta = FrozenDict({**meta, **meta_more})
    ext = EMPTY if not extras else _frozen_extras(extras)
    content: str | tuple[ContentPart, ...] | None = text
    if reasoning:
        thoughts = (
            (ReasoningPart(reasoning, provider=tag),)
            if isinstance(reasoning, str)
            else tuple(reasoning)
        )
        content = (*thoughts, _build.text_part(text)) if text else thoughts
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


def _frozen_extras(extras: Mapping[str, Any]) -> FrozenDict:
    try:
        frozen: FrozenDict = freeze(extras, "extras")
    except ValidationError as exc:
        raise DecodeError(exc.message, exc.path) from None
    return frozen


def unique_ids(
    calls: list[ToolCall], invalid: list[InvalidToolCall], path: str
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """The calls of one turn with unique ids: a call repeating an earlier id becomes an
    invalid call with a derived id (it cannot be answered apart from the first)."""
    seen: set[str] = set()
    kept: list[ToolCall] = []
    repeated: list[InvalidToolCall] = []
    for c in calls:
        if c.id in seen:
            repeated.append(_repeat(c.id, c.name, c.arguments_json, c.extras, path, seen))
        else:
            seen.add(c.id)
            kept.append(c)
    bad: list[InvalidToolCall] = []
    for b in invalid:
        if b.id in seen:
            repeated.append(_repeat(b.id, b.name, b.raw_arguments, b.extras, path, seen))
        else:
            seen.add(b.id)
            bad.append(b)
    return kept, bad + repeated


def _repeat(
    call_id: str,
    name: str | None,
    raw: str,
    extras: Mapping[str, Any],
    path: str,
    seen: set[str],
) -> InvalidToolCall:
    k = 0
    new_id = derive_call_id(DERIVED_ID_PREFIX, "repeat", call_id, k)
    while new_id in seen:
        k += 1
        new_id = derive_call_id(DERIVED_ID_PREFIX, "repeat", call_id, k)
    seen.add(new_id)
    error = f"{path}: repeated tool call id {ident(call_id)} (this call got a derived id)"
    return InvalidToolCall(new_id, name, raw, error, extras)


# -- kept wire state ------------------------------------------------------------------------


def keep_unknown(own: dict[str, Any], index: int, path: str, part: Mapping[str, Any]) -> None:
    """Keep a part of a type this package does not model: ``{index, path, type, value}``."""
    kind = part.get("type")
    own.setdefault("unknown", []).append(
        {
            "index": index,
            "path": path,
            "type": kind if isinstance(kind, str) else json_type(kind),
            "value": part,
        }
    )


def keep_keys(
    own: dict[str, Any], index: int, part: Mapping[str, Any], kind: str, read: Sequence[str] = ()
) -> None:
    """Keep the keys of a known part other than ``type``, its payload and the keys in
    ``read`` (e.g. OpenAI's ``prompt_cache_breakpoint``): ``{index, keys}``, put back on
    the part at that index."""
    extra = {k: v for k, v in part.items() if k not in ("type", kind) and k not in read}
    if extra:
        own.setdefault("keys", []).append({"index": index, "keys": extra})


def lift_hint(own: dict[str, Any], content: object, key: str) -> CacheHint | None:
    """The cache hint kept as ``key`` on the last part of ``content`` (a message's
    content parts, already read into ``own``), taken out of the kept keys
    (``lift_kept``); anything else stays a kept key."""
    kept = own.get("keys")
    if not kept or not isinstance(content, (list, tuple)):
        return None
    hint = lift_kept(kept, len(content) - 1, key)
    if not kept:
        del own["keys"]
    return hint


def thinking_text(value: object) -> str | None:
    """The text of a Mistral thinking chunk (``[{"type": "text", "text": ...}, ...]`` or
    a string); None when it holds anything else (the chunk is then kept as it is)."""
    if type(value) is str:
        return value
    if not isinstance(value, (list, tuple)):
        return None
    out: list[str] = []
    for item in value:
        if not isinstance(item, Mapping) or item.get("type", "text") != "text":
            return None
        text = item.get("text")
        if type(text) is not str:
            return None
        out.append(text)
    return "".join(out)


# -- replay rules: state goes back only to the provider (tag) that produced it --------------

#: Keys of ``extras`` that hold one provider's opaque state (``name`` or ``name@origin``).
_PROVIDER_KEYS: Final = frozenset((*PROVIDERS, "openai_responses"))


def own_extras(m: Message, tag: str, index: int, losses: Losses) -> Mapping[str, Any]:
    """``m.extras[tag]`` (this provider's kept state); every other provider's kept
    state is a loss: it is only ever re-sent to that provider."""
    own: Mapping[str, Any] = EMPTY
    for key, value in m.extras.items():
        if not isinstance(value, Mapping):
            continue
        if key == tag:
            own = value
        elif key.partition("@")[0] in _PROVIDER_KEYS:
            foreign_losses(key, value, f"messages[{index}]", losses)
    return own


foreign_losses = foreign_state_losses  # the chat family's name for it


def call_state_losses(
    calls: Sequence[ToolCall | InvalidToolCall],
    tag: str,
    index: int,
    losses: Losses,
    group: str = "tool_calls",
    start: int = 0,
) -> None:
    """A loss for each call carrying another provider's opaque state (e.g. a signature);
    ``calls`` are ``messages[index].group[start:]``."""
    for j, c in enumerate(calls, start):
        for key in c.extras:
            if key != tag:
                losses.add(
                    f"messages[{index}].{group}[{j}]",
                    f"opaque state from {key} on a tool call",
                    f"dropped: only re-sent to {key}",
                )


#: Keys of an assistant message (a response's, or one sent back in a request), and of a
#: stream delta, whose lists are kept as they came in ``extras[tag]`` and never sent: a
#: search model's ``annotations`` (url citations), Groq's ``executed_tools``. Read in
#: every dialect (a server that does not send them costs nothing).
KEPT_LISTS: Final[tuple[str, ...]] = ("annotations", "executed_tools")


def put_call_keys(entry: dict[str, Any], extras: Mapping[str, Any], tag: str) -> None:
    """Put back the keys kept from this provider's call entry (``keys``) and its function
    object (``function_keys``); the call's own fields win over a kept key."""
    own = extras.get(tag)
    if not isinstance(own, Mapping):
        return
    keys = own.get("keys")
    if isinstance(keys, Mapping):
        for k, v in keys.items():
            entry.setdefault(k, thaw(v))
    fn_keys = own.get("function_keys")
    if isinstance(fn_keys, Mapping):
        for k, v in fn_keys.items():
            entry["function"].setdefault(k, thaw(v))


def reasoning_to_send(
    tag: str,
    name: str,
    field: str | None,
    content: Sequence[ContentPart],
    index: int,
    losses: Losses,
) -> str:
    """The reasoning text of one assistant message that may go back on this wire.

    Reasoning, signed or not, goes back only to the provider (``tag``) that produced
    it, and only where the wire has a ``field`` for it; anything else is a loss.
    """
    texts: list[str] = []
    for j, p in enumerate(content):
        if not isinstance(p, ReasoningPart):
            continue
        path = f"messages[{index}].content[{j}]"
        if field is None:
            losses.add(path, "reasoning", f"dropped: {name} takes no reasoning in requests")
        elif own_reasoning(p, tag, False, name, path, losses):
            texts.append(p.text)
    return "".join(texts)


def own_reasoning(
    p: ReasoningPart, tag: str, signed_ok: bool, name: str, path: str, losses: Losses
) -> bool:
    """Whether reasoning part ``p`` (at ``path``) goes back on this wire: it is this
    provider's (``tag``), and unsigned unless the wire carries signed reasoning
    (``signed_ok``). Otherwise it is a loss."""
    if p.provider != tag:
        what = "signed reasoning" if p.redacted or p.signature is not None else "reasoning"
        losses.add(path, f"{what} from {p.provider or 'an unnamed provider'}", DROP_OTHER_REASONING)
        return False
    if not signed_ok and (p.redacted or p.signature is not None):
        losses.add(path, f"signed reasoning from {tag}", f"dropped: {name} has no place for it")
        return False
    return True


def reinsert_unknown(parts: list[dict[str, Any]], own: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Put this provider's kept unknown parts back at their original index, then the
    kept keys on the parts at theirs (a part that is no longer there takes none)."""
    items = [
        item for item in kept_unknown(own) if type(item.get("index")) is int and "value" in item
    ]
    for item in sorted(items, key=lambda it: int(it["index"])):
        parts.insert(min(item["index"], len(parts)), thaw(item["value"]))
    for j, keys in key_items(own):
        if 0 <= j < len(parts):
            parts[j] = {**parts[j], **keys}
    return parts


# -- tool results -----------------------------------------------------------------------------

ERROR_PREFIX: Final = "Error: "
IS_ERROR_RULE: Final = (
    "the wire has no error flag: the text is sent, prefixed 'Error: ' unless it already starts so"
)


def error_prefixed(text: str) -> str:
    """``text`` marked as a failure: ``"Error: "`` in front unless it already starts so."""
    if text[:5].lower() == "error":
        return text
    return ERROR_PREFIX + text


UNANSWERED: Final = error_prefixed(UNANSWERED_TEXT)


def says_error(block: Mapping[str, Any]) -> bool:
    """True if a tool message's first block is text that already says it is an error."""
    text = block.get("text") if block.get("type") == "text" else None
    return type(text) is str and text.lower().startswith("error")


class ToolPairing:
    """Pairs tool results that carry no call id with calls, by tool name and order.

    Used when importing conversations (Ollama's documented shape has no ids): each
    assistant turn opens its calls, valid and invalid; a result with an id answers
    that id, a result without one takes the first open call with its ``tool_name``
    (or the first open call when it names none). A result that matches nothing gets
    an id derived from its position, so it stays an orphan that ``repair`` can see.
    """

    __slots__ = ("_open",)

    def __init__(self) -> None:
        self._open: list[tuple[str, str | None]] = []

    def open(self, calls: Sequence[ToolCall], invalid: Sequence[InvalidToolCall] = ()) -> None:
        """An assistant turn made these calls."""
        self._open = [(c.id, c.name) for c in calls]
        self._open += [(c.id, c.name) for c in invalid]

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


# -- streams of another format -----------------------------------------------------------------

_ANTHROPIC_EVENTS: Final = frozenset(
    (
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
    )
)


def _origin(event: Mapping[str, Any]) -> str | None:
    """The provider whose stream an event looks like, if any."""
    kind = event.get("type")
    if isinstance(kind, str):
        if kind.startswith("response."):
            return "openai_responses"
        if kind in _ANTHROPIC_EVENTS:
            return "anthropic"
    if "candidates" in event or "usageMetadata" in event or "promptFeedback" in event:
        return "gemini"
    if "choices" in event or event.get("object") == "chat.completion.chunk":
        return "openai"
    if "message" in event or "done" in event:
        return "ollama"
    return None


def foreign_event(event: Mapping[str, Any], name: str, reads: str, path: str) -> DecodeError:
    """The DecodeError for an event a stream of ``name`` does not read (``reads`` says
    what it reads), naming the provider whose stream the event looks like."""
    kind = event.get("type")
    what = f"an event of type {ident(kind)}" if isinstance(kind, str) else "an object without them"
    origin = _origin(event)
    hint = ""
    if origin is not None and origin != name:
        hint = f", an event of the {origin} stream (get_provider({origin!r}).stream() reads it)"
    return DecodeError(f"the {name} stream reads {reads}; got {what}{hint}", path)
