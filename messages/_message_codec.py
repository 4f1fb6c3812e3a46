"""Canonical dicts of messages: one encoder and one decoder per built-in class.

The format is described in ``_codec``. A user's subclass is encoded by its built-in
base's encoder plus its own fields, under their own names, and decoded by its base's
decoder followed by its constructor (so its own checks run).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from ._build import (
    message,
    tool_call_message,
    tool_result_message,
)
from ._frozen import EMPTY, SCALARS, FrozenDict, freeze
from ._json import json_type
from ._message import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    builtin_base,
    created_at_text,
)
from ._part_codec import (
    _ASSISTANT_KINDS,
    _USER_KINDS,
    _dec_calls,
    _dec_parts,
    _dec_text_content,
    _enc_call,
    _enc_call_shared,
    _enc_invalid,
    _enc_invalid_shared,
    _enc_parts,
    _extras,
    _freeze_value,
    _legacy_call,
    _mapping,
    _opt_str,
    _req_str,
    _spread,
    plain,
)
from ._timestamps import check_stamp_text, created_value
from ._tool_call import InvalidToolCall, ToolCall
from .errors import DecodeError, ValidationError, ident, undecodable

__all__ = ["RESERVED_KEYS", "decoder_for", "encoder_for"]

_fail = undecodable

#: Keys the message decoder reads (so extras with these names are nested on encode).
RESERVED_KEYS = frozenset(
    (
        "id",
        "role",
        "content",
        "name",
        "tool_calls",
        "function_call",
        "tool_call_id",
        "is_error",
        "tool_name",
        "metadata",
        "extras",
        "created_at",
        "cache",
    )
)
_BASE_KEYS = frozenset(("id", "role", "name", "metadata", "extras", "created_at", "cache"))
_CONTENT_KEYS = _BASE_KEYS | {"content"}
# A plain assistant consumes empty/null tool_calls and function_call silently.
_ASSISTANT_KEYS = _CONTENT_KEYS | {"tool_calls", "function_call"}
_TOOL_CALL_MSG_KEYS = _ASSISTANT_KEYS
_TOOL_RESULT_KEYS = _CONTENT_KEYS | {"tool_call_id", "is_error", "tool_name"}

Encoder = Callable[[Any], dict[str, Any]]
Decoder = Callable[[Any, Mapping[str, Any]], Any]


# =============================================================================
# Encoding
# =============================================================================
#
# to_dict hands out plain copies of metadata and extras (``plain``), not the
# message's frozen values: callers change the dict they get. Only a message with a
# name, metadata or extras reaches ``_add_common``. to_json only reads the dict, so
# it is built by a second set of the same encoders that shares the frozen values
# (FrozenDict is a dict, FrozenList a tuple: the C JSON encoder writes them exactly
# as their copies).
#
def _add_common(d: dict[str, Any], m: Any, reserved: frozenset[str]) -> None:
    name = m.name
    if name is not None:
        d["name"] = name
    metadata = m.metadata
    if metadata:
        d["metadata"] = plain(metadata)
    if m.extras:
        _spread(d, m.extras, reserved)
    if m.cache is not None:
        d["cache"] = m.cache.to_dict()


def _add_common_shared(d: dict[str, Any], m: Any, reserved: frozenset[str]) -> None:
    name = m.name
    if name is not None:
        d["name"] = name
    if m.metadata:
        d["metadata"] = m.metadata
    if m.extras:
        _spread(d, m.extras, reserved, True)
    if m.cache is not None:
        d["cache"] = m.cache.to_dict()


def _content_encoder(role: str, share: bool) -> Encoder:
    add = _add_common_shared if share else _add_common

    def encode(m: Any) -> dict[str, Any]:
        mid, created = m.id, created_at_text(m)
        c = m.content
        d: dict[str, Any]
        if c.__class__ is str:
            d = {"id": mid, "role": role, "content": c, "created_at": created}
        else:
            d = {"id": mid, "role": role, "content": _enc_parts(c), "created_at": created}
        if (
            m.name is not None
            or m.metadata is not EMPTY
            or m.extras is not EMPTY
            or m.cache is not None
        ):
            add(d, m, RESERVED_KEYS)
        return d

    encode.__name__ = encode.__qualname__ = f"_enc_{role}"
    return encode


def _tool_call_message_encoder(share: bool) -> Encoder:
    add = _add_common_shared if share else _add_common
    enc_call = _enc_call_shared if share else _enc_call
    enc_invalid = _enc_invalid_shared if share else _enc_invalid

    def encode(m: Any) -> dict[str, Any]:
        mid, created = m.id, created_at_text(m)
        d: dict[str, Any] = {"id": mid, "role": "assistant"}
        c = m.content
        if c is not None:
            d["content"] = c if c.__class__ is str else _enc_parts(c)
        # a call without extras is written inline; its arguments text is the one
        # received, or made once and kept (``arguments_json``)
        calls = [
            {
                "id": tc.id,
                "type": "function",
                "function": {
                    "name": tc.name,
                    "arguments": tc.arguments_json,
                },
            }
            if not tc.extras
            else enc_call(tc)
            for tc in m.tool_calls
        ]
        if m.invalid_tool_calls:
            calls += [enc_invalid(c) for c in m.invalid_tool_calls]
        d["tool_calls"] = calls
        d["created_at"] = created
        if (
            m.name is not None
            or m.metadata is not EMPTY
            or m.extras is not EMPTY
            or m.cache is not None
        ):
            add(d, m, RESERVED_KEYS)
        return d

    encode.__name__ = encode.__qualname__ = "_enc_tool_call_message"
    return encode


def _tool_result_message_encoder(share: bool) -> Encoder:
    add = _add_common_shared if share else _add_common

    def encode(m: Any) -> dict[str, Any]:
        mid, created = m.id, created_at_text(m)
        c = m.content
        d: dict[str, Any] = {
            "id": mid,
            "role": "tool",
            "tool_call_id": m.tool_call_id,
            "content": c if c.__class__ is str else _enc_parts(c),
            "created_at": created,
        }
        if m.is_error:
            d["is_error"] = True
        tool_name = m.tool_name
        if tool_name is not None:
            d["tool_name"] = tool_name
        if (
            m.name is not None
            or m.metadata is not EMPTY
            or m.extras is not EMPTY
            or m.cache is not None
        ):
            add(d, m, RESERVED_KEYS)
        return d

    encode.__name__ = encode.__qualname__ = "_enc_tool_result_message"
    return encode


def _builtin_encoders(share: bool) -> dict[type, Encoder]:
    return {
        SystemMessage: _content_encoder("system", share),
        DeveloperMessage: _content_encoder("developer", share),
        UserMessage: _content_encoder("user", share),
        AssistantMessage: _content_encoder("assistant", share),
        ToolCallMessage: _tool_call_message_encoder(share),
        ToolResultMessage: _tool_result_message_encoder(share),
    }


ENCODERS = _builtin_encoders(False)
"""The to_dict encoders of the built-in classes: plain copies of metadata and extras."""
SHARED_ENCODERS = _builtin_encoders(True)
"""The to_json encoders: the frozen metadata and extras values themselves."""


def own_fields(cls: type) -> tuple[str, ...]:
    """The init fields a subclass adds to its built-in base (empty for a built-in class)."""
    base = builtin_base(cls)
    if base is None or base is cls or not dataclasses.is_dataclass(cls):
        return ()
    inherited = {f.name for f in dataclasses.fields(base)}
    return tuple(f.name for f in dataclasses.fields(cls) if f.init and f.name not in inherited)


def _subclass_encoder(cls: type, share: bool) -> Encoder:
    """A user subclass: its base's dict plus its own fields under their own names."""
    base = builtin_base(cls)
    names = own_fields(cls)
    if base is None:
        raise ValidationError(f"{cls.__name__} is not a message class", "cls")
    if not names:
        return (SHARED_ENCODERS if share else ENCODERS)[base]
    reserved = RESERVED_KEYS | frozenset(names)
    encode_base = _builtin_encoders(share)[base]

    def encode(m: Any) -> dict[str, Any]:
        extras = m.extras
        d = encode_base(m)
        if extras:  # written again, nesting the keys that name a field of the class
            for k in extras:
                d.pop(k, None)
            d.pop("extras", None)
            _spread(d, extras, reserved, share)
        for name in names:
            value = getattr(m, name)
            if type(value) not in SCALARS:
                try:
                    value = freeze(value, name)
                except ValidationError as exc:
                    raise ValidationError(
                        f"field {name} of {cls.__name__} is not JSON ({exc.message})", name
                    ) from None
                if not share:
                    value = plain(value)
            d[name] = value
        return d

    encode.__name__ = encode.__qualname__ = f"_enc_{cls.__name__}"
    return encode


