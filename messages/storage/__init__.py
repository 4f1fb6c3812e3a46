"""Persist conversations per session, so an agent can stop and resume.

>>> from messages import Message
>>> from messages.storage import ChatHistoryStorage, SessionIdentity
>>> identity = SessionIdentity("support-bot", "chat-42", scope="user-7")
>>> with ChatHistoryStorage.sqlite("chats.db", identity) as history:
...     history.add_message(Message.user("Hello"))
...     history.save()  # writes only what changed

Backends: :class:`SQLiteBackend` (the embedded default: one row per message, so
an append never rewrites the session, and several processes can share a file),
:class:`PostgresBackend` (the same design in PostgreSQL, for sessions shared by
several machines; ``pip install 'llm-messages[postgres]'``), :class:`JsonFileBackend`
(one JSON Lines file per session, replaced atomically) and :class:`MemoryBackend`.
Any class with the :class:`Backend` methods works; see ``messages.storage._backend``
for a short example over ``dbm``.

Several writers may share a session: appends merge, and a rewrite (after
``remove``, ``replace``, ``truncate`` or ``clear``) that would drop what another
writer saved since this storage loaded raises :class:`ConflictError` and writes
nothing; ``reload()`` then shows both. :class:`AsyncChatHistoryStorage` offers the
same operations as coroutines, without blocking the event loop.

``SQLiteBackend`` and ``PostgresBackend`` are loaded on first use, so ``sqlite3``
and ``psycopg`` are imported only by programs that use them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._async import AsyncChatHistoryStorage
from ._backend import (
    AppendingBackend,
    AsyncBackend,
    Backend,
    ConflictError,
    Record,
    Revision,
    VersionedBackend,
)
from ._config import (
    DROP,
    AfterAddHook,
    BeforeAddHook,
    ChatHistoryConfig,
    Drop,
    StorageHook,
    Truncation,
)
from ._identity import SessionIdentity
from ._storage import ChatHistoryStorage
from .jsonfile import JsonFileBackend
from .memory import MemoryBackend

if TYPE_CHECKING:
    from .postgres import PostgresBackend
    from .sqlite import SQLiteBackend

__all__ = [
    "SessionIdentity",
    "ChatHistoryConfig",
    "ChatHistoryStorage",
    "AsyncChatHistoryStorage",
    "ConflictError",
    "DROP",
    "Drop",
    "Backend",
    "AppendingBackend",
    "VersionedBackend",
    "AsyncBackend",
    "Record",
    "Revision",
    "MemoryBackend",
    "JsonFileBackend",
    "SQLiteBackend",
    "PostgresBackend",
    "BeforeAddHook",
    "AfterAddHook",
    "StorageHook",
    "Truncation",
]


def __getattr__(name: str) -> Any:
    if name == "SQLiteBackend":
        from .sqlite import SQLiteBackend

        globals()[name] = SQLiteBackend
        return SQLiteBackend
    if name == "PostgresBackend":
        from .postgres import PostgresBackend  # ImportError naming the extra without psycopg

        globals()[name] = PostgresBackend
        return PostgresBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
