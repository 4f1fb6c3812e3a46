"""SQLiteBackend: sessions in one SQLite database, one row per message.

Why one row per message (not one JSON document per session): an agent appends a
message or two per turn, and a row per message makes that append one small
INSERT whatever the session's length, where a document per session rewrites the
whole session every turn (quadratic over a long conversation). It also makes
concurrent appends from several processes merge instead of overwrite: each append
runs in a ``BEGIN IMMEDIATE`` transaction that numbers its rows after the current
last one. A full ``save`` (after a removal, a replacement or a truncation) deletes
and re-inserts the session's rows in one transaction. Readers see a consistent
snapshot (WAL mode), and a crash at any point leaves the last committed state.

Every write gives the session a new ``revision``, a random 62-bit number (so one
never comes back, even for a session deleted and created again, but for a chance
of 2**-62). ``save_versioned``, what ChatHistoryStorage uses for a rewrite,
compares the session's revision with the one the caller loaded inside the write
transaction and writes nothing on a mismatch (ConflictError): optimistic
concurrency, so a rewrite never drops another writer's messages. (The revision is a
column of the session's row: a counter in a table of its own would add a page to the
WAL on every append.)

Schema, version 2 (the ``schema_version`` table holds the version; opening a
database applies the migrations it lacks, in order, in one transaction)::

    sessions(key TEXT PRIMARY KEY, agent TEXT, scope TEXT, session TEXT, updated_at REAL,
             revision INTEGER)
    messages(key TEXT, seq INTEGER, msg_id TEXT, body TEXT, PRIMARY KEY (key, seq))

Version 1 lacked the revisions; migrating gives existing sessions revision 0.

``agent`` / ``scope`` / ``session`` hold the names as JSON strings and ``body`` the
canonical message dict as compact JSON, all ASCII: SQLite text must be valid UTF-8,
and names or text may hold lone surrogates. ``msg_id`` is the message's id, for
queries by hand (NULL for an id that is not valid Unicode). A session's ``seq``
numbers run 0, 1, 2, ... with no gap, so a deleted row is a StorageError on load,
never a silently shorter session. A database that claims the current version but
lacks a table or column is a StorageError too.

A database at the current version is opened without writing anything, so one
this process may only read (a read-only file, or a read-only directory: then it
is opened ``immutable``) can still be loaded; writing to it gives StorageError.

``import sqlite3`` happens only when this module is imported, which
``messages.storage`` does on first use of ``SQLiteBackend``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Any

from .._json import dumps_compact
from ..errors import StorageError
from ._backend import Record, Revision, conflict
from ._identity import SessionIdentity, by_session
from ._rows import decode_name, decode_row, encode_rows, where

__all__ = ["SCHEMA_VERSION", "SQLiteBackend"]

# Migration i (0-based) takes a database from version i to version i + 1. Never
# edit a released entry: add a new one.
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE sessions ("
        " key TEXT PRIMARY KEY, agent TEXT NOT NULL, scope TEXT, session TEXT NOT NULL,"
        " updated_at REAL NOT NULL) WITHOUT ROWID",
        "CREATE INDEX sessions_by_agent ON sessions (agent, scope)",
        "CREATE TABLE messages ("
        " key TEXT NOT NULL, seq INTEGER NOT NULL, msg_id TEXT, body TEXT NOT NULL,"
        " PRIMARY KEY (key, seq)) WITHOUT ROWID",
    ),
    ("ALTER TABLE sessions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0",),
)
SCHEMA_VERSION = len(_MIGRATIONS)
"""The schema version this library writes."""

#: What a database at the current version must hold: table -> its columns.
_TABLES = {
    "sessions": ("key", "agent", "scope", "session", "updated_at", "revision"),
    "messages": ("key", "seq", "msg_id", "body"),
}
_READONLY = 8  # SQLITE_READONLY; its extended codes keep it in the low byte

_INSERT_MESSAGE = "INSERT INTO messages (key, seq, msg_id, body) VALUES (?, ?, ?, ?)"
_UPSERT_SESSION = (
    "INSERT OR REPLACE INTO sessions (key, agent, scope, session, updated_at, revision)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
_ANY: Revision = object()  # no expected revision: an unconditional write
_REVISION_AND_LAST = (
    "SELECT (SELECT revision FROM sessions WHERE key = ?),"
    " (SELECT MAX(seq) FROM messages WHERE key = ?)"
)


def _fail(action: str, exc: sqlite3.Error, path: str = "") -> StorageError:
    # Only the exception type and SQLite's result code name (SQLITE_BUSY, ...): the
    # text of a sqlite3 error may quote stored data (a column that is not UTF-8
    # comes back as "Could not decode ... with text '<the row>'").
    code = getattr(exc, "sqlite_errorname", None)  # Python 3.11+
    detail = f"{type(exc).__name__}: {code}" if isinstance(code, str) else type(exc).__name__
    return StorageError(f"cannot {action} ({detail})", path)


def _is_read_only(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` is SQLITE_READONLY or one of its extended codes."""
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    if type(code) is int:
        return code & 0xFF == _READONLY
    return "readonly database" in str(exc)


