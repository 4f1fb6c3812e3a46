"""The agents-api message envelope: a versioned, typed JSON shape for agent runtimes.

An envelope is what agent runtimes, chat storage and transcripts keep::

    {"schema": "agents-api.message", "version": 1, "type": "tool_call",
     "role": "assistant", "content": "...", "payload": {...}, "metadata": {...},
     "id": "...", "created_at": "...", "updated_at": "..."}   # last three optional

``payload`` holds the type-specific fields the runtime understands (tool names,
parameters, turn numbers, result data); ``metadata`` holds extension and provider
details that are preserved but are not part of the type contract. Both must stay
JSON-serialisable and are stored deeply frozen. ``content`` is a string, a list of
content blocks (JSON objects, in the OpenAI part shape when they come from a
message) or null.

Reading rows (``Envelope.normalize``)
    * A row is a *versioned envelope* when it has any of ``schema``, ``version``,
      ``type``, ``payload`` or ``data``; otherwise it is a *legacy row*
      ``{role, content, metadata}``.
    * Versioned: ``schema`` must be ``"agents-api.message"``; ``version`` defaults
      to 1, and a newer version is refused with a DecodeError naming it. The draft
      key ``data`` is read as ``payload`` (when there is no ``payload``). A missing
      ``type`` falls back to ``metadata.type``, then to ``text``.
    * Legacy: when ``metadata.type`` names a type, every other metadata key is
      type data and is copied into ``payload`` (the legacy shape had nowhere else
      to put it); metadata itself is kept unchanged, as seed 002's example shows.
      Without ``metadata.type`` the type is ``text`` and the payload empty.
    * Keys the shape does not know are kept, not dropped: they are moved into
      ``metadata["unknown_fields"]`` (:data:`UNKNOWN_FIELDS_KEY`), merged into an
      object already there.
    * ``content`` absent reads as ``""``; an integer ``id`` (a database key) is
      read as its decimal string. Timestamps that come in as strings are kept
      exactly as given.
    * Any input gives an Envelope or a DecodeError with a path; never content.

Timestamps
    Kept as given when they come in. When this module makes one (from a
    ``datetime``, e.g. a message's ``created_at``) it writes
    ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (:data:`TIMESTAMP_FORMAT`): UTC, fixed width,
    so stored envelopes sort by time as strings. When a timestamp is read back
    into a ``datetime`` (``to_message``), ISO 8601 with ``T`` or a space is
    accepted, ``Z`` means UTC and a timestamp without an offset is taken as UTC
    (the seed's own example, ``2026-04-28 12:00:00``, has none).

Messages (``Envelope.from_message`` / ``env.to_message``)
    ================  =================================  ============================
    envelope type     message                            payload keys
    ================  =================================  ============================
    text              System/Developer/User/Assistant    --
    multimodal_part   User/Assistant with image, audio   --
                      or file parts
    final_result      the role's message class           --
    error             role tool: ToolResultMessage       ``tool_call_id``,
                      (``is_error`` true); else the      ``tool_name``, ``is_error``
                      role's message class
    tool_call         ToolCallMessage                    one call: ``tool_call_id``,
                                                         ``tool_name``,
                                                         ``parameters``, ``extras``;
                                                         several: ``tool_calls``, a
                                                         list of such objects
    tool_result       ToolResultMessage (any role: some  ``tool_call_id``,
                      runtimes store results as user)    ``tool_name``, ``is_error``
    input_required,   none: ``to_message`` raises
    approval_required,  ValidationError (runtime
    delta               control / stream fragments)
    ================  =================================  ============================

    Any type except tool_call with role ``tool`` is a ToolResultMessage (payload as
    for tool_result). Every type also uses ``payload.name`` (the message ``name``) and
    ``payload.message_extras`` (the message ``extras``); message ``metadata`` is
    envelope ``metadata``; ``id`` is kept; ``created_at`` is formatted as above.
    ``from_message`` infers ``tool_call`` / ``tool_result`` / ``multimodal_part``
    (a content part that is not text or reasoning) / ``text``; pass ``type=`` to
    record a ``final_result`` or ``error`` instead. Content parts become blocks in
    the codec's part shape (OpenAI's ``text``, ``image_url``, ``input_audio``,
    ``file``, plus ``{"type": "reasoning", ...}``); system and developer text
    blocks are joined into one string.

    A tool call without ``tool_call_id`` (legacy rows have none) gets a stable id
    derived from the envelope id, its position, name and parameters. What a
    message has no field for (payload keys not listed above, a type or role other
    than the one the message implies, ``updated_at``, a ``created_at`` string not
    in the canonical format) is kept in the message's ``extras["envelope"]``
    (:data:`MESSAGE_EXTRAS_KEY`; extras are never sent to a provider), and
    ``from_message`` restores it, so envelope -> message -> envelope keeps them.
    Message -> envelope -> message gives back an equal message of the same class
    with the same id.

Provider projection (``to_provider_message`` / ``to_provider_messages``)
    ``{"role", "content", "metadata"}`` where metadata is the envelope metadata,
    then the payload keys, then ``type``: the legacy row shape, so a legacy typed
    row projects back to itself.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, Final

from ._build import tool_call, trusted
from ._codec import part_from_dict, part_to_dict
from ._frozen import EMPTY, FrozenDict, freeze, freeze_mapping, thaw
from ._json import dumps_compact, json_type, loads, loads_object
from ._message import (
    ASSISTANT_PARTS,
    TOOL_PARTS,
    USER_PARTS,
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ._part_codec import _unexpected
from ._parts import AudioPart, ContentPart, FilePart, ImagePart, TextPart
from ._role import MessageRole
from ._timestamps import iso_utc
from ._tool_call import ToolCall, check_tool_name
from .errors import DecodeError, ValidationError

__all__ = [
    "Envelope",
    "EnvelopeType",
    "MESSAGE_EXTRAS_KEY",
    "SCHEMA",
    "TIMESTAMP_FORMAT",
    "UNKNOWN_FIELDS_KEY",
    "VERSION",
    "format_timestamp",
    "to_provider_messages",
]

SCHEMA: Final = "agents-api.message"
"""The ``schema`` value of every envelope."""

VERSION: Final = 1
"""The envelope version this library writes and the newest it reads."""

TIMESTAMP_FORMAT: Final = "%Y-%m-%dT%H:%M:%S.%fZ"
"""The format of timestamps this module generates (UTC, fixed width)."""

UNKNOWN_FIELDS_KEY: Final = "unknown_fields"
"""The metadata key under which ``normalize`` keeps row keys the shape does not know."""

MESSAGE_EXTRAS_KEY: Final = "envelope"
"""The message extras key under which ``to_message`` keeps what a message has no field for."""

#: An envelope's content: a string, frozen content blocks, or None.
Blocks = str | tuple[Mapping[str, Any], ...] | None


class EnvelopeType(enum.Enum):
    """What an envelope carries. ``.value`` is the wire string."""

    TEXT = "text"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    INPUT_REQUIRED = "input_required"
    APPROVAL_REQUIRED = "approval_required"
    FINAL_RESULT = "final_result"
    ERROR = "error"
    DELTA = "delta"
    MULTIMODAL_PART = "multimodal_part"

    @classmethod
    def parse(cls, value: EnvelopeType | str, path: str = "type") -> EnvelopeType:
        """Parse a member or a type name (case-insensitive, whitespace ignored)."""
        if isinstance(value, EnvelopeType):
            return value
        if isinstance(value, str):
            found = _TYPES.get(value) or _TYPES.get(value.strip().lower())
            if found is not None:
                return found
            raise ValidationError(
                f"unknown envelope type (length {len(value)}); valid types: {_VALID_TYPES}", path
            )
        raise ValidationError(
            f"envelope type must be a string, got {json_type(value)}; valid types: {_VALID_TYPES}",
            path,
        )

    def __str__(self) -> str:
        return self.value


_TYPES = {t.value: t for t in EnvelopeType}
_VALID_TYPES = ", ".join(_TYPES)

_T = EnvelopeType
_R = MessageRole


# -- field checks (shared by the constructor and normalize) ------------------------


def _check_content(content: object) -> str | tuple[FrozenDict, ...] | None:
    if content is None:
        return None
    if isinstance(content, str):
        return str(content)
    if isinstance(content, (list, tuple)):
        blocks = []
        for i, block in enumerate(content):
            if not isinstance(block, Mapping):
                raise ValidationError(
                    f"expected a content block object, got {json_type(block)}", f"content[{i}]"
                )
            blocks.append(freeze_mapping(block, f"content[{i}]"))
        return tuple(blocks)
    raise ValidationError(
        f"expected a string, a list of content blocks or null, got {json_type(content)}",
        "content",
    )


def format_timestamp(value: datetime) -> str:
    """Format an aware datetime as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (UTC), as the codec does."""
    return iso_utc(value)


def _check_timestamp(value: object, path: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return str(value)
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValidationError("datetime must be timezone-aware", path)
        try:
            return format_timestamp(value)
        except OverflowError:
            raise ValidationError("datetime is out of range in UTC", path) from None
    raise ValidationError(
        f"expected a string, an aware datetime or null, got {json_type(value)}", path
    )


def _parse_timestamp(value: str, path: str) -> datetime:
    text = value[:-1] + "+00:00" if value[-1:] in ("Z", "z") else value
    try:
        parsed = datetime.fromisoformat(text)
        if parsed.tzinfo is None:
            return parsed.replace(tzinfo=UTC)
        return parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        raise ValidationError(f"not an ISO 8601 timestamp (length {len(value)})", path) from None


def _check_id(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        if value:
            return str(value)
        raise ValidationError("must be a non-empty string or null", "id")
    raise ValidationError(f"expected a string or null, got {json_type(value)}", "id")


def _blocks_json(content: Blocks) -> str | list[Any] | None:
    """An envelope's content as plain JSON values."""
    if content is None or isinstance(content, str):
        return content
    return [thaw(block) for block in content]


