"""Importing a conversation written as a ``generateContent`` request body."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..._build import message, tool_call_message, tool_result_message
from ..._frozen import EMPTY, MAX_DEPTH, FrozenDict
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._json import dumps_compact, json_type
from ..._message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ..._parts import AudioPart, ContentPart, FilePart, ImagePart, TextPart
from ...errors import DecodeError, ValidationError, ident
from .._base import (
    as_list,
    as_mapping,
    decode_error,
    freeze_decoded,
    opt_str,
    with_state,
)
from .._json_results import json_object_of
from ._parse import Collector
from ._wire import (
    DERIVED_LEN,
    NAME,
    NEW_CONTENT,
    SNAKE,
    extra_keys,
    field,
    keys_item,
    own_state,
    spelled,
    too_deep,
    unknown_item,
)


def parse_messages(body_or_list: Any, tag: str) -> list[Message]:
    """The messages of a request body (or of its ``contents``), either field spelling."""
    out: list[Message] = []
    if isinstance(body_or_list, Mapping):
        prefix = "contents"
        raw = as_list(body_or_list.get("contents"), "contents")
        system = field(body_or_list, "systemInstruction")
        if system is not None:
            out.append(_system(system, spelled(body_or_list, "systemInstruction"), tag))
    elif isinstance(body_or_list, (list, tuple)):
        prefix = ""
        raw = body_or_list
    else:
        raise DecodeError(
            f"expected a request body object or a list of contents, got {json_type(body_or_list)}",
            "",
        )
    pending: list[list[Any]] = []  # [call id, name, answered] of the latest model content
    after_user = False  # whether the content before was a user content
    for ci, item in enumerate(raw):
        path = f"{prefix}[{ci}]"
        content = as_mapping(item, path)
        role = content.get("role") or "user"  # proto3: an empty role is an unset one
        parts = as_list(content.get("parts", ()), f"{path}.parts")
        if role == "model":
            after_user = False
            model, calls = _model_content(parts, path, ci, tag)
            out.append(model)
            if calls:
                pending = calls
        elif role in ("user", "function"):
            start = len(out)
            _user_content(parts, path, ci, pending, out, tag)
            if after_user and len(out) > start and type(out[start]) is UserMessage:
                # a user content right after another (the API takes both apart, e.g.
                # function responses, then the next question) that starts with text or
                # media: it opens a content again when formatted for Gemini (function
                # responses split over two contents are merged into one)
                extras = with_state(out[start].extras, tag, **{NEW_CONTENT: True})
                out[start] = out[start].with_extras(extras)
            after_user = True
        else:
            got = ident(role) if isinstance(role, str) else json_type(role)
            raise DecodeError(f"expected role 'user' or 'model', got {got}", f"{path}.role")
    return out


def _system(system: Any, path: str, tag: str) -> SystemMessage:
    if type(system) is str:
        return SystemMessage(system)
    sysmap = as_mapping(system, path)
    parts = as_list(sysmap.get("parts", ()), f"{path}.parts")
    texts = []
    plain = True
    for j, item in enumerate(parts):
        ppath = f"{path}.parts[{j}]"
        part = as_mapping(item, ppath)
        text = part.get("text")
        if type(text) is not str:
            what = "missing" if text is None else f"expected a string, got {json_type(text)}"
            raise DecodeError(what, f"{ppath}.text")
        texts.append(text)
        plain = plain and len(part) == 1
    text = "".join(texts)
    role = opt_str(sysmap.get("role"), f"{path}.role")
    if plain and len(parts) == 1 and role is None:
        return message(SystemMessage, text)
    own: dict[str, Any] = {"system": freeze_decoded(parts, f"{path}.parts")}
    if role is not None:
        own["system_role"] = role  # the SDKs send role "user"; formatted back as given
    return message(SystemMessage, text, None, EMPTY, FrozenDict({tag: FrozenDict(own)}))


def _model_content(
    parts: Sequence[Any], path: str, ci: int, tag: str
) -> tuple[AssistantMessage, list[list[Any]]]:
    acc = Collector(("content", ci), tag)
    prefix = f"{path}.parts"
    for pi, item in enumerate(parts):
        acc.part(item, prefix, pi)
    own: dict[str, Any] = {}
    if acc.text_signature is not None:
        own["text_signature"] = acc.text_signature
    if acc.no_args:
        own["no_args"] = tuple(acc.no_args)
    if acc.invalid:
        acc.keep_order(own)
    calls, invalid = acc.calls, acc.invalid
    first = calls[0] if calls else invalid[0] if invalid else None
    if (
        first is not None
        and not first.extras
        and not (first.id.startswith(DERIVED_ID_PREFIX) and len(first.id) == DERIVED_LEN)
    ):
        # the content's first call came with an id and no signature: sent back as it
        # came, not taken for another provider's call (which gets a dummy signature)
        own["calls_unsigned"] = True
    extras = own_state(own, acc.unknown, acc.keys, tag)
    content_parts = acc.content_parts()
    if calls or invalid:
        acc.check_ids(prefix)
        names: dict[str, str | None] = {c.id: c.name for c in calls}
        names.update((c.id, c.name) for c in invalid)
        pending = [[call_id, names[call_id], False] for call_id in acc.ids]  # wire order
        return (
            tool_call_message(
                ToolCallMessage,
                tuple(calls),
                content_parts or None,
                tuple(invalid),
                None,
                EMPTY,
                extras,
            ),
            pending,
        )
    content: str | tuple[ContentPart, ...] = content_parts
    if len(content_parts) == 1 and type(content_parts[0]) is TextPart:
        content = content_parts[0].text
    return message(AssistantMessage, content, None, EMPTY, extras), []


def _user_content(
    parts: Sequence[Any],
    path: str,
    ci: int,
    pending: list[list[Any]],
    out: list[Message],
    tag: str,
) -> None:
    user_parts: list[ContentPart] = []
    unknown: list[FrozenDict] = []
    keys: list[FrozenDict] = []
    produced = 0
    for pi, item in enumerate(parts):
        ppath = f"{path}.parts[{pi}]"
        part = as_mapping(item, ppath)
        text = part.get("text")
        if text is not None:
            if type(text) is not str:
                raise DecodeError(f"expected a string, got {json_type(text)}", f"{ppath}.text")
            user_parts.append(TextPart(text))
            _keep_keys(part, "text", pi, ppath, keys)
            continue
        key = _data_key(part)
        if key in ("functionResponse", "function_response"):
            fr = as_mapping(part[key], f"{ppath}.{key}")
            own_keys: list[FrozenDict] = []
            _keep_keys(part, key, pi, ppath, own_keys)
            out.append(_tool_message(fr, f"{ppath}.{key}", ci, pi, pending, own_keys, tag))
            produced += 1
        elif key in _MEDIA:
            user_parts.append(_media_part(part, key, ppath, pi, keys))
        elif key in ("functionCall", "function_call"):
            raise DecodeError(
                "a functionCall part is not allowed in a user content", f"{ppath}.{key}"
            )
        else:
            unknown.append(unknown_item(part, pi, ppath))
    extras = own_state({}, unknown, keys, tag)
    if user_parts or not produced:
        content: str | tuple[ContentPart, ...] = (
            user_parts[0].text
            if len(user_parts) == 1 and type(user_parts[0]) is TextPart
            else tuple(user_parts)
        )
        out.append(message(UserMessage, content, None, EMPTY, extras))
    elif unknown:
        out[-1] = out[-1].with_extras(_with_unknown(out[-1].extras, unknown, tag))


_DATA_KEYS = (
    "functionResponse",
    "function_response",
    "inlineData",
    "inline_data",
    "fileData",
    "file_data",
    "functionCall",
    "function_call",
)
_MEDIA = frozenset(("inlineData", "inline_data", "fileData", "file_data"))


def _data_key(part: Mapping[str, Any]) -> str:
    for key in _DATA_KEYS:
        if part.get(key) is not None:
            return key
    return ""


def _keep_keys(
    part: Mapping[str, Any], data_key: str, index: int, path: str, out: list[FrozenDict]
) -> None:
    if len(part) > 1:
        extra = extra_keys(part, data_key)
        if extra:
            out.append(keys_item(extra, index, path))


def _with_unknown(extras: Mapping[str, Any], unknown: list[FrozenDict], tag: str) -> FrozenDict:
    own = extras.get(tag)
    inner = dict(own) if isinstance(own, Mapping) else {}
    inner["unknown"] = tuple(inner.get("unknown", ())) + tuple(unknown)
    merged = dict(extras)
    merged[tag] = FrozenDict(inner)
    return FrozenDict(merged)


def _audio_format(media_type: str) -> str:
    sub = media_type.partition("/")[2]
    return sub or media_type


# The fields of a Blob / FileData read into a part (either spelling).
_BLOB_FIELDS = frozenset(("mimeType", "mime_type", "data", "fileUri", "file_uri"))


def _media_part(
    part: Mapping[str, Any], key: str, path: str, pi: int, keys: list[FrozenDict]
) -> ContentPart:
    bpath = f"{path}.{key}"
    blob = as_mapping(part[key], bpath)
    media_type = _blob_str(blob, "mimeType", bpath)
    inline = key in ("inlineData", "inline_data")
    try:
        if inline:
            data = _blob_str(blob, "data", bpath)
            if media_type.startswith("image/"):
                media: ContentPart = ImagePart(data=data, media_type=media_type)
            elif media_type.startswith("audio/"):
                media = AudioPart(data, _audio_format(media_type))
            else:
                media = FilePart(data=data, media_type=media_type)
        else:
            uri = _blob_str(blob, "fileUri", bpath)
            if not uri:
                raise DecodeError("must not be empty", f"{bpath}.{spelled(blob, 'fileUri')}")
            if media_type.startswith("image/"):
                media = ImagePart(url=uri, media_type=media_type)
            else:
                media = FilePart(file_id=uri, media_type=media_type)
    except ValidationError as exc:
        raise decode_error(exc, bpath) from None
    extra = extra_keys(part, key)
    if any(k not in _BLOB_FIELDS for k in blob):
        # a field of the blob the part has no place for (``displayName``): the blob is
        # kept whole and put back over the formatted one
        extra[CAMEL_MEDIA[key]] = blob
    if extra:
        keys.append(keys_item(extra, pi, path))
    return media


CAMEL_MEDIA = {
    "inlineData": "inlineData",
    "inline_data": "inlineData",
    "fileData": "fileData",
    "file_data": "fileData",
}


def _blob_str(blob: Mapping[str, Any], key: str, path: str) -> str:
    value = blob.get(key)
    if value is None:
        snake = SNAKE.get(key)
        if snake is not None:
            value = blob.get(snake)
            if value is not None:
                key = snake
    if type(value) is not str:
        what = "missing" if value is None else f"expected a string, got {json_type(value)}"
        raise DecodeError(what, f"{path}.{key}")
    return value


_FR_KNOWN = frozenset(("id", "name", "response"))


def _tool_message(
    fr: Mapping[str, Any],
    path: str,
    ci: int,
    pi: int,
    pending: list[list[Any]],
    keys: list[FrozenDict],
    tag: str,
) -> ToolResultMessage:
    name = fr.get("name")
    if type(name) is not str or not name:
        what = (
            "missing" if name is None or name == "" else f"expected a string, got {json_type(name)}"
        )
        raise DecodeError(what, f"{path}.name")
    wire_id = opt_str(fr.get("id"), f"{path}.id") or None
    response = as_mapping(fr.get("response"), f"{path}.response")
    call_id = None
    if wire_id is not None:
        call_id = wire_id
        for entry in pending:
            if entry[0] == wire_id:
                entry[2] = True
                break
    else:
        for entry in pending:
            if not entry[2] and entry[1] == name:
                entry[2] = True
                call_id = entry[0]
                break
    if call_id is None:
        call_id = derive_call_id(DERIVED_ID_PREFIX, NAME, ci, pi, name)
    text, is_error, shape, is_json = _result_text(response, f"{path}.response")
    own: dict[str, Any] = {}
    if len(fr) > 2 and any(k not in _FR_KNOWN for k in fr):
        # willContinue, scheduling, multimodal parts...: kept and formatted back
        extra = {k: v for k, v in fr.items() if k not in _FR_KNOWN}
        own["function_response"] = freeze_decoded(extra, path)
    if shape != ("error" if is_error else "output"):
        own["response"] = shape
    elif not is_json and not is_error and json_object_of(text) is not None:
        own["response"] = shape  # a string holding a JSON object: it goes back as a string
    if is_json:
        own["response"] = shape
        own["json"] = True
    return tool_result_message(
        ToolResultMessage, call_id, text, is_error, name, extras=own_state(own, [], keys, tag)
    )


def _result_text(response: Mapping[str, Any], path: str) -> tuple[str, bool, str, bool]:
    """(text, is_error, shape, whether the text is JSON made from a non-string value)."""
    if len(response) == 1:
        key = next(iter(response))
        if key in ("output", "error"):
            value = response[key]
            if type(value) is str:
                return value, key == "error", key, False
            return _dump(value, f"{path}.{key}"), key == "error", key, True
    return _dump(response, path), False, "object", False


def _dump(value: Any, path: str) -> str:
    deep = too_deep(value)
    if deep is not None:
        raise DecodeError(f"nested deeper than {MAX_DEPTH} levels", path + deep)
    try:
        return dumps_compact(value)
    except (TypeError, ValueError):
        raise DecodeError("not a JSON value", path) from None
