"""Static checks of messages.storage's types (mypy --strict with assert_type); also run by pytest."""

from __future__ import annotations

from pathlib import Path
from typing import Any, assert_type

from messages import Message, StorageError, UserMessage
from messages.storage import (
    DROP,
    AsyncChatHistoryStorage,
    Backend,
    BeforeAddHook,
    ChatHistoryConfig,
    ChatHistoryStorage,
    ConflictError,
    Drop,
    JsonFileBackend,
    MemoryBackend,
    PostgresBackend,
    Revision,
    SessionIdentity,
    SQLiteBackend,
    VersionedBackend,
)


def _before_add(message: Message, storage: ChatHistoryStorage) -> Message | None:
    return None if message.text else message.with_content("(empty)")


def _drop_empty(message: Message, storage: ChatHistoryStorage) -> Message | Drop | None:
    return DROP if not message.text else None


def test_storage_types(tmp_path: Path) -> None:
    ident = SessionIdentity("bot", "chat", scope=None)
    assert_type(ident.key, str)
    assert_type(ident.scope, "str | None")
    config = ChatHistoryConfig(context_window=8000, on_before_add=_before_add)
    assert_type(config.max_prompt_tokens, int)
    backend: Backend = MemoryBackend()
    storage = ChatHistoryStorage(backend, ident, config)
    assert_type(storage.add_message(UserMessage("hi")), "Message | None")
    assert_type(storage.messages(), "tuple[Message, ...]")
    assert_type(storage.last_message(), "Message | None")
    assert_type(storage.get("id"), "Message | None")
    assert_type(storage.len(), int)
    assert_type(len(storage), int)
    assert_type(storage.save(), bool)
    assert_type(storage.dirty, bool)
    records = backend.load(ident)
    assert_type(records, list[dict[str, Any]] | None)
    assert_type(backend.list_sessions("bot"), "list[SessionIdentity]")
    assert_type(JsonFileBackend(tmp_path).directory, str)
    with SQLiteBackend(tmp_path / "db.sqlite") as sqlite:
        assert_type(sqlite.schema_version(), int)
    with ChatHistoryStorage.sqlite(tmp_path / "x.sqlite", ident) as s:
        assert_type(s, ChatHistoryStorage)
    assert storage.len() == 1
    hook: BeforeAddHook = _drop_empty
    dropping = ChatHistoryStorage(MemoryBackend(), ident, ChatHistoryConfig(on_before_add=hook))
    assert_type(dropping.add_message(UserMessage("")), "Message | None")
    assert dropping.len() == 0


def test_storage_additions_types() -> None:
    import asyncio

    ident = SessionIdentity("bot", "chat")
    storage = ChatHistoryStorage(MemoryBackend(), ident)
    storage.add_message(UserMessage("hi"))
    assert_type(storage.truncate(10), "tuple[Message, ...]")
    assert_type(storage.truncate(10, lambda m: 1), "tuple[Message, ...]")
    assert issubclass(ConflictError, StorageError)
    backend: VersionedBackend = MemoryBackend()
    records, revision = backend.load_versioned(ident)
    assert_type(records, list[dict[str, Any]] | None)
    assert_type(revision, Revision)
    assert_type(backend.append_versioned(ident, [], revision), "tuple[Revision, bool]")
    assert_type(PostgresBackend("host=nowhere").table_prefix, str)

    async def use() -> None:
        history = AsyncChatHistoryStorage(MemoryBackend(), ident)
        assert_type(await history.add_message(UserMessage("hi")), "Message | None")
        assert_type(await history.messages(), "tuple[Message, ...]")
        assert_type(await history.last_message(), "Message | None")
        assert_type(await history.len(), int)
        assert_type(await history.truncate(10), "tuple[Message, ...]")
        assert_type(await history.save(), bool)
        assert_type(history.sync, ChatHistoryStorage)
        await history.reload()

    asyncio.run(use())
