"""MemoryBackend: sessions kept in this process, for tests and short-lived agents."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Sequence

from ._backend import Record, Revision, conflict
from ._identity import SessionIdentity, by_session
from ._rows import encode_rows

__all__ = ["MemoryBackend"]


class MemoryBackend:
    """Keeps sessions in a dict, each message as its JSON text.

    Storing text rather than the dicts means a caller that changes a dict it got
    from ``load`` (or passed to ``save``) cannot change what is stored, and that
    anything the file backends would refuse (a value JSON cannot hold) fails here too.
    A session's revision is a number from one counter per backend, so it never
    repeats, even for a session deleted and created again.
    """

    __slots__ = ("_lock", "_revisions", "_sessions")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, tuple[SessionIdentity, list[str], int]] = {}
        self._revisions = itertools.count(1)

    def __repr__(self) -> str:
        return f"MemoryBackend(sessions={len(self._sessions)})"

    def load(self, identity: SessionIdentity) -> list[Record] | None:
        """The session's message dicts in order; None when it was never saved."""
        return self.load_versioned(identity)[0]

    def load_versioned(self, identity: SessionIdentity) -> tuple[list[Record] | None, Revision]:
        """The session's message dicts and its revision (None, None when there is none)."""
        with self._lock:
            entry = self._sessions.get(identity.key)
            if entry is None:
                return None, None
            rows = list(entry[1])
            revision = entry[2]
        return [json.loads(row) for row in rows], revision

    def save(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Replace the session's messages."""
        rows = encode_rows(identity.key, records)
        with self._lock:
            self._sessions[identity.key] = (identity, rows, next(self._revisions))

    def save_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> Revision:
        """Replace the session's messages if it is still at revision ``expected``."""
        rows = encode_rows(identity.key, records)
        with self._lock:
            entry = self._sessions.get(identity.key)
            if (None if entry is None else entry[2]) != expected:
                raise conflict(identity)
            revision = next(self._revisions)
            self._sessions[identity.key] = (identity, rows, revision)
            return revision

    def append(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Add messages after the session's current ones."""
        self.append_versioned(identity, records, None)

    def append_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> tuple[Revision, bool]:
        """Add messages after the current ones; the new revision, and whether it was ``expected``."""
        rows = encode_rows(identity.key, records)
        with self._lock:
            entry = self._sessions.get(identity.key)
            revision = next(self._revisions)
            if entry is None:
                self._sessions[identity.key] = (identity, rows, revision)
                return revision, expected is None
            stored = entry[1]
            stored.extend(rows)
            self._sessions[identity.key] = (identity, stored, revision)
            return revision, entry[2] == expected

    def delete(self, identity: SessionIdentity) -> None:
        """Forget the session."""
        with self._lock:
            self._sessions.pop(identity.key, None)

    def list_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        """The sessions of ``agent`` in exactly ``scope``, sorted by session name."""
        with self._lock:
            found = [
                i for i, _, _ in self._sessions.values() if i.agent == agent and i.scope == scope
            ]
        return sorted(found, key=by_session)
