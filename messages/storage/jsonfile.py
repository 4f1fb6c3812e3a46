"""JsonFileBackend: one JSON Lines file per session, replaced atomically on save.

File ``<identity.key>.jsonl`` in the backend's directory: the first line is a
header ``{"format": "messages.session", "version": 1, "agent": …, "session": …,
"scope": …, "count": N}``, then one canonical message dict per line, each line
ending in a newline. The count and the final newline make a file cut short at
any byte detectable (a StorageError, never a silent partial load); the header lets
``list_sessions`` read one line per file instead of whole sessions. Readers ignore
header keys they do not know (``revision`` came later, in the same version 1).

A save writes a hidden temporary file in the same directory, flushes and fsyncs
it, renames it over the session file with ``os.replace`` (atomic on POSIX and
Windows) and fsyncs the directory, so a crash at any moment leaves the old file
or the new one. A crash may leave a hidden ``.tmp-*`` file behind; it is never
read, and can be deleted.

Writers of one session, in any threads or processes, take turns: each write
holds an exclusive lock (``fcntl.flock`` on a hidden ``.<key>.lock`` file beside
the session file, removed with the session; where there is no ``fcntl``, a lock
shared by the threads of this process only). ``append`` re-reads the stored
session under that lock and merges by message id: the stored messages first, in
their order, then the records whose ids are not stored yet, in the writer's
order; so two writers appending to one session both keep their messages, and an
append retried after a failure does not add its messages twice.
Readers take no lock: they see the old file or the new one.

Every write puts a new random ``revision`` (64 bits, as hex) in the header, so
a revision never comes back, even for a session deleted and written again (a
file written before revisions existed has the digest of its bytes instead).
``save_versioned`` (what ChatHistoryStorage uses for a rewrite) reads the file
under the lock and replaces it only when its revision is still the one the
caller loaded: a rewrite never drops what another writer appended. ``save``
replaces the session unconditionally. (The revision sits in the header because a
digest of every file read and written would make hashing the bulk of an append to a
long session; reading the header costs nothing.)
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from .._json import dumps_compact, json_type, loads
from ..errors import DecodeError, StorageError
from ._backend import Record, Revision, conflict
from ._identity import SessionIdentity, by_session, key_prefix
from ._rows import decode_row, encode_rows, where

__all__ = ["JsonFileBackend"]

FORMAT = "messages.session"
VERSION = 1
_SUFFIX = ".jsonl"
_TMP_PREFIX = ".tmp-"
_LOCK_SUFFIX = ".lock"
_ID_START = b'{"id":"'  # how every row this library writes begins


class JsonFileBackend:
    """Sessions as ``<key>.jsonl`` files in ``directory`` (created if missing).

    ``fsync=False`` skips the fsync calls: faster, and still never torn after a
    process crash, but a power loss may lose the last saves.
    """

    __slots__ = ("_fsync", "directory")

    directory: str

    def __init__(self, directory: str | os.PathLike[str], *, fsync: bool = True) -> None:
        self.directory = os.fspath(directory)
        self._fsync = fsync
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create the directory ({type(exc).__name__})") from exc

    def __repr__(self) -> str:
        return f"JsonFileBackend({self.directory!r})"

    def path_of(self, identity: SessionIdentity) -> str:
        """The file that holds ``identity``'s session."""
        return os.path.join(self.directory, identity.key + _SUFFIX)

    # -- reading ------------------------------------------------------------------

    def load(self, identity: SessionIdentity) -> list[Record] | None:
        """The session's message dicts in order; None when there is no file."""
        return self.load_versioned(identity)[0]

    def load_versioned(self, identity: SessionIdentity) -> tuple[list[Record] | None, Revision]:
        """The session's message dicts and its revision (None, None: no file)."""
        key = identity.key
        data = self._read(key)
        if data is None:
            return None, None
        revision, lines = self._rows(identity, data)
        return [decode_row(line, key, i) for i, line in enumerate(lines)], revision

    def _read(self, key: str) -> bytes | None:
        """The session file's bytes; None when there is no file."""
        try:
            with open(os.path.join(self.directory, key + _SUFFIX), "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StorageError(f"cannot read the file ({type(exc).__name__})", where(key)) from exc

    def _rows(self, identity: SessionIdentity, data: bytes) -> tuple[str, list[bytes]]:
        """The revision and the rows (one JSON message each) of a session file, checked whole."""
        key = identity.key
        if not data.endswith(b"\n"):
            raise StorageError("file is truncated (no final newline)", where(key))
        lines = data[:-1].split(b"\n")
        header = _header(lines[0], key)
        _check_owner(header, identity)
        del lines[0]
        if header["count"] != len(lines):
            raise StorageError(
                f"file holds {len(lines)} messages, its header says {header['count']}", where(key)
            )
        revision = header.get("revision")
        if type(revision) is not str:
            revision = _digest(data)  # written before revisions existed
        return revision, lines

    def list_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        """The sessions of ``agent`` in exactly ``scope``, sorted by session name."""
        prefix = key_prefix(agent, scope)
        found: list[SessionIdentity] = []
        try:
            entries = [
                e.name
                for e in os.scandir(self.directory)
                if e.name.startswith(prefix) and e.name.endswith(_SUFFIX)
            ]
        except OSError as exc:
            raise StorageError(f"cannot list the directory ({type(exc).__name__})") from exc
        for name in entries:
            key = name[: -len(_SUFFIX)]
            try:
                with open(os.path.join(self.directory, name), "rb") as f:
                    first = f.readline()
            except FileNotFoundError:
                continue  # deleted since the listing
            except OSError as exc:
                raise StorageError(
                    f"cannot read the file ({type(exc).__name__})", where(key)
                ) from exc
            header = _header(first.rstrip(b"\n"), key)
            if header["agent"] == agent and header["scope"] == scope:
                found.append(SessionIdentity(agent, header["session"], scope))
        found.sort(key=by_session)
        return found

    # -- writing ------------------------------------------------------------------

    def save(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Replace the session's file atomically (under the session's write lock)."""
        key = identity.key
        rows = encode_rows(key, records)
        with self._locked(key):
            self._write(identity, [row.encode("ascii") for row in rows])

    def save_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> Revision:
        """Replace the session's file if its digest is still ``expected``; the new digest.

        Checked under the session's write lock against the file on disk: a
        session another writer changed raises ConflictError and stays as it is.
        """
        key = identity.key
        rows = encode_rows(key, records)
        with self._locked(key):
            data = self._read(key)
            if (None if data is None else self._rows(identity, data)[0]) != expected:
                raise conflict(identity)
            return self._write(identity, [row.encode("ascii") for row in rows])

    def append(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Add ``records`` after the stored messages, merging by id, atomically.

        Under the session's write lock: reads what is stored now (whatever other
        writers appended meanwhile), keeps it in its order, and adds each record
        whose id is not stored yet, in order. A record without a string id is
        always added.
        """
        self.append_versioned(identity, records, None)

    def append_versioned(
        self, identity: SessionIdentity, records: Sequence[Record], expected: Revision
    ) -> tuple[Revision, bool]:
        """``append``; the new digest, and whether the file's digest was ``expected``."""
        key = identity.key
        rows = encode_rows(key, records)
        with self._locked(key):
            data = self._read(key)
            if data is None:
                stored: list[bytes] = []
                before: Revision = None
            else:
                before, stored = self._rows(identity, data)
                # The rows are copies: the file's bytes are let go before writing, so
                # that an append to a long session holds one copy of it, not two.
                del data
            seen = {_row_id(line, key, i) for i, line in enumerate(stored)}
            for record, row in zip(records, rows, strict=True):
                message_id = record.get("id")
                if type(message_id) is str:
                    if message_id in seen:
                        continue  # stored already (by another writer, or a retried append)
                    seen.add(message_id)
                stored.append(row.encode("ascii"))
            return self._write(identity, stored), before == expected

    def delete(self, identity: SessionIdentity) -> None:
        """Remove the session's file (no error when there is none)."""
        key = identity.key
        with self._locked(key, remove=True):
            try:
                os.remove(self.path_of(identity))
            except FileNotFoundError:
                return
            except OSError as exc:
                raise StorageError(
                    f"cannot delete the file ({type(exc).__name__})", where(key)
                ) from exc
        if self._fsync:
            _fsync_directory(self.directory)

    def _write(self, identity: SessionIdentity, rows: list[bytes]) -> str:
        """Replace the session's file with ``rows`` (the lock held); return its new revision."""
        revision = os.urandom(8).hex()
        header = dumps_compact(
            {
                "format": FORMAT,
                "version": VERSION,
                "agent": identity.agent,
                "session": identity.session,
                "scope": identity.scope,
                "count": len(rows),
                "revision": revision,
            }
        ).encode("ascii")
        rows.insert(0, header)
        rows.append(b"")
        self._replace(identity.key, b"\n".join(rows))
        return revision

    @contextlib.contextmanager
    def _locked(self, key: str, *, remove: bool = False) -> Iterator[None]:
        """Hold the session's write lock; with ``remove``, delete the lock file at the end."""
        path = os.path.join(self.directory, f".{key}{_LOCK_SUFFIX}")
        if _fcntl is None:  # pragma: no cover - Windows
            with _thread_lock(path):
                yield
            return
        # The lock file stays between writes: creating and removing it each time
        # would add file system metadata work to every save.
        fd = _lock_file(path, key)
        try:
            yield
            if remove:
                # Safe while held: a writer waiting on this file finds it unlinked
                # once it gets the lock, and locks a fresh one (see _lock_file).
                with contextlib.suppress(OSError):
                    os.remove(path)
        finally:
            os.close(fd)  # releases the lock

    def _replace(self, key: str, data: bytes) -> None:
        import tempfile  # here, not at import: most programs never save a file

        target = os.path.join(self.directory, key + _SUFFIX)
        try:
            fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=self.directory)
        except OSError as exc:
            raise StorageError(
                f"cannot create a temporary file ({type(exc).__name__})", where(key)
            ) from exc
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                if self._fsync:
                    os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException as exc:
            # BaseException: a KeyboardInterrupt mid-write must not leave the temp file.
            with contextlib.suppress(OSError):
                os.remove(tmp)
            if isinstance(exc, OSError):
                raise StorageError(
                    f"cannot write the file ({type(exc).__name__})", where(key)
                ) from exc
            raise
        if self._fsync:
            _fsync_directory(self.directory)