_ENCODER_CACHE: dict[tuple[type, bool], Encoder] = {}


def encoder_for(cls: type, share: bool = False) -> Encoder:
    """The encoder of a message class (built-in or a user's subclass), resolved once."""
    enc = (SHARED_ENCODERS if share else ENCODERS).get(cls) or _ENCODER_CACHE.get((cls, share))
    if enc is None:
        enc = _ENCODER_CACHE[cls, share] = _subclass_encoder(cls, share)
    return enc


# =============================================================================
# Decoding
# =============================================================================
#
# One decoder per built-in class. Each reads its own fields, then the fields every
# message has (``_stamps`` and ``_common``), reporting any bad value with its path,
# and builds through ``_build`` (nothing is checked twice). ``extras`` are the keys
# the class does not read, plus a nested ``extras`` object.


def _check_id(mid: object) -> str:
    if not isinstance(mid, str):
        _fail(f"expected a string, got {json_type(mid)}", "id")
    if not mid:
        _fail("id must not be empty", "id")
    return str(mid)


def _cache(value: object) -> Any:
    """The ``cache`` key: ``{}`` or ``{"ttl": ...}`` as a CacheHint; None when absent."""
    if value is None:
        return None
    from ._cache import CacheHint

    if type(value) is not dict and not isinstance(value, Mapping):
        _fail(f"expected an object, got {json_type(value)}", "cache")
    unknown = [k for k in value if k != "ttl"]
    if unknown:
        _fail(f"unknown key {ident(unknown[0])}; a cache hint has only ttl", "cache")
    try:
        return CacheHint(value.get("ttl"))
    except ValidationError as exc:
        raise DecodeError(exc.message, f"cache.{exc.path}") from None