@dataclass(frozen=True, slots=True, repr=False)
class Envelope:
    """One agent message in the versioned agents-api envelope shape.

    ``schema`` and ``version`` are class-level constants. ``payload`` and
    ``metadata`` are deeply frozen JSON objects; ``content`` is a string, a tuple of
    frozen content blocks, or None. Timestamps given as strings are kept exactly;
    aware datetimes are formatted as :data:`TIMESTAMP_FORMAT`.
    """

    schema: ClassVar[str] = SCHEMA
    version: ClassVar[int] = VERSION

    type: EnvelopeType
    role: MessageRole
    content: Blocks = field(default="", repr=False)
    payload: Mapping[str, Any] = field(default=EMPTY, repr=False)
    metadata: Mapping[str, Any] = field(default=EMPTY, repr=False)
    id: str | None = field(default=None, kw_only=True)
    created_at: str | None = field(default=None, kw_only=True)
    updated_at: str | None = field(default=None, kw_only=True)

    if TYPE_CHECKING:

        def __init__(
            self,
            type: EnvelopeType | str,
            role: MessageRole | str,
            content: str | Iterable[Mapping[str, Any]] | None = "",
            payload: Mapping[str, Any] | None = None,
            metadata: Mapping[str, Any] | None = None,
            *,
            id: str | None = None,
            created_at: str | datetime | None = None,
            updated_at: str | datetime | None = None,
        ) -> None: ...

    def __post_init__(self) -> None:
        store = object.__setattr__
        store(self, "type", EnvelopeType.parse(self.type))
        store(self, "role", MessageRole.parse(self.role))
        store(self, "content", _check_content(self.content))
        store(self, "payload", freeze_mapping(self.payload, "payload"))
        store(self, "metadata", freeze_mapping(self.metadata, "metadata"))
        store(self, "id", _check_id(self.id))
        store(self, "created_at", _check_timestamp(self.created_at, "created_at"))
        store(self, "updated_at", _check_timestamp(self.updated_at, "updated_at"))

    def __repr__(self) -> str:
        c = self.content
        if c is None:
            size = "content=None"
        elif isinstance(c, str):
            size = f"content_len={len(c)}"
        else:
            size = f"blocks={len(c)}"
        return (
            f"Envelope(type={self.type.value}, role={self.role.value}, id={self.id!r}, {size}, "
            f"payload_keys={len(self.payload)}, metadata_keys={len(self.metadata)})"
        )

    # -- dict shapes ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The canonical envelope as plain JSON-ready dicts and lists."""
        d: dict[str, Any] = {
            "schema": SCHEMA,
            "version": VERSION,
            "type": self.type.value,
            "role": self.role.value,
            "content": _blocks_json(self.content),
            "payload": thaw(self.payload),
            "metadata": thaw(self.metadata),
        }
        if self.id is not None:
            d["id"] = self.id
        if self.created_at is not None:
            d["created_at"] = self.created_at
        if self.updated_at is not None:
            d["updated_at"] = self.updated_at
        return d

    def to_json(self) -> str:
        """The canonical envelope as compact JSON text."""
        return dumps_compact(self.to_dict())

    @classmethod
    def from_json(cls, text: str | bytes | bytearray) -> Envelope:
        """Parse JSON text and normalise it (see ``normalize``); only DecodeError on bad input."""
        return cls.normalize(loads(text))

    def to_provider_message(self) -> dict[str, Any]:
        """``{role, content, metadata}`` with the type and payload folded into metadata."""
        meta = dict(self.metadata)
        meta.update(self.payload)
        meta["type"] = self.type.value
        return {
            "role": self.role.value,
            "content": _blocks_json(self.content),
            "metadata": thaw(meta),
        }

    @classmethod
    def normalize(cls, row: Envelope | Mapping[str, Any]) -> Envelope:
        """Read a legacy ``{role, content, metadata}`` row or a versioned envelope.

        Raises DecodeError (with ``path``) for anything it cannot read, and nothing
        else. An Envelope is returned unchanged.
        """
        try:
            if isinstance(row, Envelope):
                return row
            if not isinstance(row, Mapping):
                raise DecodeError(f"expected an envelope object, got {json_type(row)}", "")
            return _normalize(cls, row)
        except DecodeError:
            raise
        except RecursionError:
            raise DecodeError("nested too deeply", "") from None
        except Exception as exc:  # ValidationError keeps its path; a misbehaving Mapping's
            raise _unexpected(exc) from None  # own exception becomes "malformed input"

    # -- messages ---------------------------------------------------------------------

    @classmethod
    def from_message(cls, message: Message, *, type: EnvelopeType | str | None = None) -> Envelope:
        """The envelope of a message; ``type`` overrides the inferred type (e.g. final_result)."""
        return _from_message(cls, message, type)

    def to_message(self) -> Message:
        """The message this envelope describes; ValidationError when the type has none."""
        return _to_message(self)


