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
and ``JSON.parse`` do; checking would slow every decode); lone surrogates
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

Invalid tool calls (a name that breaks the name rule, arguments text that is not a
JSON object) are entries of ``tool_calls`` holding the raw name and text and an
``error`` key; decoding such an entry gives an ``InvalidToolCall`` in the message's
``invalid_tool_calls``, never a DecodeError, so a stored malformed call always loads.

User subclasses: a registered dataclass subclass of a message class is encoded as
its base plus its own fields, each under its own name (extras keys that collide with
a field name are nested under ``extras``), and decoded by its base's decoder followed
by its own constructor, so its checks run.

Speed: encoders and decoders are hand-written per class and picked from
dispatch dicts keyed by exact type (user subclasses resolve once). Decoders
validate while reading and then build through ``_build``, so nothing is
validated twice and tool arguments are parsed once; the original arguments
string is kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast, overload

from ._build import trusted
from ._frozen import FrozenDict
from ._json import json_type, loads
from ._message import Message
from ._message_codec import ENCODERS as _MESSAGE_ENCODERS
from ._message_codec import (
    RESERVED_KEYS,
    decoder_for,
    encoder_for,
    tool_result_fields,
)
from ._message_codec import SHARED_ENCODERS as _SHARED_MESSAGE_ENCODERS
from ._part_codec import (
    _BLANK,
    _PART_ENCODERS,
    _enc_call,
    _enc_call_shared,
    _enc_invalid,
    _enc_invalid_shared,
    _enc_parts,
    _guarded,
    _opt_str,
    _parse,
    _unexpected,
    part_from_dict,
    part_to_dict,
    tool_call_from_dict,
    tool_call_to_dict,
)
from ._parts import ContentPart
from ._registry import MessageRegistry, default_registry
from ._streaming import ToolCallDelta
from ._tool_call import InvalidToolCall, ToolCall
from ._tool_result import ToolResult
from .errors import DecodeError, ValidationError, ident, undecodable

if TYPE_CHECKING:
    from .tools import ToolDefinition

