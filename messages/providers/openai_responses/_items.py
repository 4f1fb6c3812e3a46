"""Responses items to canonical messages: the one decoder of each item kind, shared by
response parsing, streams (which assemble a Response and parse it) and request import.

* A run of assistant-side items (``message`` items of the assistant, ``reasoning``,
  ``function_call`` and every item this package does not model) is one assistant
  message: texts and reasoning as parts in order, calls as tool calls, the layout
  and the other items in ``extras[tag]`` (see ``_read``).
* ``function_call_output`` is a tool result; a user, system or developer message
  item is that message. A ``prompt_cache_breakpoint`` on the last content part of
  one (``{"mode": "explicit"}``) is the message's ``cache`` hint; on another part,
  or with another value, it is a kept key of its part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ... import _build
from ..._cache import CacheHint
from ..._fields import _KNOWN_MAX, _NAME_RE, known_tool_name
from ..._frozen import EMPTY, FrozenDict
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._message import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ..._parts import ContentPart, FilePart, ImagePart, ReasoningPart, parse_data_url
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ValidationError, ident
from .._cache_hints import BREAKPOINT_KEY, lift_kept
from ._read import (
    CALL_FIELDS,
    INPUT,
    ITEM,
    ITEMS,
    KEYS,
    REFUSAL,
    RESPONSE_ID,
    SPLIT,
    TEXT_PARTS,
    UNKNOWN,
    arguments,
    array,
    frozen,
    kind,
    mapping,
    opt_string,
    string,
    without,
)

__all__ = [
    "decode_call",
    "decode_output",
    "decode_parts",
    "decode_system",
    "decode_turn",
    "decode_user",
]

_text_part = _build.text_part
_NO_TEXT: Final = frozenset(("text",))
_REASONING_TEXTS: Final = frozenset(("summary", "content", "encrypted_content"))
_MESSAGE_FIELDS: Final = frozenset(("role", "content"))
_CONTENT: Final = frozenset(("content",))
_TEXT_FIELDS: Final = frozenset(("type", "text"))
_OUTPUT_FIELDS: Final = frozenset(("type", "call_id", "output"))
_IMAGE_FIELDS: Final = frozenset(("type", "image_url", "detail"))
_FILE_FIELDS: Final = frozenset(("type", "file_data", "file_id", "filename"))


def _own(tag: str, state: dict[str, Any]) -> FrozenDict:
    """``{tag: state}`` frozen, or EMPTY when there is no state (values already frozen)."""
    return FrozenDict({tag: FrozenDict(state)}) if state else EMPTY


# -- calls ----------------------------------------------------------------------------


def _name_ok(name: str) -> bool:
    """True for a valid tool name; hot path: names seen valid are one set lookup."""
    if name in known_tool_name:
        return True
    if _NAME_RE.fullmatch(name) is None:
        return False
    if len(known_tool_name) < _KNOWN_MAX:
        known_tool_name.add(name)
    return True


def decode_call(
    item: Mapping[str, Any], path: str, tag: str, seed: str, position: int, cut: bool = False
) -> ToolCall | InvalidToolCall:
    """A ``function_call`` item: a ToolCall, or an InvalidToolCall kept as the model wrote it.

    ``call_id`` is the call's id (derived from ``seed`` and ``position`` when the wire
    has none); the item's other keys (``id``, ``status``...) are the call's
    ``extras[tag]``. ``cut``: the stream ended inside this call.
    """
    call_id = item.get("call_id")
    name = item.get("name")
    if name.__class__ is not str:
        name = opt_string(name, f"{path}.name")
    raw = item.get("arguments")
    if call_id.__class__ is not str or not call_id:
        opt_string(call_id, f"{path}.call_id")
        call_id = derive_call_id(
            DERIVED_ID_PREFIX, seed, position, name or "", raw if isinstance(raw, str) else ""
        )
    extras = EMPTY
    if len(item) > 4 or not CALL_FIELDS.issuperset(item):
        rest = without(item, CALL_FIELDS, path)
        if rest:
            extras = FrozenDict({tag: rest})
    args, text, error = arguments(raw, f"{path}.arguments")
    if cut:
        error = f"{path}: the stream ended before this call was complete"
    elif error is None and (name is None or not _name_ok(name)):
        error = f"{path}.name: " + ("missing" if name is None else "invalid tool name")
    if error is not None or args is None or name is None:
        return _build.trusted(InvalidToolCall, call_id, name, text, error or path, extras)
    return _build.tool_call(
        ToolCall, call_id, name, args, extras, raw if raw.__class__ is str else None
    )


def _repeated(
    call: ToolCall | InvalidToolCall, path: str, seed: str, position: int
) -> InvalidToolCall:
    """A call that repeats an earlier call's id: an invalid call with an id of its own."""
    raw = call.raw_arguments if isinstance(call, InvalidToolCall) else call.arguments_json
    new_id = derive_call_id(DERIVED_ID_PREFIX, seed, position, "repeat", call.id)
    return InvalidToolCall(
        new_id, call.name, raw, f"{path}.call_id: a repeated tool call id", extras=call.extras
    )