# -- normalize ---------------------------------------------------------------------

_ENVELOPE_MARKERS = ("schema", "version", "type", "payload", "data")
_ENVELOPE_KEYS = frozenset(
    ("schema", "version", "type", "role", "content", "payload", "metadata")
) | {"id", "created_at", "updated_at"}
_DRAFT_KEYS = _ENVELOPE_KEYS | {"data"}
_LEGACY_KEYS = frozenset(("role", "content", "metadata", "id", "created_at", "updated_at"))


def _normalize(cls: type[Envelope], row: Mapping[str, Any]) -> Envelope:
    metadata = _object_or_null(row.get("metadata"), "metadata")
    if any(k in row for k in _ENVELOPE_MARKERS):
        etype, payload, known = _versioned_type_and_payload(row, metadata)
    else:
        etype, payload, known = _legacy_type_and_payload(metadata)
    unknown = [k for k in row if k not in known]
    if unknown:
        metadata = _keep_unknown(metadata, {k: row[k] for k in unknown})
    if "role" not in row:
        raise DecodeError("role is required", "role")
    return trusted(
        cls,
        etype,
        MessageRole.parse(row["role"]),
        _check_content(row.get("content", "")),
        payload,
        metadata,
        _check_id(_row_id(row.get("id"))),
        _check_timestamp(row.get("created_at"), "created_at"),
        _check_timestamp(row.get("updated_at"), "updated_at"),
    )


