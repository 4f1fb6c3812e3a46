"""Formatting: canonical messages to ``systemInstruction`` and ``contents`` (see the package docstring)."""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..._frozen import EMPTY, thaw
from ..._ids import DERIVED_ID_PREFIX
from ..._json import loads
from ..._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ..._parts import AudioPart, FilePart, ImagePart, ReasoningPart, TextPart, parse_data_url
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ValidationError
from .._base import (
    DROP_OTHER_REASONING,
    FLAT_VALUES,
    Losses,
    foreign_state_losses,
    joined_text,
    kept_unknown,
    key_items,
    plain_arguments,
)
from .._cache_hints import hint_loss, no_breakpoints
from ._wire import DERIVED_LEN, NEW_CONTENT, is_provider_key

#: Gemini's documented stand-in for the thought signature of a function call it did not
#: generate (https://ai.google.dev/gemini-api/docs/thought-signatures, FAQ).
DUMMY_SIGNATURE = "skip_thought_signature_validator"

#: The Loss of a cache hint: Gemini caches implicitly, and an explicit cache is a
#: ``cachedContents`` resource made apart from the request, not a breakpoint in it.
CACHE_RULE = no_breakpoints(
    "gemini", "implicit caching is automatic; explicit caches are cachedContents"
)

# Message kinds: how each message class is formatted (subclasses are looked up once).
# hot path: a kind is one of these strings and is compared by identity (``kind is
# _RESULT``: ~14k instructions per call less than ``==`` on ints, on the benchmark)
_SYSTEM, _USER, _ANSWER, _CALLS, _RESULT = "system", "user", "answer", "calls", "result"
_BASE_KINDS: dict[type, str] = {
    SystemMessage: _SYSTEM,
    DeveloperMessage: _SYSTEM,
    UserMessage: _USER,
    AssistantMessage: _ANSWER,
    ToolCallMessage: _CALLS,
    ToolResultMessage: _RESULT,
}
_ROLES = {_SYSTEM: "system", _USER: "user", _ANSWER: "model", _CALLS: "model", _RESULT: "user"}
# hot path: class -> (kind, role) of the turns, one subscript (~15 ns); a system message
# (one per conversation) and a subclass met for the first time take the KeyError branch
_KINDS: dict[type, tuple[str, str]] = {
    cls: (k, _ROLES[k]) for cls, k in _BASE_KINDS.items() if k is not _SYSTEM
}


def _kind_of(m: Message, i: int) -> tuple[str, str]:
    for base in type(m).__mro__:
        kind = _BASE_KINDS.get(base)
        if kind is not None:
            if kind is not _SYSTEM:
                _KINDS[type(m)] = (kind, _ROLES[kind])
            return kind, _ROLES[kind]
    raise ValidationError(f"cannot format a message of type {type(m).__name__}", f"messages[{i}]")


def _is_derived(call_id: str) -> bool:
    return len(call_id) == DERIVED_LEN and call_id.startswith(DERIVED_ID_PREFIX)


# -- content parts ------------------------------------------------------------------------


def _guess_media_type(url: str, default: str) -> str:
    guessed, _ = mimetypes.guess_type(url.split("?", 1)[0], strict=False)
    return guessed or default


def _text_part(p: TextPart, path: str, losses: Losses, tag: str) -> Any:
    return {"text": p.text} if p.text else None


def _image_part(p: ImagePart, path: str, losses: Losses, tag: str) -> Any:
    if p.detail is not None:
        losses.add(f"{path}.detail", "image detail", "dropped: Gemini parts have no detail")
    if p.data is not None:
        return {"inlineData": {"mimeType": p.media_type, "data": p.data}}
    url = p.url or ""
    if url.startswith("data:"):
        try:
            media_type, data = parse_data_url(url, path)
            return {"inlineData": {"mimeType": media_type, "data": data}}
        except ValidationError:
            pass  # not a base64 data: URL: send it as a URI and let the API judge
    media_type = p.media_type or _guess_media_type(url, "image/jpeg")
    return {"fileData": {"mimeType": media_type, "fileUri": url}}


def _audio_part(p: AudioPart, path: str, losses: Losses, tag: str) -> Any:
    return {"inlineData": {"mimeType": f"audio/{p.format}", "data": p.data}}


