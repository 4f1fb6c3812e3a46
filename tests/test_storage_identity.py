"""SessionIdentity: validation, and storage keys that are unique and cannot escape."""

from __future__ import annotations

import dataclasses
import os
import pickle
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import ValidationError
from messages.storage import (
    Backend,
    JsonFileBackend,
    MemoryBackend,
    SessionIdentity,
    SQLiteBackend,
)

SAFE_KEY = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*$")
MAX_KEY = 131

HOSTILE = [
    "../../etc/passwd",
    "..",
    ".",
    "/abs/path",
    "C:\\Windows\\system32",
    "a/b",
    "a\\b",
    "nul\x00byte",
    "\x00",
    "con",
    "NUL",
    "tab\there\nnewline",
    "x" * 5000,
    "é" * 300,
    "\ud800lone surrogate",
    "emoji \U0001f600",
    "\u0430gent",  # Cyrillic a
    "\uff41\uff47\uff45\uff4e\uff54",  # fullwidth "agent"
    "agent\u200b",  # zero-width space
    ".hidden",
    "-dash",
    "*?<>|\"'",
    "a.b.c",
]


@pytest.mark.parametrize(
    ("kwargs", "path"),
    [
        ({"agent": "", "session": "s"}, "agent"),
        ({"agent": "a", "session": ""}, "session"),
        ({"agent": "a", "session": "s", "scope": ""}, "scope"),
        ({"agent": None, "session": "s"}, "agent"),
        ({"agent": "a", "session": 3}, "session"),
        ({"agent": "a", "session": "s", "scope": 7}, "scope"),
        ({"agent": b"a", "session": "s"}, "agent"),
    ],
)
def test_bad_names_are_rejected(kwargs: dict[str, object], path: str) -> None:
    with pytest.raises(ValidationError) as info:
        SessionIdentity(**kwargs)  # type: ignore[arg-type]
    assert info.value.path == path


def test_empty_scope_error_suggests_none() -> None:
    with pytest.raises(ValidationError, match="use None for no scope"):
        SessionIdentity("a", "s", "")