def _versioned_type_and_payload(
    row: Mapping[str, Any], metadata: FrozenDict
) -> tuple[EnvelopeType, FrozenDict, frozenset[str]]:
    """The type, the payload and the keys the shape knows, of a versioned envelope."""
    _check_schema_and_version(row)
    raw_type = row.get("type")
    meta_type = metadata.get("type")
    if raw_type is not None:
        etype = EnvelopeType.parse(raw_type, "type")
    elif meta_type is not None:
        etype = EnvelopeType.parse(meta_type, "metadata.type")
    else:
        etype = _T.TEXT
    if "payload" in row:
        return etype, _object_or_null(row["payload"], "payload"), _ENVELOPE_KEYS
    return etype, _object_or_null(row.get("data"), "data"), _DRAFT_KEYS


def _legacy_type_and_payload(
    metadata: FrozenDict,
) -> tuple[EnvelopeType, FrozenDict, frozenset[str]]:
    """The same for a legacy row: a typed one's other metadata keys are its type data."""
    meta_type = metadata.get("type")
    if meta_type is None:
        return _T.TEXT, EMPTY, _LEGACY_KEYS
    etype = EnvelopeType.parse(meta_type, "metadata.type")
    return etype, FrozenDict({k: v for k, v in metadata.items() if k != "type"}), _LEGACY_KEYS


def _row_id(value: object) -> object:
    """A row's id; an integer (a database key, never a bool) is read as its decimal string."""
    if type(value) is int:
        try:
            return str(value)
        except ValueError:  # over the interpreter's integer digit limit
            raise DecodeError("integer id is too large", "id") from None
    return value