#: A file reference Gemini can fetch is a URI: Files API (``https://generativelanguage
#: .googleapis.com/...``), Cloud Storage (``gs://``), a public or signed ``https://`` URL.
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def _file_part(p: FilePart, path: str, losses: Losses, tag: str) -> Any:
    if p.file_id:
        if _URI.match(p.file_id) is None:
            # another provider's file id (Anthropic's "file_...", OpenAI's "file-..."):
            # Gemini would take it for a URI and reject the request
            if not p.data:
                losses.add(
                    path,
                    "file id of another provider",
                    "dropped: Gemini fileData takes a URI (Files API, gs:// or https://)",
                )
                return None
            losses.add(
                f"{path}.file_id",
                "file id of another provider",
                "dropped: Gemini fileData takes a URI; the inline data is sent",
            )
        else:
            if p.filename:
                losses.add(
                    f"{path}.filename", "file name", "dropped: Gemini parts have no file name"
                )
            media_type = p.media_type or _guess_media_type(p.file_id, "application/pdf")
            return {"fileData": {"mimeType": media_type, "fileUri": p.file_id}}
    if p.filename:
        losses.add(f"{path}.filename", "file name", "dropped: Gemini parts have no file name")
    return {"inlineData": {"mimeType": p.media_type or "application/pdf", "data": p.data or ""}}


def _reasoning_part(p: ReasoningPart, path: str, losses: Losses, tag: str) -> Any:
    if p.provider == tag and not p.redacted:
        part: dict[str, Any] = {"text": p.text, "thought": True}
        if p.signature is not None:
            part["thoughtSignature"] = p.signature
        return part
    who = p.provider or "an unnamed provider"
    losses.add(path, f"reasoning from {who}", DROP_OTHER_REASONING)
    return None


def _reasoning_elsewhere(p: ReasoningPart, path: str, losses: Losses, tag: str) -> Any:
    losses.add(path, "reasoning part in a non-assistant message", "dropped")
    return None


_PartFn = Callable[[Any, str, Losses, str], Any]

_USER_PARTS: dict[type, _PartFn] = {
    TextPart: _text_part,
    ImagePart: _image_part,
    AudioPart: _audio_part,
    FilePart: _file_part,
    ReasoningPart: _reasoning_elsewhere,
}
_MODEL_PARTS: dict[type, _PartFn] = {**_USER_PARTS, ReasoningPart: _reasoning_part}


def _part_fn(table: dict[type, _PartFn], p: object, path: str) -> _PartFn:
    for base in type(p).__mro__:
        fn = table.get(base)
        if fn is not None:
            table[type(p)] = fn
            return fn
    raise ValidationError(f"cannot format a part of type {type(p).__name__}", path)


def _parts(
    content: Sequence[Any], table: dict[type, _PartFn], i: int, losses: Losses, tag: str
) -> list[Any]:
    out: list[Any] = []
    for j, p in enumerate(content):
        path = f"messages[{i}].content[{j}]"
        fn = table.get(type(p)) or _part_fn(table, p, path)
        part = fn(p, path, losses, tag)
        if part is not None:
            out.append(part)
    return out


def _attach_text_signature(parts: list[Any], start: int, sig: str) -> None:
    """Put a message's text signature back on its last answer text part."""
    for part in reversed(parts[start:]):
        if "text" in part and not part.get("thought"):
            part["thoughtSignature"] = sig
            return
    parts.append({"text": "", "thoughtSignature": sig})


# -- kept state -----------------------------------------------------------------------------


def _own_state(extras: Mapping[str, Any], tag: str, i: int, losses: Losses) -> Mapping[str, Any]:
    """This provider's state in a message's extras; other providers' (and origins') is a Loss."""
    for key, value in extras.items():
        if key != tag and isinstance(value, Mapping) and is_provider_key(key):
            foreign_state_losses(key, value, f"messages[{i}]", losses)
    own = extras.get(tag)
    return own if isinstance(own, Mapping) else EMPTY


def _kept(state: Mapping[str, Any], key: str) -> Sequence[Any]:
    """A list kept in provider state; anything else (edited by hand, corrupt) is none."""
    items = state.get(key)
    return items if isinstance(items, (list, tuple)) else ()


def _unknown_items(own: Mapping[str, Any]) -> list[tuple[int, Any]]:
    items = []
    for item in kept_unknown(own):
        if type(item.get("index")) is int:
            value = item.get("value")
            if isinstance(value, Mapping):
                items.append((item["index"], thaw(value)))
    return items


