"""ChatHistoryStorage with two writers on one session: the conflict rule, and truncate().

The rule: appends merge; a rewrite (remove, replace, clear, truncate, the automatic
truncation, a repair on load) goes through only while the stored session is what
this storage loaded or last wrote. Otherwise ``save()`` raises ConflictError,
writes nothing, and keeps the changes here; ``reload()`` shows both writers'
messages. Checked over every built-in backend and the dbm example (a plain backend).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
)
from messages.storage import (
    Backend,
    ChatHistoryConfig,
    ChatHistoryStorage,
    ConflictError,
    SessionIdentity,
)
from tests import storage_backends
from tests.conftest import SECRET
from tests.test_storage import DbmBackend

IDENT = SessionIdentity("bot", "chat", "user-1")


@pytest.fixture(params=[*storage_backends.KINDS, "dbm"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "dbm":
        example = DbmBackend(str(tmp_path / "chats.dbm"))
        yield example
        example.db.close()
    else:
        with storage_backends.make_backend(request.param, tmp_path, request) as b:
            yield b


def texts(storage: ChatHistoryStorage) -> list[str]:
    return [m.text for m in storage.messages()]


def stored(backend: Backend) -> list[str]:
    return texts(ChatHistoryStorage(backend, IDENT))


def two_writers(backend: Backend, *first: str) -> tuple[ChatHistoryStorage, ChatHistoryStorage]:
    """Two storages on one session holding ``first``, both loaded."""
    seed = ChatHistoryStorage(backend, IDENT)
    for text in first:
        seed.add_message(UserMessage(text))
    seed.save()
    a, b = ChatHistoryStorage(backend, IDENT), ChatHistoryStorage(backend, IDENT)
    a.len()
    b.len()
    return a, b


def _remove_first(s: ChatHistoryStorage) -> None:
    s.remove(s.messages()[0].id)


def _replace_first(s: ChatHistoryStorage) -> None:
    first = s.messages()[0]
    s.replace(first.id, first.with_content(SECRET))


def _clear(s: ChatHistoryStorage) -> None:
    s.clear()


def _truncate(s: ChatHistoryStorage) -> None:
    assert s.truncate(1, lambda m: 1)


REWRITES: dict[str, Callable[[ChatHistoryStorage], None]] = {
    "remove": _remove_first,
    "replace": _replace_first,
    "clear": _clear,
    "truncate": _truncate,
}


@pytest.mark.parametrize("change", list(REWRITES))
def test_a_rewrite_after_another_writers_append_is_refused_and_writes_nothing(
    backend: Backend, change: str
) -> None:
    a, b = two_writers(backend, "one", "two")
    b.add_message(UserMessage("theirs"))
    b.save()
    REWRITES[change](a)
    mine = texts(a)
    with pytest.raises(ConflictError) as info:
        a.save()
    assert info.value.path == f"session {IDENT.key}"
    assert SECRET not in str(info.value)
    assert SECRET not in repr(info.value)
    assert stored(backend) == ["one", "two", "theirs"]  # unchanged
    assert a.dirty  # the change is kept here ...
    assert texts(a) == mine
    with pytest.raises(ConflictError):
        a.save()  # ... and refused again until reloaded
    a.reload()
    assert texts(a) == ["one", "two", "theirs"]
    REWRITES[change](a)
    assert a.save()
    assert stored(backend) == texts(a)


def test_a_rewrite_after_another_writers_rewrite_is_refused(backend: Backend) -> None:
    a, b = two_writers(backend, "one", "two")
    _remove_first(b)
    b.save()
    _replace_first(a)
    with pytest.raises(ConflictError):
        a.save()
    assert stored(backend) == ["two"]


def test_a_rewrite_after_another_writer_deleted_the_session_is_refused(backend: Backend) -> None:
    a, b = two_writers(backend, "one", "two")
    b.delete()
    _remove_first(a)
    with pytest.raises(ConflictError):
        a.save()
    assert ChatHistoryStorage(backend, IDENT).len() == 0
    assert backend.list_sessions("bot", "user-1") == []


def test_appends_merge_whatever_others_did(backend: Backend) -> None:
    a, b = two_writers(backend, "one")
    a.add_message(UserMessage("a1"))
    b.add_message(UserMessage("b1"))
    b.save()
    assert a.save()  # no conflict: appends merge
    _remove_first(b)  # b's view lacks a1: its rewrite must not drop it
    with pytest.raises(ConflictError):
        b.save()
    assert stored(backend) == ["one", "b1", "a1"]


def test_an_append_that_found_others_leaves_this_view_behind(backend: Backend) -> None:
    a, b = two_writers(backend, "one")
    b.add_message(UserMessage("theirs"))
    b.save()
    a.add_message(UserMessage("mine"))
    a.save()  # merged after "theirs", which this storage has not seen
    assert texts(a) == ["one", "mine"]
    a.add_message(UserMessage("more"))
    a.save()
    _remove_first(a)  # would drop "theirs"
    with pytest.raises(ConflictError):
        a.save()
    a.reload()
    assert texts(a) == ["one", "theirs", "mine", "more"]


def test_a_writer_alone_never_conflicts(backend: Backend) -> None:
    s = ChatHistoryStorage(backend, IDENT)
    for round_ in range(5):
        s.add_message(UserMessage(f"u{round_}"))
        s.add_message(AssistantMessage(f"a{round_}"))
        s.save()
        if round_ % 2:
            _remove_first(s)
            s.save()
        s.add_message(UserMessage(f"x{round_}"))
        s.save()
        _replace_first(s)
        s.save()
    assert stored(backend) == texts(s)
    s.clear()
    s.save()
    assert stored(backend) == []


def test_two_storages_creating_one_session_both_keep_their_messages(backend: Backend) -> None:
    a, b = ChatHistoryStorage(backend, IDENT), ChatHistoryStorage(backend, IDENT)
    a.add_message(UserMessage("a"))
    b.add_message(UserMessage("b"))
    a.save()
    b.save()
    assert stored(backend) == ["a", "b"]


def test_a_rewrite_of_a_session_created_meanwhile_is_refused(backend: Backend) -> None:
    a, b = ChatHistoryStorage(backend, IDENT), ChatHistoryStorage(backend, IDENT)
    a.add_message(UserMessage("a"))
    a.add_message(UserMessage("a2"))
    _remove_first(a)  # a rewrite of a session a believes does not exist
    b.add_message(UserMessage("b"))
    b.save()
    with pytest.raises(ConflictError):
        a.save()
    assert stored(backend) == ["b"]


def _usage(total: int) -> dict[str, Any]:
    return {"usage": {"total_tokens": total}}


def test_the_automatic_truncation_is_a_rewrite_that_can_conflict(backend: Backend) -> None:
    config = ChatHistoryConfig(context_window=100, reserved_for_completion=0)
    a = ChatHistoryStorage(backend, IDENT, config)
    b = ChatHistoryStorage(backend, IDENT, config)
    for i in range(4):
        a.add_message(UserMessage(f"q{i} " + "x" * 200))
        a.add_message(AssistantMessage(f"a{i}"))
    a.save()
    b.len()
    a.add_message(UserMessage("theirs"))
    a.save()
    b.add_message(UserMessage("q9"))
    b.add_message(AssistantMessage("a9", metadata=_usage(5000)))  # over the window: truncate
    with pytest.raises(ConflictError):
        b.save()
    assert "theirs" in stored(backend)
    b.reload()
    b.add_message(AssistantMessage("a9", metadata=_usage(5000)))
    assert b.save()
    assert len(stored(backend)) < 10


def test_a_repair_on_load_is_a_rewrite_that_can_conflict(backend: Backend) -> None:
    call = ToolCallMessage([ToolCall("c1", "lookup", {})])
    broken = [UserMessage("q"), call, UserMessage("interleaved")]  # the call is unanswered
    backend.save(IDENT, [m.to_dict() for m in broken])
    config = ChatHistoryConfig(repair_on_load=True)
    a, b = ChatHistoryStorage(backend, IDENT, config), ChatHistoryStorage(backend, IDENT, config)
    a.len()
    b.len()
    assert a.repairs
    assert a.dirty  # the repaired session is written on the next save
    b.add_message(UserMessage("theirs"))
    assert b.save()
    with pytest.raises(ConflictError):
        a.save()
    assert stored(backend)[-1] == "theirs"


# -- truncate() ------------------------------------------------------------------------------


def _conversation() -> list[Message]:
    call = ToolCall("c1", "search", {"q": "x"})
    return [
        SystemMessage("sys"),
        UserMessage("q1 " + "x" * 400),
        ToolCallMessage([call]),
        ToolResultMessage("c1", "r" * 400, tool_name="search"),
        AssistantMessage("a1 " + "y" * 400),
        UserMessage("q2"),
        AssistantMessage("a2"),
    ]


def test_truncate_drops_whole_old_turns_and_the_next_save_persists_it(backend: Backend) -> None:
    s = ChatHistoryStorage(backend, IDENT)
    for m in _conversation():
        s.add_message(m)
    s.save()
    removed = s.truncate(50)
    assert [m.text for m in removed][:1] == [_conversation()[1].text]
    assert len(removed) == 4  # the question, the call, its result and the answer go together
    assert texts(s) == ["sys", "q2", "a2"]
    assert s.dirty
    assert s.save()
    assert stored(backend) == ["sys", "q2", "a2"]


def test_truncate_that_fits_changes_nothing(backend: Backend) -> None:
    s = ChatHistoryStorage(backend, IDENT)
    for m in _conversation():
        s.add_message(m)
    s.save()
    assert s.truncate(1_000_000) == ()
    assert not s.dirty
    assert not s.save()


def test_truncate_uses_the_counter_given() -> None:
    from messages.storage import MemoryBackend

    s = ChatHistoryStorage(MemoryBackend(), IDENT)
    for m in _conversation():
        s.add_message(m)
    seen: list[Message] = []

    def count(m: Message) -> int:
        seen.append(m)
        return 10

    removed = s.truncate(30, count)
    assert seen
    assert [m.text for m in s.messages()] == ["sys", "q2", "a2"]
    assert len(removed) == 4


@pytest.mark.parametrize("bad", [-1, 1.5, True, "10", None])
def test_truncate_refuses_a_bad_budget(bad: Any) -> None:
    from messages.storage import MemoryBackend

    s = ChatHistoryStorage(MemoryBackend(), IDENT)
    s.add_message(UserMessage("q"))
    with pytest.raises(ValidationError) as info:
        s.truncate(bad)
    assert info.value.path == "max_tokens"
    assert texts(s) == ["q"]
