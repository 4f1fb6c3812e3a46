"""PostgresBackend: sessions in PostgreSQL, shared by every process on every machine.

Needs psycopg 3 (``pip install 'llm-messages[postgres]'``); nothing else in the
package imports this module, and ``messages.storage.PostgresBackend`` imports it on
first use. Give it a DSN (it opens its own connections, a sync one and an async
one per event loop, and reopens them after a fork or a lost connection), a
``psycopg.Connection`` / ``psycopg.AsyncConnection``, or a ``psycopg_pool``
``ConnectionPool`` / ``AsyncConnectionPool``. The sync methods need a DSN, a
connection or a pool; the ``a``-prefixed coroutines use an async source natively
and run a sync one in a worker thread. A connection you pass is used as it is:
in autocommit mode each write commits at once; otherwise each write is a
transaction block of its own (a savepoint inside a transaction you have open,
committed when you commit it).

Schema, version 1, in the connection's current schema, every name starting with
``table_prefix`` (default ``messages_``)::

    sessions(id bigint identity PRIMARY KEY, key text, agent text, scope text,
             session text, revision bigint, prev_revision bigint, first_seq bigint,
             next_seq bigint, created_at timestamptz, updated_at timestamptz)
      UNIQUE (agent, COALESCE(scope, ''), session)   -- finds a session, lists sessions
      INDEX (key)                                    -- for queries by hand
    messages(session_id bigint REFERENCES sessions ON DELETE CASCADE, seq bigint,
             msg_id text, body json, PRIMARY KEY (session_id, seq))  -- loads one session
    revisions                                               -- a sequence
    schema_version(version integer)

One row per message. ``agent`` / ``scope`` / ``session`` hold the names as JSON
strings and ``body`` the canonical message dict as compact ASCII JSON (as in
SQLite: PostgreSQL text cannot hold NUL or a lone surrogate, JSON escapes can),
so ``body->>'role'`` works in queries by hand. ``msg_id`` is the message's id
(NULL for an id PostgreSQL text cannot hold).

Order comes from the database, never from timestamps: the session row's
``next_seq`` hands out each message's ``seq``, in the same statement that inserts
the messages, so appends from any number of writers merge in the order they
commit. Each session holds the rows ``first_seq .. next_seq - 1`` with no gap (a
missing row is a StorageError on load, never a shorter session).

Every write gives the session a new ``revision`` from the ``revisions`` sequence
(never reused, even after a delete). A rewrite (``save_versioned``) is one
``UPDATE ... WHERE key = $1 AND revision = $expected`` that also deletes the old
rows and inserts the new ones (numbered after them, so old and new never
collide): when another writer got there first the update matches no row and
nothing changes (ConflictError). An append is one ``INSERT ... ON CONFLICT DO
UPDATE`` of the session row returning the revision it replaced, plus the message
rows. Loading is one statement, hence one snapshot. Every operation is one
round trip.

The schema is created or migrated on first use under an advisory lock, so
processes starting together migrate once; a database at the current version is
only read.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Sequence
from types import TracebackType
from typing import Any, TypeVar

try:
    import psycopg
    from psycopg.rows import tuple_row
except ImportError as _missing:  # pragma: no cover - only without the extra
    raise ImportError(
        "PostgresBackend needs psycopg 3: pip install 'llm-messages[postgres]'",
        name="psycopg",
    ) from _missing

from .._json import dumps_compact
from ..errors import StorageError, ValidationError
from ._backend import Record, Revision, conflict
from ._identity import SessionIdentity, by_session
from ._rows import decode_name, decode_row, encode_rows, where

__all__ = ["SCHEMA_VERSION", "PostgresBackend"]

_T = TypeVar("_T")
_PREFIX = re.compile(r"[a-z_][a-z0-9_]{0,39}\Z")

# Migration i (0-based) takes a database from version i to version i + 1. Never
# edit a released entry: add a new one. "{p}" is the table prefix.
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE SEQUENCE {p}revisions",
        "CREATE TABLE {p}sessions ("
        " id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
        " key text NOT NULL,"
        " agent text NOT NULL,"
        " scope text,"
        " session text NOT NULL,"
        " revision bigint NOT NULL,"
        " prev_revision bigint,"
        " first_seq bigint NOT NULL DEFAULT 0,"
        " next_seq bigint NOT NULL DEFAULT 0,"
        " created_at timestamptz NOT NULL DEFAULT now(),"
        " updated_at timestamptz NOT NULL DEFAULT now())",
        "CREATE UNIQUE INDEX {p}sessions_identity"
        " ON {p}sessions (agent, (COALESCE(scope, '')), session)",
        "CREATE INDEX {p}sessions_key ON {p}sessions (key)",
        "CREATE TABLE {p}messages ("
        " session_id bigint NOT NULL REFERENCES {p}sessions (id) ON DELETE CASCADE,"
        " seq bigint NOT NULL,"
        " msg_id text,"
        " body json NOT NULL,"
        " PRIMARY KEY (session_id, seq))",
    ),
)
SCHEMA_VERSION = len(_MIGRATIONS)
"""The schema version this library writes."""

#: What a database at the current version must hold: table -> its columns.
_TABLES = {
    "sessions": (
        "id",
        "key",
        "agent",
        "scope",
        "session",
        "revision",
        "prev_revision",
        "first_seq",
        "next_seq",
    ),
    "messages": ("session_id", "seq", "msg_id", "body"),
}

# The message rows of a write: numbered from s.start, in the order given.
_INSERT_ROWS = (
    "m AS (INSERT INTO {p}messages (session_id, seq, msg_id, body)"
    " SELECT s.id, s.start + r.ord - 1, r.msg_id, r.body::json"
    " FROM s, unnest(%(ids)s::text[], %(bodies)s::text[]) WITH ORDINALITY AS r(msg_id, body, ord))"
)
# A session is found by its identity columns, under their unique index: the one
# index an insert can race on, so ON CONFLICT settles every race between writers
# creating a session. (With a second unique index, on the key, two writers creating
# one session could collide there first: a unique violation instead of a merge.)
_WHO = "agent = %(agent)s AND COALESCE(scope, '') = %(scope_key)s AND session = %(session)s"
_IDENTITY = "(agent, (COALESCE(scope, '')), session)"
_APPEND = (
    "WITH s AS (INSERT INTO {p}sessions AS t (key, agent, scope, session, revision, next_seq)"
    " VALUES (%(key)s, %(agent)s, %(scope)s, %(session)s, nextval('{p}revisions'), %(n)s)"
    " ON CONFLICT " + _IDENTITY + " DO UPDATE SET prev_revision = t.revision,"
    " revision = EXCLUDED.revision, next_seq = t.next_seq + EXCLUDED.next_seq,"
    " updated_at = now()"
    " RETURNING t.id, t.next_seq - %(n)s AS start, t.revision, t.prev_revision), "
    + _INSERT_ROWS
    + " SELECT revision, prev_revision FROM s"
)
_REPLACE = (
    "WITH s AS (UPDATE {p}sessions SET prev_revision = revision,"
    " revision = nextval('{p}revisions'), first_seq = next_seq,"
    " next_seq = next_seq + %(n)s, updated_at = now()"
    " WHERE " + _WHO + " AND revision = %(expected)s"
    " RETURNING id, first_seq AS start, revision),"
    " d AS (DELETE FROM {p}messages USING s WHERE session_id = s.id AND seq < s.start), "
    + _INSERT_ROWS
    + " SELECT revision FROM s"
)
_CREATE = (
    "WITH s AS (INSERT INTO {p}sessions (key, agent, scope, session, revision, next_seq)"
    " VALUES (%(key)s, %(agent)s, %(scope)s, %(session)s, nextval('{p}revisions'), %(n)s)"
    " ON CONFLICT "
    + _IDENTITY
    + " DO NOTHING RETURNING id, first_seq AS start, revision), "
    + _INSERT_ROWS
    + " SELECT revision FROM s"
)
_LOAD = (
    "SELECT s.revision, s.first_seq, s.next_seq, m.seq, m.body::text"
    " FROM {p}sessions s LEFT JOIN {p}messages m"
    " ON m.session_id = s.id AND m.seq >= s.first_seq"
    " WHERE s.agent = %(agent)s AND COALESCE(s.scope, '') = %(scope_key)s"
    " AND s.session = %(session)s ORDER BY m.seq"
)
_REVISION = "SELECT revision FROM {p}sessions WHERE " + _WHO
_DELETE = "DELETE FROM {p}sessions WHERE " + _WHO
_LIST = "SELECT key, session FROM {p}sessions WHERE agent = %s AND COALESCE(scope, '') = %s"
#: Retries of an unconditional ``save`` racing other writers (each is one round trip).
_VERSION_EXISTS = "SELECT to_regclass(%s) IS NOT NULL"
_COLUMNS = (
    "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(%s)"
    " AND attnum > 0 AND NOT attisdropped"
)
_MIGRATE_LOCK = "SELECT pg_advisory_xact_lock(hashtext(%s))"
_VERSION_TABLE = "CREATE TABLE IF NOT EXISTS {p}schema_version (version integer NOT NULL)"
_READ_VERSION = "SELECT version FROM {p}schema_version"
_CLEAR_VERSION = "DELETE FROM {p}schema_version"
_WRITE_VERSION = "INSERT INTO {p}schema_version (version) VALUES (%s)"

#: Tries of an unconditional ``save`` racing other writers (each is one round trip).
_SAVE_TRIES = 1000


def _fail(action: str, exc: psycopg.Error, path: str = "") -> StorageError:
    # Only the exception type and the SQLSTATE: a server message may quote data
    # ("invalid input syntax for type json ... Token ... is invalid").
    state = getattr(exc, "sqlstate", None)
    detail = f"{type(exc).__name__}: {state}" if isinstance(state, str) else type(exc).__name__
    return StorageError(f"cannot {action} ({detail})", path)


# -- operations -------------------------------------------------------------------------
#
# Each operation is a generator that yields the statements to run, as (sql, params,
# what to fetch), and is sent each one's result; its return value is the result.
# The same operation then runs over a sync connection (_run_sync) and an async one
# (_run_async), so the SQL and the checks exist once.

_NONE, _ONE, _ALL = 0, 1, 2
_Statement = tuple[str, Any, int]
_Op = Generator[_Statement, Any, _T]


class _Sql:
    """The statements for one table prefix."""

    __slots__ = (
        "append",
        "clear_version",
        "create",
        "delete",
        "list",
        "load",
        "prefix",
        "read_version",
        "replace",
        "revision",
        "version_table",
        "write_version",
    )

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.append = _APPEND.replace("{p}", prefix)
        self.replace = _REPLACE.replace("{p}", prefix)
        self.create = _CREATE.replace("{p}", prefix)
        self.load = _LOAD.replace("{p}", prefix)
        self.revision = _REVISION.replace("{p}", prefix)
        self.delete = _DELETE.replace("{p}", prefix)
        self.list = _LIST.replace("{p}", prefix)
        self.version_table = _VERSION_TABLE.replace("{p}", prefix)
        self.read_version = _READ_VERSION.replace("{p}", prefix)
        self.clear_version = _CLEAR_VERSION.replace("{p}", prefix)
        self.write_version = _WRITE_VERSION.replace("{p}", prefix)


def _version_op(sql: _Sql) -> _Op[int]:
    """The stored schema version (0: none), read without writing anything."""
    exists = yield _VERSION_EXISTS, (f"{sql.prefix}schema_version",), _ONE
    if not exists[0]:
        return 0
    return _checked_version((yield sql.read_version, None, _ALL))


def _migrate_op(sql: _Sql) -> _Op[None]:
    """Apply the missing migrations (run in one transaction: the lock is the transaction's)."""
    yield _MIGRATE_LOCK, (f"messages.storage migrate {sql.prefix}",), _NONE
    yield sql.version_table, None, _NONE
    version = _checked_version((yield sql.read_version, None, _ALL))  # again, under the lock
    if version < SCHEMA_VERSION:
        for statements in _MIGRATIONS[version:]:
            for statement in statements:
                yield statement.replace("{p}", sql.prefix), None, _NONE
        yield sql.clear_version, None, _NONE
        yield sql.write_version, (SCHEMA_VERSION,), _NONE


def _check_op(sql: _Sql) -> _Op[None]:
    """StorageError when a database that claims the current version lacks its tables."""
    for table, columns in _TABLES.items():
        have = {r[0] for r in (yield _COLUMNS, (f"{sql.prefix}{table}",), _ALL)}
        if not have:
            raise StorageError(
                f"the database says schema version {SCHEMA_VERSION} but has no "
                f"{sql.prefix}{table} table"
            )
        for column in columns:
            if column not in have:
                raise StorageError(
                    f"the database says schema version {SCHEMA_VERSION} but its "
                    f"{sql.prefix}{table} table has no {column} column"
                )


def _checked_version(rows: list[tuple[Any, ...]]) -> int:
    if not rows:
        return 0
    if len(rows) != 1 or type(rows[0][0]) is not int or rows[0][0] < 0:
        raise StorageError("the schema_version table is corrupt")
    version: int = rows[0][0]
    if version > SCHEMA_VERSION:
        raise StorageError(
            f"database schema version {version} is newer than this library's "
            f"({SCHEMA_VERSION}); upgrade the library"
        )
    return version


def _load_op(sql: _Sql, identity: SessionIdentity) -> _Op[tuple[list[Record] | None, Revision]]:
    key = identity.key
    rows: list[tuple[Any, ...]] = yield sql.load, _who(identity), _ALL
    if not rows:
        return None, None
    revision, first, end = rows[0][0], rows[0][1], rows[0][2]
    records: list[Record] = []
    if rows[0][3] is not None:
        for i, row in enumerate(rows):
            if row[3] != first + i:
                raise StorageError(
                    "a stored message is missing before this one (its row was deleted?)",
                    where(key, i),
                )
            records.append(decode_row(row[4], key, i))
    if first + len(records) != end:
        raise StorageError(
            f"the session should hold {end - first} messages but {len(records)} are stored "
            "(rows were deleted?)",
            where(key),
        )
    return records, revision


def _replace_op(sql: _Sql, params: dict[str, Any], expected: Revision) -> _Op[Revision | None]:
    """The new revision, or None when the session is not at ``expected`` (nothing written)."""
    if expected is not None and type(expected) is not int:
        return None  # not a revision of this backend's: the session is not at it
    if expected is None:
        row = yield sql.create, params, _ONE
    else:
        row = yield sql.replace, dict(params, expected=expected), _ONE
    return None if row is None else row[0]


def _save_op(sql: _Sql, params: dict[str, Any]) -> _Op[Revision | None]:
    """An unconditional save: a rewrite at whatever revision the session is (retried)."""
    for _ in range(_SAVE_TRIES):
        found = yield sql.revision, params, _ONE
        revision = yield from _replace_op(sql, params, None if found is None else found[0])
        if revision is not None:
            return revision
    return None  # pragma: no cover - a thousand other writers in a row won


def _append_op(sql: _Sql, params: dict[str, Any], expected: Revision) -> _Op[tuple[Revision, bool]]:
    row = yield sql.append, params, _ONE
    revision: Revision = row[0]
    return revision, row[1] == expected


def _delete_op(sql: _Sql, identity: SessionIdentity) -> _Op[None]:
    yield sql.delete, _who(identity), _NONE


def _list_op(sql: _Sql, agent: str, scope: str | None) -> _Op[list[SessionIdentity]]:
    params = (dumps_compact(agent), "" if scope is None else dumps_compact(scope))
    rows = yield sql.list, params, _ALL
    found = [SessionIdentity(agent, decode_name(raw, str(key)), scope) for key, raw in rows]
    found.sort(key=by_session)
    return found


def _who(identity: SessionIdentity) -> dict[str, Any]:
    """The identity columns' values (the names as JSON strings) and the key."""
    scope = None if identity.scope is None else dumps_compact(identity.scope)
    return {
        "key": identity.key,
        "agent": dumps_compact(identity.agent),
        "scope": scope,
        "scope_key": "" if scope is None else scope,
        "session": dumps_compact(identity.session),
    }


def _write_params(identity: SessionIdentity, records: Sequence[Record]) -> dict[str, Any]:
    rows = encode_rows(identity.key, records)
    params = _who(identity)
    params["n"] = len(rows)
    params["ids"] = [_msg_id(r.get("id")) for r in records]
    params["bodies"] = rows
    return params


def _msg_id(value: object) -> str | None:
    # The id column is for queries by hand; the body holds the real id. An id
    # PostgreSQL text cannot hold (a NUL, a lone surrogate) is left NULL.
    if type(value) is not str or "\x00" in value:
        return None
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value


def _run_sync(conn: psycopg.Connection[Any], op: _Op[_T], *, transaction: bool = False) -> _T:
    """Run ``op`` over ``conn``: in one transaction block when asked or when not autocommit."""
    block = conn.transaction() if transaction or not conn.autocommit else contextlib.nullcontext()
    # Rows as tuples, whatever row factory the caller's connection has.
    with block, conn.cursor(row_factory=tuple_row) as cur:
        try:
            statement, params, fetch = next(op)
            while True:
                cur.execute(statement, params)
                got = cur.fetchall() if fetch == _ALL else cur.fetchone() if fetch else None
                statement, params, fetch = op.send(got)
        except StopIteration as done:
            result: _T = done.value
            return result


async def _run_async(
    conn: psycopg.AsyncConnection[Any], op: _Op[_T], *, transaction: bool = False
) -> _T:
    """``_run_sync`` over an async connection."""
    block = conn.transaction() if transaction or not conn.autocommit else _no_block()
    async with block, conn.cursor(row_factory=tuple_row) as cur:
        try:
            statement, params, fetch = next(op)
            while True:
                await cur.execute(statement, params)
                if fetch == _ALL:
                    got: Any = await cur.fetchall()
                else:
                    got = await cur.fetchone() if fetch else None
                statement, params, fetch = op.send(got)
        except StopIteration as done:
            result: _T = done.value
            return result


@contextlib.asynccontextmanager
async def _no_block() -> AsyncIterator[None]:
    yield


# -- connections ------------------------------------------------------------------------

_DSN, _CONN, _ACONN, _POOL, _APOOL = range(5)
_KIND_NAMES = ("dsn", "connection", "async connection", "pool", "async pool")

#: Connections this module opened from a DSN, made harmless in a forked child (below).
_opened: weakref.WeakSet[Any] = weakref.WeakSet()
_abandoned: list[object] = []


def _after_fork_in_child() -> None:
    # A forked child shares the parent's sockets. Point each inherited one at
    # /dev/null, so that nothing the child does (not even closing the connection
    # or exiting, when libpq says goodbye to the server) reaches the parent's
    # session; keep the objects alive so that their descriptors are not reused.
    # The backend opens connections of its own in the child.
    for conn in list(_opened):
        with contextlib.suppress(Exception):
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, conn.pgconn.socket)
            os.close(null)
        _abandoned.append(conn)
    _opened.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _kind_of(source: object) -> int:
    if isinstance(source, str):
        return _DSN
    if isinstance(source, psycopg.AsyncConnection):
        return _ACONN
    if isinstance(source, psycopg.Connection):
        return _CONN
    pool = sys.modules.get("psycopg_pool")  # imported by whoever made the pool
    if pool is not None:
        if isinstance(source, pool.AsyncConnectionPool):
            return _APOOL
        if isinstance(source, pool.ConnectionPool):
            return _POOL
    raise ValidationError(
        "expected a DSN string, a psycopg Connection or AsyncConnection, or a psycopg_pool "
        f"ConnectionPool or AsyncConnectionPool, got {type(source).__name__}",
        "dsn_or_connection",
    )


