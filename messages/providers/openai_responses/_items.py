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
from ..._build import text_part
from ..._cache import CacheHint
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
from ..._parts import ContentPart, FilePart, ImagePart, ReasoningPart, TextPart, parse_data_url
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ValidationError, ident
from .._base import opt_str_at, tool_name_valid
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


def decode_call(
    item: Mapping[str, Any], path: str, tag: str, seed: str, position: int, cut: bool = False
) -> ToolCall | InvalidToolCall:
    """A ``function_call`` item: a ToolCall, or an InvalidToolCall kept as the model wrote it.

    ``call_id`` is the call's id (derived from ``seed`` and ``position`` when the wire
    has none); the item's other keys (``id``, ``status``...) are the call's
    ``extras[tag]``. ``cut``: the stream ended inside this call.
    """
    call_id = item.get("call_id")
    name = opt_str_at(item, "name", path)
    raw = item.get("arguments")
    if not isinstance(call_id, str) or not call_id:
        opt_str_at(item, "call_id", path)
        call_id = derive_call_id(
            DERIVED_ID_PREFIX, seed, position, name or "", raw if isinstance(raw, str) else ""
        )
    rest = without(item, CALL_FIELDS, path)
    extras = FrozenDict({tag: rest}) if rest else EMPTY
    args, text, error = arguments(raw, f"{path}.arguments")
    if cut:
        error = f"{path}: the stream ended before this call was complete"
    elif error is None and (name is None or not tool_name_valid(name)):
        error = f"{path}.name: " + ("missing" if name is None else "invalid tool name")
    if error is not None or args is None or name is None:
        return _build.trusted(InvalidToolCall, call_id, name, text, error or path, extras)
    return _build.tool_call(
        ToolCall, call_id, name, args, extras, raw if isinstance(raw, str) else None
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


def _skeleton(p: Mapping[str, Any], where: str) -> FrozenDict:
    """A text part without its text (what the layout keeps of it)."""
    return without(p, _NO_TEXT, where)


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
    if isinstance(content, str):
        parts.append(text_part(content))
        return FrozenDict({"message": head}), len(head) == 1
    if content is None:
        return FrozenDict({"message": head, "parts": ()}), False
    skeleton: list[FrozenDict] = []
    for j, raw in enumerate(array(content, f"{path}.content")):
        where = f"{path}.content[{j}]"
        p = mapping(raw, where)
        t = p.get("type")
        if t in TEXT_PARTS:
            parts.append(text_part(string(p.get("text"), f"{where}.text")))
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
    turn = _Turn(tag, seed, cut)
    for k, (item, path) in enumerate(items):
        turn.add(item, path, k)
    return turn.message(metadata, response_id)


class _Turn:
    """An assistant message being read from its items: its parts and calls, the layout of
    the items and the items kept whole."""

    __slots__ = (
        "calls",
        "cut",
        "ids",
        "invalid",
        "layout",
        "parts",
        "plain",
        "reasoned",
        "refusals",
        "seed",
        "tag",
        "texts",
        "unknown",
    )

    def __init__(self, tag: str, seed: str, cut: frozenset[int]) -> None:
        self.tag = tag
        self.seed = seed
        self.cut = cut
        self.parts: list[ContentPart] = []
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []
        self.ids: set[str] = set()
        self.layout: list[FrozenDict] = []
        self.unknown: list[FrozenDict] = []
        self.refusals: list[str] = []
        self.reasoned = False
        self.plain = True  # formatting without a layout gives these items back
        self.texts = 0  # message items read

    def add(self, item: Mapping[str, Any], path: str, k: int) -> None:
        """Item ``k`` of the run, at ``path``."""
        t = item.get("type")
        if t == "function_call":
            self.call(item, path, k)
        elif t == "message" or (t is None and "role" in item):
            self.text(item, path)
        elif t == "reasoning":
            self.layout.append(_reasoning_entry(item, path, self.tag, self.parts))
            self.reasoned = True
            self.plain = False
        else:
            self.other(item, path, k, t)

    def call(self, item: Mapping[str, Any], path: str, k: int) -> None:
        call = decode_call(item, path, self.tag, self.seed, k, k in self.cut)
        if call.id in self.ids:
            call = _repeated(call, path, self.seed, k)
        self.ids.add(call.id)
        if isinstance(call, ToolCall):
            self.calls.append(call)
        else:
            self.invalid.append(call)
        self.layout.append(FrozenDict({"call": call.id}))

    def text(self, item: Mapping[str, Any], path: str) -> None:
        entry, easy = _message_entry(item, path, self.parts, self.refusals)
        # an empty text (pydantic-ai sends {"role": "assistant", "content": ""} before
        # its calls) is written back only from the layout
        first = not (self.texts or self.calls or self.invalid or self.reasoned)
        if not (easy and first and item["content"]):
            self.plain = False
        self.texts += 1
        self.layout.append(entry)

    def other(self, item: Mapping[str, Any], path: str, k: int, t: object) -> None:
        """An item this package does not model: kept whole, sent back in its place."""
        if t is not None and not isinstance(t, str):
            raise DecodeError("item type must be a string", f"{path}.type")
        record = {
            "index": k,
            "path": path,
            "type": kind(t) if t is not None else "item_reference",
            "value": frozen(item, path),
        }
        self.unknown.append(FrozenDict(record))
        self.plain = False

    def message(
        self, metadata: FrozenDict, response_id: str | None
    ) -> tuple[AssistantMessage, str | None]:
        """The message read, and its refusal text."""
        state: dict[str, Any] = {}
        if not self.plain:
            state[ITEMS] = tuple(self.layout)
        if self.unknown:
            state[UNKNOWN] = tuple(self.unknown)
        refusal = "".join(self.refusals) if self.refusals else None
        if refusal is not None:
            state[REFUSAL] = refusal
        if response_id is not None:
            state[RESPONSE_ID] = response_id
        extras = _own(self.tag, state)
        parts = self.parts
        content: str | tuple[ContentPart, ...] | None
        if len(parts) == 1 and isinstance(parts[0], TextPart):
            content = parts[0].text
        elif parts:
            content = tuple(parts)
        else:
            content = None if self.calls or self.invalid else ""
        if self.calls or self.invalid:
            message: AssistantMessage = _build.tool_call_message(
                ToolCallMessage,
                tuple(self.calls),
                content,
                tuple(self.invalid),
                None,
                metadata,
                extras,
            )
        else:
            message = _build.message(AssistantMessage, content, None, metadata, extras)
        return message, refusal


# -- user content, tool results, system messages ---------------------------------------


def _image(p: Mapping[str, Any], where: str) -> tuple[ContentPart, dict[str, Any]]:
    """An ``input_image`` part: an ImagePart (URL or data URL), or a FilePart by file id."""
    url = opt_string(p.get("image_url"), f"{where}.image_url")
    detail = opt_string(p.get("detail"), f"{where}.detail")
    if detail == "auto":
        # The default, which the SDK's type requires on every image: a part without a
        # detail, which goes back as "auto" (and to other providers as no detail).
        detail = None
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
        problem = exc.message
    if url.startswith("data:") and detail is None:
        # a file part of an image type goes out as an image, and its data may be what an
        # image's cannot be (text starting "data:"): it reads back as that file part
        try:
            media_type, data = parse_data_url(url, f"{where}.image_url")
            return FilePart(data, None, None, media_type), keys
        except ValidationError:
            pass
    raise DecodeError(problem, f"{where}.image_url")


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
            part = text_part(string(p.get("text"), f"{where}.text"))
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
    if isinstance(content, str):
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
    if isinstance(content, str):
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
    rest = without(item, _MESSAGE_FIELDS, path)
    if rest:
        state[ITEM] = rest
    if leading:
        state[INPUT] = True
    extras = _own(tag, state)
    if role == "system":
        return _build.message(SystemMessage, text, None, EMPTY, extras, cache=cache)
    return _build.message(DeveloperMessage, text, None, EMPTY, extras, cache=cache)