def _call_state(
    extras: Mapping[str, Any], part: dict[str, Any], path: str, losses: Losses, tag: str
) -> None:
    """Put this provider's signature of a call on its part; another's state is a Loss."""
    own = extras.get(tag)
    if own is None or len(extras) > 1:  # hot path: a call with only our state skips this
        for key in extras:
            if key != tag and is_provider_key(key):
                losses.add(
                    f"{path}.extras.{key}",
                    f"{key} state of the tool call",
                    f"dropped: only re-sent to {key}",
                )
    if isinstance(own, Mapping):
        sig = own.get("thought_signature")
        if type(sig) is str:
            part["thoughtSignature"] = sig


def _made_elsewhere(c: ToolCall | InvalidToolCall, tag: str) -> bool:
    """Whether this provider (at this origin) did not make the call: it has no state of
    ours, and either another provider's state or an id of its own (a call Gemini sent
    without an id has a derived one)."""
    extras = c.extras
    if extras:
        if isinstance(extras.get(tag), Mapping):
            return False
        if any(is_provider_key(key) for key in extras):
            return True
    return not _is_derived(c.id)


def _function_call(
    c: ToolCall, m: ToolCallMessage, i: int, losses: Losses, tag: str
) -> tuple[dict[str, Any], bool]:
    """A call with state or a derived id (the plain one is written inline); whether its id is sent."""
    fc: dict[str, Any] = {}
    sent = not _is_derived(c.id)
    if sent:
        fc["id"] = c.id
    fc["name"] = c.name
    fc["args"] = plain_arguments(c.arguments)
    part: dict[str, Any] = {"functionCall": fc}
    extras = c.extras
    if extras:
        own = extras.get(tag)
        if len(extras) == 1 and isinstance(own, Mapping):
            # hot path: a call Gemini signed (the first of each of its responses) has
            # only its own state: no path to make, nothing to report
            sig = own.get("thought_signature")
            if type(sig) is str:
                part["thoughtSignature"] = sig
        else:
            k = next(k for k, x in enumerate(m.tool_calls) if x is c)
            _call_state(extras, part, f"messages[{i}].tool_calls[{k}]", losses, tag)
    return part, sent


#: A name Gemini takes for a function (declarations allow dots and colons; calls echo them).
_WIRE_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_NOT_WIRE = re.compile(r"[^A-Za-z0-9_.:-]")


def _invalid_call(
    c: InvalidToolCall, path: str, losses: Losses, tag: str
) -> tuple[dict[str, Any], str]:
    """An invalid call sent as the model wrote it where Gemini can take it (its part, its name)."""
    name = c.name
    if name is None or _WIRE_NAME.fullmatch(name) is None:
        name = _NOT_WIRE.sub("_", name or "")[:64] or "unnamed_call"
        losses.add(
            f"{path}.name",
            "tool name Gemini rejects",
            "replaced by one of the characters Gemini allows (A-Z a-z 0-9 _ . : -)",
        )
    try:
        args = loads(c.raw_arguments)
    except DecodeError:
        args = None
    if type(args) is not dict:
        args = {}
        losses.add(
            path,
            "tool call arguments that are not a JSON object",
            "sent as {}: Gemini's functionCall.args is an object",
        )
    fc: dict[str, Any] = {}
    if not _is_derived(c.id):
        fc["id"] = c.id
    fc["name"] = name
    fc["args"] = args
    part: dict[str, Any] = {"functionCall": fc}
    if c.extras:
        _call_state(c.extras, part, path, losses, tag)
    return part, name


def _response_object(m: ToolResultMessage, text: str, own: Mapping[str, Any]) -> dict[str, Any]:
    """The ``response`` object of a result that kept how it was imported."""
    shape = own.get("response")
    if m.is_error:
        if shape == "error" and own.get("json") is True:
            try:
                return {"error": loads(text)}
            except DecodeError:
                pass  # edited since it was imported: send the text
        return {"error": text}
    if shape == "object":
        try:
            value = loads(text)
            if type(value) is dict:
                return value
        except DecodeError:
            pass
    elif shape == "output" and own.get("json") is True:
        try:
            return {"output": loads(text)}
        except DecodeError:
            pass
    return {"output": text}


# -- contents ---------------------------------------------------------------------------------


class _Extra:
    """What an open content needs done when it closes (rare): kept parts to put back."""

    __slots__ = ("keys", "moved", "unknown")

    def __init__(self) -> None:
        self.unknown: list[tuple[int, Any]] = []
        self.keys: list[tuple[int, Any]] = []
        self.moved = 0  # media moved out of tool results, right after the responses


