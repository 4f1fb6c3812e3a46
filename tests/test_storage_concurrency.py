"""Several writers on one session, in separate processes (threads for memory): nothing is lost.

The case of issue 20: four writers append 300 messages each to one session while
one of them also rewrites it (replaces a message and saves). Before rewrites were
checked, the rewrite dropped whatever the others had appended since it loaded
(900 of 1,200 messages lost, in SQLite and JSON files alike). Now the rewrite
raises ConflictError, the writer reloads and applies its change again, and every
message of every writer is there at the end, in each writer's order, with the
change applied.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from messages import Message, StorageError, UserMessage
from messages.storage import Backend, ChatHistoryStorage, SessionIdentity
from tests import storage_backends

IDENT = SessionIdentity("bot", "common", "team")
WRITERS = 4
COUNT = 300
DEADLINE = 90.0  # seconds a writer may keep retrying its rewrite


def _edited(name: str) -> str:
    return f"{name}-0 (edited)"


def _retry(storage: ChatHistoryStorage, change: Callable[[ChatHistoryStorage], None]) -> int:
    """Apply ``change`` and save until the save is not refused; the number of refusals."""
    refused = 0
    deadline = time.monotonic() + DEADLINE
    while True:
        change(storage)
        try:
            storage.save()
            return refused
        except StorageError:  # a conflict: another writer saved since this one loaded
            if time.monotonic() > deadline:
                raise
            refused += 1
            storage.reload()
            time.sleep(0.001 * min(refused, 20))


def _edit_first(name: str) -> Callable[[ChatHistoryStorage], None]:
    def change(storage: ChatHistoryStorage) -> None:
        mine = next(m for m in storage.messages() if m.text == f"{name}-0")
        storage.replace(mine.id, UserMessage(_edited(name), id=mine.id))

    return change


def _drop_marker(name: str) -> Callable[[ChatHistoryStorage], None]:
    def change(storage: ChatHistoryStorage) -> None:
        marker = next(m for m in storage.messages() if m.text == f"{name}-marker")
        storage.remove(marker.id)

    return change


def _writer(kind: str, where: str, name: str, rewrites: bool, start: Any, out: Any) -> None:
    """Append COUNT messages one save at a time; a rewriter also edits and removes midway."""
    backend = storage_backends.open_backend(kind, where) if kind != "memory" else where
    storage = ChatHistoryStorage(backend, IDENT)  # type: ignore[arg-type]
    storage.len()  # loaded before the race starts, as an agent resuming a session is
    start.wait()
    refused = 0
    for i in range(COUNT):
        storage.add_message(UserMessage(f"{name}-{i}"))
        storage.save()
        if rewrites and i == 10:
            storage.add_message(UserMessage(f"{name}-marker"))
            storage.save()
        if rewrites and i == COUNT // 2:
            refused += _retry(storage, _edit_first(name))
            refused += _retry(storage, _drop_marker(name))
    out.put((name, refused))
    close = getattr(backend, "close", None)
    if close is not None:
        close()


def _check(backend: Backend, names: list[str], rewriters: list[str]) -> None:
    msgs: tuple[Message, ...] = ChatHistoryStorage(backend, IDENT).messages()
    texts = [m.text for m in msgs]
    assert len(texts) == len(names) * COUNT, f"{len(names) * COUNT - len(texts)} messages lost"
    assert len({m.id for m in msgs}) == len(texts)
    for name in names:
        want = [f"{name}-{i}" for i in range(COUNT)]
        if name in rewriters:
            want[0] = _edited(name)
        assert [t for t in texts if t.startswith(f"{name}-")] == want
    # They really ran at the same time: the writers' messages interleave.
    owners = [t.split("-")[0] for t in texts]
    assert owners != sorted(owners)


@pytest.mark.parametrize("kind", storage_backends.SHARED_KINDS)
@pytest.mark.parametrize("rewriters", [1, 2], ids=["one-rewriter", "two-rewriters"])
def test_processes_appending_while_others_rewrite_lose_nothing(
    kind: str, rewriters: int, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    where = storage_backends.location(kind, tmp_path, request)
    ctx = multiprocessing.get_context("spawn")  # no fork of a threaded test runner
    start = ctx.Barrier(WRITERS)
    out = ctx.Queue()
    names = [f"w{k}" for k in range(WRITERS)]
    procs = [
        ctx.Process(target=_writer, args=(kind, where, name, k < rewriters, start, out))
        for k, name in enumerate(names)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=240)
    assert [p.exitcode for p in procs] == [0] * WRITERS
    refused = dict(out.get(timeout=5) for _ in procs)
    backend = storage_backends.open_backend(kind, where)
    try:
        _check(backend, names, names[:rewriters])
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()
    assert set(refused) == set(names)


@pytest.mark.parametrize("rewriters", [1, 2], ids=["one-rewriter", "two-rewriters"])
def test_threads_appending_while_others_rewrite_lose_nothing(rewriters: int) -> None:
    # The memory backend lives in one process: its writers are threads, each with
    # a storage of its own.
    from queue import Queue

    from messages.storage import MemoryBackend

    backend = MemoryBackend()
    start = threading.Barrier(WRITERS)
    out: Queue[tuple[str, int]] = Queue()
    names = [f"w{k}" for k in range(WRITERS)]
    errors: list[BaseException] = []

    def run(name: str, rewrites: bool) -> None:
        try:
            _writer("memory", backend, name, rewrites, start, out)  # type: ignore[arg-type]
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=(name, k < rewriters)) for k, name in enumerate(names)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _check(backend, names, names[:rewriters])
