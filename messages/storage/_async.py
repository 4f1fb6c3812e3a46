"""AsyncChatHistoryStorage: ChatHistoryStorage's operations as coroutines.

The state and its rules are ChatHistoryStorage's own: this class holds one (its
``sync`` property) and does only the I/O differently. A backend with native
coroutines (:class:`AsyncBackend`: ``PostgresBackend``) is awaited; any other
(SQLite, JSON files, memory, your own) runs in a worker thread
(``asyncio.to_thread``), so the event loop never waits on a disk or a socket.
Everything else (adding, reading, truncating a loaded session) is in-memory work
done in the loop, as fast as the sync storage.

Tasks sharing one storage take turns through an ``asyncio.Lock``: each operation,
including its I/O, runs whole before the next starts, so two tasks adding and
saving see the same consistent history as two threads would. Hooks run in the
event loop's thread and receive the underlying ChatHistoryStorage.

A save cancelled while its write is in flight lets the write finish and records
it before the CancelledError goes on: the storage never forgets a write that
happened, so a later save neither appends the same messages twice nor mistakes
its own write for another writer's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ._backend import AsyncBackend, Backend, Record, Revision
from ._config import ChatHistoryConfig
from ._identity import SessionIdentity
from ._storage import ChatHistoryStorage, _Write

if TYPE_CHECKING:
    from .._history import ConversationHistory
    from .._message import Message
    from .._repair import Repair
    from .._tool_call import InvalidToolCall, ToolCall

__all__ = ["AsyncChatHistoryStorage"]


class AsyncChatHistoryStorage:
    """The messages of one session, kept in a backend; the same methods as coroutines.

    ``await storage.add(m)``, ``await storage.extend(history)``, ``await
    storage.save()``, ... behave as ChatHistoryStorage's (loading on first use, writing only what changed,
    ConflictError for a rewrite that would drop another writer's messages).
    Safe to share between tasks of one event loop.
    """

    __slots__ = ("_lock", "_native", "_sync")

    def __init__(
        self,
        backend: Backend,
        identity: SessionIdentity,
        config: ChatHistoryConfig | None = None,
    ) -> None:
        self._sync = ChatHistoryStorage(backend, identity, config)
        self._native: AsyncBackend | None = backend if isinstance(backend, AsyncBackend) else None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return "Async" + repr(self._sync)

    @property
    def sync(self) -> ChatHistoryStorage:
        """The ChatHistoryStorage holding the state (what hooks receive).

        Its blocking methods block the event loop: from async code, use this
        object's coroutines.
        """
        return self._sync

    @property
    def backend(self) -> Backend:
        """The backend the session is kept in."""
        return self._sync.backend

    @property
    def identity(self) -> SessionIdentity:
        """Which session this is."""
        return self._sync.identity

    @property
    def config(self) -> ChatHistoryConfig:
        """Truncation settings and hooks."""
        return self._sync.config

    @property
    def loaded(self) -> bool:
        """Whether the stored messages were loaded yet (loading happens on first use)."""
        return self._sync.loaded

    @property
    def dirty(self) -> bool:
        """Whether ``save()`` would write: something changed since the last load or save."""
        return self._sync.dirty

    @property
    def repairs(self) -> tuple[Repair, ...]:
        """What ``repair_on_load`` changed in the stored messages at the last load."""
        return self._sync.repairs

    # -- I/O -----------------------------------------------------------------------------

    async def _read(self) -> tuple[list[Record] | None, Revision]:
        s = self._sync
        native = self._native
        if native is not None:
            return await native.aload_versioned(s.identity)
        return await asyncio.to_thread(s._io.load_versioned, s.identity)

    async def _write(self, plan: _Write) -> tuple[Revision, bool]:
        s = self._sync
        native = self._native
        identity = s.identity
        if plan.rewrite:
            if native is not None:
                revision = await native.asave_versioned(identity, plan.records, plan.expected)
            else:
                revision = await asyncio.to_thread(
                    s._io.save_versioned, identity, plan.records, plan.expected
                )
            return revision, True
        if native is not None:
            return await native.aappend_versioned(identity, plan.records, plan.expected)
        return await asyncio.to_thread(
            s._io.append_versioned, identity, plan.records, plan.expected
        )

    async def _ensure(self) -> None:
        # Called with self._lock held.
        s = self._sync
        if s._history is None:
            records, revision = await self._read()
            with s._lock:
                if s._history is None:
                    s._loaded(records, revision)

    # -- reading ---------------------------------------------------------------------------

    async def messages(self) -> tuple[Message, ...]:
        """The messages, oldest first."""
        async with self._lock:
            await self._ensure()
            return self._sync.messages()

    async def last(self) -> Message | None:
        """The newest message, or None when there is none."""
        async with self._lock:
            await self._ensure()
            return self._sync.last()

    async def last_message(self) -> Message | None:
        """The newest message, or None: another name for :meth:`last`."""
        return await self.last()

    async def pending_tool_calls(self) -> tuple[ToolCall | InvalidToolCall, ...]:
        """The calls of the last tool-call message that have no result yet, in call order."""
        async with self._lock:
            await self._ensure()
            return self._sync.pending_tool_calls()

    async def validate(self) -> None:
        """Check the whole session from scratch against its policy (OrderingError if not)."""
        async with self._lock:
            await self._ensure()
            self._sync.validate()

    async def history(self) -> ConversationHistory:
        """A new ConversationHistory holding the session's messages (a snapshot)."""
        async with self._lock:
            await self._ensure()
            return self._sync.history()

    async def get(self, message_id: str) -> Message | None:
        """The message with this id, or None."""
        async with self._lock:
            await self._ensure()
            return self._sync.get(message_id)

    async def len(self) -> int:
        """How many messages the session holds (including unsaved ones)."""
        async with self._lock:
            await self._ensure()
            return self._sync.len()

    # -- changing ----------------------------------------------------------------------------

    async def add(self, message: Message) -> Message | None:
        """Add a message (after ``on_before_add``); return what was added, None if dropped."""
        async with self._lock:
            await self._ensure()
            return self._sync.add(message)

    async def add_message(self, message: Message) -> Message | None:
        """Add a message: another name for :meth:`add`."""
        return await self.add(message)

    async def extend(
        self, messages: ConversationHistory | AsyncChatHistoryStorage | Iterable[Message]
    ) -> tuple[Message, ...]:
        """Add several messages, all or none (OrderingError); return those added.

        As ``ChatHistoryStorage.extend``; ``messages`` may also be another
        AsyncChatHistoryStorage (its messages are read first).
        """
        if isinstance(messages, AsyncChatHistoryStorage):
            messages = await messages.messages()
        async with self._lock:
            await self._ensure()
            return self._sync.extend(messages)

    async def replace(self, message_id: str, message: Message) -> Message:
        """Put ``message`` where the message with this id is; return the old one."""
        async with self._lock:
            await self._ensure()
            return self._sync.replace(message_id, message)

    async def remove(self, message_id: str) -> Message:
        """Remove the message with this id and return it (KeyError when there is none)."""
        async with self._lock:
            await self._ensure()
            return self._sync.remove(message_id)

    async def clear(self) -> None:
        """Remove every message (the stored session is emptied on the next save)."""
        async with self._lock:
            await self._ensure()
            self._sync.clear()

    async def truncate(
        self, max_tokens: int, counter: Callable[[Message], int] | None = None
    ) -> tuple[Message, ...]:
        """Drop the oldest turns until the messages fit ``max_tokens``; return what was dropped."""
        async with self._lock:
            await self._ensure()
            return self._sync.truncate(max_tokens, counter)

    # -- persisting ----------------------------------------------------------------------------

    async def save(self) -> bool:
        """Write the changes, if any; return whether anything was written.

        As ``ChatHistoryStorage.save``: ConflictError (nothing written) for a
        rewrite when another writer saved since this storage loaded.
        """
        async with self._lock:
            s = self._sync
            with s._lock:
                plan = s._plan_save()
            if plan is None:
                return False
            write = asyncio.ensure_future(self._write(plan))
            try:
                revision, current = await asyncio.shield(write)
            except asyncio.CancelledError:
                # The write goes on: wait for it (however often we are cancelled
                # meanwhile) and record it, then let the cancellation through.
                while not write.done():
                    try:
                        await asyncio.wait({write})
                    except asyncio.CancelledError:
                        continue
                if not write.cancelled() and write.exception() is None:
                    with s._lock:
                        s._saved(plan, *write.result())
                raise
            with s._lock:
                s._saved(plan, revision, current)
            return True

    async def reload(self) -> None:
        """Load the stored messages again (discarding unsaved changes); runs ``on_after_load``."""
        async with self._lock:
            s = self._sync
            with s._lock:
                s._history = None
            records, revision = await self._read()
            with s._lock:
                s._loaded(records, revision)

    async def delete(self) -> None:
        """Delete the stored session and forget the messages held here."""
        async with self._lock:
            s = self._sync
            native = self._native
            if native is not None:
                await native.adelete(s.identity)
            else:
                await asyncio.to_thread(s.backend.delete, s.identity)
            with s._lock:
                s._forget()
