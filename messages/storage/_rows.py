"""How the built-in backends turn message dicts into stored text and back.

Every row is compact JSON with non-ASCII escaped, so lone surrogates survive any
store that insists on valid UTF-8 (SQLite's text columns, files). Failures become
StorageError whose path names the session key and the message position, never
the content: ``session agent..chat.5f3a… messages[3]: invalid JSON (…)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._json import dumps_compact, json_type, loads
from ..errors import DecodeError, StorageError

if TYPE_CHECKING:
    from ._backend import Record

__all__ = ["decode_name", "decode_row", "encode_rows", "where"]


def where(key: str, index: int | None = None, sub: str = "") -> str:
    """The error path of a session, or of one message (and a field inside it)."""
    if index is None:
        return f"session {key}"
    if sub and not sub.startswith("["):
        sub = "." + sub
    return f"session {key} messages[{index}]{sub}"


def encode_rows(key: str, records: Sequence[Record]) -> list[str]:
    """Each record as compact ASCII JSON; StorageError when one is not JSON data."""
    try:
        return [dumps_compact(r) for r in records]
    except (TypeError, ValueError, RecursionError):
        pass
    # Encoded again one by one, only to say which record failed.
    for i, r in enumerate(records):
        _check_one(r, key, i)
    raise StorageError("messages cannot be stored as JSON", where(key))  # pragma: no cover


def _check_one(record: Record, key: str, index: int) -> None:
    try:
        dumps_compact(record)
    except (TypeError, ValueError, RecursionError) as exc:
        raise StorageError(
            f"message cannot be stored as JSON ({type(exc).__name__})", where(key, index)
        ) from None


def decode_row(text: str | bytes, key: str, index: int) -> Record:
    """One stored message dict; StorageError naming the session and position if corrupt."""
    try:
        value: Any = loads(text)
    except DecodeError as exc:
        raise StorageError(exc.message, where(key, index)) from None
    if type(value) is not dict:
        raise StorageError(
            f"expected a JSON object for a message, got {json_type(value)}", where(key, index)
        )
    return value


def decode_name(raw: object, key: str) -> str:
    """A session name stored as JSON text (SQL backends); StorageError if it is not one."""
    try:
        value = loads(raw if isinstance(raw, (str, bytes)) else "")
    except DecodeError:
        value = None
    if type(value) is not str or not value:
        raise StorageError("corrupt session name in the sessions table", where(key))
    return value