class PostgresBackend:
    """Sessions in PostgreSQL: one row per message, appends from any machine merge.

    ``dsn_or_connection`` is a libpq connection string or URI, a psycopg
    ``Connection`` or ``AsyncConnection``, or a psycopg_pool ``ConnectionPool`` or
    ``AsyncConnectionPool``. ``table_prefix`` starts every table name (lower-case
    letters, digits and ``_``, at most 40), so several stores can share a schema.
    Thread-safe. ``close()`` / ``aclose()`` (or ``with`` / ``async with``) close
    the connections it opened itself, never one you passed.
    """

    __slots__ = (
        "_aconns",
        "_alock",
        "_conn",
        "_kind",
        "_lock",
        "_pid",
        "_ready",
        "_source",
        "_sql",
    )

    def __init__(self, dsn_or_connection: object, *, table_prefix: str = "messages_") -> None:
        if type(table_prefix) is not str or not _PREFIX.match(table_prefix):
            raise ValidationError(
                "must be lower-case letters, digits and _ (not starting with a digit), "
                "at most 40 characters",
                "table_prefix",
            )
        self._kind = _kind_of(dsn_or_connection)
        self._source: Any = dsn_or_connection
        self._sql = _Sql(table_prefix)
        self._lock = threading.RLock()
        self._conn: psycopg.Connection[Any] | None = None
        self._pid = 0
        self._ready = False
        # Opened from a DSN: one async connection per event loop, and the lock
        # that takes turns on it. Given an AsyncConnection: its lock.
        self._aconns: dict[int, tuple[asyncio.AbstractEventLoop, Any, asyncio.Lock]] = {}
        self._alock: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None

    @property
    def table_prefix(self) -> str:
        """What every table name starts with."""
        return self._sql.prefix

    def __repr__(self) -> str:
        return f"PostgresBackend({_KIND_NAMES[self._kind]}, table_prefix={self.table_prefix!r})"

    def __enter__(self) -> PostgresBackend:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> PostgresBackend:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def close(self) -> None:
        """Close the connections this backend opened (the next call opens new ones)."""
        with self._lock:
            conn, self._conn = self._conn, None
            aconns = list(self._aconns.values())
            self._aconns.clear()
            if conn is not None and self._pid == os.getpid():
                conn.close()
        for _loop, aconn, _turn in aconns:
            # Without awaiting (its loop may be gone): libpq closes the socket.
            aconn.pgconn.finish()

    async def aclose(self) -> None:
        """``close()``, awaiting the async connection of the running event loop."""
        loop = asyncio.get_running_loop()
        with self._lock:
            mine = self._aconns.pop(id(loop), None)
        if mine is not None:
            await mine[1].close()
        self.close()

    def schema_version(self) -> int:
        """The schema version of the database (created or migrated first if needed)."""
        return self._run("read the schema version", None, _version_op(self._sql))

    # -- sync ------------------------------------------------------------------------------

    def _run(self, action: str, key: str | None, op: _Op[_T]) -> _T:
        with self._connection() as conn:
            try:
                return _run_sync(conn, op)
            except psycopg.Error as exc:
                raise _fail(action, exc, "" if key is None else where(key)) from exc
            finally:
                op.close()

    @contextlib.contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        kind = self._kind
        if kind == _POOL:
            try:
                with self._source.connection() as conn:
                    self._prepare(conn)
                    yield conn
            except psycopg.Error as exc:
                raise _fail("use a pooled connection", exc) from exc
            return
        if kind not in (_DSN, _CONN):
            raise StorageError(
                f"this PostgresBackend was given an {_KIND_NAMES[kind]}: use its coroutines "
                "(AsyncChatHistoryStorage), or give it a DSN"
            )
        with self._lock:  # one statement at a time on the one connection
            if kind == _CONN:
                conn = self._source
            else:
                conn = self._conn
                if conn is None or conn.closed or self._pid != os.getpid():
                    conn = self._open()
            self._prepare(conn)
            yield conn

    def _open(self) -> psycopg.Connection[Any]:
        # A connection that was lost, or belongs to the parent of this forked
        # process (see _after_fork_in_child), is replaced.
        try:
            conn = psycopg.connect(self._source, autocommit=True)
        except psycopg.Error as exc:
            raise _fail("connect to the database", exc) from exc
        _opened.add(conn)
        self._conn = conn
        self._pid = os.getpid()
        return conn

    def _prepare(self, conn: psycopg.Connection[Any]) -> None:
        """Create or migrate the schema, and check it, once per backend."""
        if self._ready:
            return
        sql = self._sql
        try:
            if _run_sync(conn, _version_op(sql)) < SCHEMA_VERSION:
                _run_sync(conn, _migrate_op(sql), transaction=True)
            _run_sync(conn, _check_op(sql))
        except psycopg.Error as exc:
            raise _fail("prepare the database", exc) from exc
        self._ready = True

    def load(self, identity: SessionIdentity) -> list[Record] | None:
        """The session's message dicts in order; None when it was never saved."""
        return self.load_versioned(identity)[0]

    def load_versioned(self, identity: SessionIdentity) -> tuple[list[Record] | None, Revision]:
        """The session's message dicts and revision, from one snapshot (None, None: none)."""
        return self._run("read the session", identity.key, _load_op(self._sql, identity))

    def save(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Replace the session's messages, whatever it holds now."""
        op = _save_op(self._sql, _write_params(identity, records))
        if self._run("save the session", identity.key, op) is None:
            raise conflict(identity)  # pragma: no cover - see _save_op

    def save_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> Revision:
        """Replace the session's messages if it is still at revision ``expected``; the new one.

        One statement: a session another writer changed raises ConflictError and
        keeps its rows.
        """
        op = _replace_op(self._sql, _write_params(identity, records), expected)
        revision = self._run("save the session", identity.key, op)
        if revision is None:
            raise conflict(identity)
        return revision

    def append(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Add messages after the session's current ones (creating it if needed)."""
        self.append_versioned(identity, records, None)

    def append_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> tuple[Revision, bool]:
        """``append``; the new revision, and whether the session was at ``expected``."""
        op = _append_op(self._sql, _write_params(identity, records), expected)
        return self._run("append to the session", identity.key, op)

    def delete(self, identity: SessionIdentity) -> None:
        """Remove the session and its messages (no error when it does not exist)."""
        self._run("delete the session", identity.key, _delete_op(self._sql, identity))

    def list_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        """The sessions of ``agent`` in exactly ``scope``, sorted by session name."""
        return self._run("list sessions", None, _list_op(self._sql, agent, scope))

    # -- async -----------------------------------------------------------------------------

    async def _arun(self, action: str, key: str | None, op: _Op[_T], sync: Callable[[], _T]) -> _T:
        if self._kind in (_DSN, _ACONN, _APOOL):
            try:
                async with self._aconnection() as conn:
                    return await _run_async(conn, op)
            except psycopg.Error as exc:
                raise _fail(action, exc, "" if key is None else where(key)) from exc
            finally:
                op.close()
        op.close()
        # A sync connection or pool: in a worker thread, so the event loop runs on.
        return await asyncio.to_thread(sync)

    @contextlib.asynccontextmanager
    async def _aconnection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        kind = self._kind
        if kind == _APOOL:
            async with self._source.connection() as conn:
                await self._aprepare(conn)
                yield conn
            return
        loop = asyncio.get_running_loop()
        if kind == _ACONN:
            turn = self._alock
            if turn is None or turn[0] is not loop:
                turn = self._alock = (loop, asyncio.Lock())
            async with turn[1]:
                await self._aprepare(self._source)
                yield self._source
            return
        entry = self._aconns.get(id(loop))
        if entry is None or entry[0] is not loop or entry[1].closed:
            entry = await self._aopen(loop)
        async with entry[2]:
            await self._aprepare(entry[1])
            yield entry[1]

    async def _aopen(
        self, loop: asyncio.AbstractEventLoop
    ) -> tuple[asyncio.AbstractEventLoop, Any, asyncio.Lock]:
        conn = await psycopg.AsyncConnection.connect(self._source, autocommit=True)
        entry = (loop, conn, asyncio.Lock())
        with self._lock:
            # Connections of event loops that are closed now can only be dropped.
            for k, (old_loop, old, _turn) in list(self._aconns.items()):
                if old_loop.is_closed():
                    del self._aconns[k]
                    old.pgconn.finish()
            self._aconns[id(loop)] = entry
        return entry

    async def _aprepare(self, conn: psycopg.AsyncConnection[Any]) -> None:
        if self._ready:
            return
        sql = self._sql
        if await _run_async(conn, _version_op(sql)) < SCHEMA_VERSION:
            await _run_async(conn, _migrate_op(sql), transaction=True)
        await _run_async(conn, _check_op(sql))
        self._ready = True

    async def aload_versioned(
        self, identity: SessionIdentity
    ) -> tuple[list[Record] | None, Revision]:
        """Coroutine form of :meth:`load_versioned`."""
        return await self._arun(
            "read the session",
            identity.key,
            _load_op(self._sql, identity),
            lambda: self.load_versioned(identity),
        )

    async def asave_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> Revision:
        """Coroutine form of :meth:`save_versioned`."""
        op = _replace_op(self._sql, _write_params(identity, records), expected)
        revision = await self._arun(
            "save the session",
            identity.key,
            op,
            lambda: self.save_versioned(identity, records, expected),
        )
        if revision is None:
            raise conflict(identity)
        return revision

    async def aappend_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> tuple[Revision, bool]:
        """Coroutine form of :meth:`append_versioned`."""
        op = _append_op(self._sql, _write_params(identity, records), expected)
        return await self._arun(
            "append to the session",
            identity.key,
            op,
            lambda: self.append_versioned(identity, records, expected),
        )

    async def adelete(self, identity: SessionIdentity) -> None:
        """Coroutine form of :meth:`delete`."""
        await self._arun(
            "delete the session",
            identity.key,
            _delete_op(self._sql, identity),
            lambda: self.delete(identity),
        )

    async def alist_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        """Coroutine form of :meth:`list_sessions`."""
        return await self._arun(
            "list sessions",
            None,
            _list_op(self._sql, agent, scope),
            lambda: self.list_sessions(agent, scope),
        )