class SQLiteBackend:
    """Sessions in the SQLite database at ``path`` (created if missing); WAL mode.

    Safe to share between threads, and between processes through the file:
    writers wait up to ``timeout`` seconds for each other. ``fsync=False`` sets
    ``synchronous=NORMAL``: faster commits, still never corrupt, but a power loss
    may lose the last commits. Call ``close()`` (or use ``with``) when done.
    """

    __slots__ = ("_conn", "_fsync", "_lock", "_pid", "_timeout", "path")

    path: str

    def __init__(
        self, path: str | os.PathLike[str], *, timeout: float = 30.0, fsync: bool = True
    ) -> None:
        self.path = os.fspath(path)
        self._timeout = timeout
        self._fsync = fsync
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0

    def __repr__(self) -> str:
        return f"SQLiteBackend({self.path!r})"

    def __enter__(self) -> SQLiteBackend:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (the next call opens a new one)."""
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None and self._pid == os.getpid():
                conn.close()

    # -- connection and schema ----------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        # Called with the lock held. A connection must not cross a fork: the child
        # abandons the parent's (without closing it) and opens its own.
        conn = self._conn
        if conn is not None and self._pid == os.getpid():
            return conn
        try:
            conn = self._open(self.path, uri=False)
        except sqlite3.Error as exc:
            if not _is_read_only(exc) or self.path in ("", ":memory:"):
                raise _fail("open the database", exc) from exc
            # Only reading is allowed, and not even that: a WAL database in a
            # directory this process cannot write cannot be opened normally (its
            # -shm file cannot be created). Open it immutable (read-only, no
            # locking) so that it can at least be loaded; writes give StorageError.
            from urllib.parse import quote

            uri = f"file:{quote(os.path.abspath(self.path))}?immutable=1"
            try:
                conn = self._open(uri, uri=True)
            except sqlite3.Error as again:
                raise _fail("open the database", again) from again
        self._conn = conn
        self._pid = os.getpid()
        return conn

    def _open(self, target: str, *, uri: bool) -> sqlite3.Connection:
        """A new connection, in WAL mode where it can write, at the current schema."""
        conn = sqlite3.connect(
            target, timeout=self._timeout, isolation_level=None, check_same_thread=False, uri=uri
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")
            _set_wal(conn, self._timeout)
            conn.execute(f"PRAGMA synchronous = {'FULL' if self._fsync else 'NORMAL'}")
            _migrate(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def schema_version(self) -> int:
        """The schema version of the open database."""
        with self._lock:
            return _read_version(self._connection())

    # -- the Backend protocol -------------------------------------------------------

    def load(self, identity: SessionIdentity) -> list[Record] | None:
        """The session's message dicts in order; None when it was never saved."""
        return self.load_versioned(identity)[0]

    def load_versioned(self, identity: SessionIdentity) -> tuple[list[Record] | None, Revision]:
        """The session's message dicts and revision, from one snapshot (None, None: no session)."""
        key = identity.key
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN")  # one snapshot for both reads
                try:
                    found = conn.execute(
                        "SELECT revision FROM sessions WHERE key = ?", (key,)
                    ).fetchone()
                    # Bodies as bytes: decoding is decode_row's job, which reports
                    # bad UTF-8 with the position (sqlite3 would quote the text).
                    rows = (
                        conn.execute(
                            "SELECT seq, CAST(body AS BLOB) FROM messages"
                            " WHERE key = ? ORDER BY seq",
                            (key,),
                        ).fetchall()
                        if found
                        else None
                    )
                finally:
                    if conn.in_transaction:
                        conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise _fail("read the session", exc, where(key)) from exc
        if rows is None:
            return None, None
        records: list[Record] = []
        for i, (seq, body) in enumerate(rows):
            if seq != i:
                # Rows are numbered 0, 1, 2, ... by every write: a gap is a lost row.
                raise StorageError(
                    "a stored message is missing before this one (its row was deleted?)",
                    where(key, i),
                )
            records.append(decode_row(_text(body, key, i), key, i))
        revision: Revision = found[0]
        return records, revision

    def save(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Replace the session's rows in one transaction."""
        self._store(identity, records, True, _ANY, "save the session")

    def save_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> Revision:
        """Replace the session's rows if it is still at revision ``expected``; the new one.

        The check and the write are one transaction: a session that another
        writer changed raises ConflictError and keeps its rows.
        """
        return self._store(identity, records, True, expected, "save the session")[0]

    def append(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Insert rows after the session's last one, in one transaction."""
        self._store(identity, records, False, _ANY, "append to the session")

    def append_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> tuple[Revision, bool]:
        """``append``; the new revision, and whether the session was at ``expected``."""
        return self._store(identity, records, False, expected, "append to the session")

    def _store(
        self,
        identity: SessionIdentity,
        records: Sequence[Record],
        replace: bool,
        expected: Revision,
        doing: str,
    ) -> tuple[Revision, bool]:
        key = identity.key
        rows = encode_rows(key, records)
        with self._lock:
            conn = self._connection()
            try:
                return _write(conn, identity, records, rows, replace=replace, expected=expected)
            except sqlite3.Error as exc:
                raise _fail(doing, exc, where(key)) from exc

    def delete(self, identity: SessionIdentity) -> None:
        """Remove the session and its rows (no error when it does not exist)."""
        key = identity.key
        with self._lock:
            conn = self._connection()
            try:
                with _Immediate(conn):
                    conn.execute("DELETE FROM messages WHERE key = ?", (key,))
                    conn.execute("DELETE FROM sessions WHERE key = ?", (key,))
            except sqlite3.Error as exc:
                raise _fail("delete the session", exc, where(key)) from exc

    def list_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        """The sessions of ``agent`` in exactly ``scope``, sorted by session name."""
        with self._lock:
            conn = self._connection()
            try:
                rows = conn.execute(
                    "SELECT CAST(key AS BLOB), CAST(session AS BLOB) FROM sessions"
                    " WHERE agent = ? AND scope IS ?",
                    (dumps_compact(agent), None if scope is None else dumps_compact(scope)),
                ).fetchall()
            except sqlite3.Error as exc:
                raise _fail("list sessions", exc) from exc
        found: list[SessionIdentity] = []
        for key, raw in rows:
            session = decode_name(raw, _key_text(key))
            found.append(SessionIdentity(agent, session, scope))
        found.sort(key=by_session)
        return found


class _Immediate:
    """A ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back otherwise."""

    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        # IMMEDIATE takes the write lock up front, so two writers queue on the busy
        # timeout instead of failing with SQLITE_BUSY when a read lock is upgraded.
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")
        elif self.conn.in_transaction:
            self.conn.execute("ROLLBACK")


def _write(
    conn: sqlite3.Connection,
    identity: SessionIdentity,
    records: Sequence[Record],
    rows: list[str],
    *,
    replace: bool,
    expected: Revision,
) -> tuple[Revision, bool]:
    """Write in one transaction; the new revision and whether the old one was ``expected``.

    A replacement with an ``expected`` revision that is not the stored one raises
    ConflictError (rolled back, nothing written).
    """
    key = identity.key
    scope = None if identity.scope is None else dumps_compact(identity.scope)
    with _Immediate(conn):
        if replace:
            found = conn.execute("SELECT revision FROM sessions WHERE key = ?", (key,)).fetchone()
            current = None if found is None else found[0]
            if expected is not _ANY and current != expected:
                raise conflict(identity)
            conn.execute("DELETE FROM messages WHERE key = ?", (key,))
            start = 0
        else:
            # One statement reads both the revision and the last row number.
            current, last = conn.execute(_REVISION_AND_LAST, (key, key)).fetchone()
            start = 0 if last is None else last + 1
        conn.executemany(_INSERT_MESSAGE, _params(key, start, records, rows))
        revision = _new_revision()
        conn.execute(
            _UPSERT_SESSION,
            (
                key,
                dumps_compact(identity.agent),
                scope,
                dumps_compact(identity.session),
                time.time(),
                revision,
            ),
        )
    return revision, current == expected


def _new_revision() -> int:
    """A fresh revision: random, positive, below 2**62 (0 marks sessions from version 1)."""
    return (int.from_bytes(os.urandom(8), "big") >> 2) + 1


def _params(
    key: str, start: int, records: Sequence[Record], rows: list[str]
) -> Iterable[tuple[str, int, Any, str]]:
    for i, (record, row) in enumerate(zip(records, rows, strict=True), start):
        yield key, i, _msg_id(record.get("id")), row


def _msg_id(value: object) -> str | None:
    # The id column is for queries by hand; the body holds the real id. An id
    # SQLite cannot store as text (one with a lone surrogate) is left NULL.
    if type(value) is not str:
        return None
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value


def _set_wal(conn: sqlite3.Connection, timeout: float) -> None:
    # Switching a new database to WAL takes an exclusive lock, and SQLite reports
    # "database is locked" at once (no busy handler) when another connection is
    # opening the same new file: retry until the timeout. A database this process
    # may only read keeps its journal mode.
    deadline = time.monotonic() + timeout
    delay = 0.001
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if _is_read_only(exc):
                return
            if time.monotonic() + delay > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def _migrate(conn: sqlite3.Connection) -> None:
    # Reading first: a database at the current version needs no write (and no
    # write lock), so a read-only file or directory can still be loaded.
    version = _stored_version(conn)
    if version < SCHEMA_VERSION:
        with _Immediate(conn):
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            version = _read_version(conn)  # again: another process may have migrated it
            if version < SCHEMA_VERSION:
                for statements in _MIGRATIONS[version:]:
                    for statement in statements:
                        conn.execute(statement)
                conn.execute("DELETE FROM schema_version")
                conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
                version = SCHEMA_VERSION
    if version > SCHEMA_VERSION:
        raise StorageError(
            f"database schema version {version} is newer than this library's "
            f"({SCHEMA_VERSION}); upgrade the library"
        )
    _check_schema(conn)


def _stored_version(conn: sqlite3.Connection) -> int:
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    return 0 if found is None else _read_version(conn)


def _check_schema(conn: sqlite3.Connection) -> None:
    """StorageError when a database that claims the current version lacks its tables."""
    for table, columns in _TABLES.items():
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if not have:
            raise StorageError(
                f"the database says schema version {SCHEMA_VERSION} but has no {table} table"
            )
        for column in columns:
            if column not in have:
                raise StorageError(
                    f"the database says schema version {SCHEMA_VERSION} but its {table} "
                    f"table has no {column} column"
                )


def _read_version(conn: sqlite3.Connection) -> int:
    rows = conn.execute("SELECT version FROM schema_version").fetchall()
    if not rows:
        return 0
    if len(rows) != 1 or type(rows[0][0]) is not int or rows[0][0] < 0:
        raise StorageError("the schema_version table is corrupt")
    version: int = rows[0][0]
    return version


def _text(value: object, key: str, index: int) -> str | bytes:
    if isinstance(value, (str, bytes)):
        return value
    raise StorageError(
        f"expected JSON text in the row, got {type(value).__name__}", where(key, index)
    )


def _key_text(raw: object) -> str:
    # The key is ASCII when this library wrote it; anything else is only named.
    if isinstance(raw, bytes):
        return raw.decode("ascii", "replace")
    return str(raw)
