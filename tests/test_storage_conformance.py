"""The backend contract, checked over every built-in backend and over plain backends.

Memory, JSON files, SQLite and PostgreSQL (a real server) must behave alike:
``load`` / ``save`` / ``append`` / ``delete`` / ``list_sessions``, and the revisions
that make rewrites safe: every write gives a new revision, ``save_versioned``
writes only at the expected revision (ConflictError and no change otherwise),
``append_versioned`` never conflicts and says whether others wrote meanwhile. The
"plain" kinds are backends with only the Backend methods, through the digest
adapter ChatHistoryStorage puts in front of them.
"""

from __future__ import annotations

import itertools
import json
import pickle
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from messages import StorageError
from messages.storage import (
    AppendingBackend,
    Backend,
    ConflictError,
    Record,
    SessionIdentity,
    VersionedBackend,
)
from messages.storage._versioned import Unversioned
from tests import storage_backends
from tests.conftest import SECRET

IDENT = SessionIdentity("agent", "chat", "user-1")
OTHER = SessionIdentity("agent", "other", "user-1")


class PlainBackend:
    """Only the four Backend methods, over a dict of JSON texts."""

    def __init__(self) -> None:
        self.data: dict[str, tuple[SessionIdentity, str]] = {}

    def load(self, identity: SessionIdentity) -> list[Record] | None:
        entry = self.data.get(identity.key)
        return None if entry is None else json.loads(entry[1])

    def save(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        self.data[identity.key] = (identity, json.dumps(list(records)))

    def delete(self, identity: SessionIdentity) -> None:
        self.data.pop(identity.key, None)

    def list_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        found = [i for i, _ in self.data.values() if i.agent == agent and i.scope == scope]
        return sorted(found, key=lambda i: i.session)


class PlainAppendingBackend(PlainBackend):
    def append(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        stored = self.load(identity) or []
        self.save(identity, [*stored, *records])


ALL = [*storage_backends.KINDS, "plain", "plain-appending"]


@pytest.fixture(params=ALL)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VersionedBackend]:
    kind = request.param
    if kind == "plain":
        yield Unversioned(PlainBackend())
    elif kind == "plain-appending":
        yield Unversioned(PlainAppendingBackend())
    else:
        with storage_backends.make_backend(kind, tmp_path, request) as b:
            assert isinstance(b, VersionedBackend)
            yield b


def rec(text: str, n: int = 0) -> Record:
    return {"id": f"{text}-{n}", "role": "user", "content": text}


def texts(records: list[Record] | None) -> list[str] | None:
    return None if records is None else [r["content"] for r in records]


# -- the plain contract ------------------------------------------------------------------


@pytest.mark.parametrize("kind", storage_backends.KINDS)
def test_the_built_in_backends_have_revisions(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    with storage_backends.make_backend(kind, tmp_path, request) as b:
        assert isinstance(b, VersionedBackend)
        assert isinstance(b, AppendingBackend)


def test_a_missing_session_has_no_records_and_no_revision(backend: VersionedBackend) -> None:
    assert backend.load(IDENT) is None
    assert backend.load_versioned(IDENT) == (None, None)
    assert backend.list_sessions("agent", "user-1") == []


def test_save_load_append_delete(backend: VersionedBackend) -> None:
    backend.save(IDENT, [rec("a"), rec("b")])
    assert texts(backend.load(IDENT)) == ["a", "b"]
    backend.append(IDENT, [rec("c")])
    assert texts(backend.load(IDENT)) == ["a", "b", "c"]
    backend.save(IDENT, [rec("z")])
    assert texts(backend.load(IDENT)) == ["z"]
    backend.delete(IDENT)
    assert backend.load(IDENT) is None
    backend.delete(IDENT)  # no error for a missing session


def test_an_append_creates_a_missing_session(backend: VersionedBackend) -> None:
    backend.append(IDENT, [rec("a")])
    assert texts(backend.load(IDENT)) == ["a"]
    assert backend.list_sessions("agent", "user-1") == [IDENT]


def test_an_empty_session_is_not_a_missing_one(backend: VersionedBackend) -> None:
    backend.save(IDENT, [])
    records, revision = backend.load_versioned(IDENT)
    assert records == []
    assert revision is not None
    assert backend.list_sessions("agent", "user-1") == [IDENT]


def test_records_keep_their_order_and_values(backend: VersionedBackend) -> None:
    records = [
        {"id": f"m{i}", "role": "user", "content": f"message {i} \u00e9 \ud800 \x00 {SECRET}"}
        for i in range(500)
    ]
    backend.save(IDENT, records[:200])
    for i in range(200, 500, 50):
        backend.append(IDENT, records[i : i + 50])
    assert backend.load(IDENT) == records


def test_sessions_are_listed_per_agent_and_exact_scope(backend: VersionedBackend) -> None:
    names = ["b", "a", "c\u00e9", "\ud800x"]
    for name in names:
        backend.append(IDENT.with_session(name), [rec(name)])
    backend.append(SessionIdentity("agent", "unscoped"), [rec("u")])
    backend.append(SessionIdentity("agent", "x", "user-2"), [rec("x")])
    backend.append(SessionIdentity("agent2", "y", "user-1"), [rec("y")])
    assert [i.session for i in backend.list_sessions("agent", "user-1")] == sorted(names)
    assert backend.list_sessions("agent") == [SessionIdentity("agent", "unscoped")]
    assert backend.list_sessions("agent", "user-2") == [SessionIdentity("agent", "x", "user-2")]
    assert backend.list_sessions("nobody") == []


def test_identities_never_share_a_session(backend: VersionedBackend) -> None:
    identities = [
        SessionIdentity("a", "s"),
        SessionIdentity("a", "s", "x"),
        SessionIdentity("a/b", "s"),
        SessionIdentity("a_b", "s"),
        SessionIdentity("a", "s/"),
        SessionIdentity("A", "s"),
    ]
    for n, ident in enumerate(identities):
        backend.save(ident, [rec("m", n)])
    for n, ident in enumerate(identities):
        assert backend.load(ident) == [rec("m", n)]


# -- revisions ---------------------------------------------------------------------------


def test_every_write_gives_a_new_revision(backend: VersionedBackend) -> None:
    seen = []
    backend.save(IDENT, [rec("a")])
    seen.append(backend.load_versioned(IDENT)[1])
    revision, _ = backend.append_versioned(IDENT, [rec("b")], seen[-1])
    seen.append(revision)
    assert backend.load_versioned(IDENT)[1] == revision
    seen.append(backend.save_versioned(IDENT, [rec("c")], revision))
    backend.append(IDENT, [rec("d")])
    seen.append(backend.load_versioned(IDENT)[1])
    assert None not in seen
    assert len({repr(r) for r in seen}) == len(seen)
    for a, b in itertools.pairwise(seen):
        assert a != b


def test_a_rewrite_at_the_loaded_revision_goes_through(backend: VersionedBackend) -> None:
    backend.save(IDENT, [rec("a"), rec("b")])
    _, revision = backend.load_versioned(IDENT)
    new = backend.save_versioned(IDENT, [rec("b")], revision)
    assert backend.load_versioned(IDENT) == ([rec("b")], new)


def _assert_conflict(backend: VersionedBackend, expected: object) -> None:
    before = backend.load_versioned(IDENT)
    with pytest.raises(ConflictError) as info:
        backend.save_versioned(IDENT, [rec(SECRET)], expected)
    assert isinstance(info.value, StorageError)
    assert info.value.path == f"session {IDENT.key}"
    assert "conflict" in info.value.message
    assert SECRET not in str(info.value)
    assert backend.load_versioned(IDENT) == before  # nothing written


def test_a_rewrite_after_another_writers_append_is_a_conflict(backend: VersionedBackend) -> None:
    backend.save(IDENT, [rec("a")])
    _, loaded = backend.load_versioned(IDENT)
    backend.append(IDENT, [rec("theirs")])
    _assert_conflict(backend, loaded)
    assert texts(backend.load(IDENT)) == ["a", "theirs"]


def test_a_rewrite_after_another_writers_rewrite_is_a_conflict(backend: VersionedBackend) -> None:
    backend.save(IDENT, [rec("a"), rec("b")])
    _, loaded = backend.load_versioned(IDENT)
    backend.save_versioned(IDENT, [rec("a")], loaded)
    _assert_conflict(backend, loaded)


def test_creating_a_session_another_writer_created_is_a_conflict(
    backend: VersionedBackend,
) -> None:
    backend.append(IDENT, [rec("theirs")])
    _assert_conflict(backend, None)
    assert backend.save_versioned(OTHER, [rec("new")], None) is not None  # a new one is fine
    assert texts(backend.load(OTHER)) == ["new"]


def test_a_rewrite_of_a_session_deleted_meanwhile_is_a_conflict(
    backend: VersionedBackend,
) -> None:
    backend.save(IDENT, [rec("a")])
    _, loaded = backend.load_versioned(IDENT)
    backend.delete(IDENT)
    _assert_conflict(backend, loaded)
    assert backend.load(IDENT) is None


def test_a_session_deleted_and_written_again_does_not_get_its_old_revision(
    backend: VersionedBackend,
) -> None:
    backend.save(IDENT, [rec("a")])
    _, loaded = backend.load_versioned(IDENT)
    backend.delete(IDENT)
    backend.save(IDENT, [rec("b")])
    _assert_conflict(backend, loaded)


def test_an_append_says_whether_others_wrote_meanwhile(backend: VersionedBackend) -> None:
    revision, current = backend.append_versioned(IDENT, [rec("a")], None)
    assert current
    revision, current = backend.append_versioned(IDENT, [rec("b")], revision)
    assert current
    backend.append(IDENT, [rec("theirs")])
    stale = revision
    revision, current = backend.append_versioned(IDENT, [rec("c")], stale)
    assert texts(backend.load(IDENT)) == ["a", "b", "theirs", "c"]
    if not isinstance(backend, Unversioned):
        assert not current  # (a plain appending backend cannot know: see _versioned.py)
    assert backend.load_versioned(IDENT)[1] == revision or isinstance(backend, Unversioned)
    _assert_conflict(backend, stale)


def test_an_append_to_a_session_created_meanwhile_is_not_current(
    backend: VersionedBackend,
) -> None:
    backend.append(IDENT, [rec("theirs")])
    _, current = backend.append_versioned(IDENT, [rec("mine")], None)
    if not isinstance(backend, Unversioned) or not isinstance(
        backend.backend, PlainAppendingBackend
    ):
        assert not current
    assert texts(backend.load(IDENT)) == ["theirs", "mine"]


@pytest.mark.parametrize("kind", storage_backends.KINDS)
def test_threads_appending_with_their_own_backends_lose_nothing(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    where = storage_backends.location(kind, tmp_path, request)
    if kind == "memory":
        backends = [storage_backends.open_backend(kind, where)] * 4
    else:
        backends = [storage_backends.open_backend(kind, where) for _ in range(4)]
    start = threading.Barrier(4)
    errors: list[BaseException] = []

    def work(n: int, b: Backend) -> None:
        try:
            start.wait()
            for i in range(50):
                assert isinstance(b, AppendingBackend)
                b.append(IDENT, [rec(f"t{n}", i)])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n, b)) for n, b in enumerate(backends)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        stored = backends[0].load(IDENT)
        assert stored is not None
        assert len(stored) == 200
        for n in range(4):
            mine = [r["id"] for r in stored if r["content"] == f"t{n}"]
            assert mine == [f"t{n}-{i}" for i in range(50)]
    finally:
        for b in backends:
            close = getattr(b, "close", None)
            if close is not None:
                close()


def test_a_conflict_error_pickles_and_is_a_storage_error() -> None:
    from messages.storage._backend import conflict

    err = conflict(IDENT)
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is ConflictError
    assert isinstance(again, StorageError)
    assert str(again) == str(err)