def _created_at(value: object) -> Any:
    """A ``created_at`` value: canonical text is kept as it is (the message formats it
    when read); any other accepted form becomes a datetime."""
    if isinstance(value, str) and value[4:20:3] == "--T::." and value[26:] == "Z":
        try:
            check_stamp_text(value)
        except ValueError:
            pass
        else:
            return str(value)
    return created_value(value)


def _stamps(d: Mapping[str, Any]) -> tuple[str | None, Any]:
    """``id`` and ``created_at`` of a message dict (None when absent or null)."""
    mid = d.get("id")
    if mid is not None and (type(mid) is not str or not mid):
        mid = _check_id(mid)
    created = d.get("created_at")
    return mid, None if created is None else _created_at(created)


def _common(d: Mapping[str, Any], known: frozenset[str]) -> tuple[str | None, Any, Any, Any]:
    """``name``, ``metadata``, ``extras`` (the keys outside ``known``) and ``cache``."""
    name, metadata, cache = d.get("name"), d.get("metadata"), d.get("cache")
    return (
        name if name is None or type(name) is str else _opt_str(name, "name"),
        EMPTY if metadata is None else _mapping(metadata, "metadata"),
        _extras(d, known, RESERVED_KEYS),
        None if cache is None else _cache(cache),
    )


def _content_decoder(read_content: Callable[[Any], Any], known: frozenset[str]) -> Decoder:
    def decode(cls: Any, d: Mapping[str, Any]) -> Any:
        content = read_content(d.get("content"))
        mid, created = _stamps(d)
        name, metadata, extras, cache = _common(d, known)
        return message(cls, content, name, metadata, extras, mid, created, cache)

    return decode


def _read_user_content(content: Any) -> Any:
    if content is None:
        _fail("content is required (an empty string is valid)", "content")
    if isinstance(content, str):
        return str(content)
    return _dec_parts(content, _USER_KINDS, "user content")


def _read_system_content(content: Any) -> Any:
    if type(content) is str:
        return content
    return _dec_text_content(content, "system and developer content")


def _read_assistant_content(content: Any) -> Any:
    if content is None:
        return ""  # e.g. an OpenAI refusal: content null, the refusal kept in extras
    return _read_optional_assistant_content(content)


def _read_optional_assistant_content(content: Any) -> Any:
    if content is None:
        return None
    if isinstance(content, str):
        return str(content)
    return _dec_parts(content, _ASSISTANT_KINDS, "assistant content")


_dec_user = _content_decoder(_read_user_content, _CONTENT_KEYS)
_dec_system = _content_decoder(_read_system_content, _CONTENT_KEYS)
_dec_content_assistant = _content_decoder(_read_assistant_content, _ASSISTANT_KEYS)


def _dec_assistant(cls: Any, d: Mapping[str, Any]) -> Any:
    if d.get("tool_calls") or d.get("function_call") is not None:
        _fail(
            f"{cls.__name__} cannot hold tool calls; register a ToolCallMessage class for them",
            "tool_calls",
        )
    if "content" not in d:  # null content is read as "" (a refusal), absent is an error
        _fail("content is required (an empty string is valid)", "content")
    return _dec_content_assistant(cls, d)


