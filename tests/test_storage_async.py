"""AsyncChatHistoryStorage over every backend: the same behaviour as coroutines, tasks
sharing one storage, an event loop that never waits on I/O, and cancelled saves."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import pytest

from messages import AssistantMessage, UserMessage
from messages.storage import (
    AsyncBackend,
    AsyncChatHistoryStorage,
    Backend,
    ChatHistoryConfig,
    ChatHistoryStorage,
    ConflictError,
    MemoryBackend,
    Record,
    Revision,
    SessionIdentity,
)
from tests import storage_backends

IDENT = SessionIdentity("bot", "chat", "user-1")
_T = TypeVar("_T")


def run(coro: Callable[[], Awaitable[_T]]) -> _T:
    async def main() -> _T:
        return await coro()

    return asyncio.run(main())


@pytest.fixture(params=storage_backends.KINDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    with storage_backends.make_backend(request.param, tmp_path, request) as b:
        yield b


def test_only_postgres_is_natively_async(backend: Backend) -> None:
    assert isinstance(backend, AsyncBackend) == (type(backend).__name__ == "PostgresBackend")


def test_the_same_operations_as_the_sync_storage(backend: Backend) -> None:
    async def main() -> None:
        storage = AsyncChatHistoryStorage(backend, IDENT)
        was_loaded = storage.loaded
        assert await storage.len() == 0
        assert (was_loaded, storage.loaded) == (False, True)
        first = await storage.add_message(UserMessage("q1"))
        await storage.add_message(AssistantMessage("a1"))
        assert storage.dirty
        assert await storage.save()
        assert not await storage.save()
        assert first is not None
        assert await storage.get(first.id) == first
        last = await storage.last_message()
        assert last is not None
        assert last.text == "a1"
        await storage.replace(first.id, first.with_content("q1 edited"))
        await storage.add_message(UserMessage("q2"))
        assert await storage.save()
        again = AsyncChatHistoryStorage(backend, IDENT)
        assert [m.text for m in await again.messages()] == ["q1 edited", "a1", "q2"]
        removed = await again.remove(first.id)
        assert removed.text == "q1 edited"
        assert await again.save()
        assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == ["a1", "q2"]
        await again.clear()
        await again.save()
        assert ChatHistoryStorage(backend, IDENT).messages() == ()
        await again.delete()
        assert backend.list_sessions("bot", "user-1") == []

    run(main)


def test_truncate_and_reload(backend: Backend) -> None:
    async def main() -> None:
        storage = AsyncChatHistoryStorage(backend, IDENT)
        for i in range(6):
            await storage.add_message(UserMessage(f"q{i} " + "x" * 100))
            await storage.add_message(AssistantMessage(f"a{i}"))
        await storage.save()
        removed = await storage.truncate(60)
        assert removed
        assert storage.dirty
        await storage.reload()  # discards the truncation
        assert await storage.len() == 12
        assert await storage.truncate(60) == removed
        assert await storage.save()
        assert ChatHistoryStorage(backend, IDENT).len() == 12 - len(removed)

    run(main)


def test_a_rewrite_after_another_writers_append_is_a_conflict(backend: Backend) -> None:
    async def main() -> None:
        storage = AsyncChatHistoryStorage(backend, IDENT)
        await storage.add_message(UserMessage("one"))
        await storage.save()
        other = ChatHistoryStorage(backend, IDENT)
        other.add_message(UserMessage("theirs"))
        other.save()
        first = (await storage.messages())[0]
        await storage.remove(first.id)
        with pytest.raises(ConflictError):
            await storage.save()
        assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == [
            "one",
            "theirs",
        ]
        await storage.reload()
        assert [m.text for m in await storage.messages()] == ["one", "theirs"]
        await storage.remove(first.id)
        assert await storage.save()

    run(main)


def test_tasks_sharing_one_storage_lose_nothing(backend: Backend) -> None:
    async def main() -> None:
        storage = AsyncChatHistoryStorage(backend, IDENT)

        async def work(n: int) -> None:
            for i in range(40):
                await storage.add_message(UserMessage(f"t{n}-{i}"))
                if i % 7 == 0:
                    await storage.save()
                await storage.messages()

        await asyncio.gather(*(work(n) for n in range(6)))
        await storage.save()
        texts = [m.text for m in ChatHistoryStorage(backend, IDENT).messages()]
        assert len(texts) == 240
        for n in range(6):
            assert [t for t in texts if t.startswith(f"t{n}-")] == [f"t{n}-{i}" for i in range(40)]

    run(main)


def test_hooks_run_and_receive_the_sync_storage(backend: Backend) -> None:
    seen: list[tuple[str, object]] = []
    config = ChatHistoryConfig(
        on_after_load=lambda s: seen.append(("load", s)),
        on_before_save=lambda s: seen.append(("save", s)),
        on_after_add=lambda m, s: seen.append(("add", s)),
    )

    async def main() -> None:
        storage = AsyncChatHistoryStorage(backend, IDENT, config)
        await storage.add_message(UserMessage("x"))
        await storage.save()
        assert [what for what, _ in seen] == ["load", "add", "save"]
        assert all(s is storage.sync for _, s in seen)

    run(main)


class GatedBackend(MemoryBackend):
    """A memory backend whose reads and appends block their thread until released.

    A call made in the event loop's thread would block the loop, so the coroutine
    that releases it could never run: the call gives up after 10 s and fails.
    """

    def __init__(self) -> None:
        super().__init__()
        self.gated = False
        self.entered = threading.Event()
        self.release = threading.Event()
        self.threads: set[int] = set()

    def _gate(self) -> None:
        if self.gated:
            self.threads.add(threading.get_ident())
            self.entered.set()
            if not self.release.wait(10):
                raise AssertionError("the backend blocked the event loop")

    def load_versioned(self, identity: SessionIdentity) -> tuple[list[Record] | None, Revision]:
        self._gate()
        return super().load_versioned(identity)

    def append_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> tuple[Revision, bool]:
        self._gate()
        return super().append_versioned(identity, records, expected)

    async def until_entered(self) -> None:
        while not self.entered.is_set():
            await asyncio.sleep(0.001)
        self.entered.clear()


def test_the_event_loop_runs_on_while_a_blocking_backend_works() -> None:
    backend = GatedBackend()
    backend.gated = True

    async def main() -> None:
        storage = AsyncChatHistoryStorage(backend, IDENT)
        add = asyncio.create_task(storage.add_message(UserMessage("x")))  # loads first
        await backend.until_entered()  # the loop runs while the load blocks its thread
        backend.release.set()
        await add
        assert await storage.save()
        assert threading.get_ident() not in backend.threads
        assert len(backend.threads) >= 1

    run(main)


def test_a_cancelled_save_still_records_its_write() -> None:
    backend = GatedBackend()

    async def main() -> None:
        storage = AsyncChatHistoryStorage(backend, IDENT)
        await storage.add_message(UserMessage("x"))
        backend.gated = True
        save = asyncio.create_task(storage.save())
        await backend.until_entered()  # the append is under way in its thread
        save.cancel()
        await asyncio.sleep(0)
        backend.release.set()
        with pytest.raises(asyncio.CancelledError):
            await save
        # The write happened, and the storage knows: no second append of the
        # same message, and its revision is current (a rewrite goes through).
        backend.gated = False
        assert not storage.dirty
        assert not await storage.save()
        first = (await storage.messages())[0]
        await storage.replace(first.id, first.with_content("y"))
        assert await storage.save()
        assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == ["y"]

    run(main)


def test_a_save_that_fails_changes_nothing_here() -> None:
    class Failing(MemoryBackend):
        fail = False

        def append_versioned(
            self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
        ) -> tuple[Revision, bool]:
            if self.fail:
                raise OSError("disk full")
            return super().append_versioned(identity, records, expected)

    backend = Failing()

    async def main() -> None:
        storage = AsyncChatHistoryStorage(backend, IDENT)
        await storage.add_message(UserMessage("x"))
        backend.fail = True
        with pytest.raises(OSError):
            await storage.save()
        assert storage.dirty
        backend.fail = False
        assert await storage.save()
        assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == ["x"]

    run(main)


def test_repr_shows_no_content() -> None:
    storage = AsyncChatHistoryStorage(MemoryBackend(), IDENT)

    async def main() -> str:
        await storage.add_message(UserMessage("secret words"))
        return repr(storage)

    text = run(main)
    assert text.startswith("AsyncChatHistoryStorage(key=")
    assert "secret" not in text
    assert storage.identity == IDENT
    assert storage.config is storage.sync.config
    assert storage.backend is storage.sync.backend
    assert storage.repairs == ()