def test_identity_is_frozen_hashable_and_picklable() -> None:
    ident = SessionIdentity("bot", "chat", "user-1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ident.agent = "other"  # type: ignore[misc]
    assert ident == SessionIdentity("bot", "chat", "user-1")
    assert hash(ident) == hash(SessionIdentity("bot", "chat", "user-1"))
    copy = pickle.loads(pickle.dumps(ident))
    assert copy == ident
    assert copy.key == ident.key


def test_key_is_stable_across_versions() -> None:
    # Stored sessions are found by key: changing the derivation would orphan them.
    assert SessionIdentity("bot", "s1").key == "bot..s1.3c0ab4cb46073a62fd7057e26035b12d"
    assert SessionIdentity("bot", "s1", "u").key.startswith("bot.u.s1.")


def test_with_session_keeps_agent_and_scope() -> None:
    ident = SessionIdentity("bot", "one", "tenant")
    other = ident.with_session("two")
    assert (other.agent, other.session, other.scope) == ("bot", "two", "tenant")


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_give_a_single_safe_file_name(name: str) -> None:
    for ident in (
        SessionIdentity(name, "s"),
        SessionIdentity("a", name),
        SessionIdentity("a", "s", name),
        SessionIdentity(name, name, name),
    ):
        key = ident.key
        assert SAFE_KEY.match(key), key
        assert key not in (".", "..")
        assert os.path.basename(key) == key
        assert len(key) <= MAX_KEY


# Pairs whose readable slugs agree: only the hash keeps them apart.
NEAR_COLLISIONS = [
    (("a/b", "s"), ("a_b", "s")),
    (("a\\b", "s"), ("a/b", "s")),
    (("agent", "s"), ("\u0430gent", "s")),
    (("agent", "s"), ("Agent", "s")),
    (("x" * 40 + "1", "s"), ("x" * 40 + "2", "s")),
    (("a.b", "c"), ("a", "b.c")),
    (("a", "s", None), ("a", "s", "_")),
    (("a", "b", "c"), ("a", "c", "b")),
    (("\ud800", "s"), ("\ud801", "s")),
    (("a\x00", "s"), ("a_", "s")),
    (("a", "s"), ("a", "s\u200b")),
]


@pytest.mark.parametrize(("one", "two"), NEAR_COLLISIONS)
def test_near_collisions_get_different_keys(
    one: tuple[str, str, str | None] | tuple[str, str],
    two: tuple[str, str, str | None] | tuple[str, str],
) -> None:
    assert SessionIdentity(*one).key != SessionIdentity(*two).key


names = st.text(min_size=1, max_size=80)


@settings(max_examples=200)
@given(names, names, st.none() | names)
def test_any_names_give_a_safe_key(agent: str, session: str, scope: str | None) -> None:
    key = SessionIdentity(agent, session, scope).key
    assert SAFE_KEY.match(key)
    assert len(key) <= MAX_KEY


@settings(max_examples=200)
@given(
    st.tuples(names, names, st.none() | names),
    st.tuples(names, names, st.none() | names),
)
def test_distinct_identities_get_distinct_keys(
    one: tuple[str, str, str | None], two: tuple[str, str, str | None]
) -> None:
    if one != two:
        assert SessionIdentity(*one).key != SessionIdentity(*two).key
    else:
        assert SessionIdentity(*one).key == SessionIdentity(*two).key


# -- the backends keep hostile sessions apart and inside their space ---------------------


@pytest.fixture(params=["memory", "json", "sqlite"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "memory":
        yield MemoryBackend()
    elif request.param == "json":
        yield JsonFileBackend(tmp_path / "sessions", fsync=False)
    else:
        with SQLiteBackend(tmp_path / "db.sqlite", fsync=False) as b:
            yield b


def test_hostile_sessions_stay_apart_and_inside(backend: Backend, tmp_path: Path) -> None:
    idents = [SessionIdentity(n, "s") for n in HOSTILE]
    idents += [SessionIdentity("a", n) for n in HOSTILE]
    idents += [SessionIdentity("a", "s", n) for n in HOSTILE]
    idents = list(dict.fromkeys(idents))
    for i, ident in enumerate(idents):
        backend.save(ident, [{"role": "user", "content": f"m{i}"}])
    for i, ident in enumerate(idents):
        assert backend.load(ident) == [{"role": "user", "content": f"m{i}"}]
    listed = backend.list_sessions("a")
    expected = sorted(
        (i for i in idents if i.agent == "a" and i.scope is None), key=lambda i: i.session
    )
    assert listed == expected
    for n in HOSTILE:
        assert backend.list_sessions("a", n) == [SessionIdentity("a", "s", n)]
        assert backend.list_sessions(n) == [SessionIdentity(n, "s")]
    # Nothing was written outside the backend's own space.
    outside = sorted(p.name for p in tmp_path.iterdir())
    assert outside in (
        [],
        ["sessions"],
        ["db.sqlite", "db.sqlite-shm", "db.sqlite-wal"],
        ["db.sqlite"],
    )
    if isinstance(backend, JsonFileBackend):
        files = sorted(os.listdir(backend.directory))
        sessions = sorted(i.key + ".jsonl" for i in idents)
        locks = {f".{i.key}.lock" for i in idents}  # each session's write lock
        assert [f for f in files if f not in locks] == sessions


def test_scopes_are_isolated(backend: Backend) -> None:
    mine = SessionIdentity("bot", "chat", "alice")
    theirs = SessionIdentity("bot", "chat", "bob")
    unscoped = SessionIdentity("bot", "chat")
    backend.save(mine, [{"role": "user", "content": "alice"}])
    assert backend.load(theirs) is None
    assert backend.load(unscoped) is None
    assert backend.list_sessions("bot", "alice") == [mine]
    assert backend.list_sessions("bot", "bob") == []
    assert backend.list_sessions("bot") == []
    backend.delete(theirs)
    assert backend.load(mine) == [{"role": "user", "content": "alice"}]
