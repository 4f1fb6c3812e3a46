"""MemoryBackend: sessions kept in this process, for tests and short-lived agents."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence

from ._backend import Record
from ._identity import SessionIdentity
from ._rows import encode_rows

__all__ = ["MemoryBackend"]


class MemoryBackend:
    """Keeps sessions in a dict, each message as its JSON text.

    Storing text rather than the dicts means a caller that changes a dict it got
    from ``load`` (or passed to ``save``) cannot change what is stored, and that
    anything the file backends would refuse (a value JSON cannot hold) fails here too.
    """

    __slots__ = ("_lock", "_sessions")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, tuple[SessionIdentity, list[str]]] = {}

    def __repr__(self) -> str:
        return f"MemoryBackend(sessions={len(self._sessions)})"

    def load(self, identity: SessionIdentity) -> list[Record] | None:
        """The session's message dicts in order; None when it was never saved."""
        with self._lock:
            entry = self._sessions.get(identity.key)
            rows = None if entry is None else list(entry[1])
        if rows is None:
            return None
        loads = json.loads
        return [loads(row) for row in rows]

    def save(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Replace the session's messages."""
        rows = encode_rows(identity.key, records)
        with self._lock:
            self._sessions[identity.key] = (identity, rows)

    def append(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Add messages after the session's current ones."""
        rows = encode_rows(identity.key, records)
        with self._lock:
            entry = self._sessions.get(identity.key)
            if entry is None:
                self._sessions[identity.key] = (identity, rows)
            else:
                entry[1].extend(rows)

    def delete(self, identity: SessionIdentity) -> None:
        """Forget the session."""
        with self._lock:
            self._sessions.pop(identity.key, None)

    def list_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        """The sessions of ``agent`` in exactly ``scope``, sorted by session name."""
        with self._lock:
            found = [i for i, _ in self._sessions.values() if i.agent == agent and i.scope == scope]
        return sorted(found, key=_by_session)


def _by_session(identity: SessionIdentity) -> str:
    return identity.session
