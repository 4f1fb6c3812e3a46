"""Canonical dicts of content parts and tool calls (the message codec builds on these).

Split from ``_codec`` so that ``_parts`` and ``_tool_call`` can import it at
their bottom for their ``to_dict`` / ``from_dict`` methods: it imports no
message module, so there is no import cycle and the methods cost one module
attribute lookup per call. The format and the decisions are described in
``_codec``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, NoReturn, TypeVar, overload

from ._frozen import EMPTY, FrozenDict, freeze, freeze_mapping
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
from ._tool_call import _KNOWN_NAMES, ToolCall, check_tool_name
from ._tool_call import _Building as _BuildingCall
from .errors import DecodeError, MessageError, ValidationError

__all__ = [
    "CALL_KEYS",
    "object_text",
    "plain",
    "part_from_dict",
    "part_to_dict",
    "tool_call_from_dict",
    "tool_call_to_dict",
]

P = TypeVar("P", bound=ContentPart)
T = TypeVar("T")

#: Keys of a tool call dict (the rest of it is the call's extras).
CALL_KEYS = frozenset(("id", "type", "function", "extras"))
_NO_KEYS: frozenset[str] = frozenset()
_IMAGE_DETAILS = frozenset(("auto", "low", "high"))


def _fail(message: str, path: str = "") -> NoReturn:
    raise DecodeError(message, path)


def _decode_error(err: MessageError, prefix: str = "") -> DecodeError:
    """``err`` (e.g. a ValidationError from a constructor) as a DecodeError under ``prefix``."""
    path = err.path
    if prefix:
        path = prefix if not path else (prefix + path if path[0] == "[" else f"{prefix}.{path}")
    return DecodeError(err.message, path)


# Scalars a frozen value holds as they are (no copy needed to hand them out).
_PLAIN = frozenset((str, int, float, bool, type(None)))


def plain(value: Any) -> Any:
    """A plain, mutable copy of a frozen JSON-like value (``dict``/``list``); scalars as they are.

    ``to_dict`` hands out metadata and extras through this, so that callers get
    data they can change without touching the message. Hot path: a flat object
    (the usual metadata) is copied in one C call after one scan of its values.
    """
    c = type(value)
    if c is FrozenDict or (c not in _PLAIN and isinstance(value, dict)):
        out: Any = {**value}  # ~50 ns; dict(value) ~110 ns (it looks up .keys first)
        for v in out.values():
            if type(v) not in _PLAIN:  # type(v): ~20 ns less per value than v.__class__
                return _plain_items(out)
        return out
    if isinstance(value, (tuple, list)):
        out = list(value)
        for i, v in enumerate(out):
            if type(v) not in _PLAIN:
                out[i] = plain(v)
        return out
    return value


def _plain_items(out: dict[str, Any]) -> dict[str, Any]:
    for k, v in out.items():
        if type(v) not in _PLAIN:
            out[k] = plain(v)  # replacing a value: the iteration is unaffected
    return out


def _spread(
    d: dict[str, Any], extras: Mapping[str, Any], reserved: frozenset[str], share: bool = False
) -> None:
    """Write ``extras`` into ``d``; keys in ``reserved`` go into ``d["extras"]``.

    Values are plain copies, or with ``share`` the frozen values themselves (for
    ``to_json``, which only reads them).
    """
    nested: dict[str, Any] | None = None
    for k, v in extras.items():
        if not share and type(v) not in _PLAIN:
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


def _data_url_safe(media_type: str) -> bool:
    # A media type goes into a data: URL only when parse_data_url gives it back unchanged.
    return (
        bool(media_type)
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
    elif _data_url_safe(p.media_type):  # type: ignore[arg-type]
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


def _enc_parts(parts: tuple[ContentPart, ...]) -> list[dict[str, Any]]:
    # Hot path: text parts inline, the rest through the dispatch dict.
    encs = _PART_ENCODERS
    return [
        {"type": "text", "text": p.text} if p.__class__ is TextPart else encs[p.__class__](p)
        for p in parts
    ]


def _call_encoder(share: bool) -> Callable[[ToolCall], dict[str, Any]]:
    """The encoder of a tool call: plain copies of its extras, or (``share``, for
    ``to_json``, which only reads them) the frozen values themselves."""

    def encode(c: ToolCall) -> dict[str, Any]:
        raw = c._raw
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


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(name)


# Hot path: the C scanner called directly parses a JSON text in ~half the time of
# json.loads / _json.loads (which add two whitespace regex matches and a Python
# frame). Anything unusual (surrounding whitespace, trailing data, any error) goes
# to _json.loads, which gives the documented DecodeError.
_scan_once = json.JSONDecoder(parse_constant=_refuse_constant).scan_once  # type: ignore[attr-defined]
_BLANK = object()


def _parse(text: str, path: str) -> Any:
    """Parse JSON text (``_BLANK`` for an empty or all-whitespace text); DecodeError on failure."""
    try:
        value, end = _scan_once(text, 0)
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
    if value.__class__ is not dict and not isinstance(value, Mapping):
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
    _fail(f"expected a string, got {json_type(value)}", path)


def _req_str(value: Any, path: str, what: str = "a string") -> str:
    if value.__class__ is str:
        return value
    if isinstance(value, str):
        return str(value)
    if value is None:
        _fail(f"{what} is required", path)
    _fail(f"expected {what}, got {json_type(value)}", path)


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

_new = object.__new__
# Hot path: text parts are built without re-running TextPart's checks (the decoder
# already made sure the text is a str).
_set_text: Any = TextPart.__dict__["text"].__set__


def _text_part(text: str) -> TextPart:
    p: TextPart = _new(TextPart)
    _set_text(p, text)
    return p


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
    return _text_part(_req_str(p.get("text"), "text"))


def _dec_image(p: Mapping[str, Any]) -> ImagePart:
    img = p.get("image_url")
    detail = None
    if img.__class__ is str or isinstance(img, str):
        url: Any = str(img)
        data: Any = None
        media_type: Any = None
    elif isinstance(img, Mapping):
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
    if not isinstance(a, Mapping):
        _fail(f"expected an object with data and format, got {json_type(a)}", "input_audio")
    data = _req_str(a.get("data"), "input_audio.data")
    fmt = _req_str(a.get("format"), "input_audio.format", "a format")
    if not fmt:
        _fail("format must not be empty", "input_audio.format")
    return _build(lambda: AudioPart(data, fmt), "input_audio")


def _dec_file(p: Mapping[str, Any]) -> FilePart:
    f = p.get("file")
    if not isinstance(f, Mapping):
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


_PART_DECODERS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
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
    if not isinstance(p, Mapping):
        if isinstance(p, str):
            return _text_part(str(p))
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
        _fail(f"unknown part type (length {len(t)}); expected one of {', '.join(allowed)}", "type")
    return _PART_DECODERS[t](p)  # type: ignore[no-any-return]


def _dec_parts(value: Any, allowed: tuple[str, ...], where: str) -> tuple[ContentPart, ...]:
    """A content list (paths ``content[i]...``)."""
    if value.__class__ is not list and not isinstance(value, (list, tuple)):
        _fail(f"expected a string or an array of parts, got {json_type(value)}", "content")
    out: list[ContentPart] = []
    for i, p in enumerate(value):
        # Hot path: a well-formed text part is built inline.
        if p.__class__ is dict and p.get("type") == "text":
            text = p.get("text")
            if text.__class__ is str:
                out.append(_text_part(text))
                continue
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
    return "".join([p.text for p in parts])  # type: ignore[union-attr]


# -- tool calls ------------------------------------------------------------------


def _dec_function(fn: Any, path: str) -> tuple[str, FrozenDict, str | None]:
    """``{"name", "arguments"}`` → (name, frozen arguments, raw JSON text or None)."""
    if fn.__class__ is not dict and not isinstance(fn, Mapping):
        _fail(f"expected an object with name and arguments, got {json_type(fn)}", path)
    name = fn.get("name")
    try:
        name = check_tool_name(name, "name")
    except ValidationError as exc:
        if name is None:
            _fail("tool name is required", f"{path}.name")
        raise _decode_error(exc, path) from None
    args = fn.get("arguments")
    if args.__class__ is str or isinstance(args, str):
        raw = str(args)
        value = _parse(raw, f"{path}.arguments")
        if value is _BLANK:
            return name, EMPTY, None  # some providers send "" for a call without arguments
        if value.__class__ is not dict:
            _fail(f"arguments must be a JSON object, got {json_type(value)}", f"{path}.arguments")
        return name, _mapping(value, f"{path}.arguments"), raw
    if args is None:
        return name, EMPTY, None
    if isinstance(args, Mapping):
        return name, _mapping(args, f"{path}.arguments"), None
    _fail(
        f"arguments must be a JSON object or its text, got {json_type(args)}", f"{path}.arguments"
    )


def _dec_call(c: Any) -> ToolCall:
    """One tool call dict (paths relative to the call)."""
    # Hot path: the canonical shape is read inline: a dict with a str id, type
    # "function" (or none), a valid name, arguments as the text of a JSON object
    # and no other keys. Anything else, including every error, takes the general
    # path, which re-reads the call and names the spot. The known-name check, the
    # freezing of a flat object of scalars and ToolCall._trusted are written out
    # here: ~1.44 -> ~1.15 us per call (each Python call costs ~60 ns, each slot
    # store ~45 ns); parsing the arguments text (~0.3 us) is what remains.
    if c.__class__ is dict:
        try:
            cid = c["id"]
            fn = c["function"]
            name = fn["name"]
            args = fn["arguments"]
            if (
                cid.__class__ is str
                and cid
                and fn.__class__ is dict
                and args.__class__ is str
                and name.__class__ is str
                and (len(c) == 2 or (len(c) == 3 and c.get("type") == "function"))  # no extras
            ):
                if name not in _KNOWN_NAMES:
                    check_tool_name(name)
                value, end = _scan_once(args, 0)
                if value.__class__ is dict and end == len(args):
                    for v in value.values():
                        if v.__class__ not in _SCALARS:
                            frozen = freeze_mapping(value, "")
                            break
                    else:  # keys from the scanner are always str
                        frozen = FrozenDict(value) if value else EMPTY
                    call: Any = _new(_BuildingCall)  # see _frozen.mutable_twin
                    call.id = cid
                    call.name = name
                    call.arguments = frozen
                    call.extras = EMPTY
                    call._raw = args
                    call.__class__ = ToolCall
                    return call  # type: ignore[no-any-return]
        except Exception:  # any failure: the general path reports it properly
            pass
    return _dec_call_general(c)


_trusted_call = ToolCall._trusted
_call_id = attrgetter("id")
_SCALARS = frozenset((str, int, bool, type(None)))  # frozen as they are (floats are checked)


def object_text(text: str) -> FrozenDict | None:
    """The frozen JSON object that ``text`` is, exactly (nothing around it); else None.

    For parsers with a general path of their own: None means "take it", and that
    path then accepts the text (e.g. with surrounding whitespace) or reports it.
    """
    # Hot path: tool arguments in provider responses, as in _dec_call: the C
    # scanner called directly (~0.33 us for a small object, json.loads ~1 us) and
    # a flat object of scalars frozen in one copy.
    try:
        value, end = _scan_once(text, 0)
    except Exception:
        return None
    if value.__class__ is not dict or end != len(text):
        return None
    for v in value.values():
        if v.__class__ not in _SCALARS:
            try:
                return freeze_mapping(value, "")
            except Exception:
                return None
    return FrozenDict(value) if value else EMPTY


def _dec_call_general(c: Any) -> ToolCall:
    if c.__class__ is not dict and not isinstance(c, Mapping):
        _fail(f"expected a tool call object, got {json_type(c)}")
    cid = c.get("id")
    if cid.__class__ is not str or not cid:
        if cid is None:
            _fail("tool call id is required", "id")
        if not isinstance(cid, str):
            _fail(f"expected a string, got {json_type(cid)}", "id")
        if not cid:
            _fail("tool call id must not be empty", "id")
        cid = str(cid)
    t = c.get("type")
    if t is not None and t != "function":
        _fail("unsupported tool call type; expected 'function'", "type")
    name, arguments, raw = _dec_function(c.get("function"), "function")
    extras = _extras(c, CALL_KEYS)
    return _trusted_call(cid, name, arguments, extras, raw)


def _dec_calls(value: Any) -> tuple[ToolCall, ...]:
    if value.__class__ is not list and not isinstance(value, (list, tuple)):
        _fail(f"expected an array of tool calls, got {json_type(value)}", "tool_calls")
    # Hot path: a plain loop; map() over a Python function costs ~0.1 us more per
    # call (no inlined frame). The calls decoded so far give the failing index.
    out: list[ToolCall] = []
    append = out.append
    try:
        for c in value:
            append(_dec_call(c))
    except DecodeError as exc:
        raise exc.at(f"tool_calls[{len(out)}]") from None
    calls = tuple(out)
    n = len(calls)
    if n > 1 and (calls[0].id == calls[1].id if n == 2 else len(set(map(_call_id, calls))) != n):
        seen: set[str] = set()
        for i, call in enumerate(calls):
            if call.id in seen:
                _fail("duplicate tool call id within the message", f"tool_calls[{i}].id")
            seen.add(call.id)
    return calls


def _legacy_call(d: Mapping[str, Any]) -> ToolCall:
    fc = d.get("function_call")
    name, arguments, raw = _dec_function(fc, "function_call")
    import hashlib  # slow path only: legacy input

    text = raw if raw is not None else json.dumps(arguments, sort_keys=True)
    mid = d.get("id")
    seed = "\x1f".join((mid if isinstance(mid, str) else "", name, text))
    digest = hashlib.sha256(seed.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return ToolCall._trusted(f"call_{digest}", name, arguments, EMPTY, raw)


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


def _guarded(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a decoder; a stray exception becomes a DecodeError (the contract holds even on a bug)."""
    try:
        return fn(*args)
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
    return _guarded(_dec_part, d, allowed, f"a {cls.__name__ if cls else 'part'}")


def tool_call_from_dict(d: Any) -> ToolCall:
    """Decode ``{"id", "type"?, "function": {"name", "arguments"}}`` (extra keys: extras)."""
    return _guarded(_dec_call, d)  # type: ignore[no-any-return]