def _check_schema_and_version(row: Mapping[str, Any]) -> None:
    if "schema" in row:
        schema = row["schema"]
        if type(schema) is not str:
            raise DecodeError(f"expected a string, got {json_type(schema)}", "schema")
        if schema != SCHEMA:
            raise DecodeError(
                f"unknown schema (length {len(schema)}); expected {SCHEMA!r}", "schema"
            )
    if "version" in row:
        version = row["version"]
        if type(version) is not int:  # a bool is not a version
            raise DecodeError(f"expected an integer, got {json_type(version)}", "version")
        if version > VERSION:
            raise DecodeError(
                f"envelope version {_describe(version)} is newer than this library reads "
                f"(version {VERSION})",
                "version",
            )
        if version < 1:
            raise DecodeError(
                f"envelope version {_describe(version)} is invalid (versions start at 1)", "version"
            )


def _describe(n: int) -> str:
    return str(n) if -(10**18) < n < 10**18 else f"of {n.bit_length()} bits"


def _object_or_null(value: object, path: str) -> FrozenDict:
    if value is None:
        return EMPTY
    if not isinstance(value, Mapping):
        raise DecodeError(f"expected an object or null, got {json_type(value)}", path)
    return freeze_mapping(value, path)


def _keep_unknown(metadata: FrozenDict, unknown: dict[Any, Any]) -> FrozenDict:
    path = f"metadata.{UNKNOWN_FIELDS_KEY}"
    frozen: FrozenDict = freeze(unknown, "")
    existing = metadata.get(UNKNOWN_FIELDS_KEY)
    if existing is not None:
        if not isinstance(existing, Mapping):
            raise DecodeError(
                f"holds a {json_type(existing)}; it must be an object to keep unknown keys", path
            )
        frozen = FrozenDict({**existing, **frozen})
    return FrozenDict({**metadata, UNKNOWN_FIELDS_KEY: frozen})


# -- content parts <-> content blocks -----------------------------------------------
# Blocks are the codec's part dicts, so an envelope and a stored message spell a part
# the same way.


def _blocks_of(
    content: str | tuple[ContentPart, ...] | None,
) -> str | tuple[FrozenDict, ...] | None:
    if content is None or isinstance(content, str):
        return content
    return tuple([freeze(part_to_dict(p), "content") for p in content])


def _parts_of(blocks: tuple[Mapping[str, Any], ...]) -> tuple[ContentPart, ...]:
    parts: list[ContentPart] = []
    try:
        for block in blocks:
            parts.append(part_from_dict(block))  # noqa: PERF401 (len(parts) names the failing block)
    except DecodeError as exc:
        err = exc.at(f"content[{len(parts)}]")  # the block that failed
        raise ValidationError(err.message, err.path) from None
    return tuple(parts)


def _opt(d: Mapping[str, Any], key: str, path: str) -> str | None:
    value = d.get(key)
    if value is not None and not isinstance(value, str):
        raise ValidationError(f"expected a string, got {json_type(value)}", f"{path}.{key}")
    return value


_MEDIA_PARTS = (ImagePart, AudioPart, FilePart)


def _has_media(content: str | tuple[ContentPart, ...] | None) -> bool:
    """Whether a message's content holds an image, audio or file part."""
    return isinstance(content, tuple) and any(isinstance(p, _MEDIA_PARTS) for p in content)


# -- message -> envelope -------------------------------------------------------------

_CONTENT_TYPES = frozenset((_T.TEXT, _T.MULTIMODAL_PART, _T.FINAL_RESULT, _T.ERROR))
# What each message class may be recorded as: the types whose to_message builds it back.
_ALLOWED_TYPES: dict[type, frozenset[EnvelopeType]] = {
    ToolCallMessage: frozenset((_T.TOOL_CALL,)),
    ToolResultMessage: _CONTENT_TYPES | {_T.TOOL_RESULT},
}


def _inferred_type(message: Message) -> EnvelopeType:
    if isinstance(message, ToolCallMessage):
        return _T.TOOL_CALL
    if isinstance(message, ToolResultMessage):
        return _T.TOOL_RESULT
    if _has_media(message.content):
        return _T.MULTIMODAL_PART
    return _T.TEXT


def _allowed_types(message: Message) -> frozenset[EnvelopeType]:
    for cls, allowed in _ALLOWED_TYPES.items():
        if isinstance(message, cls):
            return allowed
    return _CONTENT_TYPES


def _from_message(cls: type[Envelope], m: Message, override: EnvelopeType | str | None) -> Envelope:
    if not isinstance(m, Message):
        raise ValidationError(f"expected a Message, got {type(m).__name__}", "message")
    record, extras = _saved_record(m)
    etype = _recorded_type(m, override, record)
    role = m.role
    if record.get("role") is not None and isinstance(m, ToolResultMessage):
        role = MessageRole.parse(record["role"])  # a tool result stored under another role
    payload = _payload_of(m, extras, record)
    created_at, updated_at = _timestamps_of(m, record)
    return trusted(
        cls,
        etype,
        role,
        _blocks_of(m.content),
        freeze(payload, "payload"),
        m.metadata,
        m.id,
        created_at,
        updated_at,
    )