# -- assistant turns ------------------------------------------------------------------

# hot path: the usual output_text part ({type, text, annotations: [], logprobs: []}):
# its skeleton is one shared constant per key order (~1 us of freezing saved a part)
_EMPTY_SKELETONS: dict[tuple[Any, ...], FrozenDict] = {}


def _skeleton(p: Mapping[str, Any], where: str) -> FrozenDict:
    """A text part without its text (what the layout keeps of it)."""
    keys = (p["type"], *p)
    for k, v in p.items():
        if not (v.__class__ is list and not v) and k not in _TEXT_FIELDS:
            return without(p, _NO_TEXT, where)
    skeleton = _EMPTY_SKELETONS.get(keys)
    if skeleton is None:
        skeleton = without(p, _NO_TEXT, where)
        if len(_EMPTY_SKELETONS) < 64:
            _EMPTY_SKELETONS[keys] = skeleton
    return skeleton


def _message_entry(
    item: Mapping[str, Any], path: str, parts: list[ContentPart], refusals: list[str]
) -> tuple[FrozenDict, bool]:
    """The layout entry of an assistant ``message`` item; its texts go to ``parts``.

    The second value is True when the item is the plain ``{"role", "content": str}``.
    """
    role = item.get("role")
    if role != "assistant":
        raise DecodeError(f"expected role 'assistant', got {ident(role)}", f"{path}.role")
    head = without(item, _CONTENT, path)
    content = item.get("content")
    if content.__class__ is str:
        parts.append(_text_part(content))
        return FrozenDict({"message": head}), len(head) == 1
    if content is None:
        return FrozenDict({"message": head, "parts": ()}), False
    skeleton: list[FrozenDict] = []
    for j, raw in enumerate(array(content, f"{path}.content")):
        where = f"{path}.content[{j}]"
        p = mapping(raw, where)
        t = p.get("type")
        if t in TEXT_PARTS:
            parts.append(_text_part(string(p.get("text"), f"{where}.text")))
            skeleton.append(_skeleton(p, where))
        else:
            if t == "refusal":
                refusals.append(string(p.get("refusal"), f"{where}.refusal"))
            elif not isinstance(t, str):
                raise DecodeError("content part type is required (a string)", f"{where}.type")
            skeleton.append(frozen(p, where))  # a refusal or an unknown part, kept in place
    return FrozenDict({"message": head, "parts": tuple(skeleton)}), False


def _reasoning_entry(
    item: Mapping[str, Any], path: str, tag: str, parts: list[ContentPart]
) -> FrozenDict:
    """The layout entry of a ``reasoning`` item; its text and signature go to ``parts``."""
    texts: list[str] = []
    split: list[int] = []
    head: dict[str, Any] = {}
    for key, value in item.items():
        if key in _REASONING_TEXTS and value is not None:
            if key == "encrypted_content":
                continue
            skeleton = []
            for j, raw in enumerate(array(value, f"{path}.{key}")):
                p = mapping(raw, f"{path}.{key}[{j}]")
                text = string(p.get("text"), f"{path}.{key}[{j}].text")
                texts.append(text)
                split.append(len(text))
                skeleton.append(without(p, _NO_TEXT, f"{path}.{key}[{j}]"))
            head[key] = tuple(skeleton)
        else:
            head[key] = value
    signature = opt_string(item.get("encrypted_content"), f"{path}.encrypted_content")
    parts.append(_build.trusted(ReasoningPart, "".join(texts), signature, False, tag))
    return FrozenDict({"reasoning": frozen(head, path), "split": tuple(split)})