def _calls_of(d: Mapping[str, Any]) -> tuple[tuple[ToolCall, ...], tuple[InvalidToolCall, ...]]:
    """The calls of a turn: its ``tool_calls``, or the one legacy ``function_call``."""
    tcs = d.get("tool_calls")
    if tcs:
        return _dec_calls(tcs)
    if d.get("function_call") is not None:
        legacy = _legacy_call(d)
        return ((legacy,), ()) if isinstance(legacy, ToolCall) else ((), (legacy,))
    if tcs is not None and not isinstance(tcs, (list, tuple)):
        _fail(f"expected an array of tool calls, got {json_type(tcs)}", "tool_calls")
    raise DecodeError("at least one tool call is required", "tool_calls")


def _dec_tool_call_message(cls: Any, d: Mapping[str, Any]) -> Any:
    calls, invalid = _calls_of(d)
    content = _read_optional_assistant_content(d.get("content"))
    mid, created = _stamps(d)
    name, metadata, extras, cache = _common(d, _TOOL_CALL_MSG_KEYS)
    fc = d.get("function_call")
    if d.get("tool_calls") and fc is not None:
        # both given: the tool calls win and the legacy call is kept, not lost
        extras = FrozenDict({**extras, "function_call": _freeze_value(fc, "function_call")})
    return tool_call_message(
        cls, calls, content, invalid, name, metadata, extras, mid, created, cache
    )


def tool_result_fields(d: Mapping[str, Any]) -> tuple[str, Any, bool, str | None]:
    """tool_call_id, content, is_error and tool_name of a tool result (message) object."""
    call_id = _req_str(d.get("tool_call_id"), "tool_call_id", "tool_call_id")
    if not call_id:
        _fail("tool_call_id must not be empty", "tool_call_id")
    content = d.get("content")
    if content is None:
        _fail("content is required (an empty string is valid)", "content")
    if isinstance(content, str):
        content = str(content)
    else:
        content = _dec_parts(content, _USER_KINDS, "tool content")
    is_error = d.get("is_error")
    if is_error is None:
        is_error = False
    elif not isinstance(is_error, bool):
        _fail(f"expected a boolean, got {json_type(is_error)}", "is_error")
    tool_name = d.get("tool_name")
    if tool_name is not None:
        tool_name = _req_str(tool_name, "tool_name")
        if not tool_name:
            _fail("tool_name must not be empty", "tool_name")
    return call_id, content, is_error, tool_name


def _dec_tool_result_message(cls: Any, d: Mapping[str, Any]) -> Any:
    call_id, content, is_error, tool_name = tool_result_fields(d)
    mid, created = _stamps(d)
    name, metadata, extras, cache = _common(d, _TOOL_RESULT_KEYS)
    return tool_result_message(
        cls, call_id, content, is_error, tool_name, name, metadata, extras, mid, created, cache
    )


DECODERS: dict[type, Decoder] = {
    SystemMessage: _dec_system,
    DeveloperMessage: _dec_system,
    UserMessage: _dec_user,
    AssistantMessage: _dec_assistant,
    ToolCallMessage: _dec_tool_call_message,
    ToolResultMessage: _dec_tool_result_message,
}
"""The decoder of each built-in class (a user's subclasses resolve through ``decoder_for``)."""


def _subclass_decoder(cls: type) -> Decoder:
    """A user subclass: its base's decoder, then its constructor with its own fields."""
    base = builtin_base(cls)
    if base is None:
        raise ValidationError(f"{cls.__name__} is not a message class", "cls")
    decode_base = DECODERS[base]
    names = own_fields(cls)
    if not names:
        return decode_base  # no fields of its own: built as itself, like its base
    known = frozenset(names)
    init_fields = [f.name for f in dataclasses.fields(base) if f.init]

    def decode(cls_: Any, d: Mapping[str, Any]) -> Any:
        own = {k: d[k] for k in names if k in d}
        rest = {k: v for k, v in d.items() if k not in known} if own else d
        built = decode_base(base, rest)
        kwargs = {name: getattr(built, name) for name in init_fields}
        kwargs.update(own)
        try:
            return cls_(**kwargs)
        except ValidationError as exc:
            raise DecodeError(exc.message, exc.path) from None
        except TypeError as exc:
            raise DecodeError(
                f"{cls_.__name__} refused the fields ({type(exc).__name__})"
            ) from None

    decode.__name__ = decode.__qualname__ = f"_dec_{cls.__name__}"
    return decode


_DECODER_CACHE: dict[type, Decoder] = {}


def decoder_for(cls: type) -> Decoder:
    """The decoder of a message class (built-in or a user's subclass), resolved once."""
    dec = DECODERS.get(cls) or _DECODER_CACHE.get(cls)
    if dec is None:
        dec = _DECODER_CACHE[cls] = _subclass_decoder(cls)
    return dec
