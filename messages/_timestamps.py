"""``created_at`` as canonical text: ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (UTC, microseconds).

The codec writes every timestamp in this form and reads any ISO 8601 text with a
UTC offset (or an aware ``datetime``), normalised to UTC.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from ._ids import UTC
from ._json import json_type
from .errors import DecodeError, undecodable

__all__ = ["ISO_TEXT", "check_stamp_text", "created_value", "iso_utc", "parse_created_at"]


# Formatting an aware datetime costs more than the rest of to_dict together, and
# conversations are encoded again and again (every save, every request), so the
# text of recent timestamps is remembered (a datetime caches its hash, so a hit is
# one dict lookup). Bounded; cleared when full. Decoding does not fill it: a fresh
# datetime would be hashed for nothing.
_ISO: dict[datetime, str] = {}
_ISO_MAX = 8192
ISO_TEXT = _ISO
"""The cache itself, for encoders that look a datetime up before calling ``iso_utc``."""


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


def _fromiso_z(s: str, path: str) -> datetime:
    # RFC 3339 also allows a lowercase "z", which datetime.fromisoformat does not read.
    if len(s) < 64 and s[-1:] in ("Z", "z"):
        try:
            return datetime.fromisoformat(s[:-1] + "+00:00")
        except ValueError:
            pass
    raise DecodeError(
        f"expected an ISO 8601 timestamp with a UTC offset (string of length {len(s)})", path
    )


# A decoded message keeps a canonical created_at text (``YYYY-MM-DDTHH:MM:SS.ffffffZ``,
# what the encoder writes) as it is: the datetime is built when first read, and
# re-encoding writes the text back without formatting (a fresh datetime would be
# hashed and formatted on a cache miss). The text is checked in full when decoded:
# its separators sit where the canonical form has them and ``datetime.fromisoformat``
# accepts it (digits, ranges, leap days), which leaves no other reading of it.
check_stamp_text: Callable[[str], object] = datetime.fromisoformat


def created_value(value: object) -> datetime | str:
    """The ``created_at`` to store for a value read from a message dict (not None)."""
    if type(value) is str:  # kept as text only when exactly a str
        if value[4:20:3] == "--T::." and value[26:] == "Z":
            try:
                check_stamp_text(value)
            except ValueError:
                pass
            else:
                return value
        try:
            dt = datetime.fromisoformat(value)
        except ValueError:
            return parse_created_at(value)
        return dt if dt.tzinfo is UTC else parse_created_at(dt)
    return parse_created_at(value)


def parse_created_at(value: object, path: str = "created_at") -> datetime:
    """Parse an ISO 8601 timestamp with an offset (or take an aware datetime); UTC result."""
    if isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value)
        except ValueError:
            dt = _fromiso_z(str(value), path)
    elif isinstance(value, datetime):
        dt = value
    else:
        undecodable(f"expected an ISO 8601 string, got {json_type(value)}", path)
    tz = dt.tzinfo
    if tz is UTC:
        return dt
    if tz is None or dt.utcoffset() is None:
        undecodable("timestamp has no UTC offset; naive timestamps are refused (add 'Z')", path)
    try:
        return dt.astimezone(UTC)
    except (OverflowError, ValueError):
        undecodable("timestamp is out of range in UTC", path)