def decode_turn(
    items: Sequence[tuple[Mapping[str, Any], str]],
    tag: str,
    seed: str,
    *,
    metadata: FrozenDict = EMPTY,
    response_id: str | None = None,
    cut: frozenset[int] = frozenset(),
) -> tuple[AssistantMessage, str | None]:
    """One assistant message from a run of assistant-side items, and its refusal text.

    ``cut``: positions of calls the stream ended inside (they become invalid calls).
    """
    parts: list[ContentPart] = []
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    layout: list[FrozenDict] = []
    unknown: list[FrozenDict] = []
    refusals: list[str] = []
    reasoned = False
    plain = True  # formatting without a layout gives these items back
    texts = 0
    ids: set[str] | None = None
    for k, (item, path) in enumerate(items):
        t = item.get("type")
        if t == "function_call":
            call = decode_call(item, path, tag, seed, k, k in cut)
            if calls or invalid:
                if ids is None:
                    ids = {c.id for c in calls} | {c.id for c in invalid}
                if call.id in ids:
                    call = _repeated(call, path, seed, k)
                ids.add(call.id)
            if isinstance(call, ToolCall):
                calls.append(call)
            else:
                invalid.append(call)
            layout.append(FrozenDict({"call": call.id}))
        elif t == "message" or (t is None and "role" in item):
            entry, easy = _message_entry(item, path, parts, refusals)
            # an empty text (pydantic-ai sends {"role": "assistant", "content": ""} before
            # its calls) is written back only from the layout
            if not easy or texts or calls or invalid or reasoned or not item["content"]:
                plain = False
            texts += 1
            layout.append(entry)
        elif t == "reasoning":
            layout.append(_reasoning_entry(item, path, tag, parts))
            reasoned = True
            plain = False
        else:
            if t is not None and not isinstance(t, str):
                raise DecodeError("item type must be a string", f"{path}.type")
            unknown.append(
                FrozenDict(
                    {
                        "index": k,
                        "path": path,
                        "type": kind(t) if t is not None else "item_reference",
                        "value": frozen(item, path),
                    }
                )
            )
            plain = False
    state: dict[str, Any] = {}
    if not plain:
        state[ITEMS] = tuple(layout)
    if unknown:
        state[UNKNOWN] = tuple(unknown)
    refusal = "".join(refusals) if refusals else None
    if refusal is not None:
        state[REFUSAL] = refusal
    if response_id is not None:
        state[RESPONSE_ID] = response_id
    extras = _own(tag, state)
    content: Any
    if not reasoned and len(parts) == 1:
        content = parts[0].text  # type: ignore[union-attr]
    elif parts:
        content = tuple(parts)
    else:
        content = None if calls or invalid else ""
    if calls or invalid:
        message: AssistantMessage = _build.tool_call_message(
            ToolCallMessage, tuple(calls), content, tuple(invalid), None, metadata, extras
        )
    else:
        message = _build.message(AssistantMessage, content, None, metadata, extras)
    return message, refusal


# -- user content, tool results, system messages ---------------------------------------


def _image(p: Mapping[str, Any], where: str) -> tuple[ContentPart, dict[str, Any]]:
    """An ``input_image`` part: an ImagePart (URL or data URL), or a FilePart by file id."""
    url = opt_string(p.get("image_url"), f"{where}.image_url")
    detail = opt_string(p.get("detail"), f"{where}.detail")
    keys = {k: v for k, v in p.items() if k not in _IMAGE_FIELDS}
    if url is None:
        file_id = string(p.get("file_id"), f"{where}.file_id")
        keys.pop("file_id")
        keys["type"] = "input_image"  # an image by file id: a file part sent back as an image
        if detail is not None:
            keys["detail"] = detail
        return FilePart(file_id=file_id), keys
    try:  # a base64 data: URL becomes inline data; any other URL stays a URL
        return ImagePart(url=url, detail=detail), keys
    except ValidationError as exc:
        raise DecodeError(exc.message, f"{where}.image_url") from None


def _file(p: Mapping[str, Any], where: str) -> tuple[ContentPart | None, dict[str, Any]]:
    """An ``input_file`` part: a FilePart (data or file id); None for a file only by URL."""
    data = opt_string(p.get("file_data"), f"{where}.file_data")
    file_id = opt_string(p.get("file_id"), f"{where}.file_id")
    filename = opt_string(p.get("filename"), f"{where}.filename")
    if data is None and not file_id:
        return None, {}
    media_type = None
    try:
        if data is not None and data.startswith("data:"):
            media_type, data = parse_data_url(data, f"{where}.file_data")
        part = FilePart(data, file_id or None, filename, media_type)
    except ValidationError as exc:
        raise DecodeError(exc.message, exc.path or where) from None
    return part, {k: v for k, v in p.items() if k not in _FILE_FIELDS}


