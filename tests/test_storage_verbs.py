"""A stored session is a history: ConversationHistory's verbs on ChatHistoryStorage and
AsyncChatHistoryStorage, over every backend (PostgreSQL on a real server).

``add``, ``extend`` (all or nothing, a ConversationHistory accepted), ``last``,
``pending_tool_calls``, ``validate``, ``history()``; ``add_message`` and
``last_message`` behave as ``add`` and ``last``. What ``extend`` appends is written
by ``save()`` and read back by a fresh storage object.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import assert_type

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    ConversationHistory,
    InvalidToolCall,
    Message,
    OrderingError,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    UserMessage,
    ValidationError,
)
from messages._ordering import OrderingPolicy
from messages.storage import (
    DROP,
    AsyncChatHistoryStorage,
    Backend,
    ChatHistoryConfig,
    ChatHistoryStorage,
    ConflictError,
    Drop,
    MemoryBackend,
    SessionIdentity,
)
from tests import storage_backends
from tests.conversations import any_sequences, build, policies, spell

IDENT = SessionIdentity("bot", "chat", "user-1")
STRICT = ChatHistoryConfig(policy=OrderingPolicy.strict())


@pytest.fixture(params=storage_backends.KINDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    with storage_backends.make_backend(request.param, tmp_path, request) as b:
        yield b


def _ids(msgs: object) -> list[str]:
    assert isinstance(msgs, tuple)
    return [m.id for m in msgs]


# -- sync -------------------------------------------------------------------------


def test_extend_saves_an_existing_history(backend: Backend) -> None:
    history = ConversationHistory(build("S U C:a,b R:b R:a A U"))
    storage = ChatHistoryStorage(backend, IDENT, STRICT)
    added = storage.extend(history)
    assert added == history.messages()
    assert storage.len() == len(storage) == 7
    assert storage.dirty
    assert storage.save()
    fresh = ChatHistoryStorage(backend, IDENT, STRICT)
    assert fresh.messages() == history.messages()
    assert _ids(fresh.messages()) == _ids(history.messages())
    assert [type(m) for m in fresh.messages()] == [type(m) for m in history.messages()]


def test_extend_appends_after_the_stored_messages(backend: Backend) -> None:
    first = ChatHistoryStorage(backend, IDENT)
    first.extend(build("U C:a"))
    first.save()
    storage = ChatHistoryStorage(backend, IDENT)
    more = build("R:a A U")
    assert storage.extend(iter(more)) == tuple(more)  # any iterable, a generator too
    assert storage.save()
    assert not storage.save()
    assert spell(ChatHistoryStorage(backend, IDENT).messages()) == "U C:a R:a A U"


def test_history_is_an_independent_snapshot(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT, STRICT)
    storage.extend(build("S U A"))
    storage.save()
    snapshot = ChatHistoryStorage(backend, IDENT, STRICT).history()
    assert isinstance(snapshot, ConversationHistory)
    assert snapshot.messages() == storage.messages()
    assert snapshot.policy == OrderingPolicy.strict()
    snapshot.add(UserMessage("only in the snapshot"))
    storage.add(UserMessage("only in the session"))
    assert [m.text for m in snapshot][-1] == "only in the snapshot"
    last = storage.last()
    assert last is not None
    assert last.text == "only in the session"
    assert storage.history() is not storage.history()


def test_an_ordering_error_leaves_the_session_unchanged(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT, STRICT)
    storage.extend(build("S U A"))
    storage.save()
    storage.add(UserMessage("unsaved"))
    before = storage.messages()
    with pytest.raises(OrderingError) as info:
        storage.extend(build("A R:x A"))  # the tool result has no call
    assert (info.value.rule, info.value.index) == ("orphan_tool_result", 5)
    assert storage.messages() == before
    assert storage.pending_tool_calls() == ()
    assert storage.save()  # only the unsaved user message
    fresh = ChatHistoryStorage(backend, IDENT, STRICT)
    assert fresh.messages() == before
    with pytest.raises(OrderingError) as info:
        fresh.extend([*build("A U"), before[0]])  # an id already in the session
    assert info.value.rule == "duplicate_id"
    assert not fresh.dirty
    assert not fresh.save()
    assert ChatHistoryStorage(backend, IDENT, STRICT).messages() == before


def test_a_repeated_id_inside_the_batch_adds_nothing(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    u = UserMessage("q")
    with pytest.raises(OrderingError) as info:
        storage.extend([u, *build("A"), u])
    assert (info.value.rule, info.value.index) == ("duplicate_id", 2)
    assert storage.len() == 0
    assert not storage.save()
    assert backend.load(IDENT) is None


def test_the_old_names_behave_as_the_new(backend: Backend) -> None:
    old = ChatHistoryStorage(backend, SessionIdentity("bot", "old"), STRICT)
    new = ChatHistoryStorage(backend, SessionIdentity("bot", "new"), STRICT)
    assert old.last_message() is None
    assert new.last() is None
    for m in build("S U A"):
        assert old.add_message(m) is m
        assert new.add(m) is m
        assert old.last_message() is old.last() is m
    for storage in (old, new):
        with pytest.raises(OrderingError) as info:
            storage.add_message(build("A")[0])
        assert info.value.rule == "alternation"
        with pytest.raises(OrderingError) as again:
            storage.add(build("A")[0])
        assert again.value.rule == "alternation"
        storage.save()
    assert old.messages() == new.messages()
    reloaded = ChatHistoryStorage(backend, SessionIdentity("bot", "old"), STRICT)
    assert reloaded.last_message() == reloaded.last() == new.last()


def test_pending_calls_and_validate_agree_with_a_history(backend: Backend) -> None:
    invalid = InvalidToolCall("bad", "lookup", "{not json", "arguments are not JSON")
    calls = [ToolCall("a", "lookup", {}), ToolCall("b", "lookup", {})]
    msgs = [UserMessage("q"), ToolCallMessage(calls, invalid_tool_calls=[invalid]), *build("R:a")]
    storage = ChatHistoryStorage(backend, IDENT)
    storage.extend(msgs)
    history = ConversationHistory(msgs, policy=OrderingPolicy.lenient())
    assert storage.pending_tool_calls() == history.pending_tool_calls
    pending = storage.pending_tool_calls()
    assert [c.id for c in pending] == ["b", "bad"]
    assert isinstance(pending[0], ToolCall)
    assert isinstance(pending[1], InvalidToolCall)
    storage.validate()
    history.validate()
    storage.save()
    fresh = ChatHistoryStorage(backend, IDENT)
    assert fresh.pending_tool_calls() == pending  # rebuilt from the stored messages
    fresh.validate()
    with pytest.raises(OrderingError) as info:
        fresh.add(UserMessage("before the last result"))
    assert info.value.rule == "tool_results_pending"


def test_extend_runs_the_hooks_for_each_message(backend: Backend) -> None:
    seen_before: list[str] = []
    seen_after: list[tuple[str, int]] = []

    def before(message: Message, storage: ChatHistoryStorage) -> Message | Drop | None:
        seen_before.append(message.text)
        if message.text == "drop me":
            return DROP
        if message.text == "shout":
            return message.with_content("SHOUT")
        return None

    def after(message: Message, storage: ChatHistoryStorage) -> None:
        seen_after.append((message.text, storage.len()))

    config = ChatHistoryConfig(on_before_add=before, on_after_add=after)
    storage = ChatHistoryStorage(backend, IDENT, config)
    batch = [UserMessage("hi"), UserMessage("drop me"), UserMessage("shout"), UserMessage("x")]
    storage.add(SystemMessage("s"))
    seen_before.clear()
    seen_after.clear()
    added = storage.extend(batch)
    assert [m.text for m in added] == ["hi", "SHOUT", "x"]
    assert seen_before == ["hi", "drop me", "shout", "x"]
    # every message of the batch is in before on_after_add runs
    assert seen_after == [("hi", 4), ("SHOUT", 4), ("x", 4)]
    storage.save()
    assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == [
        "s",
        "hi",
        "SHOUT",
        "x",
    ]


def test_a_hook_that_fails_or_breaks_the_order_adds_nothing(backend: Backend) -> None:
    def before(message: Message, storage: ChatHistoryStorage) -> Message | None:
        if message.text == "boom":
            raise RuntimeError("hook failed")
        if message.text == "into a result":
            return build("R:nobody")[0]
        return None

    after: list[Message] = []
    config = ChatHistoryConfig(
        policy=OrderingPolicy.strict(),
        on_before_add=before,
        on_after_add=lambda m, s: after.append(m),
    )
    storage = ChatHistoryStorage(backend, IDENT, config)
    with pytest.raises(RuntimeError):
        storage.extend([SystemMessage("s"), UserMessage("boom")])
    with pytest.raises(OrderingError) as info:
        storage.extend([SystemMessage("s"), UserMessage("into a result")])
    assert info.value.rule == "orphan_tool_result"
    assert storage.len() == 0
    assert after == []
    assert not storage.save()


def test_extend_refuses_what_is_not_messages_before_any_hook(backend: Backend) -> None:
    called: list[object] = []
    config = ChatHistoryConfig(on_before_add=lambda m, s: called.append(m))
    storage = ChatHistoryStorage(backend, IDENT, config)
    with pytest.raises(ValidationError) as info:
        storage.extend(42)  # type: ignore[arg-type]
    assert info.value.path == "messages"
    assert "int" in info.value.message
    with pytest.raises(OrderingError) as bad:
        storage.extend([UserMessage("q"), {"role": "user", "content": "q"}])  # type: ignore[list-item]
    assert (bad.value.rule, bad.value.index) == ("not_a_message", 1)
    with pytest.raises(OrderingError) as one:
        storage.add("q")  # type: ignore[arg-type]
    assert one.value.rule == "not_a_message"
    assert called == []
    assert storage.len() == 0


def test_extend_is_an_append_that_merges_with_other_writers(backend: Backend) -> None:
    mine = ChatHistoryStorage(backend, IDENT)
    theirs = ChatHistoryStorage(backend, IDENT)
    mine.extend(build("U A"))
    theirs.extend(build("U A"))
    assert theirs.save()
    assert mine.save()  # appends never conflict
    assert ChatHistoryStorage(backend, IDENT).len() == 4


def test_a_rewrite_then_extend_conflicts_with_another_writer(backend: Backend) -> None:
    first = ChatHistoryStorage(backend, IDENT)
    first.extend(build("U A"))
    first.save()
    mine = ChatHistoryStorage(backend, IDENT)
    mine.clear()
    mine.extend(build("U A U"))
    other = ChatHistoryStorage(backend, IDENT)
    other.extend(build("U"))
    other.save()
    with pytest.raises(ConflictError):
        mine.save()
    assert spell(ChatHistoryStorage(backend, IDENT).messages()) == "U A U"
    assert [m.id for m in ChatHistoryStorage(backend, IDENT).messages()] == [
        *[m.id for m in first.messages()],
        *[m.id for m in other.messages()[2:]],
    ]


def test_extend_with_nothing_changes_nothing(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    assert storage.extend([]) == ()
    assert storage.extend(ConversationHistory()) == ()
    assert not storage.dirty
    assert not storage.save()
    assert backend.load(IDENT) is None


# -- async ------------------------------------------------------------------------


def test_async_extend_saves_an_existing_history(backend: Backend) -> None:
    history = ConversationHistory(build("S U C:a,b R:b R:a A U"))

    async def main() -> None:
        storage = AsyncChatHistoryStorage(backend, IDENT, STRICT)
        assert await storage.extend(history) == history.messages()
        assert await storage.save()
        fresh = AsyncChatHistoryStorage(backend, IDENT, STRICT)
        assert await fresh.messages() == history.messages()
        snapshot = await fresh.history()
        assert snapshot.messages() == history.messages()
        snapshot.add(AssistantMessage("only in the snapshot"))
        assert await fresh.len() == 7
        copy = AsyncChatHistoryStorage(backend, SessionIdentity("bot", "copy"), STRICT)
        assert await copy.extend(fresh) == history.messages()  # another async storage
        await copy.save()
        assert ChatHistoryStorage(backend, SessionIdentity("bot", "copy")).messages() == (
            history.messages()
        )

    asyncio.run(main())


def test_async_ordering_error_leaves_the_session_unchanged(backend: Backend) -> None:
    async def main() -> None:
        storage = AsyncChatHistoryStorage(backend, IDENT, STRICT)
        await storage.extend(build("S U A"))
        await storage.save()
        fresh = AsyncChatHistoryStorage(backend, IDENT, STRICT)
        before = await fresh.messages()
        with pytest.raises(OrderingError) as info:
            await fresh.extend(build("U U"))
        assert (info.value.rule, info.value.index) == ("alternation", 4)
        assert await fresh.messages() == before
        assert not fresh.dirty
        assert not await fresh.save()
        assert await AsyncChatHistoryStorage(backend, IDENT).messages() == before

    asyncio.run(main())


def test_async_old_names_and_history_verbs(backend: Backend) -> None:
    msgs = build("U C:a,b R:b")

    async def main() -> None:
        storage = AsyncChatHistoryStorage(backend, IDENT)
        assert await storage.last() is None
        assert await storage.last_message() is None
        assert await storage.add_message(msgs[0]) is msgs[0]
        assert await storage.add(msgs[1]) is msgs[1]
        assert await storage.extend(msgs[2:]) == tuple(msgs[2:])
        assert await storage.last() is await storage.last_message() is msgs[2]
        history = ConversationHistory(msgs, policy=OrderingPolicy.lenient())
        assert await storage.pending_tool_calls() == history.pending_tool_calls
        await storage.validate()
        await storage.save()
        fresh = AsyncChatHistoryStorage(backend, IDENT)
        assert [c.id for c in await fresh.pending_tool_calls()] == ["a"]
        await fresh.validate()
        with pytest.raises(OrderingError):
            await fresh.add_message(UserMessage("too early"))
        with pytest.raises(OrderingError):
            await fresh.add(UserMessage("too early"))
        assert await fresh.len() == 3

    asyncio.run(main())


# -- the same rules as ConversationHistory ------------------------------------------


@given(seq=any_sequences(), policy=policies, split=st.integers(0, 20))
def test_storage_and_history_agree_on_any_sequence(
    seq: list[Message], policy: OrderingPolicy, split: int
) -> None:
    """Stored and added in two batches, any sequence gives what a history gives."""
    backend = MemoryBackend()
    storage = ChatHistoryStorage(backend, IDENT, ChatHistoryConfig(policy=policy))
    history = ConversationHistory(policy=policy)
    for batch in (seq[:split], seq[split:]):
        try:
            history.extend(batch)
        except OrderingError as expected:
            with pytest.raises(OrderingError) as got:
                storage.extend(batch)
            assert (got.value.rule, got.value.index) == (expected.rule, expected.index)
        else:
            assert storage.extend(batch) == tuple(batch)
        assert storage.messages() == history.messages()
        assert storage.pending_tool_calls() == history.pending_tool_calls
        storage.validate()
        storage.save()
        storage = ChatHistoryStorage(backend, IDENT, ChatHistoryConfig(policy=policy))
    assert storage.messages() == history.messages()
    assert storage.pending_tool_calls() == history.pending_tool_calls


def test_the_types_of_the_verbs(tmp_path: Path) -> None:
    storage = ChatHistoryStorage(MemoryBackend(), IDENT)
    assert_type(storage.add(UserMessage("q")), Message | None)
    assert_type(storage.extend(ConversationHistory()), tuple[Message, ...])
    assert_type(storage.last(), Message | None)
    assert_type(storage.pending_tool_calls(), tuple[ToolCall | InvalidToolCall, ...])
    assert_type(storage.validate(), None)
    assert_type(storage.history(), ConversationHistory)
    assert storage.len() == 1
