"""The storage backend protocol: the five methods a new database needs.

A backend stores, per :class:`SessionIdentity`, an ordered list of canonical
message dicts (the ``Message.to_dict()`` shape: JSON values only). It does not
know about message classes; :class:`ChatHistoryStorage` encodes and decodes.
``identity.key`` is a safe, unique key for the session (one file name component);
the raw ``agent`` / ``session`` / ``scope`` are there for listing.

Implementing one for another database is a short class. Over the standard
library's ``dbm``, for example (one value per session, so a save is one write)::

    import dbm
    import json

    # SessionIdentity is messages.storage.SessionIdentity

    class DbmBackend:  # one value per session: its identity and its messages

        def __init__(self, path):
            self.db = dbm.open(path, "c")

        def load(self, identity):
            raw = self.db.get(identity.key)
            return None if raw is None else json.loads(raw)["messages"]

        def save(self, identity, records):
            who = [identity.agent, identity.session, identity.scope]
            self.db[identity.key] = json.dumps({"who": who, "messages": list(records)})

        def delete(self, identity):
            if identity.key in self.db:
                del self.db[identity.key]

        def list_sessions(self, agent, scope=None):
            found = []
            for key in self.db.keys():
                a, s, sc = json.loads(self.db[key])["who"]
                if a == agent and sc == scope:
                    found.append(SessionIdentity(a, s, sc))
            return sorted(found, key=lambda i: i.session)

Pass it as ``ChatHistoryStorage(DbmBackend("chats.db"), identity)``. A database
that can add rows cheaply should also offer ``append(identity, records)`` (see
:class:`AppendingBackend`); ``ChatHistoryStorage`` then writes only the new
messages when nothing else changed.

Rules a backend keeps:

* ``save`` replaces the whole session atomically: a reader (or a crash) sees the
  old list or the new one, never a mix.
* ``append`` (optional) adds records after whatever the session holds now, also
  atomically, creating the session if needed; two writers appending concurrently
  both keep their records. Without it, :class:`ChatHistoryStorage` calls ``save``.
* ``load`` returns ``None`` for a session never saved (or deleted), ``[]`` for an
  empty one; corrupt data raises :class:`~messages.errors.StorageError` naming
  ``identity.key`` and the position, never the content.
* Text may hold lone surrogates (``"\\ud800"``): encode JSON as ASCII
  (``json.dumps`` does by default) so they survive.

Concurrent writers. A rewrite (after a removal, replacement, truncation or
clear) must never drop messages that another writer saved since this storage
loaded the session. A :class:`VersionedBackend` makes that exact: every write
gives the session a new *revision* (an opaque token, ``None`` for a session that
does not exist), and ``save_versioned`` replaces the session only if it is still
at the revision the storage loaded, in the same atomic step, raising
:class:`ConflictError` otherwise. The built-in backends all are. Over a plain
backend, :class:`ChatHistoryStorage` compares a digest of what is stored just
before it rewrites: that catches the same conflicts except a write landing between
that check and the save.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ..errors import StorageError
from ._identity import SessionIdentity
from ._rows import where

__all__ = [
    "AppendingBackend",
    "AsyncBackend",
    "Backend",
    "ConflictError",
    "Record",
    "Revision",
    "VersionedBackend",
    "conflict",
]

Record = dict[str, Any]
"""One message in its canonical dict form (JSON values only)."""

Revision = object
"""A session's revision: an opaque token that changes with every write (``None``: no session).

Only equality is meaningful. A token never comes back for different content,
even after the session is deleted and created again.
"""


class ConflictError(StorageError):
    """A rewrite would drop what another writer saved meanwhile; nothing was written.

    ``reload()`` the storage (it then holds both writers' messages) and apply the
    change again.
    """


def conflict(identity: SessionIdentity) -> ConflictError:
    """The ConflictError for ``identity`` (it names the session, never the content)."""
    return ConflictError(
        "conflict: another writer changed the session since it was loaded here; "
        "nothing was written (reload() and apply the change again)",
        where(identity.key),
    )


@runtime_checkable
class Backend(Protocol):
    """Where ChatHistoryStorage keeps sessions: load, save, delete and list them."""

    def load(self, identity: SessionIdentity) -> list[Record] | None:
        """The session's message dicts in order; None when it was never saved."""
        ...

    def save(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Replace the session's messages with ``records``, atomically."""
        ...

    def delete(self, identity: SessionIdentity) -> None:
        """Remove the session (no error when it does not exist)."""
        ...

    def list_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        """The saved sessions of ``agent`` in exactly ``scope``, sorted by session name."""
        ...


@runtime_checkable
class AppendingBackend(Backend, Protocol):
    """A backend that can add messages without rewriting the session."""

    def append(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Add ``records`` after the session's current messages, atomically."""
        ...


@runtime_checkable
class VersionedBackend(AppendingBackend, Protocol):
    """A backend that tracks revisions, so that rewrites never lose concurrent appends."""

    def load_versioned(self, identity: SessionIdentity) -> tuple[list[Record] | None, Revision]:
        """``load`` plus the session's revision, read in one consistent snapshot."""
        ...

    def save_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> Revision:
        """Replace the session if it is still at ``expected``; return the new revision.

        Checked and written atomically; a session at another revision raises
        :class:`ConflictError` and nothing changes.
        """
        ...

    def append_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> tuple[Revision, bool]:
        """``append``; return the new revision and whether the session was at ``expected``.

        Never a conflict: the records go after whatever is stored. ``False`` tells
        the caller that others wrote meanwhile, so its view of the session is behind.
        """
        ...


@runtime_checkable
class AsyncBackend(Protocol):
    """A backend with native coroutines (``PostgresBackend``), used by AsyncChatHistoryStorage.

    The others run in a worker thread instead, so they do not block the event loop.
    """

    async def aload_versioned(
        self, identity: SessionIdentity
    ) -> tuple[list[Record] | None, Revision]:
        """Coroutine form of :meth:`VersionedBackend.load_versioned`."""
        ...

    async def asave_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> Revision:
        """Coroutine form of :meth:`VersionedBackend.save_versioned`."""
        ...

    async def aappend_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> tuple[Revision, bool]:
        """Coroutine form of :meth:`VersionedBackend.append_versioned`."""
        ...

    async def adelete(self, identity: SessionIdentity) -> None:
        """Coroutine form of :meth:`Backend.delete`."""
        ...

    async def alist_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        """Coroutine form of :meth:`Backend.list_sessions`."""
        ...
