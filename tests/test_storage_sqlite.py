"""SQLiteBackend: schema and migrations, one row per message, corruption, processes."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from messages import Message, StorageError, UserMessage
from messages.storage import ChatHistoryStorage, SessionIdentity, SQLiteBackend
from messages.storage.sqlite import _MIGRATIONS, SCHEMA_VERSION
from tests.conftest import SECRET

ROOT = Path(__file__).resolve().parent.parent
IDENT = SessionIdentity("bot", "chat")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "chats.sqlite"


@pytest.fixture
def backend(db: Path) -> Iterator[SQLiteBackend]:
    with SQLiteBackend(db, fsync=False) as b:
        yield b


def _sql(db: Path, *statements: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        rows: list[tuple[object, ...]] = []
        for s in statements:
            rows = conn.execute(s).fetchall()
        return rows
    finally:
        conn.close()


# -- schema ----------------------------------------------------------------------------


def test_new_database_gets_the_current_schema_and_wal(backend: SQLiteBackend, db: Path) -> None:
    assert backend.schema_version() == SCHEMA_VERSION == 2
    assert _sql(db, "SELECT version FROM schema_version") == [(2,)]
    tables = {r[0] for r in _sql(db, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"schema_version", "sessions", "messages"}
    assert _sql(db, "PRAGMA journal_mode") == [("wal",)]


def test_opening_twice_does_not_migrate_again(db: Path) -> None:
    for _ in range(2):
        with SQLiteBackend(db) as b:
            b.save(IDENT, [{"role": "user", "content": "x"}])
    assert _sql(db, "SELECT count(*) FROM schema_version") == [(1,)]


def test_empty_file_is_migrated_from_version_zero(db: Path) -> None:
    db.write_bytes(b"")
    with SQLiteBackend(db) as b:
        assert b.schema_version() == SCHEMA_VERSION
        assert b.load(IDENT) is None


def test_a_version_1_database_is_migrated_and_keeps_its_sessions(db: Path) -> None:
    # Version 1 as the previous release created it, with one session in it.
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        for statement in _MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO schema_version VALUES (1)")
        conn.execute(
            "INSERT INTO sessions VALUES (?, ?, NULL, ?, 0)",
            (IDENT.key, json.dumps(IDENT.agent), json.dumps(IDENT.session)),
        )
        conn.execute(
            "INSERT INTO messages VALUES (?, 0, 'm0', ?)",
            (IDENT.key, '{"id":"m0","role":"user","content":"old"}'),
        )
    finally:
        conn.close()
    with SQLiteBackend(db) as b:
        assert b.schema_version() == 2
        records, revision = b.load_versioned(IDENT)
        assert records == [{"id": "m0", "role": "user", "content": "old"}]
        assert revision == 0
        storage = ChatHistoryStorage(b, IDENT)
        storage.add_message(UserMessage("new"))
        storage.save()
        first = storage.messages()[0]
        storage.replace(first.id, first.with_content("edited"))
        assert storage.save()  # a rewrite against the migrated revision goes through
        assert [m.text for m in ChatHistoryStorage(b, IDENT).messages()] == ["edited", "new"]
        assert b.list_sessions(IDENT.agent, IDENT.scope) == [IDENT]
    assert _sql(db, "SELECT version FROM schema_version") == [(2,)]


def test_a_newer_schema_is_refused(db: Path) -> None:
    with SQLiteBackend(db) as b:
        b.schema_version()
    _sql(db, "UPDATE schema_version SET version = 99")
    with SQLiteBackend(db) as b, pytest.raises(StorageError, match="schema version 99 is newer"):
        b.load(IDENT)


def test_a_corrupt_version_table_is_refused(db: Path) -> None:
    _sql(db, "CREATE TABLE schema_version (version INTEGER NOT NULL)")
    _sql(db, "INSERT INTO schema_version VALUES (1)", "INSERT INTO schema_version VALUES (1)")
    with SQLiteBackend(db) as b, pytest.raises(StorageError, match="schema_version"):
        b.load(IDENT)


def test_a_file_that_is_not_a_database_gives_storage_error(db: Path) -> None:
    db.write_bytes(b"this is not a database " * 100)
    with SQLiteBackend(db) as b, pytest.raises(StorageError, match="open the database"):
        b.load(IDENT)


def test_memory_database_works() -> None:
    with SQLiteBackend(":memory:") as b:
        b.save(IDENT, [{"role": "user", "content": "hi"}])
        assert b.load(IDENT) == [{"role": "user", "content": "hi"}]


# -- one row per message ------------------------------------------------------------------


def test_one_row_per_message_with_its_id(backend: SQLiteBackend, db: Path) -> None:
    records = [Message.user(f"m{i}").to_dict() for i in range(3)]
    backend.save(IDENT, records)
    rows = _sql(db, "SELECT key, seq, msg_id FROM messages ORDER BY seq")
    assert rows == [(IDENT.key, i, r["id"]) for i, r in enumerate(records)]


def _count_writes(db: Path) -> None:
    _sql(
        db,
        "CREATE TABLE writes (op TEXT)",
        "CREATE TRIGGER ins AFTER INSERT ON messages BEGIN INSERT INTO writes VALUES ('i'); END",
        "CREATE TRIGGER del AFTER DELETE ON messages BEGIN INSERT INTO writes VALUES ('d'); END",
        "CREATE TRIGGER upd AFTER UPDATE ON messages BEGIN INSERT INTO writes VALUES ('u'); END",
    )


def _writes(db: Path) -> list[str]:
    return [str(r[0]) for r in _sql(db, "SELECT op FROM writes")]


def test_an_append_writes_one_row_not_the_session(backend: SQLiteBackend, db: Path) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    for i in range(200):
        storage.add_message(UserMessage(f"m{i}"))
    assert storage.save()
    _count_writes(db)
    storage.add_message(UserMessage("one more"))
    assert storage.save()
    assert _writes(db) == ["i"]
    assert _sql(db, "SELECT count(*) FROM messages") == [(201,)]


def test_a_removal_rewrites_the_session(backend: SQLiteBackend, db: Path) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    for i in range(5):
        storage.add_message(UserMessage(f"m{i}"))
    storage.save()
    _count_writes(db)
    storage.remove(storage.messages()[0].id)
    assert storage.save()
    assert sorted(_writes(db)) == ["d"] * 5 + ["i"] * 4
    assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == [
        "m1",
        "m2",
        "m3",
        "m4",
    ]


def test_an_unchanged_save_writes_nothing(backend: SQLiteBackend, db: Path) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    storage.add_message(UserMessage("m"))
    storage.save()
    _count_writes(db)
    fresh = ChatHistoryStorage(backend, IDENT)
    assert len(fresh) == 1
    assert not fresh.save()
    assert not storage.save()
    assert _writes(db) == []


def test_append_to_a_session_that_was_never_saved_creates_it(backend: SQLiteBackend) -> None:
    backend.append(IDENT, [{"role": "user", "content": "a"}])
    backend.append(IDENT, [{"role": "user", "content": "b"}])
    assert backend.load(IDENT) == [
        {"role": "user", "content": "a"},
        {"role": "user", "content": "b"},
    ]
    assert backend.list_sessions("bot") == [IDENT]


# -- corruption -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"role": "user", "content": "cut', "invalid JSON"),
        ("[1, 2]", "expected a JSON object for a message, got array"),
        ("42", "expected a JSON object for a message, got integer"),
        ('{"role": "user"', "invalid JSON"),
        ("", "invalid JSON"),
    ],
)
def test_a_malformed_row_names_session_and_position(
    backend: SQLiteBackend, db: Path, body: str, message: str
) -> None:
    records = [Message.user(f"{SECRET} {i}").to_dict() for i in range(4)]
    backend.save(IDENT, records)
    _sql(db, f"UPDATE messages SET body = '{body}' WHERE seq = 2")
    with pytest.raises(StorageError) as info:
        backend.load(IDENT)
    assert info.value.path == f"session {IDENT.key} messages[2]"
    assert message in info.value.message
    assert SECRET not in str(info.value)


@pytest.mark.parametrize(
    "value",
    ["CAST(x'ff00' AS BLOB)", "7", "3.5"],
)
def test_a_row_of_the_wrong_type_gives_storage_error(
    backend: SQLiteBackend, db: Path, value: str
) -> None:
    backend.save(IDENT, [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    _sql(db, f"UPDATE messages SET body = {value} WHERE seq = 1")
    with pytest.raises(StorageError) as info:
        backend.load(IDENT)
    assert info.value.path == f"session {IDENT.key} messages[1]"


@pytest.mark.parametrize(
    ("field", "path"),
    [
        ('{"role": "wizard", "content": "x"}', "messages[1].role"),
        ('{"role": "user"}', "messages[1]"),
        ('{"role": "user", "content": 5}', "messages[1].content"),
        ('{"role": "tool", "content": "x"}', "messages[1]"),
    ],
)
def test_a_row_that_is_not_a_message_gives_storage_error(
    backend: SQLiteBackend, db: Path, field: str, path: str
) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    storage.add_message(UserMessage(SECRET))
    storage.add_message(UserMessage(SECRET))
    storage.save()
    _sql(db, f"UPDATE messages SET body = '{field}' WHERE seq = 1")
    with pytest.raises(StorageError) as info:
        ChatHistoryStorage(backend, IDENT).messages()
    assert info.value.path.startswith(f"session {IDENT.key} {path}")
    assert SECRET not in str(info.value)


def test_a_corrupt_session_name_gives_storage_error(backend: SQLiteBackend, db: Path) -> None:
    backend.save(IDENT, [])
    _sql(db, "UPDATE sessions SET session = 'not json'")
    with pytest.raises(StorageError, match="corrupt session name"):
        backend.list_sessions("bot")


def test_lone_surrogates_in_names_and_text_survive(backend: SQLiteBackend) -> None:
    ident = SessionIdentity("\ud800bot", "chat\udfff", "\ud83d")
    storage = ChatHistoryStorage(backend, ident)
    storage.add_message(UserMessage("half an emoji \ud83d here"))
    storage.save()
    assert ChatHistoryStorage(backend, ident).messages()[0].text == "half an emoji \ud83d here"
    assert backend.list_sessions("\ud800bot", "\ud83d") == [ident]


def test_a_body_that_is_not_utf8_names_session_and_position_never_the_content(
    backend: SQLiteBackend, db: Path
) -> None:
    records = [Message.user(f"{SECRET} {i}").to_dict() for i in range(4)]
    backend.save(IDENT, records)
    body = json.dumps(records[2]).encode("ascii").replace(b"SENTINEL", b"SENTINEL\xff")
    _sql(db, f"UPDATE messages SET body = CAST(x'{body.hex()}' AS TEXT) WHERE seq = 2")
    with pytest.raises(StorageError) as info:
        backend.load(IDENT)
    assert info.value.path == f"session {IDENT.key} messages[2]"
    assert "UTF-8" in info.value.message
    assert SECRET not in str(info.value)
    assert "SENTINEL" not in str(info.value)


def test_a_session_name_that_is_not_utf8_gives_storage_error(
    backend: SQLiteBackend, db: Path
) -> None:
    backend.save(IDENT, [])
    _sql(db, f"UPDATE sessions SET session = CAST(x'22{SECRET.encode().hex()}ff22' AS TEXT)")
    with pytest.raises(StorageError) as info:
        backend.list_sessions("bot")
    assert "corrupt session name" in str(info.value)
    assert SECRET not in str(info.value)


@pytest.mark.parametrize("missing", [0, 1, 3])
def test_a_deleted_row_is_a_storage_error_not_a_shorter_session(
    backend: SQLiteBackend, db: Path, missing: int
) -> None:
    backend.save(IDENT, [Message.user(f"m{i}").to_dict() for i in range(5)])
    _sql(db, f"DELETE FROM messages WHERE seq = {missing}")
    with pytest.raises(StorageError) as info:
        backend.load(IDENT)
    assert info.value.path == f"session {IDENT.key} messages[{missing}]"
    assert "missing" in info.value.message


def test_rows_stay_numbered_without_gaps_across_appends_and_rewrites(
    backend: SQLiteBackend, db: Path
) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    for i in range(6):
        storage.add_message(UserMessage(f"m{i}"))
        storage.save()
    storage.remove(storage.messages()[2].id)
    storage.save()
    storage.add_message(UserMessage("m6"))
    storage.save()
    assert _sql(db, "SELECT seq FROM messages ORDER BY seq") == [(i,) for i in range(6)]
    assert len(ChatHistoryStorage(backend, IDENT).messages()) == 6


@pytest.mark.parametrize(
    ("statements", "missing"),
    [
        ([], "no sessions table"),
        (
            [
                "CREATE TABLE sessions (key TEXT PRIMARY KEY, agent TEXT, scope TEXT,"
                " session TEXT, updated_at REAL)"
            ],
            "sessions table has no revision column",
        ),
        (
            [
                "CREATE TABLE sessions (key TEXT PRIMARY KEY, agent TEXT, scope TEXT,"
                " session TEXT, updated_at REAL, revision INTEGER)"
            ],
            "no messages table",
        ),
        (
            [
                "CREATE TABLE sessions (key TEXT PRIMARY KEY, agent TEXT, scope TEXT,"
                " session TEXT, updated_at REAL, revision INTEGER)",
                "CREATE TABLE messages (key TEXT, seq INTEGER, msg_id TEXT)",
            ],
            "messages table has no body column",
        ),
    ],
)
def test_a_database_claiming_the_version_without_its_tables_is_refused(
    db: Path, statements: list[str], missing: str
) -> None:
    _sql(
        db,
        "CREATE TABLE schema_version (version INTEGER NOT NULL)",
        f"INSERT INTO schema_version VALUES ({SCHEMA_VERSION})",
        *statements,
    )
    with SQLiteBackend(db) as b, pytest.raises(StorageError, match=missing):
        b.load(IDENT)


def _unprivileged(fn: Callable[[], object]) -> Any:
    """``fn()``, run without root's power to ignore file modes (in a child if root)."""
    if os.geteuid() != 0:
        return fn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)  # nobody
            try:
                result: object = ("ok", fn())
            except Exception as exc:
                result = ("error", type(exc).__name__, str(exc))
            os.write(write, json.dumps(result).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return json.loads(data)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs POSIX file modes")
@pytest.mark.parametrize("read_only_directory", [False, True])
def test_a_read_only_database_can_be_loaded(read_only_directory: bool) -> None:
    # Not tmp_path: an unprivileged child must be able to reach the file.
    directory = Path(tempfile.mkdtemp(prefix="ro-sqlite-"))
    try:
        directory.chmod(0o777)
        db = directory / "chats.sqlite"
        with SQLiteBackend(db) as b:
            storage = ChatHistoryStorage(b, IDENT)
            storage.add_message(UserMessage("kept"))
            storage.save()
        db.chmod(0o444)
        if read_only_directory:
            directory.chmod(0o555)

        def load_then_write() -> list[str]:
            with SQLiteBackend(db) as b:
                texts = [m.text for m in ChatHistoryStorage(b, IDENT).messages()]
                try:
                    b.append(IDENT, [{"role": "user", "content": "more"}])
                except StorageError as exc:
                    texts.append(str(exc))
            return texts

        got = _unprivileged(load_then_write)
        if os.geteuid() == 0:
            assert got[0] == "ok", got
            got = got[1]
        assert isinstance(got, list)
        assert got[0] == "kept"
        assert len(got) == 2
        assert "cannot append to the session" in got[1]
    finally:
        directory.chmod(0o755)
        shutil.rmtree(directory)


# -- threads and processes ------------------------------------------------------------------


def test_two_backends_in_threads_append_without_loss(db: Path) -> None:
    def work(n: int) -> None:
        with SQLiteBackend(db, fsync=False) as b:
            storage = ChatHistoryStorage(b, IDENT)
            for i in range(100):
                storage.add_message(UserMessage(f"t{n}-{i}"))
                storage.save()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with SQLiteBackend(db) as b:
        texts = [m.text for m in ChatHistoryStorage(b, IDENT).messages()]
    assert len(texts) == 300
    for n in range(3):
        assert [t for t in texts if t.startswith(f"t{n}-")] == [f"t{n}-{i}" for i in range(100)]


APPENDER = """
import sys
import time
from messages import UserMessage
from messages.storage import ChatHistoryStorage, SessionIdentity

name, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with ChatHistoryStorage.sqlite(path, SessionIdentity("bot", "chat")) as storage:
    len(storage)  # opened and loaded
    print("ready", flush=True)
    sys.stdin.readline()  # start together
    for i in range(count):
        storage.add_message(UserMessage(f"{name}-{i}"))
        storage.save()
        time.sleep(0.001)  # an agent does some work between turns; lets the other interleave
"""


def test_two_processes_appending_and_saving_lose_nothing(db: Path) -> None:
    count = 300
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", APPENDER, name, str(db), str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd=ROOT,
        )
        for name in ("a", "b")
    ]
    for p in procs:
        assert p.stdout is not None
        assert p.stdout.readline() == b"ready\n"
        p.stdout.close()
    for p in procs:
        assert p.stdin is not None
        p.stdin.write(b"go\n")
        p.stdin.close()
    for p in procs:
        assert p.wait(timeout=60) == 0
    with SQLiteBackend(db) as b:
        msgs = ChatHistoryStorage(b, IDENT).messages()
    texts = [m.text for m in msgs]
    assert len(texts) == 2 * count
    assert len({m.id for m in msgs}) == 2 * count
    for name in ("a", "b"):
        assert [t for t in texts if t.startswith(f"{name}-")] == [
            f"{name}-{i}" for i in range(count)
        ]
    # Both really ran at the same time: their messages interleave.
    firsts = [t[0] for t in texts]
    assert firsts != sorted(firsts)


def test_a_forked_child_opens_its_own_connection(db: Path) -> None:
    if not hasattr(os, "fork"):
        pytest.skip("needs fork")
    with SQLiteBackend(db, fsync=False) as b:
        b.save(IDENT, [{"role": "user", "content": "parent"}])
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            code = 1
            try:
                b.append(IDENT, [{"role": "user", "content": "child"}])
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert b.load(IDENT) == [
            {"role": "user", "content": "parent"},
            {"role": "user", "content": "child"},
        ]