_KEPT, _TURN_ENDS, _REMOVED = range(3)


def _close(
    out: list[dict[str, Any]],
    role: str,
    parts: list[Any],
    nresp: int,
    unsent: dict[int, int],
    extra: _Extra | None,
    messages: Sequence[Message],
    end: int,
    calls: dict[str, tuple[int, str, int, bool]],
    answered: set[str],
    losses: Losses,
) -> int:
    """Settle the content just closed (``out[-1]``) when it needs more than appending:
    answer the calls left without a result, put the responses in call order and kept
    parts back, or take it out when it is empty. Returns _TURN_ENDS when it is a user
    content with more than function responses, _REMOVED when it was taken out."""
    if role == "user" and len(answered) < len(calls):
        nresp = _answer_the_rest(calls, answered, parts, nresp, unsent, losses)
    if nresp > 1:  # the responses in call order (the sort is stable)
        responses = parts[:nresp]
        positions = [_position(part, calls, unsent) for part in responses]
        order = sorted(range(nresp), key=positions.__getitem__)
        parts[:nresp] = [responses[j] for j in order]
    if extra is not None:
        for index, part in sorted(extra.unknown, key=_first):
            parts.insert(min(index, len(parts)), part)
        for index, keys in extra.keys:
            if index < len(parts):
                parts[index] = {**parts[index], **keys}
    if parts:
        return _TURN_ENDS if role == "user" and nresp < len(parts) else _KEPT
    first, users = _span(messages, end, role)
    if role == "model":
        losses.add(
            f"messages[{first}]",
            "empty model content",
            "omitted: Gemini rejects a content without parts",
        )
    elif users:
        # a user turn with nothing Gemini can carry is kept as one empty text part
        # (the API takes it; a content without parts it rejects)
        parts.append({"text": ""})
        return _TURN_ENDS
    out.pop()  # a model content with nothing, or a user one of dropped results only
    return _REMOVED


def _span(messages: Sequence[Message], end: int, role: str) -> tuple[int, bool]:
    """The index of the first message of the (empty) content whose messages end before
    ``end``, and whether one of them is a user message (the rest: dropped results)."""
    first, users = end, False
    for j in range(end - 1, -1, -1):
        m = messages[j]
        known = _KINDS.get(m.__class__)
        kind = known[0] if known is not None else _kind_of(m, j)[0]
        if kind is _SYSTEM:
            continue
        if _ROLES[kind] != role:
            break
        first, users = j, users or kind is _USER
    return first, users


def _position(
    part: dict[str, Any], calls: dict[str, tuple[int, str, int, bool]], unsent: dict[int, int]
) -> int:
    """The position of the call a response answers (its id, or as noted when it has none)."""
    call_id = part["functionResponse"].get("id")
    return calls[call_id][0] if call_id is not None else unsent[id(part)]


def _answer_the_rest(
    calls: dict[str, tuple[int, str, int, bool]],
    answered: set[str],
    parts: list[Any],
    nresp: int,
    unsent: dict[int, int],
    losses: Losses,
) -> int:
    """Answer each call of the model content before this user content that has no
    result (Gemini rejects a turn with fewer responses than calls); the new count of
    responses at the front of ``parts``."""
    from ..._repair import UNANSWERED_TEXT  # rare: not loaded by every convert

    counts: dict[int, int] = {}  # calls seen per message: ``calls`` is in call order
    for call_id, (position, name, i, send_id) in calls.items():
        k = counts.get(i, 0)
        counts[i] = k + 1
        if call_id in answered:
            continue
        answered.add(call_id)
        fr: dict[str, Any] = {"id": call_id} if send_id else {}
        fr["name"] = name
        fr["response"] = {"error": UNANSWERED_TEXT}
        part = {"functionResponse": fr}
        if not send_id:
            unsent[id(part)] = position
        parts.insert(nresp, part)
        nresp += 1
        losses.add(
            f"messages[{i}].tool_calls[{k}]",
            "unanswered tool call",
            "answered with an error result: Gemini requires a response for every call",
        )
    return nresp


def _first(item: tuple[int, Any]) -> int:
    return item[0]