def _saved_record(m: Message) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """What ``to_message`` kept in the message's extras, and the extras without it."""
    extras = m.extras
    saved = extras.get(MESSAGE_EXTRAS_KEY)
    if not isinstance(saved, Mapping):
        return EMPTY, extras
    return saved, FrozenDict({k: v for k, v in extras.items() if k != MESSAGE_EXTRAS_KEY})


def _recorded_type(
    m: Message, override: EnvelopeType | str | None, record: Mapping[str, Any]
) -> EnvelopeType:
    """The envelope type: given, else the one kept in the record, else inferred."""
    if override is not None:
        etype = EnvelopeType.parse(override, "type")
    elif record.get("type") is not None:
        etype = EnvelopeType.parse(record["type"], f"extras.{MESSAGE_EXTRAS_KEY}.type")
    else:
        etype = _inferred_type(m)
    if etype not in _allowed_types(m):
        raise ValidationError(
            f"a {type(m).__name__} cannot be recorded as a {etype.value} envelope", "type"
        )
    return etype


def _payload_of(m: Message, extras: Mapping[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    payload = _kind_payload(m)
    if m.name is not None:
        payload["name"] = m.name
    if extras:
        payload["message_extras"] = extras
    kept = record.get("payload")
    if isinstance(kept, Mapping):
        for k, v in kept.items():
            payload.setdefault(k, v)
    return payload


def _kind_payload(m: Message) -> dict[str, Any]:
    """The payload keys of a tool call or a tool result message (none for the others)."""
    if isinstance(m, ToolCallMessage):
        calls = m.tool_calls
        if len(calls) == 1:
            return _call_payload(calls[0])
        return {"tool_calls": tuple([FrozenDict(_call_payload(c)) for c in calls])}
    if isinstance(m, ToolResultMessage):
        payload: dict[str, Any] = {"tool_call_id": m.tool_call_id}
        if m.tool_name is not None:
            payload["tool_name"] = m.tool_name
        payload["is_error"] = m.is_error
        return payload
    return {}


def _call_payload(call: ToolCall) -> dict[str, Any]:
    d: dict[str, Any] = {
        "tool_call_id": call.id,
        "tool_name": call.name,
        "parameters": call.arguments,
    }
    if call.extras:
        d["extras"] = call.extras
    return d


def _timestamps_of(m: Message, record: Mapping[str, Any]) -> tuple[str, str | None]:
    """``created_at`` (the kept text when it still names the message's time) and ``updated_at``."""
    created_at = record.get("created_at")
    if not isinstance(created_at, str) or not _parses_to(created_at, m.created_at):
        created_at = format_timestamp(m.created_at)
    updated_at = record.get("updated_at")
    return created_at, updated_at if isinstance(updated_at, str) else None


def _parses_to(text: str, when: datetime) -> bool:
    try:
        return _parse_timestamp(text, "created_at") == when
    except ValidationError:
        return False


# -- envelope -> message -------------------------------------------------------------

_NO_MESSAGE = {
    _T.INPUT_REQUIRED: (
        "an input_required envelope is a runtime control message (the agent waits for "
        "user input); it has no conversation-message counterpart"
    ),
    _T.APPROVAL_REQUIRED: (
        "an approval_required envelope is a runtime control message (the agent waits "
        "for approval of an action); it has no conversation-message counterpart"
    ),
    _T.DELTA: (
        "a delta envelope is a fragment of a streamed message, not a whole message; "
        "accumulate the stream first"
    ),
}

_COMMON_KEYS = frozenset(("name", "message_extras"))
_CALL_KEYS = _COMMON_KEYS | {"tool_call_id", "tool_name", "parameters", "extras"}
_CALLS_KEYS = _COMMON_KEYS | {"tool_calls"}
_RESULT_KEYS = _COMMON_KEYS | {"tool_call_id", "tool_name", "is_error"}

_TEXT_AND_MEDIA = "text, image, audio and file"


def _to_message(env: Envelope) -> Message:
    why = _NO_MESSAGE.get(env.type)
    if why is not None:
        raise ValidationError(why, "type")
    fields = _CommonFields(env)
    if env.type is _T.TOOL_CALL:
        return _tool_call_message(env, fields)
    if env.type is _T.TOOL_RESULT or env.role is _R.TOOL:
        return _tool_result_message(env, fields)
    return _text_message(env, fields)


class _CommonFields:
    """The fields every message built from one envelope has; read and checked first.

    What the message has no field for (another type or role than it implies, payload
    keys it does not read, timestamps it cannot spell) goes in its extras, under
    :data:`MESSAGE_EXTRAS_KEY`.
    """

    __slots__ = ("created_at", "env", "extras", "name")

    def __init__(self, env: Envelope) -> None:
        p = env.payload
        self.env = env
        self.name = _opt(p, "name", "payload")
        extras = p.get("message_extras")
        if extras is not None and not isinstance(extras, Mapping):
            raise ValidationError(
                f"expected an object, got {json_type(extras)}", "payload.message_extras"
            )
        self.extras: Mapping[str, Any] | None = extras
        created_at = env.created_at
        self.created_at = None if created_at is None else _parse_timestamp(created_at, "created_at")

    def keywords(self, inferred: EnvelopeType, consumed: frozenset[str]) -> dict[str, Any]:
        """The common keyword arguments of a message of type ``inferred``."""
        env = self.env
        extras = self.extras
        record = self._record(inferred, consumed)
        if record:
            extras = FrozenDict({**(extras or EMPTY), MESSAGE_EXTRAS_KEY: FrozenDict(record)})
        return {
            "name": self.name,
            "metadata": env.metadata,
            "extras": extras,
            "id": env.id,
            "created_at": self.created_at,
        }

    def _record(self, inferred: EnvelopeType, consumed: frozenset[str]) -> dict[str, Any]:
        env = self.env
        record: dict[str, Any] = {}
        if env.type is not inferred:
            record["type"] = env.type.value
        leftover = {k: v for k, v in env.payload.items() if k not in consumed}
        if leftover:
            record["payload"] = FrozenDict(leftover)
        if inferred is _T.TOOL_RESULT and env.role is not _R.TOOL:
            record["role"] = env.role.value
        created_at = self.created_at
        if created_at is not None and format_timestamp(created_at) != env.created_at:
            record["created_at"] = env.created_at
        if env.updated_at is not None:
            record["updated_at"] = env.updated_at
        return record


def _tool_call_message(env: Envelope, fields: _CommonFields) -> ToolCallMessage:
    if env.role is not _R.ASSISTANT:
        raise ValidationError(
            f"a tool_call envelope must have role assistant, not {env.role.value}", "role"
        )
    content = None
    if env.content is not None:
        content = _parts_content(env.content, ASSISTANT_PARTS, "text and reasoning")
    calls = _calls_of(env)
    consumed = _CALLS_KEYS if "tool_calls" in env.payload else _CALL_KEYS
    return ToolCallMessage(calls, content, **fields.keywords(_T.TOOL_CALL, consumed))


def _tool_result_message(env: Envelope, fields: _CommonFields) -> ToolResultMessage:
    content = _parts_content(_needed(env.content, "a tool result"), TOOL_PARTS, _TEXT_AND_MEDIA)
    keywords = fields.keywords(_T.TOOL_RESULT, _RESULT_KEYS)
    p = env.payload
    call_id = p.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise ValidationError(
            "a non-empty string is required to build a ToolResultMessage", "payload.tool_call_id"
        )
    tool_name = _opt(p, "tool_name", "payload")
    if tool_name is not None and not tool_name:
        raise ValidationError("must be a non-empty string or absent", "payload.tool_name")
    is_error = p.get("is_error", env.type is _T.ERROR)
    if is_error is not True and is_error is not False:
        raise ValidationError(f"expected a boolean, got {json_type(is_error)}", "payload.is_error")
    return ToolResultMessage(call_id, content, is_error, tool_name, **keywords)


def _text_message(env: Envelope, fields: _CommonFields) -> Message:
    role = env.role
    if role is _R.SYSTEM or role is _R.DEVELOPER:
        text = _instruction_text(_needed(env.content, f"a {role.value} message"))
        keywords = fields.keywords(_T.TEXT, _COMMON_KEYS)
        if role is _R.SYSTEM:
            return SystemMessage(text, **keywords)
        return DeveloperMessage(text, **keywords)
    if role is _R.USER:
        content = _parts_content(
            _needed(env.content, "a user message"), USER_PARTS, _TEXT_AND_MEDIA
        )
    else:
        content = _parts_content(
            _needed(env.content, "an assistant message"), ASSISTANT_PARTS, "text and reasoning"
        )
    inferred = _T.MULTIMODAL_PART if _has_media(content) else _T.TEXT
    keywords = fields.keywords(inferred, _COMMON_KEYS)
    if role is _R.USER:
        return UserMessage(content, **keywords)
    return AssistantMessage(content, **keywords)


def _needed(content: Blocks, what: str) -> str | tuple[Mapping[str, Any], ...]:
    if content is None:
        raise ValidationError(f"{what} needs content (an empty string is valid)", "content")
    return content


def _parts_content(
    content: str | tuple[Mapping[str, Any], ...], allowed: frozenset[type], kinds: str
) -> str | tuple[ContentPart, ...]:
    """A message's content from an envelope's: the string, or its blocks decoded as parts."""
    if isinstance(content, str):
        return content
    parts = _parts_of(content)
    _only(parts, allowed, kinds)
    return parts


def _instruction_text(content: str | tuple[Mapping[str, Any], ...]) -> str:
    """A system or developer message's text: its text blocks joined."""
    if isinstance(content, str):
        return content
    parts = _parts_of(content)
    _only(parts, frozenset((TextPart,)), "text")
    return "".join([p.text for p in parts if isinstance(p, TextPart)])


def _only(parts: tuple[ContentPart, ...], allowed: frozenset[type], kind: str) -> None:
    for i, part in enumerate(parts):
        if type(part) not in allowed:
            raise ValidationError(
                f"{type(part).__name__} is not allowed in this message; expected {kind} parts",
                f"content[{i}]",
            )


def _calls_of(env: Envelope) -> tuple[ToolCall, ...]:
    p = env.payload
    if "tool_calls" not in p:
        return (_call_of(env, p, "payload", 0),)
    raw = p["tool_calls"]
    if not isinstance(raw, tuple) or not raw:  # a frozen JSON array (FrozenList)
        raise ValidationError(
            "expected a non-empty list of tool call objects", "payload.tool_calls"
        )
    calls: list[ToolCall] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        path = f"payload.tool_calls[{i}]"
        if not isinstance(item, Mapping):
            raise ValidationError(f"expected a tool call object, got {json_type(item)}", path)
        call = _call_of(env, item, path, i)
        if call.id in seen:
            raise ValidationError(
                "duplicate tool call id within the message", f"{path}.tool_call_id"
            )
        seen.add(call.id)
        calls.append(call)
    return tuple(calls)


def _call_of(env: Envelope, d: Mapping[str, Any], path: str, index: int) -> ToolCall:
    name = check_tool_name(d.get("tool_name"), f"{path}.tool_name")
    arguments, raw = _arguments_of(d.get("parameters"), f"{path}.parameters")
    extras = d.get("extras")
    if extras is not None and not isinstance(extras, Mapping):
        raise ValidationError(f"expected an object, got {json_type(extras)}", f"{path}.extras")
    call_id = d.get("tool_call_id")
    if call_id is None:
        call_id = _derived_call_id(env.id, index, name, arguments)
    elif not isinstance(call_id, str) or not call_id:
        raise ValidationError("expected a non-empty string", f"{path}.tool_call_id")
    return tool_call(
        ToolCall, call_id, name, arguments, freeze_mapping(extras, f"{path}.extras"), raw
    )


def _arguments_of(params: object, path: str) -> tuple[FrozenDict, str | None]:
    """A call's arguments, and the JSON text they were given as (None for an object)."""
    if params is None:
        return EMPTY, None
    if isinstance(params, str):
        try:
            return freeze_mapping(loads_object(params, path), path), params
        except DecodeError as exc:
            raise ValidationError(exc.message, exc.path) from None
    if not isinstance(params, Mapping):
        raise ValidationError(f"expected an object or a JSON string, got {json_type(params)}", path)
    return freeze_mapping(params, path), None


def _derived_call_id(env_id: str | None, index: int, name: str, params: Mapping[str, Any]) -> str:
    import hashlib

    key = "\x1f".join((env_id or "", str(index), name, dumps_compact(params)))
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return f"call_{digest[:24]}"


# -- provider projection -------------------------------------------------------------


def to_provider_messages(
    envelopes: Iterable[Envelope | Mapping[str, Any] | Message],
) -> list[dict[str, Any]]:
    """Project envelopes (rows are normalised, messages converted) to provider messages.

    A row that cannot be read raises DecodeError whose path starts with its index.
    """
    out: list[dict[str, Any]] = []
    for i, item in enumerate(envelopes):
        if isinstance(item, Envelope):
            env = item
        elif isinstance(item, Message):
            env = Envelope.from_message(item)
        else:
            try:
                env = Envelope.normalize(item)
            except DecodeError as exc:
                raise exc.at(f"[{i}]") from None
        out.append(env.to_provider_message())
    return out
