"""``STORE`` on the command line: a SQLite file, a JSON-file directory or a PostgreSQL URL.

What a STORE argument names is decided from the argument alone and from what is
on disk, never by trying backends one after another:

* ``postgresql://...`` or ``postgres://...``: PostgresBackend (psycopg needed);
* an existing directory: JsonFileBackend;
* an existing file that starts with SQLite's header: SQLiteBackend;
* for ``import`` only, a path that does not exist yet: a new SQLite file when it
  ends ``.db``, ``.sqlite`` or ``.sqlite3``, a new directory when it ends ``/``.

Anything else is a :class:`UsageFailure` (exit status 2). ``export`` never
creates a store: one that does not exist is a Failure (exit status 1), and so
is a SQLite database without this library's tables (nothing is written to it).
A PostgreSQL URL is shown in messages without its password and its query.

Nothing here imports ``sqlite3`` or ``psycopg`` until a store is opened, so the
command line starts as fast with these commands as without them.
"""

from __future__ import annotations

import os

from .terminal import Failure

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from ..errors import StorageError
    from ..storage import Backend, SessionIdentity

__all__ = [
    "SQLITE_HEADER",
    "SQLITE_SUFFIXES",
    "Store",
    "UsageFailure",
    "is_sqlite_file",
    "refuse_sqlite_input",
    "session_of",
    "shown",
]

SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""

SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
"""What a new SQLite store's name ends with (``import`` creates it)."""

_URL_SCHEMES = ("postgresql://", "postgres://")
_POSTGRES_EXTRA = "pip install 'llm-messages[postgres]'"


class UsageFailure(Exception):
    """A usage error found after parsing (exit status 2): the message says what to give."""


def is_sqlite_file(path: str) -> bool:
    """Whether ``path`` is a regular file that starts with SQLite's header."""
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def refuse_sqlite_input(args: argparse.Namespace) -> None:
    """UsageFailure when a command that reads a transcript is given a SQLite database.

    Read as JSON, a database fails deep in its bytes ("not valid UTF-8"); the
    message says what the file is and which command reads it.
    """
    spec = getattr(args, "input", None)
    if not isinstance(spec, str) or spec == "-" or not is_sqlite_file(spec):
        return
    from .parser import PROG

    raise UsageFailure(
        f"{spec}: a SQLite database, not a transcript; to read a session stored in it, "
        f"write it out first: {PROG} export {spec} --agent A --session S -o chat.jsonl"
    )


def is_url(spec: str) -> bool:
    """Whether ``spec`` names a PostgreSQL store."""
    return spec.startswith(_URL_SCHEMES)


def shown(spec: str) -> str:
    """``spec`` as messages show it: a URL without its password and query."""
    if not is_url(spec):
        return spec
    from urllib.parse import urlsplit

    try:
        url = urlsplit(spec)
        host = url.hostname or ""
        port = url.port
        user = url.username
    except ValueError:
        return spec.partition("://")[0] + "://..."
    netloc = f"{user}@{host}" if user else host
    if port is not None:
        netloc += f":{port}"
    return f"{url.scheme}://{netloc}{url.path}"


def session_of(args: argparse.Namespace) -> SessionIdentity:
    """The session ``--agent``, ``--session`` and ``--scope`` name (UsageFailure if invalid)."""
    from ..errors import ValidationError
    from ..storage import SessionIdentity

    try:
        return SessionIdentity(args.agent, args.session, args.scope)
    except ValidationError as exc:
        raise UsageFailure(f"--{exc.path or 'session'}: {exc.message}") from None


class Store:
    """The backend a STORE argument names, opened on ``with`` and closed after.

    ``create`` (``import``) allows a new SQLite file or directory; without it
    (``export``) a store must exist.
    """

    def __init__(self, spec: str, table_prefix: str | None, *, create: bool) -> None:
        self.spec = spec
        self.name = shown(spec)
        self._prefix = table_prefix
        self._create = create
        self._backend: Backend | None = None

    def exists(self) -> bool:
        """Whether the store is there already (a PostgreSQL URL: assumed so)."""
        return is_url(self.spec) or os.path.exists(self.spec)

    def __enter__(self) -> Backend:
        spec = self.spec
        if self._prefix is not None and not is_url(spec):
            raise UsageFailure("--table-prefix applies only to a postgresql:// STORE")
        if is_url(spec):
            backend = self._postgres()
        elif os.path.isdir(spec):
            from ..storage import JsonFileBackend

            backend = JsonFileBackend(spec)
        elif os.path.exists(spec):
            backend = self._sqlite()
        else:
            backend = self._new()
        self._backend = backend
        return backend

    def __exit__(self, *exc: object) -> None:
        close = getattr(self._backend, "close", None)
        if close is not None:
            close()

    def failure(self, exc: StorageError) -> Failure:
        """A storage error as the command line reports it: the store named first."""
        return Failure(f"{self.name}: {exc}")

    def _postgres(self) -> Backend:
        try:
            from ..storage.postgres import PostgresBackend
        except ImportError:
            raise UsageFailure(
                f"{self.name}: a PostgreSQL store needs psycopg 3: {_POSTGRES_EXTRA}"
            ) from None
        from ..errors import ValidationError

        prefix = "messages_" if self._prefix is None else self._prefix
        try:
            return PostgresBackend(self.spec, table_prefix=prefix)
        except ValidationError as exc:
            raise UsageFailure(f"--table-prefix: {exc.message}") from None

    def _sqlite(self) -> Backend:
        spec = self.spec
        if not is_sqlite_file(spec):
            if os.path.isfile(spec) and os.path.getsize(spec) == 0 and self._create:
                return _sqlite_backend(spec)  # SQLite takes an empty file as an empty database
            raise UsageFailure(
                f"{spec}: neither a SQLite database nor a directory; "
                "STORE is a SQLite file, a JSON-file directory or a postgresql:// URL"
            )
        if not self._create and not _has_sessions_table(spec):
            raise Failure(f"{spec}: a SQLite database that holds no stored sessions")
        return _sqlite_backend(spec)

    def _new(self) -> Backend:
        spec = self.spec
        if not self._create:
            raise Failure(f"{spec}: no such file or directory")
        if spec.lower().endswith(SQLITE_SUFFIXES):
            return _sqlite_backend(spec)
        if spec.endswith(("/", os.sep)):
            from ..storage import JsonFileBackend

            return JsonFileBackend(spec)
        raise UsageFailure(
            f"{spec}: does not exist; for a new store, name a SQLite file ending "
            f"{', '.join(SQLITE_SUFFIXES)} or a directory ending with /"
        )


def _sqlite_backend(path: str) -> Backend:
    from ..storage import SQLiteBackend

    return SQLiteBackend(path)


def _has_sessions_table(path: str) -> bool:
    """Whether the SQLite database at ``path`` has this library's tables (opened read-only)."""
    import sqlite3
    from urllib.parse import quote

    try:
        conn = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)
        try:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return True  # SQLiteBackend will say what is wrong with it
    return found is not None
