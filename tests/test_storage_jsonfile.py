"""JsonFileBackend with several writers: appends merge under a lock, nothing is lost."""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from messages import UserMessage
from messages.storage import ChatHistoryStorage, ConflictError, JsonFileBackend, SessionIdentity

IDENT = SessionIdentity("bot", "chat")


def _writer(directory: str, name: str, count: int, start: Any) -> None:
    """Add and save ``count`` messages through a storage of its own, once ``start`` opens."""
    storage = ChatHistoryStorage(JsonFileBackend(directory, fsync=False), IDENT)
    len(storage)  # loaded before the race starts, as an agent resuming a session is
    start.wait()  # a threading or multiprocessing Barrier
    for i in range(count):
        storage.add_message(UserMessage(f"{name}-{i}"))
        storage.save()


def _assert_all_kept(directory: Path, names: list[str], count: int) -> None:
    msgs = ChatHistoryStorage(JsonFileBackend(directory), IDENT).messages()
    texts = [m.text for m in msgs]
    assert len(texts) == len(names) * count
    assert len({m.id for m in msgs}) == len(texts)
    for name in names:
        assert [t for t in texts if t.startswith(f"{name}-")] == [
            f"{name}-{i}" for i in range(count)
        ]
    assert sorted(os.listdir(directory)) == [f".{IDENT.key}.lock", IDENT.key + ".jsonl"]


def test_processes_appending_to_one_session_lose_nothing(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")  # no fork of a threaded test runner
    start = ctx.Barrier(2)
    count = 60
    procs = [
        ctx.Process(target=_writer, args=(str(tmp_path), name, count, start)) for name in ("a", "b")
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    _assert_all_kept(tmp_path, ["a", "b"], count)


def test_threads_each_with_its_own_storage_lose_nothing(tmp_path: Path) -> None:
    names = ["t0", "t1", "t2", "t3"]
    count = 60
    start = threading.Barrier(len(names))
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            _writer(str(tmp_path), name, count, start)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _assert_all_kept(tmp_path, names, count)


def test_an_append_merges_by_id_after_what_is_stored(tmp_path: Path) -> None:
    backend = JsonFileBackend(tmp_path, fsync=False)
    a, b, c = (UserMessage(t).to_dict() for t in "abc")
    backend.append(IDENT, [a])
    backend.append(IDENT, [b])  # another writer's message, stored in between
    backend.append(IDENT, [a, c])  # a retried append: a is not added twice
    backend.append(IDENT, [{"role": "user", "content": "no id"}] * 2)  # no id: always added
    assert backend.load(IDENT) == [a, b, c, *[{"role": "user", "content": "no id"}] * 2]


def test_delete_removes_the_lock_file_too(tmp_path: Path) -> None:
    backend = JsonFileBackend(tmp_path, fsync=False)
    backend.save(IDENT, [UserMessage("a").to_dict()])
    assert sorted(os.listdir(tmp_path)) == [f".{IDENT.key}.lock", IDENT.key + ".jsonl"]
    backend.delete(IDENT)
    assert os.listdir(tmp_path) == []
    backend.append(IDENT, [UserMessage("b").to_dict()])  # a fresh lock file is taken
    assert [r["content"] for r in backend.load(IDENT) or []] == ["b"]


def test_a_rewrite_by_one_writer_still_removes_and_replaces(tmp_path: Path) -> None:
    backend = JsonFileBackend(tmp_path, fsync=False)
    storage = ChatHistoryStorage(backend, IDENT)
    for i in range(4):
        storage.add_message(UserMessage(f"m{i}"))
    storage.save()
    first, second = storage.messages()[:2]
    storage.remove(first.id)
    storage.replace(second.id, second.with_content("changed"))
    storage.add_message(UserMessage("m4"))
    assert storage.save()
    texts = [m.text for m in ChatHistoryStorage(backend, IDENT).messages()]
    assert texts == ["changed", "m2", "m3", "m4"]


def _strip_revision(path: Path) -> None:
    """Rewrite the header without its revision, as files written before revisions were."""
    lines = path.read_bytes().split(b"\n")
    header = json.loads(lines[0])
    del header["revision"]
    lines[0] = json.dumps(header, separators=(",", ":")).encode("ascii")
    path.write_bytes(b"\n".join(lines))


def test_a_file_from_before_revisions_loads_and_takes_rewrites(tmp_path: Path) -> None:
    backend = JsonFileBackend(tmp_path, fsync=False)
    storage = ChatHistoryStorage(backend, IDENT)
    storage.add_message(UserMessage("old"))
    storage.save()
    path = Path(backend.path_of(IDENT))
    _strip_revision(path)
    records, revision = backend.load_versioned(IDENT)
    assert records is not None
    assert type(revision) is str
    assert backend.load_versioned(IDENT)[1] == revision  # the same file, the same revision
    again = ChatHistoryStorage(backend, IDENT)
    first = again.messages()[0]
    again.replace(first.id, first.with_content("edited"))
    assert again.save()
    assert "revision" in json.loads(path.read_bytes().split(b"\n")[0])


def test_an_older_writers_rewrite_is_a_conflict_too(tmp_path: Path) -> None:
    backend = JsonFileBackend(tmp_path, fsync=False)
    mine = ChatHistoryStorage(backend, IDENT)
    mine.add_message(UserMessage("a"))
    mine.save()
    path = Path(backend.path_of(IDENT))
    _strip_revision(path)
    mine.reload()
    # An older library appends (rewriting the file without a revision).
    theirs = ChatHistoryStorage(backend, IDENT)
    theirs.add_message(UserMessage("theirs"))
    theirs.save()
    _strip_revision(path)
    mine.clear()
    with pytest.raises(ConflictError):
        mine.save()
    assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == ["a", "theirs"]