def decode_parts(
    content: Any, path: str
) -> tuple[tuple[ContentPart, ...], list[FrozenDict], list[FrozenDict]]:
    """User or tool-output content parts: ``(parts, kept keys, unknown parts)``.

    ``input_text``, ``input_image`` and ``input_file`` become parts; a part's keys
    that the canonical part has no field for are kept by index, and a part of
    another type (or a file only by URL) is kept whole.
    """
    parts: list[ContentPart] = []
    kept: list[FrozenDict] = []
    unknown: list[FrozenDict] = []
    for j, raw in enumerate(array(content, path)):
        where = f"{path}[{j}]"
        p = mapping(raw, where)
        t = p.get("type")
        part: ContentPart | None
        if t == "input_text":
            part = _text_part(string(p.get("text"), f"{where}.text"))
            keys = {k: v for k, v in p.items() if k not in _TEXT_FIELDS} if len(p) > 2 else {}
        elif t == "input_image":
            part, keys = _image(p, where)
        elif t == "input_file":
            part, keys = _file(p, where)
        else:
            if not isinstance(t, str):
                raise DecodeError("content part type is required (a string)", f"{where}.type")
            part, keys = None, {}
        if part is None:
            unknown.append(
                FrozenDict({"index": j, "path": where, "type": kind(t), "value": frozen(p, where)})
            )
            continue
        parts.append(part)
        if keys:
            kept.append(FrozenDict({"index": j, "keys": frozen(keys, where)}))
    return tuple(parts), kept, unknown


def _content_state(
    item: Mapping[str, Any], key: str, fields: frozenset[str], path: str, tag: str
) -> tuple[Any, FrozenDict, CacheHint | None]:
    """The string or parts of ``item[key]``, this provider's state of the item (its
    other keys, the kept keys of its parts and its unknown parts) and its hint."""
    content = item.get(key)
    state: dict[str, Any] = {}
    cache = None
    if content.__class__ is str:
        value: Any = content
    else:
        if content is None:
            raise DecodeError(f"{key} is required", f"{path}.{key}")
        value, kept, unknown = decode_parts(content, f"{path}.{key}")
        if kept:
            cache = lift_kept(kept, len(content) - 1, BREAKPOINT_KEY)
            if kept:
                state[KEYS] = tuple(kept)
        if unknown:
            state[UNKNOWN] = tuple(unknown)
    if len(item) > len(fields) or not fields.issuperset(item):
        rest = without(item, fields, path)
        if rest:
            state[ITEM] = rest
    return value, _own(tag, state), cache


def decode_user(item: Mapping[str, Any], path: str, tag: str) -> UserMessage:
    """A user ``message`` item (``content`` a string or input parts)."""
    value, extras, cache = _content_state(item, "content", _MESSAGE_FIELDS, path, tag)
    return _build.message(UserMessage, value, None, EMPTY, extras, cache=cache)


def decode_output(item: Mapping[str, Any], path: str, tag: str, call_id: str) -> ToolResultMessage:
    """A ``function_call_output`` item answering ``call_id`` (its output a string or parts)."""
    value, extras, cache = _content_state(item, "output", _OUTPUT_FIELDS, path, tag)
    return _build.tool_result_message(
        ToolResultMessage, call_id, value, False, None, None, EMPTY, extras, cache=cache
    )


def decode_system(
    item: Mapping[str, Any], path: str, tag: str, role: str, leading: bool
) -> SystemMessage | DeveloperMessage:
    """A system or developer ``message`` item; ``leading``: the first message of the body."""
    content = item.get("content")
    state: dict[str, Any] = {}
    cache = None
    if content.__class__ is str:
        text: str = content
    else:
        if content is None:
            raise DecodeError("content is required", f"{path}.content")
        texts = []
        kept: list[FrozenDict] = []
        for j, raw in enumerate(array(content, f"{path}.content")):
            where = f"{path}.content[{j}]"
            p = mapping(raw, where)
            if p.get("type") != "input_text":
                raise DecodeError("system and developer content takes input_text parts only", where)
            texts.append(string(p.get("text"), f"{where}.text"))
            if len(p) > 2:  # e.g. a prompt_cache_breakpoint
                keys = {k: v for k, v in p.items() if k not in _TEXT_FIELDS}
                kept.append(FrozenDict({"index": j, "keys": frozen(keys, where)}))
        text = "".join(texts)
        state[SPLIT] = tuple(len(t) for t in texts)
        if kept:
            cache = lift_kept(kept, len(texts) - 1, BREAKPOINT_KEY)
            if kept:
                state[KEYS] = tuple(kept)
    if len(item) > 2 or not _MESSAGE_FIELDS.issuperset(item):
        rest = without(item, _MESSAGE_FIELDS, path)
        if rest:
            state[ITEM] = rest
    if leading:
        state[INPUT] = True
    extras = _own(tag, state)
    if role == "system":
        return _build.message(SystemMessage, text, None, EMPTY, extras, cache=cache)
    return _build.message(DeveloperMessage, text, None, EMPTY, extras, cache=cache)
