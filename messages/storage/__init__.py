"""Persist conversations per session, so an agent can stop and resume.

>>> from messages import Message
>>> from messages.storage import ChatHistoryStorage, SessionIdentity
>>> identity = SessionIdentity("support-bot", "chat-42", scope="user-7")
>>> with ChatHistoryStorage.sqlite("chats.db", identity) as history:
...     history.add_message(Message.user("Hello"))
...     history.save()  # writes only what changed

Backends: :class:`SQLiteBackend` (the embedded default: one row per message, so
an append never rewrites the session, and several processes can share a file),
:class:`JsonFileBackend` (one JSON Lines file per session, replaced atomically)
and :class:`MemoryBackend`. Any class with the :class:`Backend` methods works;
see ``messages.storage._backend`` for a short example over ``dbm``.

``SQLiteBackend`` is loaded on first use, so ``sqlite3`` is imported only by
programs that use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._backend import AppendingBackend, Backend, Record
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
    from .sqlite import SQLiteBackend

__all__ = [
    "SessionIdentity",
    "ChatHistoryConfig",
    "ChatHistoryStorage",
    "DROP",
    "Drop",
    "Backend",
    "AppendingBackend",
    "Record",
    "MemoryBackend",
    "JsonFileBackend",
    "SQLiteBackend",
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
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