def contents(
    messages: Sequence[Message], tag: str, losses: Losses
) -> tuple[list[Any], Any, list[dict[str, Any]]]:
    """The system parts, the role a parsed ``systemInstruction`` spelled out, and ``contents``.

    Hot path: one loop with the open content in locals. A content is appended to
    ``out`` when it opens; plain messages (text, calls without state, text results)
    are written inline and anything else goes through a helper. Whatever a content
    will need when it closes is noted as it happens (``settle``: responses out of
    call order, kept parts, a message that added nothing; ``pending``: calls not
    answered yet), so closing the usual content costs one test; ``_close`` does the
    rest. Every statement counts: on the benchmark conversation this runs ~131
    bytecodes per message (~8.0k instructions), where the old fast path (plain
    conversations only) ran ~108 (~7.4k) and the old general path (everything else)
    ~255. Attribute loads on ``m`` belong in the kind branches (see below).
    """
    system: list[Any] = []
    system_role: Any = None
    out: list[dict[str, Any]] = []
    role = ""  # the role of the open content ("" before the first)
    parts: list[Any] = []  # its parts (out[-1]["parts"]): function responses first
    nresp = 0  # ... how many (a user content)
    last = -1  # ... the call position of the last one
    unsent: dict[int, int] = {}  # id(response part) -> call position, for those without an id
    settle = False  # ... whether it needs _close
    extra: _Extra | None = None  # ... its kept parts
    merge = False  # the last content was removed: the next one of its role merges back
    # the calls of the latest model content: id -> (position, name sent, message index,
    # whether the id is sent); how many have no result yet
    calls: dict[str, tuple[int, str, int, bool]] = {}
    answered: set[str] = set()
    pending = 0
    turn = 0  # where the current turn starts in ``out`` (after the last user text)
    # whether the first call part of a message gets the dummy signature, for messages
    # with more than plain calls (a plain call is another provider's: it does)
    signed: dict[int, bool] = {}
    for i, m in enumerate(messages):
        try:
            kind, r = _KINDS[type(m)]
        except KeyError:
            kind, r = _kind_of(m, i)
            if kind is _SYSTEM:
                system_role = _system(m, i, role, system, system_role, tag, losses)
                continue
        # hot path: roles are the strings of _ROLES, compared by identity (~34 instructions
        # less than !=). A user message imported from a content of its own (it came right
        # after another user content) opens one again: looked at only for a user message
        # that continues a user content (reading every message's extras here, results
        # included, cost ~23k of ~805k instructions a request)
        if r is not role or (kind is _USER and m.extras and _opens_content(m.extras, tag)):
            if settle or (pending and r == "model"):  # the open content needs settling
                done = _close(
                    out,
                    role,
                    parts,
                    nresp if role == "user" else 0,
                    unsent,
                    extra,
                    messages,
                    i,
                    calls,
                    answered,
                    losses,
                )
                if done == _TURN_ENDS:
                    turn = len(out)
                merge = done == _REMOVED
                settle = False
                extra = None
                pending = 0
            if r is role:  # that user message: a user content again
                out.append({"role": r, "parts": (parts := [])})
                nresp = 0  # the responses of the content closed stay answered
                last = -1
                merge = False
            elif merge and out and out[-1]["role"] == r:
                parts = out[-1]["parts"]  # the content before was removed: merge back
                merge = False
            else:
                out.append({"role": r, "parts": (parts := [])})
                if r == "model":  # a user content after it starts with no responses
                    calls = {}  # (a new dict: the last content's may be merged back into)
                    answered.clear()  # hot path: ~60 ns less than a new set
                    nresp = 0
                    last = -1
            role = r  # the open content's role
        # hot path: a message's name, extras and cache hint are read in its kind's branch,
        # where the attribute loads see one class and specialize: read here, for four
        # classes, they cost ~440 instructions per message (~44k of ~896k per call). A
        # message without them is written inline; one with them has its state (``own``)
        # read first, by _state, and goes through the helpers (a state noted for every
        # message, and tested, cost ~5k instructions more per call)
        if kind is _RESULT:
            call_id: str = m.tool_call_id  # type: ignore[attr-defined]
            try:  # hot path: a subscript is no call (a result without its call is rare)
                found = calls[call_id]
            except KeyError:
                found = None
            if found is None or call_id in answered:
                if m.name is not None or m.extras or m.cache is not None:
                    _, extra, settle = _state(m, i, extra, settle, tag, losses)
                why = "a second result for the call" if found else "no matching functionCall"
                losses.add(
                    f"messages[{i}]",
                    f"tool result with {why}",
                    "dropped: Gemini rejects unpaired responses",
                )
                settle = True  # nothing added: the content may be left empty
                continue
            answered.add(call_id)
            pending -= 1
            position, name, _, sent = found  # hot path: one unpack, then locals
            content = m.content  # type: ignore[attr-defined]
            if (
                type(content) is str
                and sent
                and m.name is None
                and m.cache is None
                and not m.extras
            ):
                # hot path: the usual response written inline; inserted even when it
                # goes last (testing for an append costs ~115 instructions more)
                parts.insert(
                    nresp,
                    {
                        "functionResponse": {
                            "id": call_id,
                            "name": name,
                            "response": {"error": content} if m.is_error else {"output": content},  # type: ignore[attr-defined]
                        }
                    },
                )
            else:
                own: Mapping[str, Any] = EMPTY
                if m.name is not None or m.extras or m.cache is not None:
                    own, extra, settle = _state(m, i, extra, settle, tag, losses)
                extra = _result(m, found, own, parts, nresp, extra, unsent, i, losses, tag)  # type: ignore[arg-type]
                if extra is not None:
                    settle = True
                    if extra.moved:
                        turn = len(out)
            if position < last:
                settle = True  # out of call order: sorted when the content closes
            last = position
            nresp += 1
        elif kind is _CALLS:
            kept: Mapping[str, Any] | None = None  # hot path: tested with is, not a truth value
            if m.name is not None or m.extras or m.cache is not None:
                kept, extra, settle = _state(m, i, extra, settle, tag, losses)
                _model_parts(m, kept, parts, i, losses, tag)
            elif m.content is not None:  # type: ignore[attr-defined]
                _model_parts(m, EMPTY, parts, i, losses, tag)
            # hot path: where the calls start is worked out when needed (rare), not
            # noted for every message with calls (~160 instructions each)
            for c in m.tool_calls:
                cid = c.id
                # hot path: the length first (str.startswith parses its arguments as a
                # tuple, ~500 instructions; format_request 796k -> 774k)
                if c.extras or (len(cid) == DERIVED_LEN and cid.startswith(DERIVED_ID_PREFIX)):
                    part, sent = _function_call(c, m, i, losses, tag)  # type: ignore[arg-type]
                    if c is m.tool_calls[0]:
                        signed[id(part)] = _made_elsewhere(c, tag)
                    parts.append(part)
                    calls[cid] = (len(calls), c.name, i, sent)
                else:  # hot path: a plain call written inline
                    # plain_arguments written out (no frame: ~500 instructions a call)
                    args: Any = c.arguments
                    for v in args.values():
                        if v.__class__ not in FLAT_VALUES:
                            args = thaw(args)
                            break
                    else:
                        args = dict.copy(args)
                    name = c.name
                    parts.append({"functionCall": {"id": cid, "name": name, "args": args}})
                    calls[cid] = (len(calls), name, i, True)
            pending = len(calls)
            if kept is not None or m.invalid_tool_calls:
                start = len(parts) - len(m.tool_calls)  # one part per valid call
                pending = _calls_rest(m, kept or EMPTY, i, parts, start, calls, signed, losses, tag)  # type: ignore[arg-type]
        elif kind is _USER:
            if m.name is not None or m.extras or m.cache is not None:
                _, extra, settle = _state(m, i, extra, settle, tag, losses)
            content = m.content  # type: ignore[attr-defined]
            if type(content) is str and content:
                parts.append({"text": content})
                turn = len(out)
            elif content.__class__ is str or not _user_parts(content, parts, i, losses, tag):
                settle = True  # nothing added: the content may be left empty
            else:
                turn = len(out)
        else:
            content = m.content  # type: ignore[attr-defined]
            if (
                type(content) is str
                and content
                and m.name is None
                and m.cache is None
                and not m.extras
            ):
                parts.append({"text": content})
            else:
                own = EMPTY
                if m.name is not None or m.extras or m.cache is not None:
                    own, extra, settle = _state(m, i, extra, settle, tag, losses)
                if not _model_parts(m, own, parts, i, losses, tag):
                    settle = True  # nothing added: the content may be left empty
    if settle or (pending and role == "user"):  # the last content needs settling
        # hot path: as between contents, the usual last content is left as it is
        # (closing it anyway, sorting its two responses, cost ~15k instructions per call)
        done = _close(
            out,
            role,
            parts,
            nresp if role == "user" else 0,
            unsent,
            extra,
            messages,
            len(messages),
            calls,
            answered,
            losses,
        )
        if done == _TURN_ENDS:
            turn = len(out)
    _sign_current_turn(out, turn, signed)
    return system, system_role, out