__all__ = [
    "RESERVED_KEYS",
    "from_dict",
    "from_json",
    "messages_from_dict",
    "messages_from_json",
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

Encodable = Union[
    Message, ContentPart, ToolCall, InvalidToolCall, ToolResult, ToolCallDelta, "ToolDefinition"
]
"""Anything ``to_dict`` / ``to_json`` encode (also a list or tuple of these)."""

_fail = undecodable


# =============================================================================
# Encoding
# =============================================================================


def tool_result_to_dict(r: ToolResult) -> dict[str, Any]:
    """A ToolResult as ``{"tool_call_id", "content", "is_error"?, "tool_name"?}``."""
    c = r.content
    d: dict[str, Any] = {
        "tool_call_id": r.tool_call_id,
        "content": c if isinstance(c, str) else _enc_parts(c),
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


def _list_encoder(table: _Encoders, share: bool) -> Callable[[Sequence[Any]], list[Any]]:
    def encode(xs: Sequence[Any]) -> list[Any]:
        try:
            return [table[type(x)](x) for x in xs]  # type(): see to_dict
        except KeyError:
            pass  # some item is not of a known exact type: resolve it, with its index
        out = []
        for i, x in enumerate(xs):
            enc = table.get(type(x))
            if enc is None:
                try:
                    enc = _encoder_for(type(x), table, share)
                except ValidationError as exc:
                    raise exc.at(f"[{i}]") from None
            out.append(enc(x))
        return out

    encode.__name__ = encode.__qualname__ = "_enc_list"
    return encode


def _encoders(share: bool) -> _Encoders:
    """An encoder table, filled in with other types (user subclasses) as they are met."""
    table: _Encoders = {
        **(_SHARED_MESSAGE_ENCODERS if share else _MESSAGE_ENCODERS),
        **_PART_ENCODERS,
        ToolCall: _enc_call_shared if share else _enc_call,
        InvalidToolCall: _enc_invalid_shared if share else _enc_invalid,
        ToolResult: tool_result_to_dict,
        ToolCallDelta: tool_call_delta_to_dict,
    }
    table[list] = table[tuple] = _list_encoder(table, share)
    return table


_ENCODERS = _encoders(False)
"""to_dict: plain copies of metadata and extras."""
_SHARED_ENCODERS = _encoders(True)
"""to_json: the frozen values shared, for the JSON encoder to read."""


def _encoder_for(
    cls: type, table: _Encoders = _ENCODERS, share: bool = False
) -> Callable[[Any], Any]:
    """Resolve (once) the encoder of a type that is not a built-in one, e.g. a user subclass."""
    enc: Callable[[Any], Any] | None = None
    if issubclass(cls, Message):
        enc = encoder_for(cls, share)
    else:
        for base in cls.__mro__:
            enc = table.get(base)
            if enc is not None and base not in (list, tuple):
                break
            enc = None
    if enc is None:
        from .tools import ToolDefinition

        if issubclass(cls, ToolDefinition):
            enc = ToolDefinition.to_dict
        elif issubclass(cls, Sequence) and not issubclass(cls, (str, bytes, bytearray)):
            enc = table[list]
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
    enc = _ENCODERS.get(type(x)) or _encoder_for(type(x))
    encoded: dict[str, Any] | list[dict[str, Any]] = enc(x)
    return encoded


def message_to_dict(m: Message) -> dict[str, Any]:
    """The canonical dict of one message (``Message.to_dict``)."""
    enc = _ENCODERS.get(type(m)) or _encoder_for(type(m))
    encoded: dict[str, Any] = enc(m)
    return encoded


# -- JSON ---------------------------------------------------------------------------


def _make_dump() -> Callable[[Any], str]:
    # json.dumps builds a new C encoder on every call; this one is built once and
    # reused (see docs/performance.md). It falls back to the pure encoder when the C
    # accelerator is missing (e.g. PyPy) or behaves differently.
    encoder = json.JSONEncoder(separators=(",", ":"), allow_nan=False, check_circular=False)
    slow = encoder.encode
    try:
        from json import encoder as _je

        make = getattr(_je, "c_make_encoder", None)
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
    enc = _SHARED_ENCODERS.get(type(x)) or _encoder_for(type(x), _SHARED_ENCODERS, True)
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
        _fail(f"unknown role {ident(value)}; expected one of {_VALID_ROLES}", "role")
    return entry


def _matches(predicate: Any, cls: type, d: Mapping[str, Any]) -> bool:
    try:
        return bool(predicate(d))
    except DecodeError:
        raise
    except Exception as exc:  # a user predicate must not break the decoder's contract
        _fail(f"the predicate of {cls.__name__} failed ({type(exc).__name__})")


def _decode(d: Mapping[str, Any], registry: MessageRegistry, want: type | None = None) -> Message:
    """One message dict: its class from the registry (role, then predicates), then its decoder."""
    role = d.get("role")
    entry = registry._table.get(role) if type(role) is str else None
    if entry is None:
        entry = _role_entry(role, registry._table)
    cls, tried = entry
    for c, predicate in tried:
        if _matches(predicate, c, d):
            cls = c
            break
    if want is not None and want is not Message and not issubclass(cls, want):
        if issubclass(want, cls):
            cls = want  # a subclass asked for by name decodes as itself
        else:
            _fail(f"expected a {want.__name__}, but the dict decodes as a {cls.__name__}")
    message: Message = decoder_for(cls)(cls, d)
    return message


def _decode_any(
    value: Any, registry: MessageRegistry, want: type | None
) -> Message | list[Message]:
    if type(value) is dict or isinstance(value, Mapping):
        return _decode(value, registry, want)
    if isinstance(value, (list, tuple)):
        return _decode_list(value, registry, want)
    raise DecodeError(f"expected a message object or an array of them, got {json_type(value)}")


def _decode_list(
    value: Sequence[Any], registry: MessageRegistry, want: type | None
) -> list[Message]:
    out: list[Message] = []
    for i, item in enumerate(value):
        if type(item) is not dict and not isinstance(item, Mapping):
            _fail(f"expected a message object, got {json_type(item)}", f"[{i}]")
        try:
            out.append(_decode(item, registry, want))
        except DecodeError as exc:
            raise exc.at(f"[{i}]") from None
    return out


@overload
def from_dict(d: Mapping[str, Any], registry: MessageRegistry | None = None) -> Message: ...


@overload
def from_dict(
    d: Sequence[Mapping[str, Any]], registry: MessageRegistry | None = None
) -> list[Message]: ...


def from_dict(d: Any, registry: MessageRegistry | None = None) -> Message | list[Message]:
    """Decode a canonical message dict (a list of them gives a list); only DecodeError on bad input.

    The class comes from ``registry`` (default: ``default_registry``). For a list,
    ``messages_from_dict`` says so in its type.
    """
    reg = default_registry if registry is None else registry
    try:
        return _decode_any(d, reg, None)
    except DecodeError:
        raise
    except Exception as exc:
        raise _unexpected(exc) from None


def messages_from_dict(
    d: Sequence[Mapping[str, Any]], registry: MessageRegistry | None = None
) -> list[Message]:
    """Decode a list of canonical message dicts; DecodeError for anything else."""
    reg = default_registry if registry is None else registry
    try:
        if not isinstance(d, (list, tuple)):
            _fail(f"expected an array of message objects, got {json_type(d)}")
        return _decode_list(d, reg, None)
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
        if type(d) is not dict and not isinstance(d, Mapping):
            _fail(f"expected a message object, got {json_type(d)}")
        return cast("M", _decode(d, reg, cls))  # _decode checked that it is a cls
    except DecodeError:
        raise
    except Exception as exc:
        raise _unexpected(exc) from None


def _json_value(s: str | bytes | bytearray) -> Any:
    if s.__class__ is str:
        value = _parse(s, "")
        if value is _BLANK:
            _fail("invalid JSON (empty text)")
        return value
    return loads(s)


def from_json(
    s: str | bytes | bytearray, registry: MessageRegistry | None = None
) -> Message | list[Message]:
    """Decode JSON text of a message object (or an array of them: a list); only DecodeError.

    For text that holds an array, ``messages_from_json`` says so in its type.
    """
    result: Message | list[Message] = from_dict(_json_value(s), registry)
    return result


def messages_from_json(
    s: str | bytes | bytearray, registry: MessageRegistry | None = None
) -> list[Message]:
    """Decode JSON text of an array of message objects; DecodeError for anything else."""
    return messages_from_dict(_json_value(s), registry)


# -- other values -------------------------------------------------------------------


def _dec_tool_result(d: Any) -> ToolResult:
    if type(d) is not dict and not isinstance(d, Mapping):
        _fail(f"expected a tool result object, got {json_type(d)}")
    call_id, content, is_error, tool_name = tool_result_fields(d)
    return trusted(ToolResult, call_id, content, is_error, tool_name)


def tool_result_from_dict(d: Any) -> ToolResult:
    """Decode ``{"tool_call_id", "content", "is_error"?, "tool_name"?}``."""
    return _guarded(_dec_tool_result, d)


def _dec_delta(d: Any) -> ToolCallDelta:
    if type(d) is not dict and not isinstance(d, Mapping):
        _fail(f"expected a tool call delta object, got {json_type(d)}")
    index = d.get("index")
    if index.__class__ is not int or index < 0:
        _fail("index must be an integer >= 0", "index")
    cid = _opt_str(d.get("id"), "id")
    t = d.get("type")
    if t is not None and t != "function":
        _fail(f"unsupported tool call type {ident(t)}; expected 'function'", "type")
    fn = d.get("function")
    name = arguments = None
    if fn is not None:
        if type(fn) is not dict and not isinstance(fn, Mapping):
            _fail(f"expected an object, got {json_type(fn)}", "function")
        name = _opt_str(fn.get("name"), "function.name")
        arguments = _opt_str(fn.get("arguments"), "function.arguments")
    return trusted(ToolCallDelta, index, cid, name, arguments)


def tool_call_delta_from_dict(d: Any) -> ToolCallDelta:
    """Decode an OpenAI streaming tool-call fragment ``{"index", "id"?, "function"?}``."""
    return _guarded(_dec_delta, d)
