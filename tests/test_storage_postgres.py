"""PostgresBackend against a real server: schema and migrations, rows, the connection kinds
(DSN, connection, pool, sync and async), corruption, lost connections and forks."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import psycopg_pool
import pytest

from messages import StorageError, UserMessage, ValidationError
from messages.storage import (
    AsyncBackend,
    AsyncChatHistoryStorage,
    ChatHistoryStorage,
    ConflictError,
    PostgresBackend,
    SessionIdentity,
)
from messages.storage.postgres import _MIGRATIONS, SCHEMA_VERSION
from tests.conftest import SECRET
from tests.storage_backends import drop_tables, fresh_prefix

ROOT = Path(__file__).resolve().parent.parent
IDENT = SessionIdentity("bot", "chat", "user-1")


@pytest.fixture
def prefix(postgres_dsn: str) -> Iterator[str]:
    p = fresh_prefix()
    yield p
    drop_tables(postgres_dsn, p)


@pytest.fixture
def backend(postgres_dsn: str, prefix: str) -> Iterator[PostgresBackend]:
    with PostgresBackend(postgres_dsn, table_prefix=prefix) as b:
        yield b


def sql(dsn: str, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        cur = conn.execute(statement, params)
        return cur.fetchall() if cur.description else []


def rec(text: str) -> dict[str, Any]:
    return {"id": text, "role": "user", "content": text}


# -- the package keeps psycopg optional --------------------------------------------------


def test_importing_the_package_does_not_import_psycopg() -> None:
    code = (
        "import sys, messages, messages.storage\n"
        "from messages.storage import ChatHistoryStorage, AsyncChatHistoryStorage, SQLiteBackend\n"
        "assert 'psycopg' not in sys.modules, 'psycopg imported'\n"
        "assert 'messages.storage.postgres' not in sys.modules\n"
        "from messages.storage import PostgresBackend\n"
        "assert 'psycopg' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_without_psycopg_the_error_names_the_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules['psycopg'] = None  # as if not installed\n"
        "from messages import storage\n"
        "try:\n"
        "    storage.PostgresBackend\n"
        "except ImportError as exc:\n"
        "    assert exc.name == 'psycopg', exc.name\n"
        '    assert "llm-messages[postgres]" in str(exc), str(exc)\n'
        "else:\n"
        "    raise SystemExit('no ImportError')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# -- schema -----------------------------------------------------------------------------


def test_a_new_database_gets_the_schema_with_its_keys_and_indexes(
    backend: PostgresBackend, postgres_dsn: str, prefix: str
) -> None:
    assert backend.schema_version() == SCHEMA_VERSION == 1
    tables = {
        r[0]
        for r in sql(
            postgres_dsn,
            "SELECT tablename FROM pg_tables WHERE tablename LIKE %s",
            (prefix.replace("_", r"\_") + "%",),
        )
    }
    assert tables == {f"{prefix}{t}" for t in ("sessions", "messages", "schema_version")}
    indexes = {
        r[0]: r[1]
        for r in sql(
            postgres_dsn,
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN (%s, %s)",
            (f"{prefix}sessions", f"{prefix}messages"),
        )
    }
    assert "UNIQUE" in indexes[f"{prefix}sessions_identity"]
    assert "(agent, COALESCE(scope, ''::text), session)" in indexes[f"{prefix}sessions_identity"]
    assert "(session_id, seq)" in indexes[f"{prefix}messages_pkey"]
    assert "(key)" in indexes[f"{prefix}sessions_key"]
    # One unique index per table besides the primary keys: the one ON CONFLICT
    # arbitrates on, so writers creating one session together merge (see below).
    assert [n for n, d in indexes.items() if "UNIQUE" in d and not n.endswith("_pkey")] == [
        f"{prefix}sessions_identity"
    ]
    assert sql(postgres_dsn, f"SELECT version FROM {prefix}schema_version") == [(1,)]


def test_processes_opening_a_new_database_together_migrate_once(
    postgres_dsn: str, prefix: str
) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def open_one() -> None:
        try:
            with PostgresBackend(postgres_dsn, table_prefix=prefix) as b:
                start.wait()
                b.append(IDENT, [rec(f"m{threading.get_ident()}")])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sql(postgres_dsn, f"SELECT version FROM {prefix}schema_version") == [(1,)]
    assert sql(postgres_dsn, f"SELECT count(*) FROM {prefix}messages") == [(6,)]


def test_a_database_at_the_current_version_is_only_read(
    backend: PostgresBackend, postgres_dsn: str, prefix: str
) -> None:
    backend.save(IDENT, [rec("a")])
    reader = f"reader_{os.getpid()}"
    sql(postgres_dsn, f"DROP ROLE IF EXISTS {reader}")
    sql(postgres_dsn, f"CREATE ROLE {reader} LOGIN")
    try:
        sql(postgres_dsn, f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {reader}")
        dsn = postgres_dsn.replace("user=postgres", f"user={reader}")
        with PostgresBackend(dsn, table_prefix=prefix) as b:
            assert b.load(IDENT) == [rec("a")]
            with pytest.raises(StorageError, match=r"cannot append .*InsufficientPrivilege"):
                b.append(IDENT, [rec("b")])
    finally:
        sql(postgres_dsn, f"DROP OWNED BY {reader}")
        sql(postgres_dsn, f"DROP ROLE {reader}")


def test_a_newer_schema_is_refused(
    backend: PostgresBackend, postgres_dsn: str, prefix: str
) -> None:
    backend.schema_version()
    sql(postgres_dsn, f"UPDATE {prefix}schema_version SET version = 99")
    with (
        PostgresBackend(postgres_dsn, table_prefix=prefix) as b,
        pytest.raises(StorageError, match="schema version 99 is newer"),
    ):
        b.load(IDENT)


def test_a_corrupt_version_table_is_refused(postgres_dsn: str, prefix: str) -> None:
    sql(postgres_dsn, f"CREATE TABLE {prefix}schema_version (version integer)")
    sql(postgres_dsn, f"INSERT INTO {prefix}schema_version VALUES (1), (1)")
    with (
        PostgresBackend(postgres_dsn, table_prefix=prefix) as b,
        pytest.raises(StorageError, match="schema_version table is corrupt"),
    ):
        b.load(IDENT)


def test_a_database_claiming_the_version_without_its_tables_is_refused(
    postgres_dsn: str, prefix: str
) -> None:
    sql(postgres_dsn, f"CREATE TABLE {prefix}schema_version (version integer)")
    sql(postgres_dsn, f"INSERT INTO {prefix}schema_version VALUES ({SCHEMA_VERSION})")
    with (
        PostgresBackend(postgres_dsn, table_prefix=prefix) as b,
        pytest.raises(StorageError, match=f"has no {prefix}sessions table"),
    ):
        b.load(IDENT)
    sql(postgres_dsn, _MIGRATIONS[0][1].replace("{p}", prefix).replace("prev_revision bigint,", ""))
    with (
        PostgresBackend(postgres_dsn, table_prefix=prefix) as b,
        pytest.raises(StorageError, match="sessions table has no prev_revision column"),
    ):
        b.load(IDENT)


@pytest.mark.parametrize("bad", ["", "Messages_", "1x_", "a-b", "a b", "x" * 41, "a;drop", 3])
def test_a_bad_table_prefix_is_refused(bad: Any, postgres_dsn: str) -> None:
    with pytest.raises(ValidationError) as info:
        PostgresBackend(postgres_dsn, table_prefix=bad)
    assert info.value.path == "table_prefix"


@pytest.mark.parametrize("bad", [None, 42, b"host=x", object()])
def test_a_bad_source_is_refused(bad: Any) -> None:
    with pytest.raises(ValidationError) as info:
        PostgresBackend(bad)
    assert info.value.path == "dsn_or_connection"


def test_two_prefixes_in_one_database_are_separate_stores(postgres_dsn: str) -> None:
    p1, p2 = fresh_prefix(), fresh_prefix()
    try:
        with (
            PostgresBackend(postgres_dsn, table_prefix=p1) as a,
            PostgresBackend(postgres_dsn, table_prefix=p2) as b,
        ):
            a.save(IDENT, [rec("a")])
            assert b.load(IDENT) is None
            b.save(IDENT, [rec("b")])
            assert a.load(IDENT) == [rec("a")]
    finally:
        drop_tables(postgres_dsn, p1)
        drop_tables(postgres_dsn, p2)


def test_the_default_prefix_in_a_schema_of_its_own(postgres_dsn: str) -> None:
    schema = f"s{os.getpid()}"
    sql(postgres_dsn, f"CREATE SCHEMA {schema}")
    try:
        dsn = f"{postgres_dsn} options='-c search_path={schema}'"
        with PostgresBackend(dsn) as b:
            b.save(IDENT, [rec("a")])
            assert b.table_prefix == "messages_"
        assert sql(postgres_dsn, f"SELECT count(*) FROM {schema}.messages_messages") == [(1,)]
    finally:
        sql(postgres_dsn, f"DROP SCHEMA {schema} CASCADE")


# -- rows -------------------------------------------------------------------------------


def test_one_row_per_message_queryable_by_hand(
    backend: PostgresBackend, postgres_dsn: str, prefix: str
) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    storage.add_message(UserMessage("h\u00e9llo", id="m1"))
    storage.save()
    rows = sql(
        postgres_dsn,
        f"SELECT s.agent, s.scope, s.session, m.seq, m.msg_id, m.body->>'role',"
        f" m.body->>'content' FROM {prefix}messages m JOIN {prefix}sessions s ON s.id = m.session_id",
    )
    assert rows == [('"bot"', '"user-1"', '"chat"', 0, "m1", "user", "h\u00e9llo")]


def test_an_append_adds_rows_and_leaves_the_others_alone(
    backend: PostgresBackend, postgres_dsn: str, prefix: str
) -> None:
    backend.save(IDENT, [rec("a"), rec("b")])
    before = sql(postgres_dsn, f"SELECT ctid, seq FROM {prefix}messages ORDER BY seq")
    backend.append(IDENT, [rec("c")])
    after = sql(postgres_dsn, f"SELECT ctid, seq FROM {prefix}messages ORDER BY seq")
    assert after[:2] == before  # the same physical rows: nothing was rewritten
    assert [r[1] for r in after] == [0, 1, 2]


def test_a_rewrite_numbers_its_rows_after_the_old_ones(
    backend: PostgresBackend, postgres_dsn: str, prefix: str
) -> None:
    backend.save(IDENT, [rec("a"), rec("b")])
    _, revision = backend.load_versioned(IDENT)
    backend.save_versioned(IDENT, [rec("b")], revision)
    assert sql(postgres_dsn, f"SELECT seq, msg_id FROM {prefix}messages") == [(2, "b")]
    assert backend.load(IDENT) == [rec("b")]


def test_odd_ids_and_names_are_stored_exactly(
    backend: PostgresBackend, postgres_dsn: str, prefix: str
) -> None:
    ident = SessionIdentity("a\x00\ud800", "s\u00e9\x00", "\udfff")
    records = [
        {"id": "nul\x00", "role": "user", "content": "\x00"},
        {"id": "lone\ud800", "role": "user", "content": "\ud800"},
        {"id": "\u00e9", "role": "user", "content": "\U0001f600"},
    ]
    backend.save(ident, records)
    assert backend.load(ident) == records
    assert backend.list_sessions(ident.agent, ident.scope) == [ident]
    ids = sql(postgres_dsn, f"SELECT msg_id FROM {prefix}messages ORDER BY seq")
    assert ids == [(None,), (None,), ("\u00e9",)]


def test_a_deleted_row_is_a_storage_error_not_a_shorter_session(
    backend: PostgresBackend, postgres_dsn: str, prefix: str
) -> None:
    backend.save(IDENT, [rec("a"), rec("b"), rec("c")])
    sql(postgres_dsn, f"DELETE FROM {prefix}messages WHERE seq = 1")
    with pytest.raises(StorageError) as info:
        backend.load(IDENT)
    assert info.value.path == f"session {IDENT.key} messages[1]"
    sql(postgres_dsn, f"DELETE FROM {prefix}messages WHERE seq = 2")
    with pytest.raises(StorageError, match="should hold 3 messages but 1 are stored"):
        backend.load(IDENT)


def test_a_row_that_is_not_a_message_names_its_position_never_its_content(
    backend: PostgresBackend, postgres_dsn: str, prefix: str
) -> None:
    backend.save(IDENT, [rec("a"), rec("b")])
    sql(
        postgres_dsn,
        f"UPDATE {prefix}messages SET body = %s::json WHERE seq = 1",
        (f'["{SECRET}"]',),
    )
    with pytest.raises(StorageError) as info:
        backend.load(IDENT)
    assert info.value.path == f"session {IDENT.key} messages[1]"
    assert SECRET not in str(info.value)


def test_a_corrupt_session_name_gives_storage_error(
    backend: PostgresBackend, postgres_dsn: str, prefix: str
) -> None:
    backend.save(IDENT, [rec("a")])
    sql(postgres_dsn, f"UPDATE {prefix}sessions SET session = %s", (SECRET,))
    with pytest.raises(StorageError, match="corrupt session name") as info:
        backend.list_sessions("bot", "user-1")
    assert SECRET not in str(info.value)


def test_database_errors_name_the_failure_never_the_data(
    backend: PostgresBackend, postgres_dsn: str, prefix: str
) -> None:
    backend.save(IDENT, [rec("a")])
    sql(
        postgres_dsn, f"ALTER TABLE {prefix}messages ADD CHECK (body::text NOT LIKE '%%{SECRET}%%')"
    )
    with pytest.raises(StorageError) as info:
        backend.append(IDENT, [rec(SECRET)])
    assert str(info.value) == (
        f"session {IDENT.key}: cannot append to the session (CheckViolation: 23514)"
    )
    assert backend.load(IDENT) == [rec("a")]  # the statement changed nothing


def test_an_unreachable_server_gives_storage_error_without_the_password() -> None:
    dsn = f"host=127.0.0.1 port=1 user=x password={SECRET} connect_timeout=2"
    with PostgresBackend(dsn) as b, pytest.raises(StorageError) as info:
        b.load(IDENT)
    assert "cannot connect to the database (OperationalError" in str(info.value)
    assert SECRET not in str(info.value)


def test_a_lost_connection_is_reopened(backend: PostgresBackend, postgres_dsn: str) -> None:
    backend.save(IDENT, [rec("a")])
    pid = sql(
        postgres_dsn,
        "SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
        " AND backend_type = 'client backend' AND usename = 'postgres'"
        " AND query LIKE %s",
        ("%sessions%",),
    )
    assert pid
    for (p,) in pid:
        sql(postgres_dsn, "SELECT pg_terminate_backend(%s)", (p,))
    with pytest.raises(StorageError, match=r"cannot read the session \(AdminShutdown: 57P01\)"):
        backend.load(IDENT)  # the statement that finds the connection gone
    assert backend.load(IDENT) == [rec("a")]  # the next one opens another


# -- the connection kinds ---------------------------------------------------------------


def test_a_connection_in_autocommit_mode(postgres_dsn: str, prefix: str) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        b = PostgresBackend(conn, table_prefix=prefix)
        b.save(IDENT, [rec("a")])
        b.close()  # not ours to close
        assert not conn.closed
        assert b.load(IDENT) == [rec("a")]
    with PostgresBackend(postgres_dsn, table_prefix=prefix) as other:
        assert other.load(IDENT) == [rec("a")]


def test_a_connection_with_another_row_factory(postgres_dsn: str, prefix: str) -> None:
    from psycopg.rows import dict_row

    with psycopg.connect(postgres_dsn, autocommit=True, row_factory=dict_row) as conn:
        b = PostgresBackend(conn, table_prefix=prefix)
        b.save(IDENT, [rec("a")])
        assert b.load_versioned(IDENT)[0] == [rec("a")]
        assert b.list_sessions("bot", "user-1") == [IDENT]

    async def main() -> None:
        aconn = await psycopg.AsyncConnection.connect(postgres_dsn, row_factory=dict_row)
        async with aconn:
            b = PostgresBackend(aconn, table_prefix=prefix)
            assert (await b.aload_versioned(IDENT))[0] == [rec("a")]

    asyncio.run(main())


def test_a_connection_in_a_transaction_of_the_callers(postgres_dsn: str, prefix: str) -> None:
    with psycopg.connect(postgres_dsn) as conn:
        b = PostgresBackend(conn, table_prefix=prefix)
        b.schema_version()
        conn.commit()
        other = PostgresBackend(postgres_dsn, table_prefix=prefix)
        try:
            # Idle: each write is a transaction of its own, committed at once.
            b.save(IDENT, [rec("a")])
            assert other.load(IDENT) == [rec("a")]
            # Inside the caller's transaction: committed with it.
            with conn.transaction():
                b.append(IDENT, [rec("b")])
                assert other.load(IDENT) == [rec("a")]
            assert other.load(IDENT) == [rec("a"), rec("b")]
        finally:
            other.close()


def test_a_pool(postgres_dsn: str, prefix: str) -> None:
    with psycopg_pool.ConnectionPool(postgres_dsn, min_size=1, max_size=3) as pool:
        b = PostgresBackend(pool, table_prefix=prefix)
        threads = [
            threading.Thread(target=b.append, args=(IDENT, [rec(f"t{n}")])) for n in range(6)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        records = b.load(IDENT)
        assert records is not None
        assert sorted(r["id"] for r in records) == [f"t{n}" for n in range(6)]
        assert repr(b) == f"PostgresBackend(pool, table_prefix={prefix!r})"


def test_an_async_connection_serves_coroutines_only(postgres_dsn: str, prefix: str) -> None:
    async def main() -> None:
        async with await psycopg.AsyncConnection.connect(postgres_dsn, autocommit=True) as conn:
            b = PostgresBackend(conn, table_prefix=prefix)
            assert isinstance(b, AsyncBackend)
            storage = AsyncChatHistoryStorage(b, IDENT)
            await asyncio.gather(*(storage.add_message(UserMessage(f"m{i}")) for i in range(5)))
            assert await storage.save()
            assert await AsyncChatHistoryStorage(b, IDENT).len() == 5
            with pytest.raises(StorageError, match="async connection"):
                b.load(IDENT)
            await b.aclose()
            assert not conn.closed

    asyncio.run(main())


def test_an_async_pool(postgres_dsn: str, prefix: str) -> None:
    async def main() -> None:
        pool = psycopg_pool.AsyncConnectionPool(postgres_dsn, min_size=1, max_size=4, open=False)
        await pool.open()
        try:
            b = PostgresBackend(pool, table_prefix=prefix)
            storages = [AsyncChatHistoryStorage(b, IDENT.with_session(f"s{i}")) for i in range(8)]
            for s in storages:
                await s.add_message(UserMessage("hi"))
            assert all(await asyncio.gather(*(s.save() for s in storages)))
            assert len(await b.alist_sessions("bot", "user-1")) == 8
            with pytest.raises(StorageError, match="async pool"):
                b.list_sessions("bot", "user-1")
        finally:
            await pool.close()

    asyncio.run(main())


def test_a_sync_source_serves_coroutines_in_a_thread(postgres_dsn: str, prefix: str) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        b = PostgresBackend(conn, table_prefix=prefix)

        async def main() -> None:
            storage = AsyncChatHistoryStorage(b, IDENT)
            await storage.add_message(UserMessage("a"))
            await storage.save()
            assert await b.alist_sessions("bot", "user-1") == [IDENT]
            records, revision = await b.aload_versioned(IDENT)
            assert type(revision) is int
            with pytest.raises(ConflictError):
                await b.asave_versioned(IDENT, [], object())  # not a revision of this backend
            await b.adelete(IDENT)
            assert await b.aload_versioned(IDENT) == (None, None)
            assert records is not None

        asyncio.run(main())


def test_a_dsn_backend_works_across_event_loops(backend: PostgresBackend) -> None:
    async def add(text: str) -> int:
        storage = AsyncChatHistoryStorage(backend, IDENT)
        await storage.add_message(UserMessage(text))
        await storage.save()
        return await storage.len()

    assert asyncio.run(add("a")) == 1
    assert asyncio.run(add("b")) == 2  # a new loop: a new async connection, no warning
    assert [r["content"] for r in backend.load(IDENT) or []] == ["a", "b"]


def test_a_forked_child_never_touches_the_parents_connection(backend: PostgresBackend) -> None:
    if not hasattr(os, "fork"):
        pytest.skip("needs fork")
    backend.save(IDENT, [rec("parent")])
    parents = backend._conn
    assert parents is not None
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 1
        try:
            backend.append(IDENT, [rec("child")])  # a connection of its own
            parents.close()  # what a child's garbage collector or exit would do
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert backend._conn is parents
    assert not parents.closed
    assert backend.load(IDENT) == [rec("parent"), rec("child")]  # still connected


def test_repr_names_the_kind_never_the_dsn(postgres_dsn: str) -> None:
    b = PostgresBackend(f"{postgres_dsn} password={SECRET}")
    assert repr(b) == "PostgresBackend(dsn, table_prefix='messages_')"


def test_writers_creating_the_same_new_sessions_at_once_all_succeed(
    postgres_dsn: str, prefix: str
) -> None:
    # Every session is new: the writers' first appends race to create its row.
    writers, sessions = 6, 40
    backends = [PostgresBackend(postgres_dsn, table_prefix=prefix) for _ in range(writers)]
    for b in backends:
        b.schema_version()
    barriers = [threading.Barrier(writers) for _ in range(sessions)]
    errors: list[BaseException] = []

    def work(n: int, b: PostgresBackend) -> None:
        try:
            for s in range(sessions):
                barriers[s].wait()
                b.append(IDENT.with_session(f"s{s}"), [rec(f"w{n}")])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
            for barrier in barriers:
                barrier.abort()

    threads = [threading.Thread(target=work, args=(n, b)) for n, b in enumerate(backends)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        for s in range(sessions):
            records = backends[0].load(IDENT.with_session(f"s{s}"))
            assert records is not None
            assert sorted(r["id"] for r in records) == [f"w{n}" for n in range(writers)]
    finally:
        for b in backends:
            b.close()