def _calls_rest(
    m: ToolCallMessage,
    own: Mapping[str, Any],
    i: int,
    parts: list[Any],
    start: int,
    calls: dict[str, tuple[int, str, int, bool]],
    signed: dict[int, bool],
    losses: Losses,
    tag: str,
) -> int:
    """After the valid calls of a message: its invalid ones, the kept state of its
    calls, and whether its first call needs the dummy signature; the calls pending."""
    if m.invalid_tool_calls:
        _invalid_calls(m, i, parts, calls, losses, tag)
    all_calls: list[ToolCall | InvalidToolCall] = [*m.tool_calls, *m.invalid_tool_calls]
    if own:
        _no_args(m, own, parts, start)
        order = own.get("call_order")
        if isinstance(order, (list, tuple)) and sorted(order) == sorted(c.id for c in all_calls):
            # back in the order they came in (an invalid call before a valid one)
            by_id = {c.id: (c, part) for c, part in zip(all_calls, parts[start:], strict=True)}
            base = calls[all_calls[0].id][0]
            for j, call_id in enumerate(order):
                calls[call_id] = (base + j, *calls[call_id][1:])
            all_calls = [by_id[call_id][0] for call_id in order]
            parts[start:] = [by_id[call_id][1] for call_id in order]
    c0 = all_calls[0]
    signed[id(parts[start])] = _made_elsewhere(c0, tag) and own.get("calls_unsigned") is not True
    return len(calls)


