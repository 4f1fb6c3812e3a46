"""Canonical dicts of content parts and tool calls (the message codec builds on these).

Split from ``_codec`` so that ``_parts`` and ``_tool_call`` can import it at
their bottom for their ``to_dict`` / ``from_dict`` methods: it imports no
message module, so there is no import cycle and the methods cost one module
attribute lookup per call. The format and the decisions are described in
``_codec``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn, TypeVar, overload

from ._build import text_part, tool_call
from ._fields import tool_name_ok
from ._frozen import EMPTY, SCALARS, FrozenDict, freeze, freeze_mapping
from ._ids import DERIVED_ID_PREFIX, derive_call_id
from ._json import json_type, loads
from ._parts import (
    MEDIA_TYPE_CONFLICT,
    AudioPart,
    ContentPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    TextPart,
    parse_data_url,
    same_media_type,
)
from ._tool_call import InvalidToolCall, ToolCall, raw_arguments
from .errors import DecodeError, MessageError, ValidationError, ident, undecodable

__all__ = [
    "CALL_KEYS",
    "invalid_call_to_dict",
    "object_text",
    "plain",
    "part_from_dict",
    "scan_once",
    "part_to_dict",
    "tool_call_from_dict",
    "tool_call_to_dict",
]

P = TypeVar("P", bound=ContentPart)
T = TypeVar("T")

#: Keys of a tool call dict (the rest of it is the call's extras). ``error`` marks an
#: invalid call and holds what is wrong with it.
CALL_KEYS = frozenset(("id", "type", "function", "extras", "error"))
_NO_KEYS: frozenset[str] = frozenset()
_IMAGE_DETAILS = frozenset(("auto", "low", "high"))


_fail = undecodable


def _decode_error(err: MessageError, prefix: str = "") -> DecodeError:
    """``err`` (e.g. a ValidationError from a constructor) as a DecodeError under ``prefix``."""
    path = err.path
    if prefix:
        path = prefix if not path else (prefix + path if path[0] == "[" else f"{prefix}.{path}")
    return DecodeError(err.message, path)


def plain(value: Any) -> Any:
    """A plain, mutable copy of a frozen JSON-like value (``dict``/``list``); scalars as they are.

    ``to_dict`` hands out metadata and extras through this, so that callers get
    data they can change without touching the message.
    """
    if isinstance(value, dict):
        return {k: v if type(v) in SCALARS else plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [v if type(v) in SCALARS else plain(v) for v in value]
    return value


def _spread(
    d: dict[str, Any], extras: Mapping[str, Any], reserved: frozenset[str], share: bool = False
) -> None:
    """Write ``extras`` into ``d``; keys in ``reserved`` go into ``d["extras"]``.

    Values are plain copies, or with ``share`` the frozen values themselves (for
    ``to_json``, which only reads them).
    """
    nested: dict[str, Any] | None = None
    for k, v in extras.items():
        if not share and type(v) not in SCALARS:
            v = plain(v)  # noqa: PLW2901
        if k in reserved:
            if nested is None:
                nested = {}
            nested[k] = v
        else:
            d[k] = v
    if nested is not None:
        d["extras"] = nested


def _enc_text(p: TextPart) -> dict[str, Any]:
    return {"type": "text", "text": p.text}


def _data_url_safe(media_type: str | None) -> bool:
    # A media type goes into a data: URL only when parse_data_url gives it back unchanged.
    return (
        media_type is not None
        and bool(media_type)
        and ";" not in media_type
        and "," not in media_type
        and media_type.strip() == media_type
    )


def _enc_image(p: ImagePart) -> dict[str, Any]:
    data = p.data
    if data is None:
        img: dict[str, Any] = {"url": p.url}
        if p.media_type is not None:
            img["media_type"] = p.media_type
    elif _data_url_safe(p.media_type):
        img = {"url": f"data:{p.media_type};base64,{data}"}
    else:
        img = {"data": data, "media_type": p.media_type}
    if p.detail is not None:
        img["detail"] = p.detail
    return {"type": "image_url", "image_url": img}


def _enc_audio(p: AudioPart) -> dict[str, Any]:
    return {"type": "input_audio", "input_audio": {"data": p.data, "format": p.format}}


def _enc_file(p: FilePart) -> dict[str, Any]:
    f: dict[str, Any] = {}
    data = p.data
    mt = p.media_type
    if data is not None:
        if mt is not None and _data_url_safe(mt):
            f["file_data"] = f"data:{mt};base64,{data}"
        else:
            f["file_data"] = data
            if mt is not None or data.startswith("data:"):
                f["media_type"] = mt  # present: file_data is bare, not a data: URL
    elif mt is not None:
        f["media_type"] = mt
    if p.file_id is not None:
        f["file_id"] = p.file_id
    if p.filename is not None:
        f["filename"] = p.filename
    return {"type": "file", "file": f}


def _enc_reasoning(p: ReasoningPart) -> dict[str, Any]:
    d: dict[str, Any] = {"type": "reasoning", "text": p.text}
    if p.signature is not None:
        d["signature"] = p.signature
    if p.redacted:
        d["redacted"] = True
    if p.provider is not None:
        d["provider"] = p.provider
    return d


_PART_ENCODERS: dict[type, Callable[[Any], dict[str, Any]]] = {
    TextPart: _enc_text,
    ImagePart: _enc_image,
    AudioPart: _enc_audio,
    FilePart: _enc_file,
    ReasoningPart: _enc_reasoning,
}


def _enc_parts(parts: Sequence[ContentPart]) -> list[dict[str, Any]]:
    return [_PART_ENCODERS[type(p)](p) for p in parts]


def _call_encoder(share: bool) -> Callable[[ToolCall], dict[str, Any]]:
    """The encoder of a tool call: plain copies of its extras, or (``share``, for
    ``to_json``, which only reads them) the frozen values themselves."""

    def encode(c: ToolCall) -> dict[str, Any]:
        raw = raw_arguments(c)
        d: dict[str, Any] = {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": raw if raw is not None else c.arguments_json},
        }
        if c.extras:
            _spread(d, c.extras, CALL_KEYS, share)
        return d

    return encode


_enc_call = _call_encoder(False)
_enc_call_shared = _call_encoder(True)


def _invalid_call_encoder(share: bool) -> Callable[[InvalidToolCall], dict[str, Any]]:
    """The encoder of an invalid call: its raw name and arguments text, and its error."""

    def encode(c: InvalidToolCall) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": c.raw_arguments},
            "error": c.error,
        }
        if c.extras:
            _spread(d, c.extras, CALL_KEYS, share)
        return d

    return encode


_enc_invalid = _invalid_call_encoder(False)
_enc_invalid_shared = _invalid_call_encoder(True)


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(name)


# Tool arguments arrive as JSON text, one per call: the C scanner reads such a text
# directly (json.loads adds two whitespace matches around it). Anything unusual
# (surrounding whitespace, trailing data, any error) goes to _json.loads, which gives
# the documented DecodeError.
scan_once: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder(
    parse_constant=_refuse_constant
).scan_once  # type: ignore[attr-defined]
"""The C scanner of a JSON value at an index: ``(value, end)``, or an exception."""
_BLANK = object()


def _parse(text: str, path: str) -> Any:
    """Parse JSON text (``_BLANK`` for an empty or all-whitespace text); DecodeError on failure."""
    try:
        value, end = scan_once(text, 0)
    except Exception:
        pass
    else:
        if end == len(text):
            return value
    if not text.strip():
        return _BLANK
    return loads(text, path)


def _freeze_value(value: Any, path: str) -> Any:
    try:
        return freeze(value, path)
    except ValidationError as exc:
        raise _decode_error(exc) from None
    except RecursionError:
        _fail("nested too deeply", path)


def _mapping(value: Any, path: str) -> FrozenDict:
    """A JSON object field (metadata, extras, arguments) frozen, or DecodeError."""
    if value.__class__ is FrozenDict:
        return value
    if type(value) is not dict and not isinstance(value, Mapping):
        _fail(f"expected an object, got {json_type(value)}", path)
    try:
        return freeze_mapping(value, path)
    except ValidationError as exc:
        raise _decode_error(exc) from None
    except RecursionError:
        _fail("nested too deeply", path)


def _opt_str(value: Any, path: str) -> str | None:
    if value is None or value.__class__ is str:
        return value
    if isinstance(value, str):
        return str(value)
    raise DecodeError(f"expected a string, got {json_type(value)}", path)


def _req_str(value: Any, path: str, what: str = "a string") -> str:
    if value.__class__ is str:
        return value
    if isinstance(value, str):
        return str(value)
    if value is None:
        _fail(f"{what} is required", path)
    raise DecodeError(f"expected {what}, got {json_type(value)}", path)


def _extras(
    d: Mapping[str, Any], known: frozenset[str], nulls: frozenset[str] = _NO_KEYS, path: str = ""
) -> FrozenDict:
    """The extras of an object: its unknown keys plus its nested ``extras`` object.

    A key in ``nulls`` whose value is null is dropped (a canonical key that does
    not apply to this object, written as null by some producers).
    """
    stored = d.get("extras")
    if d.keys() <= known:
        return EMPTY if stored is None else _mapping(stored, _join(path, "extras"))
    out: dict[str, Any] = {}
    for k, v in d.items():
        if k in known:
            continue
        if k.__class__ is not str:
            if not isinstance(k, str):
                _fail(f"object key of type {type(k).__name__}; keys must be strings", path)
            k = str(k)  # noqa: PLW2901
        if v is None and k in nulls:
            continue
        out[k] = _freeze_value(v, _join(path, k))
    if stored is not None:
        out.update(_mapping(stored, _join(path, "extras")))
    return FrozenDict(out) if out else EMPTY


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


# -- parts ----------------------------------------------------------------------


def _build(fn: Callable[[], T], prefix: str) -> T:
    try:
        return fn()
    except ValidationError as exc:
        raise _decode_error(exc, prefix) from None


def _split_data_url(url: str) -> tuple[str, str] | None:
    try:
        return parse_data_url(url, "url")
    except ValidationError:
        return None


def _dec_text(p: Mapping[str, Any]) -> TextPart:
    return text_part(_req_str(p.get("text"), "text"))


def _dec_image(p: Mapping[str, Any]) -> ImagePart:
    img = p.get("image_url")
    detail = None
    if img.__class__ is str or isinstance(img, str):
        url: Any = str(img)
        data: Any = None
        media_type: Any = None
    elif type(img) is dict or isinstance(img, Mapping):
        url = img.get("url")
        data = img.get("data")
        media_type = img.get("media_type")
        detail = img.get("detail")
        if detail is not None and (detail.__class__ is not str or detail not in _IMAGE_DETAILS):
            _fail("detail must be one of auto, low, high", "image_url.detail")
    else:
        _fail(f"expected an object with a url, got {json_type(img)}", "image_url")
    if data is not None:
        if url is not None:
            _fail("give either url or data, not both", "image_url")
        data = _req_str(data, "image_url.data")
        media_type = _req_str(media_type, "image_url.media_type", "a media type")
        return _build(
            lambda: ImagePart(data=data, media_type=media_type, detail=detail), "image_url"
        )
    url = _req_str(url, "image_url.url", "a URL")
    if not url:
        _fail("url must not be empty", "image_url.url")
    if media_type is not None:
        media_type = _req_str(media_type, "image_url.media_type", "a media type")
    if url.startswith("data:"):
        split = _split_data_url(url)
        if split is not None and not split[1].startswith("data:"):
            if media_type is not None and not same_media_type(media_type, split[0]):
                # as ImagePart(url=..., media_type=...) does: never pick one silently
                _fail(MEDIA_TYPE_CONFLICT, "image_url.media_type")
            media_type, data = split
            return _build(
                lambda: ImagePart(data=data, media_type=media_type, detail=detail), "image_url"
            )
        # else not a base64 data: URL: keep it as a URL
    return _build(lambda: ImagePart(url=url, media_type=media_type, detail=detail), "image_url")


def _dec_audio(p: Mapping[str, Any]) -> AudioPart:
    a = p.get("input_audio")
    if type(a) is not dict and not isinstance(a, Mapping):
        _fail(f"expected an object with data and format, got {json_type(a)}", "input_audio")
    data = _req_str(a.get("data"), "input_audio.data")
    fmt = _req_str(a.get("format"), "input_audio.format", "a format")
    if not fmt:
        _fail("format must not be empty", "input_audio.format")
    return _build(lambda: AudioPart(data, fmt), "input_audio")


def _dec_file(p: Mapping[str, Any]) -> FilePart:
    f = p.get("file")
    if type(f) is not dict and not isinstance(f, Mapping):
        _fail(f"expected an object, got {json_type(f)}", "file")
    data = _opt_str(f.get("file_data"), "file.file_data")
    file_id = _opt_str(f.get("file_id"), "file.file_id")
    filename = _opt_str(f.get("filename"), "file.filename")
    media_type: str | None = None
    if "media_type" in f:  # explicit: file_data is bare base64
        media_type = _opt_str(f["media_type"], "file.media_type")
    elif data is not None and data.startswith("data:"):
        split = _split_data_url(data)
        if split is not None:  # else not a base64 data: URL: keep the text as it is
            media_type, data = split
    if data is None and not file_id:
        _fail("at least one of file_data or file_id is required", "file")
    return _build(lambda: FilePart(data, file_id, filename, media_type), "file")


def _dec_reasoning(p: Mapping[str, Any]) -> ReasoningPart:
    text = _req_str(p.get("text"), "text")
    signature = _opt_str(p.get("signature"), "signature")
    provider = _opt_str(p.get("provider"), "provider")
    redacted = p.get("redacted")
    if redacted is None:
        redacted = False
    elif redacted is not True and redacted is not False:
        _fail(f"expected a boolean, got {json_type(redacted)}", "redacted")
    return _build(lambda: ReasoningPart(text, signature, redacted, provider), "")


_PART_DECODERS: dict[str, Callable[[Mapping[str, Any]], ContentPart]] = {
    "text": _dec_text,
    "image_url": _dec_image,
    "input_audio": _dec_audio,
    "file": _dec_file,
    "reasoning": _dec_reasoning,
}
_USER_KINDS = ("text", "image_url", "input_audio", "file")
_ASSISTANT_KINDS = ("text", "reasoning")
_TEXT_KINDS = ("text",)
_PART_CLASS_KINDS: dict[type, str] = {
    TextPart: "text",
    ImagePart: "image_url",
    AudioPart: "input_audio",
    FilePart: "file",
    ReasoningPart: "reasoning",
}


def _dec_part(p: Any, allowed: tuple[str, ...], where: str) -> ContentPart:
    """One part dict (path relative to the part)."""
    if type(p) is not dict and not isinstance(p, Mapping):
        if isinstance(p, str):
            return text_part(str(p))
        _fail(f"expected a part object, got {json_type(p)}")
    t = p.get("type")
    if t.__class__ is not str or t not in allowed:
        if t is None:
            _fail(f"part type is required; expected one of {', '.join(allowed)}", "type")
        if not isinstance(t, str):
            _fail(f"part type must be a string, got {json_type(t)}", "type")
        if t in _PART_DECODERS:
            _fail(
                f"{t} parts are not allowed in {where}; expected one of {', '.join(allowed)}",
                "type",
            )
        _fail(f"unknown part type {ident(t)}; expected one of {', '.join(allowed)}", "type")
    return _PART_DECODERS[t](p)


def _dec_parts(value: Any, allowed: tuple[str, ...], where: str) -> tuple[ContentPart, ...]:
    """A content list (paths ``content[i]...``)."""
    if not isinstance(value, (list, tuple)):
        _fail(f"expected a string or an array of parts, got {json_type(value)}", "content")
    out: list[ContentPart] = []
    for i, p in enumerate(value):
        try:
            out.append(_dec_part(p, allowed, where))
        except DecodeError as exc:
            raise exc.at(f"content[{i}]") from None
    return tuple(out)


def _dec_text_content(value: Any, where: str) -> str:
    if value.__class__ is str:
        return value
    if value is None:
        _fail("content is required (an empty string is valid)", "content")
    if isinstance(value, str):
        return str(value)
    parts = _dec_parts(value, _TEXT_KINDS, where)
    return "".join([p.text for p in parts if isinstance(p, TextPart)])  # text parts only


# -- tool calls ------------------------------------------------------------------
#
# A tool call dict decodes as a ToolCall, or as an InvalidToolCall when the model got
# it wrong: its name breaks the name rule, or its arguments text is not a JSON
# object (an ``error`` key, written by the encoder, also marks one). An invalid call
# keeps the raw name and text, so a stored conversation holding one always loads.
# What is not a tool call at all (not an object, no id, another ``type``) is an error.


def _dec_call(c: Any) -> ToolCall | InvalidToolCall:
    """One tool call dict (paths relative to the call)."""
    calls, invalid = _dec_calls((c,))
    return calls[0] if calls else invalid[0]


def _call_id_of(cid: object) -> str:
    if cid is None:
        _fail("tool call id is required", "id")
    if not isinstance(cid, str):
        _fail(f"expected a string, got {json_type(cid)}", "id")
    if not cid:
        _fail("tool call id must not be empty", "id")
    return str(cid)


def _text_arguments(
    cid: str, name: str, raw: str, extras: FrozenDict
) -> ToolCall | InvalidToolCall:
    """A call whose arguments text is not exactly a JSON object: blank, padded or invalid."""
    try:
        value = _parse(raw, "function.arguments")
    except DecodeError as exc:
        return _invalid(cid, name, raw, exc.message, extras)
    if value is _BLANK:
        return tool_call(ToolCall, cid, name, EMPTY, extras, None)  # "" for no arguments
    if value.__class__ is not dict:
        return _invalid(
            cid, name, raw, f"arguments must be a JSON object, got {json_type(value)}", extras
        )
    try:
        frozen = freeze_mapping(value, "arguments")
    except ValidationError as exc:
        return _invalid(cid, name, raw, exc.message, extras)
    return tool_call(ToolCall, cid, name, frozen, extras, raw)


def _invalid(
    cid: str, name: object, args: object, error: object, extras: FrozenDict
) -> InvalidToolCall:
    """An invalid call from what the dict holds (its error: given, or found here)."""
    if name is not None and not isinstance(name, str):
        _fail(f"expected a string, got {json_type(name)}", "function.name")
    if args is None:
        raw = ""
    elif isinstance(args, str):
        raw = str(args)
    else:  # arguments written as a JSON value that is not an object
        try:
            raw = json.dumps(args, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            _fail(
                f"arguments must be a JSON object or its text, got {json_type(args)}",
                "function.arguments",
            )
    if error is None:
        if name is None:
            error = "tool name is required"
        elif not tool_name_ok(name):
            error = "invalid tool name; must match ^[A-Za-z0-9_-]{1,64}$"
        else:
            error = f"arguments must be a JSON object, got {json_type(args)}"
    elif not isinstance(error, str):
        _fail(f"expected a string, got {json_type(error)}", "error")
    return InvalidToolCall(cid, None if name is None else str(name), raw, str(error), extras)


def object_text(text: str) -> FrozenDict | None:
    """The frozen JSON object that ``text`` is, exactly (nothing around it); else None.

    For parsers with a general path of their own: None means "take it", and that
    path then accepts the text (e.g. with surrounding whitespace) or reports it.
    """
    try:
        value, end = scan_once(text, 0)
    except Exception:
        return None
    if type(value) is not dict or end != len(text):
        return None
    for v in value.values():  # the keys of parsed JSON are strings
        t = type(v)
        if t is dict or t is list or (t is float and not math.isfinite(v)):
            try:  # nested values, or a number JSON cannot hold (1e999 is inf)
                return freeze_mapping(value, "")
            except ValidationError:
                return None
    return FrozenDict(value) if value else EMPTY


def _dec_calls(value: Any) -> tuple[tuple[ToolCall, ...], tuple[InvalidToolCall, ...]]:
    """A ``tool_calls`` array: (valid calls, invalid calls), ids unique across both.

    Paths in errors are ``tool_calls[i]...`` (a single call decoded by ``_dec_call``
    is relative to the call).
    """
    if not isinstance(value, (list, tuple)):
        _fail(f"expected an array of tool calls, got {json_type(value)}", "tool_calls")
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    ids: set[str] = set()
    for i, c in enumerate(value):
        try:
            call = _dec_call_entry(c)
        except DecodeError as exc:
            if type(value) is tuple and len(value) == 1:
                raise  # a single call (_dec_call): paths relative to it
            raise exc.at(f"tool_calls[{i}]") from None
        if isinstance(call, ToolCall):
            calls.append(call)
        else:
            invalid.append(call)
        ids.add(call.id)
    if len(ids) != len(value):
        _duplicate_ids(value)
    return tuple(calls), tuple(invalid)


def _dec_call_entry(c: object) -> ToolCall | InvalidToolCall:
    """One entry of a ``tool_calls`` array (paths relative to it)."""
    if type(c) is not dict and not isinstance(c, Mapping):
        _fail(f"expected a tool call object, got {json_type(c)}")
    cid = c.get("id")
    if type(cid) is not str or not cid:
        cid = _call_id_of(cid)
    fn = c.get("function")
    if type(fn) is not dict and not isinstance(fn, Mapping):
        _fail(f"expected an object with name and arguments, got {json_type(fn)}", "function")
    kind = c.get("type")
    if kind is not None and kind != "function":
        _fail(f"unsupported tool call type {ident(kind)}; expected 'function'", "type")
    extras = _extras(c, CALL_KEYS) if len(c) > 2 + (kind is not None) else EMPTY
    name, args = fn.get("name"), fn.get("arguments")
    error = c.get("error")
    if error is not None or not tool_name_ok(name):
        return _invalid(cid, name, args, error, extras)
    name = str(name)
    if args is None:
        return tool_call(ToolCall, cid, name, EMPTY, extras, None)
    if type(args) is str:  # the usual arguments: the text of a JSON object, exactly
        frozen = object_text(args)
        if frozen is not None:
            return tool_call(ToolCall, cid, name, frozen, extras, args)
    if isinstance(args, str):
        return _text_arguments(cid, name, str(args), extras)
    if type(args) is dict or isinstance(args, Mapping):
        return tool_call(ToolCall, cid, name, _mapping(args, "function.arguments"), extras, None)
    return _invalid(cid, name, args, None, extras)


def _duplicate_ids(value: Any) -> None:
    seen: set[str] = set()
    for i, c in enumerate(value):
        cid = c.get("id")
        if cid in seen:
            _fail(f"duplicate tool call id {ident(cid)} within the message", f"tool_calls[{i}].id")
        seen.add(cid)


def _legacy_call(d: Mapping[str, Any]) -> ToolCall | InvalidToolCall:
    """The one call of a legacy ``function_call``; its id is derived from the message."""
    fc = d.get("function_call")
    if type(fc) is not dict and not isinstance(fc, Mapping):
        _fail(f"expected an object with name and arguments, got {json_type(fc)}", "function_call")
    name = fc.get("name")
    args = fc.get("arguments")
    mid = d.get("id")
    if isinstance(args, str) or args is None:
        text = "" if args is None else str(args)
    else:
        text = json.dumps(plain(args), sort_keys=True) if isinstance(args, Mapping) else repr(args)
    cid = derive_call_id(DERIVED_ID_PREFIX, mid if isinstance(mid, str) else "", str(name), text)
    try:
        return _dec_call({"id": cid, "function": fc})
    except DecodeError as exc:
        raise exc.at("function_call") from None


def _unexpected(exc: Exception) -> DecodeError:
    # The decoders raise DecodeError themselves; this net keeps the contract
    # ("only DecodeError") even if one of them has a bug, when the input misbehaves
    # (a Mapping subclass whose methods raise) or when the caller's stack is nearly
    # used up. The fuzz tests check that well-behaved JSON-like input never reaches it.
    if isinstance(exc, MessageError):
        return _decode_error(exc)
    if isinstance(exc, RecursionError):
        return DecodeError("input nested too deeply")
    return DecodeError(f"malformed input (unexpected {type(exc).__name__})")


def _guarded(fn: Callable[[Any], T], value: Any) -> T:
    """Run a decoder; a stray exception becomes a DecodeError (the contract holds even on a bug)."""
    try:
        return fn(value)
    except DecodeError:
        raise
    except Exception as exc:
        raise _unexpected(exc) from None


def part_to_dict(p: ContentPart) -> dict[str, Any]:
    """The canonical (OpenAI-shaped) dict of one content part."""
    enc = _PART_ENCODERS.get(p.__class__)
    if enc is None:
        for base in p.__class__.__mro__:
            enc = _PART_ENCODERS.get(base)
            if enc is not None:
                break
        else:
            raise ValidationError(f"{type(p).__name__} is not a content part")
    return enc(p)


def tool_call_to_dict(c: ToolCall) -> dict[str, Any]:
    """A ToolCall as ``{"id", "type": "function", "function": {"name", "arguments"}}`` plus extras."""
    return _enc_call(c)


def invalid_call_to_dict(c: InvalidToolCall) -> dict[str, Any]:
    """An InvalidToolCall as a ``tool_calls`` entry: raw name and text, and its ``error``."""
    return _enc_invalid(c)


@overload
def part_from_dict(d: Any) -> ContentPart: ...


@overload
def part_from_dict(d: Any, cls: type[P]) -> P: ...


def part_from_dict(d: Any, cls: type[Any] | None = None) -> Any:
    """Decode one OpenAI-shaped part dict (any part type; only ``cls`` when given)."""
    if cls is None:
        allowed: tuple[str, ...] = tuple(_PART_DECODERS)
    else:
        kind = _PART_CLASS_KINDS.get(cls)
        if kind is None:
            raise ValidationError(f"{cls.__name__} is not a content part class", "cls")
        allowed = (kind,)
    what = f"a {cls.__name__ if cls else 'part'}"
    return _guarded(lambda value: _dec_part(value, allowed, what), d)


def tool_call_from_dict(d: Any) -> ToolCall:
    """Decode ``{"id", "type"?, "function": {"name", "arguments"}}`` (extra keys: extras).

    A malformed call (bad name, arguments that are not a JSON object) is a
    DecodeError here; in a message's ``tool_calls`` it becomes an InvalidToolCall.
    """
    call = _guarded(_dec_call, d)
    if isinstance(call, InvalidToolCall):
        where = "function.name" if not tool_name_ok(call.name) else "function.arguments"
        raise DecodeError(call.error, where)
    return call