def _digest(data: bytes) -> str:
    """The revision of a session file written before revisions existed."""
    import hashlib  # here, not at import: it loads OpenSSL

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _row_id(line: bytes, key: str, index: int) -> str | None:
    """The id of a stored message row (None when it has no string id)."""
    # An append reads the id of every stored row. Every row this library writes starts
    # with its id, which needs no JSON decoding when it holds no escape; anything else
    # is decoded in full.
    if line.startswith(_ID_START):
        end = line.find(b'"', 7)
        if end > 0:
            raw = line[7:end]
            if b"\\" not in raw and raw.isascii():
                return raw.decode("ascii")
    message_id = decode_row(line, key, index).get("id")
    return message_id if type(message_id) is str else None


def _load_fcntl() -> Any:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return None
    return fcntl


_fcntl = _load_fcntl()
_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _thread_lock(path: str) -> threading.Lock:  # pragma: no cover - Windows
    """Without fcntl: one lock per session file, shared by this process's threads."""
    with _thread_locks_guard:
        lock = _thread_locks.get(path)
        if lock is None:
            lock = _thread_locks[path] = threading.Lock()
        return lock


def _lock_file(path: str, key: str) -> int:
    """An open descriptor holding an exclusive flock on the lock file at ``path``."""
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        except OSError as exc:
            raise StorageError(
                f"cannot lock the session ({type(exc).__name__})", where(key)
            ) from exc
        try:
            _fcntl.flock(fd, _fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                now = os.stat(path)
            except FileNotFoundError:
                now = None
        except BaseException as exc:
            os.close(fd)
            if isinstance(exc, OSError):
                raise StorageError(
                    f"cannot lock the session ({type(exc).__name__})", where(key)
                ) from exc
            raise
        if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            return fd
        # delete() removed the lock file while this writer waited on it: the lock
        # held is on a file nobody else will lock again. Take the current one.
        os.close(fd)


def _header(line: bytes, key: str) -> dict[str, Any]:
    path = where(key) + " header"
    try:
        header = loads(line)
    except DecodeError as exc:
        raise StorageError(exc.message, path) from None
    if type(header) is not dict:
        raise StorageError(f"expected a JSON object, got {json_type(header)}", path)
    if header.get("format") != FORMAT:
        raise StorageError("not a messages session file", path)
    version = header.get("version")
    if type(version) is not int or version < 1:
        raise StorageError("missing or invalid version", path)
    if version > VERSION:
        raise StorageError(
            f"written by a newer version of this library (file version {version}, "
            f"this one reads up to {VERSION})",
            path,
        )
    count = header.get("count")
    if type(count) is not int or count < 0:
        raise StorageError("missing or invalid message count", path)
    agent, session, scope = header.get("agent"), header.get("session"), header.get("scope")
    if (
        type(agent) is not str
        or type(session) is not str
        or not (scope is None or type(scope) is str)
        or not agent
        or not session
        or scope == ""
    ):
        raise StorageError("missing or invalid session identity", path)
    return header


def _check_owner(header: dict[str, Any], identity: SessionIdentity) -> None:
    if (header["agent"], header["session"], header["scope"]) != (
        identity.agent,
        identity.session,
        identity.scope,
    ):
        raise StorageError("file belongs to another session", where(identity.key) + " header")


def _fsync_directory(directory: str) -> None:
    # Makes the rename itself durable. Some platforms cannot open a directory
    # (Windows) or fsync one; the rename is still atomic there.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