def _result(
    m: ToolResultMessage,
    found: tuple[int, str, int, bool],
    own: Mapping[str, Any],
    parts: list[Any],
    nresp: int,
    extra: _Extra | None,
    unsent: dict[int, int],
    i: int,
    losses: Losses,
    tag: str,
) -> _Extra | None:
    """A result with kept state, a derived call id or parts: its response goes in at
    ``nresp``, its media after the responses (a Loss); the content's ``_Extra`` when it
    has one (``moved`` says how many parts came out of tool results)."""
    content = m.content
    text = content if content.__class__ is str else m.text
    fr: dict[str, Any] = {"id": m.tool_call_id} if found[3] else {}
    fr["name"] = found[1]
    if own:
        fr["response"] = _response_object(m, text, own)
        _kept_response(fr, own)
    else:
        fr["response"] = {"error": text} if m.is_error else {"output": text}
    part = {"functionResponse": fr}
    if not found[3]:
        unsent[id(part)] = found[0]
    parts.insert(nresp, part)
    if content.__class__ is not str:
        if extra is None:
            extra = _Extra()
        extra.moved += _move_media(content, i, parts, nresp + 1 + extra.moved, losses, tag)
    return extra


def _kept_parts(own: Mapping[str, Any], extra: _Extra | None) -> _Extra:
    """The unknown parts and part fields a message kept, to be put back when its content closes."""
    if extra is None:
        extra = _Extra()
    extra.unknown.extend(_unknown_items(own))
    extra.keys.extend(key_items(own))
    return extra


def _user_parts(content: Any, parts: list[Any], i: int, losses: Losses, tag: str) -> int:
    """Add a user message's parts; how many."""
    added = _parts(content, _USER_PARTS, i, losses, tag)
    parts.extend(added)
    return len(added)


def _model_parts(
    m: Message, own: Mapping[str, Any], parts: list[Any], i: int, losses: Losses, tag: str
) -> int:
    """Add a model message's text and reasoning parts, its text signature back on; how many."""
    content = m.content  # type: ignore[attr-defined]
    start = len(parts)
    if content.__class__ is str:
        if content:
            parts.append({"text": content})
    elif content is not None:
        parts.extend(_parts(content, _MODEL_PARTS, i, losses, tag))
    if own:
        sig = own.get("text_signature")
        if type(sig) is str:
            _attach_text_signature(parts, start, sig)
    return len(parts) - start


def _invalid_calls(
    m: ToolCallMessage,
    i: int,
    parts: list[Any],
    calls: dict[str, tuple[int, str, int, bool]],
    losses: Losses,
    tag: str,
) -> None:
    """The invalid calls of a message, after its valid ones (call order)."""
    for k, bad in enumerate(m.invalid_tool_calls, len(m.tool_calls)):
        part, name = _invalid_call(bad, f"messages[{i}].tool_calls[{k}]", losses, tag)
        parts.append(part)
        calls[bad.id] = (len(calls), name, i, not _is_derived(bad.id))


