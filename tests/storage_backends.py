"""The backends the storage tests run over, PostgreSQL included (a real server).

``make_backend(kind, tmp_path, request)`` gives a fresh, empty backend of one kind:
memory, a JSON file directory, an SQLite file, or PostgreSQL tables with a table
prefix of their own (dropped afterwards), on the server of the session fixture
``postgres_dsn`` (tests/conftest.py, tests/postgres_server.py). ``open_backend``
opens one again from a plain string, for a writer in another process.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from messages.storage import Backend, JsonFileBackend, MemoryBackend, SQLiteBackend

#: Every built-in backend.
KINDS = ["memory", "json", "sqlite", "postgres"]
#: Those that several processes can share.
SHARED_KINDS = ["json", "sqlite", "postgres"]

_prefixes = itertools.count()


def fresh_prefix() -> str:
    """A table prefix no other test of this run uses."""
    return f"t{os.getpid()}_{next(_prefixes)}_"


def drop_tables(dsn: str, prefix: str) -> None:
    """Remove what PostgresBackend created with ``prefix`` (a server may outlive the run)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            f"DROP TABLE IF EXISTS {prefix}messages, {prefix}sessions, {prefix}schema_version"
        )
        conn.execute(f"DROP SEQUENCE IF EXISTS {prefix}revisions")


def location(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """Where a new backend of ``kind`` keeps its sessions, as a string for ``open_backend``."""
    if kind == "json":
        return str(tmp_path / "sessions")
    if kind == "sqlite":
        return str(tmp_path / "chats.sqlite")
    if kind == "postgres":
        dsn: str = request.getfixturevalue("postgres_dsn")
        prefix = fresh_prefix()
        request.addfinalizer(lambda: drop_tables(dsn, prefix))
        return f"{prefix} {dsn}"
    return ""


def open_backend(kind: str, where: str) -> Backend:
    """A backend of ``kind`` over the sessions at ``where`` (from ``location``)."""
    if kind == "memory":
        return MemoryBackend()
    if kind == "json":
        return JsonFileBackend(where, fsync=False)
    if kind == "sqlite":
        return SQLiteBackend(where, fsync=False)
    from messages.storage import PostgresBackend

    prefix, dsn = where.split(" ", 1)
    return PostgresBackend(dsn, table_prefix=prefix)


@contextlib.contextmanager
def make_backend(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Backend]:
    """A fresh backend of ``kind``, closed afterwards."""
    backend = open_backend(kind, location(kind, tmp_path, request))
    try:
        yield backend
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()
