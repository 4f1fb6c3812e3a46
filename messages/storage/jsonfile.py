"""JsonFileBackend: one JSON Lines file per session, replaced atomically on save.

File ``<identity.key>.jsonl`` in the backend's directory: the first line is a
header ``{"format": "messages.session", "version": 1, "agent": …, "session": …,
"scope": …, "count": N}``, then one canonical message dict per line, each line
ending in a newline. The count and the final newline make a file cut short at
any byte detectable (a StorageError, never a silent partial load); the header lets
``list_sessions`` read one line per file instead of whole sessions.

A save writes a hidden temporary file in the same directory, flushes and fsyncs
it, renames it over the session file with ``os.replace`` (atomic on POSIX and
Windows) and fsyncs the directory, so a crash at any moment leaves the old file
or the new one. A crash may leave a hidden ``.tmp-*`` file behind; it is never
read, and can be deleted.

Concurrent saves of one session from several processes are last-writer-wins:
use the SQLite backend when processes share a session.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from typing import Any

from .._json import dumps_compact, json_type, loads
from ..errors import DecodeError, StorageError
from ._backend import Record
from ._identity import SessionIdentity, key_prefix
from ._rows import decode_row, encode_rows, where

__all__ = ["JsonFileBackend"]

FORMAT = "messages.session"
VERSION = 1
_SUFFIX = ".jsonl"
_TMP_PREFIX = ".tmp-"


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
        key = identity.key
        try:
            with open(self.path_of(identity), "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StorageError(f"cannot read the file ({type(exc).__name__})", where(key)) from exc
        if not data.endswith(b"\n"):
            raise StorageError("file is truncated (no final newline)", where(key))
        lines = data[:-1].split(b"\n")
        header = _header(lines[0], key)
        _check_owner(header, identity)
        count = len(lines) - 1
        if header["count"] != count:
            raise StorageError(
                f"file holds {count} messages, its header says {header['count']}", where(key)
            )
        return [decode_row(line, key, i) for i, line in enumerate(lines[1:])]

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
        found.sort(key=_by_session)
        return found

    # -- writing ------------------------------------------------------------------

    def save(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        """Replace the session's file atomically."""
        key = identity.key
        rows = encode_rows(key, records)
        header = dumps_compact(
            {
                "format": FORMAT,
                "version": VERSION,
                "agent": identity.agent,
                "session": identity.session,
                "scope": identity.scope,
                "count": len(rows),
            }
        )
        rows.insert(0, header)
        rows.append("")
        self._replace(key, "\n".join(rows).encode("ascii"))

    def delete(self, identity: SessionIdentity) -> None:
        """Remove the session's file (no error when there is none)."""
        try:
            os.remove(self.path_of(identity))
        except FileNotFoundError:
            return
        except OSError as exc:
            raise StorageError(
                f"cannot delete the file ({type(exc).__name__})", where(identity.key)
            ) from exc
        if self._fsync:
            _fsync_directory(self.directory)

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


def _by_session(identity: SessionIdentity) -> str:
    return identity.session