def _state(
    m: Message, i: int, extra: _Extra | None, settle: bool, tag: str, losses: Losses
) -> tuple[Mapping[str, Any], _Extra | None, bool]:
    """A message with a name, extras or a cache hint: its Losses, this provider's state,
    and the open content's ``extra`` and ``settle`` with the parts it kept noted."""
    own = _message_state(m, i, tag, losses)
    if m.cache is not None:
        hint_loss(losses, i, CACHE_RULE)
    if own and ("unknown" in own or "keys" in own):
        return own, _kept_parts(own, extra), True
    return own, extra, settle


def _opens_content(extras: Mapping[str, Any], tag: str) -> bool:
    """Whether a message's state says it opens a content of its own (``new_content``:
    imported from a user content right after another one)."""
    own = extras.get(tag)
    return isinstance(own, Mapping) and own.get(NEW_CONTENT) is True


def _message_state(m: Message, i: int, tag: str, losses: Losses) -> Mapping[str, Any]:
    """A message's name (a Loss) and this provider's state in its extras."""
    if m.name is not None:
        losses.add(f"messages[{i}].name", "message name", "dropped: Gemini contents have no name")
    return _own_state(m.extras, tag, i, losses) if m.extras else EMPTY


def _system(
    m: Message,
    i: int,
    role: str,
    system: list[Any],
    system_role: Any,
    tag: str,
    losses: Losses,
) -> Any:
    """Add a system or developer message to the system parts; the role to spell out."""
    own = _message_state(m, i, tag, losses) if m.name is not None or m.extras else EMPTY
    if m.cache is not None:
        hint_loss(losses, i, CACHE_RULE)
    if role:
        losses.add(
            f"messages[{i}]",
            f"{m.role.value} message after the first turn",
            "moved to systemInstruction",
        )
    text: str = m.content  # type: ignore[attr-defined]
    kept = own.get("system")
    if kept and joined_text(kept) == text:
        system.extend(thaw(kept))
        if "system_role" in own:
            return own["system_role"]
    elif text:
        system.append({"text": text})
    return system_role


def _kept_response(fr: dict[str, Any], own: Mapping[str, Any]) -> None:
    """Fields of an imported ``functionResponse`` the model has no place for, put back."""
    kept = own.get("function_response")
    if isinstance(kept, Mapping):
        for key, value in kept.items():
            if key not in fr:
                fr[key] = thaw(value)


def _move_media(
    content: Sequence[Any], i: int, parts: list[Any], at: int, losses: Losses, tag: str
) -> int:
    """Images, audio and files of a tool result go after the function responses (a Loss),
    inserted at ``at``; how many."""
    path = f"messages[{i}]"
    moved = 0
    for j, p in enumerate(content):
        if type(p) is TextPart:
            continue
        where = f"{path}.content[{j}]"
        part = (_USER_PARTS.get(type(p)) or _part_fn(_USER_PARTS, p, where))(p, where, losses, tag)
        if part is not None:
            losses.add(
                where,
                f"{type(p).__name__} in a tool result",
                "moved to a user part after the function responses",
            )
            parts.insert(at + moved, part)
            moved += 1
    return moved


def _no_args(m: ToolCallMessage, own: Mapping[str, Any], parts: list[Any], start: int) -> None:
    """Calls imported without ``args`` are formatted back without it."""
    no_args = _kept(own, "no_args")
    if no_args:
        for c, part in zip(m.tool_calls, parts[start:], strict=False):
            if c.id in no_args and not c.arguments:
                part["functionCall"].pop("args", None)


def _sign_current_turn(out: list[dict[str, Any]], turn: int, signed: dict[int, bool]) -> None:
    """Give the calls of the current turn that Gemini did not make its dummy signature.

    Gemini 3 validates the current turn only: the model contents after the last user
    content with anything but function responses. The first functionCall part of
    each must carry a signature ("Function call is missing a thought_signature").
    """
    for content in out[turn:]:
        if content["role"] == "model":
            for part in content["parts"]:
                if "functionCall" in part:
                    if signed.get(id(part), True) and "thoughtSignature" not in part:
                        part["thoughtSignature"] = DUMMY_SIGNATURE
                    break
