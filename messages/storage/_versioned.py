"""Revisions for a backend that has none: a digest of the stored records.

:class:`ChatHistoryStorage` wraps a plain :class:`Backend` (one without
``load_versioned`` / ``save_versioned`` / ``append_versioned``, such as the ``dbm``
example) in :class:`Unversioned`. Its revision of a session is a digest of the
stored records; a rewrite loads the session, compares its digest with the one the
storage saw, and saves only when they agree. That catches every write made since
the storage loaded, except one landing between that check and the save (the
backend offers nothing to make the two one step): implement
:class:`VersionedBackend` to close that gap.

Appends through the backend's own ``append`` are not checked (they merge); the
revision after one is the digest of what this storage believes is stored, so a
later rewrite still notices messages that others appended. A backend without
``append`` is emulated: load, merge by id (as JsonFileBackend does), save.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import StorageError
from ._backend import Backend, Record, Revision, conflict
from ._identity import SessionIdentity
from ._rows import where

if TYPE_CHECKING:
    import hashlib

__all__ = ["Unversioned"]


class _Digest:
    """A revision: the digest of a session's records (equal digests, equal records)."""

    __slots__ = ("_hasher", "hex")

    def __init__(self, hasher: hashlib.blake2b) -> None:
        self._hasher = hasher
        self.hex = hasher.hexdigest()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Digest) and other.hex == self.hex

    def __hash__(self) -> int:
        return hash(self.hex)

    def __repr__(self) -> str:
        return f"_Digest({self.hex[:12]})"

    def extended(self, records: Sequence[Record]) -> _Digest:
        """The digest of the records digested here followed by ``records``."""
        hasher = self._hasher.copy()
        _feed(hasher, records)
        return _Digest(hasher)


def _feed(hasher: hashlib.blake2b, records: Sequence[Record]) -> None:
    import json

    # Keys sorted: a store that reorders an object's keys (jsonb) holds the same data.
    dumps = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False).encode
    for record in records:
        hasher.update(dumps(record).encode("ascii"))
        hasher.update(b"\n")


def digest(records: object) -> Revision:
    """The revision of a session holding ``records`` (None when there is no session).

    Data that is not a list of JSON objects gets a token equal to nothing: the
    storage reports it as corrupt when it decodes it.
    """
    import hashlib

    if records is None:
        return None
    if not isinstance(records, list):
        return object()
    hasher = hashlib.blake2b(digest_size=16)
    try:
        _feed(hasher, records)
    except (TypeError, ValueError, RecursionError):
        return object()
    return _Digest(hasher)


class Unversioned:
    """A VersionedBackend over a plain Backend: revisions are digests of the records."""

    __slots__ = ("_append", "backend")

    backend: Backend

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        append: Callable[[SessionIdentity, Sequence[Record]], None] | None
        append = getattr(backend, "append", None)
        self._append = append

    def load(self, identity: SessionIdentity) -> list[Record] | None:
        """The backend's ``load``."""
        return self.backend.load(identity)

    def save(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """The backend's ``save``."""
        self.backend.save(identity, records)

    def append(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """The backend's ``append``, or a load, a merge by id and a save."""
        self.append_versioned(identity, records, None)

    def delete(self, identity: SessionIdentity) -> None:
        """The backend's ``delete``."""
        self.backend.delete(identity)

    def list_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        """The backend's ``list_sessions``."""
        return self.backend.list_sessions(agent, scope)

    def load_versioned(self, identity: SessionIdentity) -> tuple[list[Record] | None, Revision]:
        """The backend's ``load`` and the digest of what it returned."""
        records = self.backend.load(identity)
        return records, digest(records)

    def save_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> Revision:
        """``save`` when the stored records still have the digest ``expected``."""
        if digest(self.backend.load(identity)) != expected:
            raise conflict(identity)
        self.backend.save(identity, records)
        return digest(list(records))

    def append_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> tuple[Revision, bool]:
        """The backend's ``append``, or a load, a merge by id and a ``save``."""
        append = self._append
        if append is not None:
            append(identity, records)
            if isinstance(expected, _Digest):
                return expected.extended(records), True
            if expected is None:
                return digest(list(records)), True
            return object(), False
        stored = self.backend.load(identity)
        before = digest(stored)
        merged = _merged(identity, stored, records)
        self.backend.save(identity, merged)
        return digest(merged), before == expected


def _merged(identity: SessionIdentity, stored: object, records: Sequence[Record]) -> list[Record]:
    """``stored`` then each record whose string id is not stored yet."""
    if stored is None:
        return list(records)
    if not isinstance(stored, list):
        raise StorageError(
            f"backend returned {type(stored).__name__}, expected a list", where(identity.key)
        )
    seen: set[Any] = {r.get("id") for r in stored if type(r) is dict}
    merged = list(stored)
    for record in records:
        message_id = record.get("id")
        if type(message_id) is str:
            if message_id in seen:
                continue
            seen.add(message_id)
        merged.append(record)
    return merged
