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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ._identity import SessionIdentity

__all__ = ["AppendingBackend", "Backend", "Record"]

Record = dict[str, Any]
"""One message in its canonical dict form (JSON values only)."""


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
