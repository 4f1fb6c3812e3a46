"""The canonical dict and JSON codecs.

The canonical message dict is the OpenAI chat-completions message shape plus
storage fields. It is what storage keeps; provider modules translate to and from
each provider's wire format. Key order carries no meaning.

=================  =========================================================
key                value
=================  =========================================================
``id``             the message id (always written)
``role``           ``system``, ``developer``, ``user``, ``assistant``, ``tool``
``content``        a string, or a list of parts (below). Written for every
                   message; a ToolCallMessage without content omits it, so
                   ``None`` and ``""`` stay distinct
``name``           the participant name, when set (``""`` is written)
``tool_calls``     ToolCallMessage only: ``[{"id", "type": "function",
                   "function": {"name", "arguments"}}]``; ``arguments`` is a
                   JSON string, the exact one received when decoded from one
``tool_call_id``   tool messages: the call answered
``is_error``       tool messages: written only when true
``tool_name``      tool messages: written when set
``metadata``       developer context, when non-empty
``created_at``     ISO 8601 in UTC with microseconds and a ``Z`` suffix,
                   e.g. ``2025-01-02T03:04:05.000006Z``
other keys         the message's ``extras`` (see below)
=================  =========================================================

Parts use the OpenAI part shapes: ``{"type": "text", "text"}``,
``{"type": "image_url", "image_url": {"url", "detail"?}}`` (inline images as a
``data:<media type>;base64,`` URL), ``{"type": "input_audio", "input_audio":
{"data", "format"}}`` and ``{"type": "file", "file": {"file_data"?, "file_id"?,
"filename"?}}`` with inline data as a ``data:`` URL in ``file_data`` (so the
media type travels with it, as OpenAI does; a file with a ``file_id`` but no
data keeps its media type in a ``media_type`` key, and so does inline data whose
media type cannot be written into a data URL — ``media_type`` present means
``file_data`` is bare base64). Reasoning, which OpenAI chat completions does not
carry, is ``{"type": "reasoning", "text", "signature"?, "redacted"?: true,
"provider"?}``; an inline image whose media type cannot be written into a data
URL uses ``{"data", "media_type"}`` inside ``image_url``.

Images: an ``ImagePart`` whose ``url`` is itself a base64 ``data:`` URL has the
same canonical form as ``ImagePart.from_data_url(url)`` and decodes as that
(inline data); every other value round-trips exactly.

Extras: ``extras`` keys come back out at the top level of the message dict (and
of a tool call dict), where unknown keys were found; a key that would collide
with a canonical key goes into a nested ``extras`` object instead. On decode,
unknown keys and the nested ``extras`` object are merged (the nested object
wins on a clash). So ``from_dict(to_dict(m)) == m`` holds for any extras, and a
dict with unknown keys comes back out with them.

Accepted on input as well: content as a list of OpenAI parts for every role
(system and developer text parts are joined), an image URL given as a string,
``arguments`` as an object (or an empty string, taken as ``{}``), tool calls
without ``type``, a legacy ``function_call`` (one tool call whose id is derived
from the message id, name and arguments, so decoding twice gives the same id),
``content: null`` or no content for an assistant with tool calls (and for a
plain assistant message, read as ``""``), the ``developer`` role, a role in any
case, ``created_at`` with any UTC offset (normalised to UTC) or as an aware
``datetime``. Null values of canonical keys count as absent.

Refused with DecodeError: naive timestamps (no offset: the instant would be a
guess), unknown roles and part types, a part type a role cannot hold, tool call
types other than ``function``, duplicate tool call ids in one message,
arguments that are not a JSON object, an image ``media_type`` beside a base64
``data:`` URL that names another media type (as ``ImagePart`` refuses it).

Hostile input. Every decoder raises only DecodeError, whose ``path`` names the
spot relative to what was passed (``tool_calls[0].function.arguments``; a list
adds ``[3].``). Error text names fields, types and lengths, never content.
JSON text is parsed by ``_json.loads``: ``NaN``/``Infinity`` are refused,
numbers that overflow to infinity are refused when frozen, integers over
Python's digit limit are refused, nesting deeper than the interpreter allows
is refused; duplicate object keys resolve to the last one (as ``json.loads``
and ``JSON.parse`` do; checking costs ~2x on every decode); lone surrogates
(``"\\ud800"``) are kept, and ``to_json`` writes ASCII with escapes, so they
round-trip; a high surrogate directly followed by a low one (two code points)
is written exactly like the astral character they encode and reads back as that
one character (JSON cannot tell them apart; this also applies to tool arguments
in the dict, which travel as JSON text). JSON-like values nested deeper than
200 levels are refused.

``to_dict`` output is plain JSON-like data the caller owns: ``metadata`` and
``extras`` values come out as fresh ``dict`` / ``list`` copies of the message's
frozen values (as parts and tool calls always did), so changing the dict never
changes the message; tool arguments are a JSON string. The copy is made only for
non-empty metadata / extras. ``to_json`` writes compact ASCII JSON, the same text
as ``json.dumps(to_dict(x))`` with compact separators, without making the copies.

Speed: encoders and decoders are hand-written per class and picked from
dispatch dicts keyed by exact type (user subclasses resolve once, by MRO, to
the nearest built-in class). Decoders validate while reading and then build
through the trusted builders, so nothing is validated twice and tool arguments
are parsed once; the original arguments string is kept.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, Union, overload

from ._frozen import EMPTY, FrozenDict, freeze_mapping
from ._ids import UTC, stamp_text
from ._json import json_type, loads
from ._message import (
    _BUILDING,
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    _building,
    _set_created,
    trusted_content_message,
    trusted_tool_call_message,
    trusted_tool_result_message,
)
from ._part_codec import (
    _ASSISTANT_KINDS,
    _BLANK,
    _PART_ENCODERS,
    _PLAIN,
    _USER_KINDS,
    _build,
    _dec_calls,
    _dec_parts,
    _dec_text_content,
    _enc_call,
    _enc_call_shared,
    _enc_parts,
    _extras,
    _fail,
    _freeze_value,
    _guarded,
    _legacy_call,
    _mapping,
    _new,
    _opt_str,
    _parse,
    _plain_items,
    _req_str,
    _scan_once,
    _spread,
    _unexpected,
    part_from_dict,
    part_to_dict,
    tool_call_from_dict,
    tool_call_to_dict,
)
from ._part_codec import (
    _SCALARS as _FLAT_SCALARS,
)
from ._parts import ContentPart
from ._registry import MessageRegistry, builtin_base, default_registry, has_tool_calls
from ._streaming import ToolCallDelta
from ._tool_call import _KNOWN_NAMES, ToolCall
from ._tool_call import _Building as _BuildingCall
from ._tool_result import ToolResult
from .errors import DecodeError, ValidationError

if TYPE_CHECKING:
    from ._tool_definition import ToolDefinition

__all__ = [
    "from_dict",
    "from_json",
    "to_dict",
    "to_json",
    "message_from_dict",
    "message_to_dict",
    "part_from_dict",
    "part_to_dict",
    "tool_call_from_dict",
    "tool_call_to_dict",
    "tool_call_delta_from_dict",
    "tool_call_delta_to_dict",
    "tool_result_from_dict",
    "tool_result_to_dict",
]

M = TypeVar("M", bound=Message)

Encodable = Union[Message, ContentPart, ToolCall, ToolResult, ToolCallDelta, "ToolDefinition"]
"""Anything ``to_dict`` / ``to_json`` encode (also a list or tuple of these)."""

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
    )
)
_BASE_KEYS = frozenset(("id", "role", "name", "metadata", "extras", "created_at"))
_CONTENT_KEYS = _BASE_KEYS | {"content"}
# A plain assistant consumes empty/null tool_calls and function_call silently.
_ASSISTANT_KEYS = _CONTENT_KEYS | {"tool_calls", "function_call"}
_TOOL_CALL_MSG_KEYS = _ASSISTANT_KEYS
_TOOL_RESULT_KEYS = _CONTENT_KEYS | {"tool_call_id", "is_error", "tool_name"}


# =============================================================================
# created_at
# =============================================================================

# Hot path: formatting an aware datetime costs ~0.7-0.9 µs, more than the rest of
# to_dict together; conversations are encoded again and again (every save, every
# request), so the text of recent timestamps is remembered (a datetime caches its
# hash, so a hit is one dict lookup). Bounded; cleared when full. Decoding does
# not fill it: hashing a fresh aware datetime costs ~0.3 µs.
_ISO: dict[datetime, str] = {}
_ISO_MAX = 8192


def iso_utc(dt: datetime) -> str:
    """``dt`` (aware) as canonical ISO 8601 UTC text: ``YYYY-MM-DDTHH:MM:SS.ffffffZ``."""
    s = _ISO.get(dt)
    if s is None:
        s = _format_iso(dt)
    return s


def _format_iso(dt: datetime) -> str:
    u = dt if dt.tzinfo is UTC else dt.astimezone(UTC)
    s = u.isoformat()  # "...+00:00"; the fastest of the ways measured
    # isoformat leaves out a zero microsecond
    s = s[:-6] + "Z" if len(s) == 32 else s[:-6] + ".000000Z"
    if len(_ISO) >= _ISO_MAX:
        _ISO.clear()
    _ISO[dt] = s
    return s


_fromiso = datetime.fromisoformat


def _fromiso_z(s: str, path: str) -> datetime:
    # Python 3.10 reads only its own isoformat output: no "Z" suffix.
    if len(s) < 64 and s[-1:] in ("Z", "z"):
        try:
            return _fromiso(s[:-1] + "+00:00")
        except ValueError:
            pass
    raise DecodeError(
        f"expected an ISO 8601 timestamp with a UTC offset (string of length {len(s)})", path
    )


# A decoded message keeps a canonical created_at text (``YYYY-MM-DDTHH:MM:SS.ffffffZ``,
# what the encoder writes) as it is: the datetime is built when first read, and
# re-encoding writes the text back without formatting (~1.7 us saved per message
# decoded and then encoded again: a fresh datetime is hashed and formatted on a
# cache miss). The text is checked in full when decoded: its separators sit where
# the canonical form has them and ``datetime.fromisoformat`` accepts it (digits,
# ranges, leap days), which leaves no other reading of it.
if sys.version_info >= (3, 11):
    _check_stamp_text: Callable[[str], object] = _fromiso  # reads the "Z" suffix
else:  # pragma: no cover - Python 3.10

    def _check_stamp_text(s: str) -> object:
        return _fromiso(s[:-1])


def _created(value: object) -> datetime | str:
    """The ``created_at`` to store for a value read from a message dict (not None)."""
    if value.__class__ is str:
        if value[4:20:3] == "--T::." and value[26:] == "Z":
            try:
                _check_stamp_text(value)
            except ValueError:
                pass
            else:
                return value
        try:
            dt = _fromiso(value)
        except ValueError:
            return parse_created_at(value)
        return dt if dt.tzinfo is UTC else parse_created_at(dt)
    return parse_created_at(value)


def parse_created_at(value: object, path: str = "created_at") -> datetime:
    """Parse an ISO 8601 timestamp with an offset (or take an aware datetime); UTC result."""
    if value.__class__ is str or isinstance(value, str):
        try:
            dt = _fromiso(value)
        except ValueError:
            dt = _fromiso_z(str(value), path)
    elif isinstance(value, datetime):
        dt = value
    else:
        _fail(f"expected an ISO 8601 string, got {json_type(value)}", path)
    tz = dt.tzinfo
    if tz is UTC:
        return dt
    if tz is None or dt.utcoffset() is None:
        _fail("timestamp has no UTC offset; naive timestamps are refused (add 'Z')", path)
    try:
        return dt.astimezone(UTC)
    except (OverflowError, ValueError):
        _fail("timestamp is out of range in UTC", path)


# =============================================================================
# Encoding
# =============================================================================


# to_dict hands out plain copies of metadata and extras (``plain``), not the
# message's frozen values: callers change the dict they get. Only a message with
# non-empty metadata or extras pays (a 3-key flat object ~+0.2 us, a usage-like
# nested one ~+0.5 us): the others never reach _add_aux, or skip both branches. to_json
# only reads the dict, so it is built by a second set of the same encoders that
# shares the frozen values (FrozenDict is a dict, FrozenList a tuple: the C JSON
# encoder writes them exactly as their copies) and costs what it did before.
def _add_aux(d: dict[str, Any], aux: tuple[str | None, FrozenDict, FrozenDict]) -> None:
    name, metadata, extras = aux
    if name is not None:
        d["name"] = name
    if metadata:
        # hot path: plain() of a flat object written out (one frame less, ~60 ns)
        m = {**metadata}
        for v in m.values():
            if type(v) not in _PLAIN:
                _plain_items(m)
                break
        d["metadata"] = m
    if extras:
        _spread(d, extras, RESERVED_KEYS)


def _add_aux_shared(d: dict[str, Any], aux: tuple[str | None, FrozenDict, FrozenDict]) -> None:
    name, metadata, extras = aux
    if name is not None:
        d["name"] = name
    if metadata:
        d["metadata"] = metadata
    if extras:
        _spread(d, extras, RESERVED_KEYS, True)


_AddAux = Callable[[dict[str, Any], tuple[str | None, FrozenDict, FrozenDict]], None]


# Hot path: the encoders read the message's raw slots as plain attributes (~7 ns
# each, a specialised slot read) instead of the lazy ``id`` / ``created_at``
# properties (~140 ns) or the bound slot getters (~40 ns): to_dict of a
# UserMessage went from ~360 to ~250 ns. A message whose id is still an int (a
# sequence number) has never been read: ``m.id`` formats the id from it and the
# clock's ns kept in ``_created``, and its timestamp text is made once from the
# same ns (no exception raised on that path).
# A decoded message keeps its canonical created_at text, written back as it is.
# Otherwise the timestamp text comes from the cache, and a miss (KeyError) formats it.


def _first_created_text(m: Any) -> str:
    """created_at text of a message whose id was just formatted (its first encode)."""
    c = m._created  # the clock's ns, unless created_at was given or read
    if c.__class__ is int:
        # keep the text: later encodes write it as it is, created_at reads parse it
        text = stamp_text(c)
        _set_created(m, text)
        return text
    if c.__class__ is str:
        return c
    return _format_iso(c)


# hot path: each encoder below reads id and created_at with the same inline lines;
# a shared helper returning the pair costs ~20 ns of ~260 ns per to_dict (measured
# on a ToolResultMessage), so the repetition is kept.
def _content_encoder(role: str, add_aux: _AddAux) -> Callable[[Any], dict[str, Any]]:
    def encode(m: Any) -> dict[str, Any]:
        mid = m._id
        if mid.__class__ is str:
            try:
                created = m._created
                if created.__class__ is not str:
                    created = _ISO[created]
            except (AttributeError, KeyError):
                created = iso_utc(m.created_at)
        else:
            mid = m.id
            created = _first_created_text(m)
        c = m.content
        if c.__class__ is str:
            d = {"id": mid, "role": role, "content": c, "created_at": created}
        elif c is None:  # only a user subclass of AssistantMessage may hold None
            d = {"id": mid, "role": role, "created_at": created}
        else:
            d = {"id": mid, "role": role, "content": _enc_parts(c), "created_at": created}
        aux = m._aux
        if aux is not None:
            add_aux(d, aux)
        return d

    encode.__name__ = encode.__qualname__ = f"_enc_{role}"
    return encode


def _tool_call_message_encoder(
    add_aux: _AddAux, enc_call: Callable[[ToolCall], dict[str, Any]]
) -> Callable[[Any], dict[str, Any]]:
    def encode(m: Any) -> dict[str, Any]:
        mid = m._id
        if mid.__class__ is str:
            try:
                created = m._created
                if created.__class__ is not str:
                    created = _ISO[created]
            except (AttributeError, KeyError):
                created = iso_utc(m.created_at)
        else:
            mid = m.id
            created = _first_created_text(m)
        d: dict[str, Any] = {"id": mid, "role": "assistant"}
        c = m.content
        if c is not None:
            d["content"] = c if c.__class__ is str else _enc_parts(c)
        # hot path: a call without extras is written inline (one frame less per call,
        # ~60 ns); the arguments text is the one received, or made once and kept
        d["tool_calls"] = [
            {
                "id": tc.id,
                "type": "function",
                "function": {
                    "name": tc.name,
                    "arguments": tc.arguments_json if tc._raw is None else tc._raw,
                },
            }
            if not tc.extras
            else enc_call(tc)
            for tc in m.tool_calls
        ]
        d["created_at"] = created
        aux = m._aux
        if aux is not None:
            add_aux(d, aux)
        return d

    encode.__name__ = encode.__qualname__ = "_enc_tool_call_message"
    return encode


def _tool_result_message_encoder(add_aux: _AddAux) -> Callable[[Any], dict[str, Any]]:
    def encode(m: Any) -> dict[str, Any]:
        mid = m._id
        if mid.__class__ is str:
            try:
                created = m._created
                if created.__class__ is not str:
                    created = _ISO[created]
            except (AttributeError, KeyError):
                created = iso_utc(m.created_at)
        else:
            mid = m.id
            created = _first_created_text(m)
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
        aux = m._aux
        if aux is not None:
            add_aux(d, aux)
        return d

    encode.__name__ = encode.__qualname__ = "_enc_tool_result_message"
    return encode


def _message_encoders(
    add_aux: _AddAux, enc_call: Callable[[ToolCall], dict[str, Any]]
) -> dict[type, Callable[[Any], dict[str, Any]]]:
    return {
        SystemMessage: _content_encoder("system", add_aux),
        DeveloperMessage: _content_encoder("developer", add_aux),
        UserMessage: _content_encoder("user", add_aux),
        AssistantMessage: _content_encoder("assistant", add_aux),
        ToolCallMessage: _tool_call_message_encoder(add_aux, enc_call),
        ToolResultMessage: _tool_result_message_encoder(add_aux),
    }


_MESSAGE_ENCODERS = _message_encoders(_add_aux, _enc_call)
"""The to_dict encoders: plain copies of metadata and extras."""
_SHARED_MESSAGE_ENCODERS = _message_encoders(_add_aux_shared, _enc_call_shared)
"""The to_json encoders: the frozen metadata and extras values themselves."""


def tool_result_to_dict(r: ToolResult) -> dict[str, Any]:
    """A ToolResult as ``{"tool_call_id", "content", "is_error"?, "tool_name"?}``."""
    c = r.content
    d: dict[str, Any] = {
        "tool_call_id": r.tool_call_id,
        "content": c if c.__class__ is str else _enc_parts(c),  # type: ignore[arg-type]
    }
    if r.is_error:
        d["is_error"] = True
    if r.tool_name is not None:
        d["tool_name"] = r.tool_name
    return d


def tool_call_delta_to_dict(delta: ToolCallDelta) -> dict[str, Any]:
    """A ToolCallDelta in the OpenAI streaming shape ``{"index", "id"?, "type"?, "function"}``."""
    d: dict[str, Any] = {"index": delta.index}
    if delta.id is not None:
        d["id"] = delta.id
        d["type"] = "function"
    fn: dict[str, Any] = {}
    if delta.name is not None:
        fn["name"] = delta.name
    if delta.arguments_delta is not None:
        fn["arguments"] = delta.arguments_delta
    d["function"] = fn
    return d


_Encoders = dict[type, Callable[[Any], Any]]


def _list_encoder(table: _Encoders, builtins: _Encoders) -> Callable[[Sequence[Any]], list[Any]]:
    def encode(xs: Sequence[Any]) -> list[Any]:
        try:
            return [table[x.__class__](x) for x in xs]
        except KeyError:
            pass  # some item is not of a known exact type: resolve it, with its index
        out = []
        for i, x in enumerate(xs):
            enc = table.get(x.__class__)
            if enc is None:
                try:
                    enc = _encoder_for(x.__class__, table, builtins)
                except ValidationError as exc:
                    raise exc.at(f"[{i}]") from None
            out.append(enc(x))
        return out

    encode.__name__ = encode.__qualname__ = "_enc_list"
    return encode


def _encoders(
    messages: _Encoders, enc_call: Callable[[ToolCall], dict[str, Any]]
) -> tuple[_Encoders, _Encoders]:
    """An encoder table (filled in with user subclasses as met) and its built-in entries."""
    table: _Encoders = {
        **messages,
        **_PART_ENCODERS,
        ToolCall: enc_call,
        ToolResult: tool_result_to_dict,
        ToolCallDelta: tool_call_delta_to_dict,
    }
    builtins = dict(table)
    table[list] = table[tuple] = builtins[list] = builtins[tuple] = _list_encoder(table, builtins)
    return table, builtins


_ENCODERS, _BUILTIN_ENCODERS = _encoders(_MESSAGE_ENCODERS, _enc_call)
"""to_dict: plain copies of metadata and extras."""
_SHARED_ENCODERS, _BUILTIN_SHARED_ENCODERS = _encoders(_SHARED_MESSAGE_ENCODERS, _enc_call_shared)
"""to_json: the frozen values shared, for the JSON encoder to read."""


def _encoder_for(
    cls: type, table: _Encoders = _ENCODERS, builtins: _Encoders = _BUILTIN_ENCODERS
) -> Callable[[Any], Any]:
    """Resolve (once) the encoder of a type that is not a built-in one, e.g. a user subclass."""
    enc: Callable[[Any], Any] | None = None
    for base in cls.__mro__:
        enc = builtins.get(base)
        if enc is not None:
            break
    if enc is None:
        try:
            from ._tool_definition import ToolDefinition
        except ImportError:  # pragma: no cover - the module ships with the package
            ToolDefinition = None  # type: ignore[misc,assignment]  # noqa: N806
        if ToolDefinition is not None and issubclass(cls, ToolDefinition):
            enc = ToolDefinition.to_dict
        elif issubclass(cls, Sequence) and not issubclass(cls, (str, bytes, bytearray)):
            enc = builtins[list]
    if enc is None:
        raise ValidationError(
            f"cannot encode {cls.__name__}: expected a message, content part, tool call, "
            "tool result, tool call delta, tool definition, or a list of them",
        )
    table[cls] = enc
    return enc


@overload
def to_dict(x: Sequence[Encodable]) -> list[dict[str, Any]]: ...


@overload
def to_dict(x: Encodable) -> dict[str, Any]: ...


def to_dict(x: Encodable | Sequence[Encodable]) -> dict[str, Any] | list[dict[str, Any]]:
    """The canonical dict of a message, part, tool call, tool result, delta or tool definition.

    A list or tuple gives a list of dicts. The result is plain JSON-like data
    (``dict``, ``list``, scalars) that belongs to the caller: changing it does not
    change the object.
    """
    enc = _ENCODERS.get(x.__class__)
    if enc is None:
        enc = _encoder_for(x.__class__)
    return enc(x)  # type: ignore[no-any-return]


def message_to_dict(m: Message) -> dict[str, Any]:
    """The canonical dict of one message (``Message.to_dict``)."""
    enc = _ENCODERS.get(m.__class__)
    if enc is None:
        enc = _encoder_for(m.__class__)
    return enc(m)  # type: ignore[no-any-return]


# -- JSON ---------------------------------------------------------------------------


def _make_dump() -> Callable[[Any], str]:
    # Hot path: json.dumps builds a new C encoder on every call; one built once and
    # reused cuts to_json by ~0.4 µs per message. Falls back to the pure encoder
    # when the C accelerator is missing (e.g. PyPy) or behaves differently.
    encoder = json.JSONEncoder(separators=(",", ":"), allow_nan=False, check_circular=False)
    slow = encoder.encode
    try:
        from json import encoder as _je

        make = _je.c_make_encoder  # type: ignore[attr-defined]
        if make is None:
            return slow
        c_encode = make(
            None,
            encoder.default,
            _je.encode_basestring_ascii,
            None,
            ":",
            ",",
            False,
            False,
            False,
        )
        sample = {"a": [1, 2.5, None, True, "\ud800é"], "b": FrozenDict({"c": ()})}
        if "".join(c_encode(sample, 0)) != slow(sample):
            return slow
    except Exception:
        return slow
    join = "".join

    def dump(value: Any) -> str:
        return join(c_encode(value, 0))

    return dump


_dump = _make_dump()


def to_json(x: Encodable | Sequence[Encodable]) -> str:
    """``to_dict(x)`` as compact JSON text (ASCII; lone surrogates escaped, so they round-trip)."""
    # the dict of the shared encoders: the text of to_dict's, without copying
    # metadata and extras that are only read
    enc = _SHARED_ENCODERS.get(x.__class__)
    if enc is None:
        enc = _encoder_for(x.__class__, _SHARED_ENCODERS, _BUILTIN_SHARED_ENCODERS)
    d = enc(x)
    try:
        return _dump(d)
    except ValueError as exc:
        # A message can hold an int longer than Python's int-to-text digit limit
        # (metadata built in Python); JSON text cannot carry it.
        reason = "an integer too long" if "digits" in str(exc) else type(exc).__name__
        raise ValidationError(f"value cannot be written as JSON ({reason})") from None


# =============================================================================
# Decoding
# =============================================================================


# -- messages ---------------------------------------------------------------------


def _common(
    d: Mapping[str, Any], known: frozenset[str]
) -> tuple[str | None, FrozenDict, FrozenDict, str | None, datetime | str | None]:
    """(name, metadata, extras, id, created_at) of a message dict."""
    mid = d.get("id")
    if mid is not None and (mid.__class__ is not str or not mid):
        mid = _check_id(mid)
    created = d.get("created_at")
    if created is not None:
        created = _created(created)
    name = d.get("name")
    if name is not None and name.__class__ is not str:
        name = _opt_str(name, "name")
    metadata = d.get("metadata")
    metadata = EMPTY if metadata is None else _mapping(metadata, "metadata")
    if d.keys() <= known and d.get("extras") is None:
        return name, metadata, EMPTY, mid, created
    return name, metadata, _extras(d, known, RESERVED_KEYS), mid, created


def _check_id(mid: object) -> str:
    if not isinstance(mid, str):
        _fail(f"expected a string, got {json_type(mid)}", "id")
    if not mid:
        _fail("id must not be empty", "id")
    return str(mid)


def _dec_user_general(cls: type[M], d: Mapping[str, Any]) -> M:
    content = d.get("content")
    if content.__class__ is not str:
        if content is None:
            _fail("content is required (an empty string is valid)", "content")
        content = (
            str(content)
            if isinstance(content, str)
            else _dec_parts(content, _USER_KINDS, "user content")
        )
    name, metadata, extras, mid, created = _common(d, _CONTENT_KEYS)
    return trusted_content_message(cls, content, name, metadata, extras, mid, created)


def _dec_system_general(cls: type[M], d: Mapping[str, Any]) -> M:
    content = d.get("content")
    if content.__class__ is not str:
        content = _dec_text_content(content, "system and developer content")
    name, metadata, extras, mid, created = _common(d, _CONTENT_KEYS)
    return trusted_content_message(cls, content, name, metadata, extras, mid, created)


def _dec_assistant_content(content: Any) -> Any:
    if content.__class__ is str or content is None:
        return content
    if isinstance(content, str):
        return str(content)
    return _dec_parts(content, _ASSISTANT_KINDS, "assistant content")


def _dec_assistant_general(cls: type[M], d: Mapping[str, Any]) -> M:
    if d.get("tool_calls") or d.get("function_call") is not None:
        _fail(
            f"{cls.__name__} cannot hold tool calls; register a ToolCallMessage class for them",
            "tool_calls",
        )
    content = _dec_assistant_content(d.get("content"))
    if content is None and cls is AssistantMessage:
        content = ""  # e.g. an OpenAI refusal: content null, the refusal kept in extras
    name, metadata, extras, mid, created = _common(d, _ASSISTANT_KEYS)
    return trusted_content_message(cls, content, name, metadata, extras, mid, created)


def _dec_tool_call_message_general(cls: type[M], d: Mapping[str, Any]) -> M:
    tcs = d.get("tool_calls")
    if tcs:
        calls = _dec_calls(tcs)
        legacy = False
    elif d.get("function_call") is not None:
        calls = (_legacy_call(d),)
        legacy = True
    elif tcs is not None and not isinstance(tcs, (list, tuple)):
        _fail(f"expected an array of tool calls, got {json_type(tcs)}", "tool_calls")
    else:
        _fail("at least one tool call is required", "tool_calls")
    content = _dec_assistant_content(d.get("content"))
    name, metadata, extras, mid, created = _common(d, _TOOL_CALL_MSG_KEYS)
    if not legacy and d.get("function_call") is not None:
        # both given: the tool calls win and the legacy call is kept, not lost
        extras = FrozenDict(
            {**extras, "function_call": _freeze_value(d["function_call"], "function_call")}
        )
    return trusted_tool_call_message(cls, calls, content, name, metadata, extras, mid, created)


def _tool_result_fields(d: Mapping[str, Any]) -> tuple[str, Any, bool, str | None]:
    """tool_call_id, content, is_error and tool_name of a tool result (message) object."""
    call_id = d.get("tool_call_id")
    if call_id.__class__ is not str or not call_id:
        call_id = _req_str(call_id, "tool_call_id", "tool_call_id")
        if not call_id:
            _fail("tool_call_id must not be empty", "tool_call_id")
    content = d.get("content")
    if content.__class__ is not str:
        if content is None:
            _fail("content is required (an empty string is valid)", "content")
        content = (
            str(content)
            if isinstance(content, str)
            else _dec_parts(content, _USER_KINDS, "tool content")
        )
    is_error = d.get("is_error")
    if is_error is None:
        is_error = False
    elif is_error is not True and is_error is not False:
        _fail(f"expected a boolean, got {json_type(is_error)}", "is_error")
    tool_name = d.get("tool_name")
    if tool_name is not None:
        tool_name = _req_str(tool_name, "tool_name")
        if not tool_name:
            _fail("tool_name must not be empty", "tool_name")
    return call_id, content, is_error, tool_name


def _dec_tool_result_message_general(cls: type[M], d: Mapping[str, Any]) -> M:
    call_id, content, is_error, tool_name = _tool_result_fields(d)
    name, metadata, extras, mid, created = _common(d, _TOOL_RESULT_KEYS)
    return trusted_tool_result_message(
        cls, call_id, content, is_error, tool_name, name, metadata, extras, mid, created
    )


# Hot path: each decoder first tries the exact canonical shape, the one to_dict
# writes: a plain dict holding only role, a non-empty str id, canonical created_at
# text and the role's own fields with their usual types. That shape is read with
# subscripts and built on the class's mutable twin directly (no _common tuple, no
# builder call). Anything else, including every error, goes to the general
# decoder above, which reads the dict again from the start: so results and
# errors are those of the general decoder, and tests/test_codec_fast_paths.py
# holds the two to that. The dispatcher has read the role, so the key is there
# and counts in len(d); name and metadata (e.g. a parsed response's usage) are
# read here too, metadata last as in the general decoder, so that its error is
# the same. UserMessage from_dict: ~1.17 -> ~0.8 us.


_Aux = tuple[str | None, FrozenDict, FrozenDict] | None


def _content_decoder(
    general: Callable[[Any, Mapping[str, Any]], Any],
) -> Callable[[Any, Mapping[str, Any]], Any]:
    def decode(cls: Any, d: Mapping[str, Any]) -> Any:
        if d.__class__ is dict:
            try:
                content = d["content"]
                mid = d["id"]
                created = d["created_at"]
            except KeyError:
                return general(cls, d)
            if len(d) == 4:  # only the canonical keys: role, content, id, created_at
                name = metadata = None
            else:
                name = d.get("name")
                metadata = d.get("metadata")
                if len(d) != 4 + (name is not None) + (metadata is not None):
                    return general(cls, d)
            if (
                content.__class__ is str
                and mid.__class__ is str
                and mid
                and created.__class__ is str
                and created[4:20:3] == "--T::."
                and created[26:] == "Z"
                and (name is None or name.__class__ is str)
            ):
                try:
                    _check_stamp_text(created)
                except ValueError:
                    return general(cls, d)
                aux: _Aux
                if metadata is None:
                    aux = None if name is None else (name, EMPTY, EMPTY)
                else:  # last, as in the general decoder: its error, if any, is the same
                    metadata = _mapping(metadata, "metadata")
                    aux = None if name is None and not metadata else (name, metadata, EMPTY)
                m = _new(_BUILDING.get(cls) or _building(cls))  # see _frozen.mutable_twin
                m.content = content
                m._aux = aux
                m._id = mid
                m._created = created
                m.__class__ = cls
                return m
        return general(cls, d)

    decode.__name__ = decode.__qualname__ = general.__name__[:-8]
    return decode


_dec_user = _content_decoder(_dec_user_general)
_dec_system = _content_decoder(_dec_system_general)
_dec_developer = _content_decoder(_dec_system_general)
_dec_assistant = _content_decoder(_dec_assistant_general)


def _dec_tool_call_message(cls: Any, d: Mapping[str, Any]) -> Any:
    if d.__class__ is dict:
        try:
            tcs = d["tool_calls"]
            mid = d["id"]
            created = d["created_at"]
        except KeyError:
            return _dec_tool_call_message_general(cls, d)
        if len(d) == 4:  # only the canonical keys: role, tool_calls, id, created_at
            content = name = metadata = None
        else:
            content = d.get("content")
            name = d.get("name")
            metadata = d.get("metadata")
            if len(d) != 4 + (content is not None) + (name is not None) + (metadata is not None):
                return _dec_tool_call_message_general(cls, d)
        if (
            tcs.__class__ is list
            and tcs
            and (content is None or content.__class__ is str)
            and mid.__class__ is str
            and mid
            and created.__class__ is str
            and created[4:20:3] == "--T::."
            and created[26:] == "Z"
            and (name is None or name.__class__ is str)
        ):
            try:
                _check_stamp_text(created)
            except ValueError:
                return _dec_tool_call_message_general(cls, d)
            # the general decoder reads the calls first too: same error, same path.
            # hot path: _dec_call's canonical shape written out for every call (no
            # frame per call, no list); anything else, or any doubt, decodes the whole
            # list through _dec_calls, which gives the same calls or the error
            calls: Any = None
            try:
                out = []
                for c in tcs:
                    if c.__class__ is not dict:
                        break
                    cid = c["id"]
                    fn = c["function"]
                    cname = fn["name"]
                    args = fn["arguments"]
                    if not (
                        cid.__class__ is str
                        and cid
                        and args.__class__ is str
                        and cname.__class__ is str
                        and cname in _KNOWN_NAMES
                        and (len(c) == 2 or (len(c) == 3 and c.get("type") == "function"))
                    ):
                        break
                    value, end = _scan_once(args, 0)
                    if value.__class__ is not dict or end != len(args):
                        break
                    for v in value.values():
                        if v.__class__ not in _FLAT_SCALARS:
                            frozen = freeze_mapping(value, "")
                            break
                    else:  # keys from the scanner are always str
                        frozen = FrozenDict(value) if value else EMPTY
                    call = _new(_BuildingCall)
                    call.id = cid
                    call.name = cname
                    call.arguments = frozen
                    call.extras = EMPTY
                    call._raw = args
                    call.__class__ = ToolCall
                    out.append(call)
                else:
                    n = len(out)
                    if n == 1 or (
                        out[1].id != out[0].id if n == 2 else len({c.id for c in out}) == n
                    ):
                        calls = tuple(out)
            except Exception:  # any failure: _dec_calls reports it properly
                pass
            if calls is None:
                calls = _dec_calls(tcs)
            aux: _Aux
            if metadata is None:
                aux = None if name is None else (name, EMPTY, EMPTY)
            else:
                metadata = _mapping(metadata, "metadata")
                aux = None if name is None and not metadata else (name, metadata, EMPTY)
            m = _new(_BUILDING.get(cls) or _building(cls))
            m.tool_calls = calls
            m.content = content
            m._aux = aux
            m._id = mid
            m._created = created
            m.__class__ = cls
            return m
    return _dec_tool_call_message_general(cls, d)


def _dec_tool_result_message(cls: Any, d: Mapping[str, Any]) -> Any:
    if d.__class__ is dict:
        try:
            call_id = d["tool_call_id"]
            content = d["content"]
            mid = d["id"]
            created = d["created_at"]
        except KeyError:
            return _dec_tool_result_message_general(cls, d)
        if len(d) == 5:  # only the canonical keys: role, tool_call_id, content, id, created_at
            is_error = tool_name = name = metadata = None
        elif len(d) == 6 and (tool_name := d.get("tool_name")) is not None:  # the usual extra
            is_error = name = metadata = None
        else:
            is_error = d.get("is_error")
            tool_name = d.get("tool_name")
            name = d.get("name")
            metadata = d.get("metadata")
            if len(d) != 5 + (is_error is not None) + (tool_name is not None) + (
                name is not None
            ) + (metadata is not None):
                return _dec_tool_result_message_general(cls, d)
        if (
            call_id.__class__ is str
            and call_id
            and content.__class__ is str
            and mid.__class__ is str
            and mid
            and created.__class__ is str
            and created[4:20:3] == "--T::."
            and created[26:] == "Z"
            and (tool_name is None or (tool_name.__class__ is str and tool_name))
            and (is_error is None or is_error is True or is_error is False)
            and (name is None or name.__class__ is str)
        ):
            try:
                _check_stamp_text(created)
            except ValueError:
                return _dec_tool_result_message_general(cls, d)
            aux: _Aux
            if metadata is None:
                aux = None if name is None else (name, EMPTY, EMPTY)
            else:
                metadata = _mapping(metadata, "metadata")
                aux = None if name is None and not metadata else (name, metadata, EMPTY)
            m = _new(_BUILDING.get(cls) or _building(cls))
            m.tool_call_id = call_id
            m.content = content
            m.is_error = is_error is True
            m.tool_name = tool_name
            m._aux = aux
            m._id = mid
            m._created = created
            m.__class__ = cls
            return m
    return _dec_tool_result_message_general(cls, d)


_MESSAGE_DECODERS: dict[type, Callable[[Any, Mapping[str, Any]], Any]] = {
    SystemMessage: _dec_system,
    DeveloperMessage: _dec_developer,
    UserMessage: _dec_user,
    AssistantMessage: _dec_assistant,
    ToolCallMessage: _dec_tool_call_message,
    ToolResultMessage: _dec_tool_result_message,
}
_DECODERS: dict[type, Callable[[Any, Mapping[str, Any]], Any]] = dict(_MESSAGE_DECODERS)


def _decoder_for(cls: type) -> Callable[[Any, Mapping[str, Any]], Any]:
    base = builtin_base(cls)
    if base is None:
        raise ValidationError(f"{cls.__name__} is not a message class", "cls")
    dec = _MESSAGE_DECODERS[base]
    _DECODERS[cls] = dec
    return dec


_VALID_ROLES = "system, developer, user, assistant, tool"


def _role_entry(role: object, table: Mapping[str, Any]) -> Any:
    """The table entry of a role given other than as an exact lowercase string."""
    if role is None:
        _fail(f"role is required; one of {_VALID_ROLES}", "role")
    value = getattr(role, "value", role) if not isinstance(role, str) else role
    if not isinstance(value, str):
        _fail(f"role must be a string, got {json_type(role)}", "role")
    entry = table.get(value.strip().lower())
    if entry is None:
        _fail(f"unknown role (length {len(value)}); expected one of {_VALID_ROLES}", "role")
    return entry


def _matches(predicate: Any, cls: type, d: Mapping[str, Any]) -> bool:
    try:
        return bool(predicate(d))
    except DecodeError:
        raise
    except Exception as exc:  # a user predicate must not break the decoder's contract
        _fail(f"the predicate of {cls.__name__} failed ({type(exc).__name__})")


def _decode(d: Mapping[str, Any], registry: MessageRegistry, want: type | None = None) -> Any:
    # Hot path: role resolution inline (one dict lookup for single-class roles),
    # and the built-in ToolCallMessage predicate read inline when tool_calls is a
    # list or absent (it cannot fail then): ~0.1 us less per assistant message.
    role = d.get("role")
    entry = registry._table.get(role) if role.__class__ is str else None
    if entry is None:
        entry = _role_entry(role, registry._table)
    cls, tried = entry
    for c, predicate in tried:
        if predicate is has_tool_calls:
            tcs = d.get("tool_calls")
            if tcs.__class__ is list:
                hit = len(tcs) > 0 or d.get("function_call") is not None
            elif tcs is None:
                hit = d.get("function_call") is not None
            else:
                hit = _matches(predicate, c, d)
        else:
            hit = _matches(predicate, c, d)
        if hit:
            cls = c
            break
    if want is not None and want is not Message and not issubclass(cls, want):
        if issubclass(want, cls):
            cls = want  # a subclass asked for by name decodes as itself
        else:
            _fail(f"expected a {want.__name__}, but the dict decodes as a {cls.__name__}")
    dec = _DECODERS.get(cls)
    if dec is None:
        dec = _decoder_for(cls)
    return dec(cls, d)


def _decode_any(value: Any, registry: MessageRegistry, want: type | None) -> Any:
    if value.__class__ is dict:
        return _decode(value, registry, want)
    if isinstance(value, (list, tuple)):
        out: list[Any] = []
        append = out.append
        for item in value:
            # hot path: the exact dict check first (an ABC isinstance costs ~0.1 us)
            if item.__class__ is not dict and not isinstance(item, Mapping):
                _fail(f"expected a message object, got {json_type(item)}", f"[{len(out)}]")
            try:
                append(_decode(item, registry, want))
            except DecodeError as exc:
                raise exc.at(f"[{len(out)}]") from None
        return out
    if isinstance(value, Mapping):
        return _decode(value, registry, want)
    raise DecodeError(f"expected a message object or an array of them, got {json_type(value)}")


@overload
def from_dict(d: Mapping[str, Any], registry: MessageRegistry | None = None) -> Message: ...


@overload
def from_dict(
    d: Sequence[Mapping[str, Any]], registry: MessageRegistry | None = None
) -> list[Message]: ...


def from_dict(d: Any, registry: MessageRegistry | None = None) -> Message | list[Message]:
    """Decode a canonical message dict (a list of them gives a list); only DecodeError on bad input.

    The class comes from ``registry`` (default: ``default_registry``).
    """
    reg = default_registry if registry is None else registry
    # Hot path: a well-formed dict goes straight to its decoder, and a role with a
    # single class (all but assistant) skips the _decode frame (~70 ns); the guard
    # is a try block, free until something is raised.
    try:
        if d.__class__ is dict:
            role = d.get("role")
            if role.__class__ is str:
                entry = reg._table.get(role)
                if entry is not None:
                    tried = entry[1]
                    if not tried:
                        cls = entry[0]
                    elif len(tried) == 1 and tried[0][1] is has_tool_calls:
                        # the built-in assistant entry: _decode's inline predicate
                        tcs = d.get("tool_calls")
                        if tcs.__class__ is list and tcs:
                            cls = tried[0][0]
                        elif tcs is None and d.get("function_call") is None:
                            cls = entry[0]
                        else:
                            cls = None
                    else:
                        cls = None
                    if cls is not None:
                        dec = _DECODERS.get(cls)
                        if dec is not None:
                            return dec(cls, d)  # type: ignore[no-any-return]
            return _decode(d, reg)  # type: ignore[no-any-return]
        return _decode_any(d, reg, None)  # type: ignore[no-any-return]
    except DecodeError:
        raise
    except Exception as exc:
        raise _unexpected(exc) from None


def message_from_dict(cls: type[M], d: Any, registry: MessageRegistry | None = None) -> M:
    """Decode one message dict as ``cls`` (``Message.from_dict``); DecodeError when it is not one.

    ``Message.from_dict`` picks the class with the registry. On a subclass the
    dict must decode as that class; a subclass that is not registered decodes as
    itself when the registry picks one of its bases.
    """
    reg = default_registry if registry is None else registry
    try:
        if d.__class__ is not dict and not isinstance(d, Mapping):
            _fail(f"expected a message object, got {json_type(d)}")
        return _decode(d, reg, cls)  # type: ignore[no-any-return]
    except DecodeError:
        raise
    except Exception as exc:
        raise _unexpected(exc) from None


def from_json(
    s: str | bytes | bytearray, registry: MessageRegistry | None = None
) -> Message | list[Message]:
    """Decode JSON text of a message object (or an array of them: a list); only DecodeError."""
    if s.__class__ is str:
        value = _parse(s, "")
        if value is _BLANK:
            _fail("invalid JSON (empty text)")
    else:
        value = loads(s)
    result: Message | list[Message] = from_dict(value, registry)
    return result


# -- other values -------------------------------------------------------------------


def _dec_tool_result(d: Any) -> ToolResult:
    if not isinstance(d, Mapping):
        _fail(f"expected a tool result object, got {json_type(d)}")
    call_id, content, is_error, tool_name = _tool_result_fields(d)
    r: ToolResult = _new(ToolResult)
    _setattr(r, "tool_call_id", call_id)
    _setattr(r, "content", content)
    _setattr(r, "is_error", is_error)
    _setattr(r, "tool_name", tool_name)
    return r


_setattr = object.__setattr__


def tool_result_from_dict(d: Any) -> ToolResult:
    """Decode ``{"tool_call_id", "content", "is_error"?, "tool_name"?}``."""
    return _guarded(_dec_tool_result, d)  # type: ignore[no-any-return]


def _dec_delta(d: Any) -> ToolCallDelta:
    if not isinstance(d, Mapping):
        _fail(f"expected a tool call delta object, got {json_type(d)}")
    index = d.get("index")
    if index.__class__ is not int or index < 0:
        _fail("index must be an integer >= 0", "index")
    cid = _opt_str(d.get("id"), "id")
    t = d.get("type")
    if t is not None and t != "function":
        _fail("unsupported tool call type; expected 'function'", "type")
    fn = d.get("function")
    name = arguments = None
    if fn is not None:
        if not isinstance(fn, Mapping):
            _fail(f"expected an object, got {json_type(fn)}", "function")
        name = _opt_str(fn.get("name"), "function.name")
        arguments = _opt_str(fn.get("arguments"), "function.arguments")
    return _build(lambda: ToolCallDelta(index, cid, name, arguments), "")


def tool_call_delta_from_dict(d: Any) -> ToolCallDelta:
    """Decode an OpenAI streaming tool-call fragment ``{"index", "id"?, "function"?}``."""
    return _guarded(_dec_delta, d)  # type: ignore[no-any-return]
