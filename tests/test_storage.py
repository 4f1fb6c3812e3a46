"""ChatHistoryStorage over every backend: round trips, lazy loading, dirty tracking,
hooks, truncation, store_meta, messages by id, corruption and threads."""

from __future__ import annotations

import dbm
import json
import os
import tempfile
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    AudioPart,
    DeveloperMessage,
    FilePart,
    ImagePart,
    Message,
    OrderingError,
    OrderingPolicy,
    ReasoningPart,
    StorageError,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
)
from messages.storage import (
    DROP,
    AppendingBackend,
    Backend,
    ChatHistoryConfig,
    ChatHistoryStorage,
    JsonFileBackend,
    MemoryBackend,
    Record,
    SessionIdentity,
    SQLiteBackend,
)
from tests import storage_backends, strategies
from tests.conftest import SECRET
from tests.conversations import conversations

IDENT = SessionIdentity("bot", "chat", "user-1")


class DbmBackend:  # the example of messages/storage/_backend.py, verbatim
    def __init__(self, path: str) -> None:
        self.db = dbm.open(path, "c")  # noqa: SIM115 - closed by the fixture

    def load(self, identity: SessionIdentity) -> Any:
        raw = self.db.get(identity.key)
        return None if raw is None else json.loads(raw)["messages"]

    def save(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        who = [identity.agent, identity.session, identity.scope]
        self.db[identity.key] = json.dumps({"who": who, "messages": list(records)})

    def delete(self, identity: SessionIdentity) -> None:
        if identity.key in self.db:
            del self.db[identity.key]

    def list_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        found = []
        for key in self.db.keys():  # noqa: SIM118 - dbm.gnu objects are not iterable
            a, s, sc = json.loads(self.db[key])["who"]
            if a == agent and sc == scope:
                found.append(SessionIdentity(a, s, sc))
        return sorted(found, key=lambda i: i.session)


class Counting:
    """Forwards to a real backend and counts the calls (no behaviour of its own)."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.calls: list[tuple[str, int]] = []

    def load(self, identity: SessionIdentity) -> list[Record] | None:
        self.calls.append(("load", 0))
        return self.inner.load(identity)

    def save(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        self.calls.append(("save", len(records)))
        self.inner.save(identity, records)

    def delete(self, identity: SessionIdentity) -> None:
        self.calls.append(("delete", 0))
        self.inner.delete(identity)

    def list_sessions(self, agent: str, scope: str | None = None) -> list[SessionIdentity]:
        return self.inner.list_sessions(agent, scope)

    def writes(self) -> list[tuple[str, int]]:
        return [c for c in self.calls if c[0] in ("save", "append")]


class CountingAppending(Counting):
    def append(self, identity: SessionIdentity, records: Sequence[Record]) -> None:
        self.calls.append(("append", len(records)))
        assert isinstance(self.inner, AppendingBackend)
        self.inner.append(identity, records)


KINDS = [*storage_backends.KINDS, "dbm"]


@pytest.fixture(params=KINDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    kind = request.param
    if kind == "dbm":
        example = DbmBackend(str(tmp_path / "chats.dbm"))
        yield example
        example.db.close()
    else:
        with storage_backends.make_backend(kind, tmp_path, request) as b:
            yield b


@pytest.fixture
def counting(backend: Backend) -> Counting:
    return (
        CountingAppending(backend) if isinstance(backend, AppendingBackend) else Counting(backend)
    )


def conversation() -> list[Message]:
    at = datetime(2024, 5, 1, 12, 30, 15, 123456, tzinfo=UTC)
    call = ToolCall("call_1", "get_weather", {"city": "Paris", "days": [1, 2]})
    call2 = ToolCall(
        "call_2", "get-time", '{"tz": "CET"}', extras={"provider": "gemini", "sig": "x"}
    )
    return [
        SystemMessage("You are helpful.", metadata={"version": 3}),
        DeveloperMessage("Be brief.", name="dev"),
        UserMessage(
            [
                TextPart("what is this?"),
                ImagePart(url="https://example.com/cat.png", detail="low"),
                ImagePart(data="iVBORw0KGgo=", media_type="image/png"),
                AudioPart(data="UklGRg==", format="wav"),
                FilePart(file_id="file-1", filename="a.pdf"),
            ],
            name="alice",
            created_at=at,
        ),
        AssistantMessage(
            [
                ReasoningPart("thinking...", signature="sig-1", provider="anthropic"),
                TextPart("A cat."),
            ]
        ),
        UserMessage("and the weather?", id="custom-id-7", extras={"unknown": {"a": [1]}}),
        ToolCallMessage([call, call2], "Let me check.", metadata={"trace": "t1"}),
        ToolResultMessage("call_2", "12:00", tool_name="get-time"),
        ToolResultMessage("call_1", "error: timeout", is_error=True, tool_name="get_weather"),
        AssistantMessage(
            "It is sunny. \ud800 \u00e9\u4e2d\U0001f600", metadata={"usage": {"total_tokens": 99}}
        ),
    ]


def assert_same(got: Sequence[Message], want: Sequence[Message]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert type(g) is type(w)
        assert g.to_dict() == w.to_dict()
        assert g == w
        assert g.id == w.id
        assert g.created_at == w.created_at


def test_backends_satisfy_the_protocol(backend: Backend) -> None:
    assert isinstance(backend, Backend)


# -- round trips ---------------------------------------------------------------------------


def test_round_trip_keeps_classes_ids_and_every_field(backend: Backend) -> None:
    msgs = conversation()
    storage = ChatHistoryStorage(backend, IDENT)
    for m in msgs:
        storage.add_message(m)
    assert storage.save()
    again = ChatHistoryStorage(backend, IDENT)
    assert_same(again.messages(), msgs)
    assert again.last_message() == msgs[-1]
    assert again.len() == len(again) == len(msgs)
    assert list(again) == msgs


def test_round_trip_of_large_and_odd_text(backend: Backend) -> None:
    texts = [
        "",
        "\x00\x01\x7f",
        "\ud800",
        "\udfff\ud800",
        "x" * 200_000,
        '"\\/\b\f\n\r\t',
        "\u2028\u2029",
    ]
    storage = ChatHistoryStorage(backend, IDENT)
    for t in texts:
        storage.add_message(UserMessage(t))
    storage.save()
    assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == texts


def test_a_surrogate_pair_held_as_two_code_points_reads_back_as_one_character(
    backend: Backend,
) -> None:
    # Every backend stores JSON, which writes both as \ud83d\ude00 (as the codec
    # documents); lone surrogates, on their own, come back exactly.
    storage = ChatHistoryStorage(backend, IDENT)
    storage.add_message(UserMessage("\ud83d\ude00 \ud83d \ude00"))
    storage.save()
    got = ChatHistoryStorage(backend, IDENT).messages()[0].text
    assert got == "\U0001f600 \ud83d \ude00"


def test_a_session_never_saved_is_empty(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    assert storage.messages() == ()
    assert storage.last_message() is None
    assert len(storage) == 0
    assert backend.load(IDENT) is None


def test_an_empty_session_can_be_saved(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    storage.add_message(UserMessage("x"))
    storage.save()
    storage.clear()
    assert storage.save()
    assert backend.load(IDENT) == []
    assert backend.list_sessions("bot", "user-1") == [IDENT]


def test_sessions_are_listed_per_agent_and_scope(backend: Backend) -> None:
    for session in ("b", "a", "c"):
        backend.save(SessionIdentity("bot", session, "u"), [])
    backend.save(SessionIdentity("bot", "z"), [])
    backend.save(SessionIdentity("other", "a", "u"), [])
    assert [i.session for i in backend.list_sessions("bot", "u")] == ["a", "b", "c"]
    assert backend.list_sessions("bot") == [SessionIdentity("bot", "z")]
    assert backend.list_sessions("nobody") == []


def test_delete_removes_the_stored_session(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    storage.add_message(UserMessage("x"))
    storage.save()
    storage.delete()
    assert backend.load(IDENT) is None
    assert storage.messages() == ()
    backend.delete(IDENT)  # deleting again is not an error


# -- lazy loading and dirty tracking -------------------------------------------------------


def test_loading_waits_for_first_use(counting: Counting) -> None:
    storage = ChatHistoryStorage(counting, IDENT)
    assert counting.calls == []
    assert not storage.loaded
    assert not storage.save()  # nothing loaded, nothing changed: no I/O at all
    assert counting.calls == []
    storage.messages()
    storage.messages()
    len(storage)
    assert counting.calls == [("load", 0)]
    assert storage.loaded


def _dirty(storage: ChatHistoryStorage) -> bool:
    return storage.dirty


def test_save_writes_only_when_something_changed(counting: Counting) -> None:
    storage = ChatHistoryStorage(counting, IDENT)
    storage.add_message(UserMessage("a"))
    assert _dirty(storage)
    assert storage.save()
    assert not _dirty(storage)
    assert not storage.save()
    assert len(counting.writes()) == 1
    fresh = ChatHistoryStorage(counting, IDENT)
    assert fresh.len() == 1
    assert not fresh.save()
    fresh.reload()
    assert not fresh.save()
    assert len(counting.writes()) == 1


def test_after_appends_only_the_new_messages_are_written(counting: Counting) -> None:
    storage = ChatHistoryStorage(counting, IDENT)
    for i in range(5):
        storage.add_message(UserMessage(f"m{i}"))
    storage.save()
    storage.add_message(UserMessage("m5"))
    storage.add_message(UserMessage("m6"))
    storage.save()
    if isinstance(counting, CountingAppending):
        assert counting.writes() == [("append", 5), ("append", 2)]
    else:
        assert counting.writes() == [("save", 5), ("save", 7)]
    assert [m.text for m in ChatHistoryStorage(counting, IDENT).messages()] == [
        f"m{i}" for i in range(7)
    ]


@pytest.mark.parametrize("change", ["remove", "replace", "clear"])
def test_other_changes_rewrite_the_session(counting: Counting, change: str) -> None:
    storage = ChatHistoryStorage(counting, IDENT)
    for i in range(3):
        storage.add_message(UserMessage(f"m{i}"))
    storage.save()
    first = storage.messages()[0]
    if change == "remove":
        assert storage.remove(first.id) is first
        expected = ["m1", "m2"]
    elif change == "replace":
        assert storage.replace(first.id, first.with_content("new")) is first
        expected = ["new", "m1", "m2"]
    else:
        storage.clear()
        expected = []
    assert storage.dirty
    assert storage.save()
    assert counting.writes()[-1] == ("save", len(expected))
    assert [m.text for m in ChatHistoryStorage(counting, IDENT).messages()] == expected


def test_reload_discards_unsaved_changes(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    storage.add_message(UserMessage("kept"))
    storage.save()
    storage.add_message(UserMessage("unsaved"))
    storage.reload()
    assert [m.text for m in storage.messages()] == ["kept"]
    assert not storage.dirty


def test_clear_of_an_empty_unsaved_session_is_not_a_change(counting: Counting) -> None:
    storage = ChatHistoryStorage(counting, IDENT)
    storage.clear()
    assert not storage.save()
    assert counting.writes() == []


# -- messages by id ------------------------------------------------------------------------


def test_messages_by_id(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    a = storage.add_message(UserMessage("a", id="id-a"))
    storage.add_message(AssistantMessage("b", id="id-b"))
    assert storage.get("id-a") is a
    assert storage.get("missing") is None
    storage.replace("id-b", AssistantMessage("b2", id="id-b"))
    storage.save()
    again = ChatHistoryStorage(backend, IDENT)
    got = again.get("id-b")
    assert got is not None
    assert got.text == "b2"
    again.remove("id-a")
    again.save()
    assert [m.id for m in ChatHistoryStorage(backend, IDENT).messages()] == ["id-b"]
    with pytest.raises(KeyError):
        again.remove("missing")


def test_a_duplicate_id_is_refused(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    storage.add_message(UserMessage("a", id="same"))
    with pytest.raises(OrderingError):
        storage.add_message(UserMessage("b", id="same"))
    assert len(storage) == 1


def test_an_illegal_message_changes_nothing(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT)
    storage.add_message(UserMessage("hi"))
    storage.save()
    with pytest.raises(OrderingError) as info:
        storage.add_message(ToolResultMessage("call_x", "orphan"))
    assert info.value.rule == "orphan_tool_result"
    assert len(storage) == 1
    assert not storage.dirty


def test_the_policy_can_be_configured(backend: Backend) -> None:
    storage = ChatHistoryStorage(backend, IDENT, ChatHistoryConfig(policy=OrderingPolicy.strict()))
    with pytest.raises(OrderingError) as info:
        storage.add_message(UserMessage("no system message first"))
    assert info.value.rule == "system_first"


# -- hooks ---------------------------------------------------------------------------------


def test_on_before_add_can_replace_keep_or_drop(backend: Backend) -> None:
    seen: list[str] = []

    def before(message: Message, storage: ChatHistoryStorage) -> Message | Any | None:
        seen.append(message.text)
        if message.text == "drop me":
            return DROP
        if message.text == "shout":
            return message.with_content("SHOUT")
        return None

    storage = ChatHistoryStorage(backend, IDENT, ChatHistoryConfig(on_before_add=before))
    kept = UserMessage("keep")
    assert storage.add_message(kept) is kept
    assert storage.add_message(UserMessage("drop me")) is None
    replaced = storage.add_message(UserMessage("shout"))
    assert replaced is not None
    assert replaced.text == "SHOUT"
    assert seen == ["keep", "drop me", "shout"]
    storage.save()
    assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == ["keep", "SHOUT"]


def test_on_before_add_returning_something_else_is_refused() -> None:
    config = ChatHistoryConfig(on_before_add=lambda m, s: "text")  # type: ignore[arg-type,return-value]
    storage = ChatHistoryStorage(MemoryBackend(), IDENT, config)
    with pytest.raises(ValidationError, match="on_before_add returned str"):
        storage.add_message(UserMessage("x"))
    assert len(storage) == 0


def test_on_after_add_sees_the_message_actually_added() -> None:
    added: list[tuple[str, int]] = []
    config = ChatHistoryConfig(
        on_before_add=lambda m, s: m.with_content(m.text.upper()),
        on_after_add=lambda m, s: added.append((m.text, len(s))),
    )
    storage = ChatHistoryStorage(MemoryBackend(), IDENT, config)
    storage.add_message(UserMessage("a"))
    storage.add_message(UserMessage("b"))
    assert added == [("A", 1), ("B", 2)]


def test_on_after_add_is_not_called_for_a_refused_message() -> None:
    added: list[Message] = []
    storage = ChatHistoryStorage(
        MemoryBackend(), IDENT, ChatHistoryConfig(on_after_add=lambda m, s: added.append(m))
    )
    with pytest.raises(OrderingError):
        storage.add_message(ToolResultMessage("c", "orphan"))
    assert added == []


def test_on_before_save_runs_only_when_saving_and_can_add(backend: Backend) -> None:
    calls: list[int] = []

    def before_save(storage: ChatHistoryStorage) -> None:
        calls.append(len(storage))
        storage.add_message(AssistantMessage(f"summary of {len(storage)}"))

    storage = ChatHistoryStorage(backend, IDENT, ChatHistoryConfig(on_before_save=before_save))
    assert not storage.save()
    assert calls == []
    storage.add_message(UserMessage("hi"))
    assert storage.save()
    assert calls == [1]
    assert not storage.save()
    assert calls == [1]
    assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == [
        "hi",
        "summary of 1",
    ]


def test_on_after_load_runs_on_first_use_and_reload(backend: Backend) -> None:
    loads: list[int] = []
    config = ChatHistoryConfig(on_after_load=lambda s: loads.append(len(s)))
    writer = ChatHistoryStorage(backend, IDENT)
    writer.add_message(UserMessage("x"))
    writer.save()
    storage = ChatHistoryStorage(backend, IDENT, config)
    assert loads == []
    storage.messages()
    storage.messages()
    assert loads == [1]  # the hook may read the storage: it is loaded by then
    storage.reload()
    assert loads == [1, 1]


def test_hooks_may_be_called_from_several_threads() -> None:
    # The hooks run under the storage's (re-entrant) lock, so they see one message at a time.
    inside = 0
    overlap = False
    lock = threading.Lock()

    def after(message: Message, storage: ChatHistoryStorage) -> None:
        nonlocal inside, overlap
        with lock:
            inside += 1
            overlap = overlap or inside > 1
        with lock:
            inside -= 1

    storage = ChatHistoryStorage(MemoryBackend(), IDENT, ChatHistoryConfig(on_after_add=after))
    threads = [
        threading.Thread(target=lambda: [storage.add_message(UserMessage("x")) for _ in range(200)])
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(storage) == 800
    assert not overlap


# -- truncation ----------------------------------------------------------------------------


def _usage(total: int) -> dict[str, Any]:
    return {"usage": {"input_tokens": total - 10, "output_tokens": 10, "total_tokens": total}}


def test_truncation_before_save_keeps_the_system_message(backend: Backend) -> None:
    # The seed's example: context 1000, 200 reserved, the last reply reports 1500 tokens.
    config = ChatHistoryConfig(context_window=1000, reserved_for_completion=200)
    storage = ChatHistoryStorage(backend, IDENT, config)
    storage.add_message(SystemMessage("System prompt"))
    storage.add_message(UserMessage("Hello"))
    storage.add_message(AssistantMessage("Response", metadata=_usage(1500)))
    storage.save()
    msgs = storage.messages()
    assert len(msgs) < 3
    assert isinstance(msgs[0], SystemMessage)
    assert_same(ChatHistoryStorage(backend, IDENT).messages(), msgs)


def test_truncation_drops_oldest_turns_and_keeps_recent_ones(backend: Backend) -> None:
    config = ChatHistoryConfig(context_window=1000, reserved_for_completion=100)
    storage = ChatHistoryStorage(backend, IDENT, config)
    storage.add_message(SystemMessage("sys " * 10))
    for i in range(10):
        storage.add_message(UserMessage(f"question {i} " + "q" * 100))
        storage.add_message(AssistantMessage(f"answer {i} " + "a" * 100))
    call = ToolCall("c1", "lookup", {"q": "x"})
    storage.add_message(UserMessage("use the tool"))
    storage.add_message(ToolCallMessage([call]))
    storage.add_message(ToolResultMessage("c1", "r" * 100))
    # The provider says the conversation is at 1800 tokens; the budget is 900.
    storage.add_message(AssistantMessage("done", metadata=_usage(1800)))
    before = storage.messages()
    assert storage.save()
    after = storage.messages()
    assert isinstance(after[0], SystemMessage)
    assert after[-1] == before[-1]
    assert len(after) < len(before)
    assert after[1:] == before[len(before) - len(after) + 1 :]  # a suffix of the turns
    assert not any(isinstance(m, ToolResultMessage) for m in after[1:2])  # no orphan result
    assert_same(ChatHistoryStorage(backend, IDENT).messages(), after)


def test_no_truncation_at_or_below_the_budget() -> None:
    config = ChatHistoryConfig(context_window=1000, reserved_for_completion=200)
    storage = ChatHistoryStorage(MemoryBackend(), IDENT, config)
    storage.add_message(UserMessage("a" * 10_000))
    storage.add_message(AssistantMessage("b", metadata=_usage(800)))
    storage.save()
    assert len(storage) == 2


@pytest.mark.parametrize(
    "metadata",
    [
        {},
        {"usage": None},
        {"usage": {"total_tokens": "5000"}},
        {"usage": {"total_tokens": True}},
        {"usage": {}},
    ],
)
def test_no_truncation_without_a_usable_total(metadata: dict[str, Any]) -> None:
    config = ChatHistoryConfig(context_window=100, reserved_for_completion=0)
    storage = ChatHistoryStorage(MemoryBackend(), IDENT, config)
    storage.add_message(UserMessage("a" * 10_000))
    storage.add_message(AssistantMessage("b", metadata=metadata))
    storage.save()
    assert len(storage) == 2


def test_truncation_is_not_repeated_for_the_same_usage_report() -> None:
    calls: list[int] = []

    def truncation(
        msgs: tuple[Message, ...], total: int, config: ChatHistoryConfig
    ) -> list[Message]:
        calls.append(total)
        return list(msgs[1:])

    config = ChatHistoryConfig(context_window=100, reserved_for_completion=0, truncation=truncation)
    storage = ChatHistoryStorage(MemoryBackend(), IDENT, config)
    for i in range(4):
        storage.add_message(UserMessage(f"u{i}"))
    storage.add_message(AssistantMessage("last", metadata=_usage(500)))
    storage.save()
    storage.replace(storage.messages()[0].id, UserMessage("edited"))
    storage.save()
    assert calls == [500]
    assert len(storage) == 4


def test_a_custom_truncation_replaces_the_default(backend: Backend) -> None:
    seen: list[tuple[int, int, int]] = []

    def keep_last_two(
        msgs: tuple[Message, ...], total: int, config: ChatHistoryConfig
    ) -> list[Message]:
        seen.append((len(msgs), total, config.context_window))
        return list(msgs[-2:])

    config = ChatHistoryConfig(
        context_window=1000, truncation=keep_last_two, reserved_for_completion=0
    )
    storage = ChatHistoryStorage(backend, IDENT, config)
    storage.add_message(SystemMessage("sys"))
    storage.add_message(UserMessage("Hello"))
    storage.add_message(AssistantMessage("Response", metadata=_usage(1500)))
    storage.save()
    assert seen == [(3, 1500, 1000)]
    assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == ["Hello", "Response"]


def test_a_custom_truncation_returning_none_keeps_everything() -> None:
    config = ChatHistoryConfig(
        context_window=100, reserved_for_completion=0, truncation=lambda m, t, c: None
    )
    storage = ChatHistoryStorage(MemoryBackend(), IDENT, config)
    storage.add_message(UserMessage("a"))
    storage.add_message(AssistantMessage("b", metadata=_usage(500)))
    assert storage.save()
    assert len(storage) == 2


def test_a_custom_truncation_breaking_the_policy_changes_nothing() -> None:
    backend = MemoryBackend()
    config = ChatHistoryConfig(
        context_window=100, reserved_for_completion=0, truncation=lambda m, t, c: list(m[2:])
    )
    storage = ChatHistoryStorage(backend, IDENT, config)
    storage.add_message(UserMessage("a"))
    storage.add_message(ToolCallMessage([ToolCall("c1", "f", {})]))
    storage.add_message(ToolResultMessage("c1", "r"))
    storage.add_message(AssistantMessage("b", metadata=_usage(500)))
    with pytest.raises(OrderingError):
        storage.save()  # the kept messages would start with an orphan tool result
    assert len(storage) == 4
    assert backend.load(IDENT) is None


def test_the_seeds_custom_truncation_config_is_accepted_and_runs() -> None:
    # Seed 003: context_window=1000 with the default 1000 reserved; the callback runs.
    calls: list[int] = []

    def truncation(msgs: tuple[Message, ...], total: int, config: ChatHistoryConfig) -> None:
        calls.append(total)

    config = ChatHistoryConfig(context_window=1000, truncation=truncation)
    assert config.max_prompt_tokens == 0
    storage = ChatHistoryStorage(MemoryBackend(), IDENT, config)
    storage.add_message(UserMessage("Hello"))
    storage.add_message(AssistantMessage("Response", metadata=_usage(1500)))
    storage.save()
    assert calls == [1500]


@pytest.mark.parametrize(("window", "reserved"), [(1000, 1000), (100, 5000), (0, 0)])
def test_a_budget_of_zero_or_less_truncates_any_reported_usage(window: int, reserved: int) -> None:
    config = ChatHistoryConfig(context_window=window, reserved_for_completion=reserved)
    assert config.max_prompt_tokens == window - reserved
    storage = ChatHistoryStorage(MemoryBackend(), IDENT, config)
    storage.add_message(SystemMessage("sys"))
    storage.add_message(UserMessage("Hello"))
    storage.add_message(AssistantMessage("Response", metadata=_usage(1)))
    assert storage.save()
    assert [m.text for m in storage.messages()] == ["sys"]


@pytest.mark.parametrize(
    "policy",
    [None, OrderingPolicy.lenient(), OrderingPolicy.strict()],
    ids=["default", "lenient", "strict"],
)
def test_default_truncation_drops_whole_turns_never_an_orphan_answer(
    policy: OrderingPolicy | None,
) -> None:
    # The oldest question is long and its answer short: dropping the question
    # alone would fit the budget, but the answer must go with it.
    config = ChatHistoryConfig(context_window=1000, reserved_for_completion=0, policy=policy)
    storage = ChatHistoryStorage(MemoryBackend(), IDENT, config)
    storage.add_message(SystemMessage("sys"))
    storage.add_message(UserMessage("q" * 4000))
    storage.add_message(AssistantMessage("a1"))
    storage.add_message(UserMessage("second question"))
    storage.add_message(AssistantMessage("a2", metadata=_usage(1200)))
    assert storage.save()
    assert [m.text for m in storage.messages()] == ["sys", "second question", "a2"]


def _body(msgs: Sequence[Message]) -> list[Message]:
    return [m for m in msgs if not isinstance(m, (SystemMessage, DeveloperMessage))]


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(
        st.tuples(st.integers(0, 400), st.integers(0, 2), st.booleans()), min_size=1, max_size=8
    ),
    total=st.integers(0, 5000),
    budget=st.integers(-50, 3000),
)
def test_default_truncation_keeps_the_newest_whole_turns(
    shape: list[tuple[int, int, bool]], total: int, budget: int
) -> None:
    config = ChatHistoryConfig(context_window=max(budget, 0), reserved_for_completion=0)
    if budget < 0:
        config = ChatHistoryConfig(context_window=0, reserved_for_completion=-budget)
    storage = ChatHistoryStorage(MemoryBackend(), IDENT, config)
    storage.add_message(SystemMessage("sys"))
    for n, (size, answers, tool) in enumerate(shape):
        storage.add_message(UserMessage("u" * size))
        if tool:
            storage.add_message(ToolCallMessage([ToolCall(f"c{n}", "f", {})]))
            storage.add_message(ToolResultMessage(f"c{n}", "r" * size))
        for _ in range(answers):
            storage.add_message(AssistantMessage("a" * (size // 2)))
    storage.add_message(AssistantMessage("last", metadata=_usage(total)))
    before = storage.messages()
    storage.save()
    after = storage.messages()
    assert isinstance(after[0], SystemMessage)
    kept, body = [m.id for m in _body(after)], [m.id for m in _body(before)]
    start = len(body) - len(kept)
    assert kept == body[start:]  # the newest messages
    last_user = max(i for i, m in enumerate(_body(before)) if isinstance(m, UserMessage))
    if kept and start <= last_user:  # whole turns, while a later question remains
        assert isinstance(_body(after)[0], UserMessage)
    if total <= budget:
        assert after == before


@pytest.mark.parametrize("returned", [5, object(), [UserMessage("ok"), "not a message"]])
def test_a_custom_truncation_returning_a_wrong_value_names_the_callback(
    returned: object,
) -> None:
    def truncation(msgs: tuple[Message, ...], total: int, config: ChatHistoryConfig) -> Any:
        return returned

    backend = MemoryBackend()
    config = ChatHistoryConfig(context_window=100, reserved_for_completion=0, truncation=truncation)
    storage = ChatHistoryStorage(backend, IDENT, config)
    storage.add_message(UserMessage(SECRET))
    storage.add_message(AssistantMessage("b", metadata=_usage(500)))
    with pytest.raises(ValidationError) as info:
        storage.save()
    assert info.value.path.startswith("truncation")
    assert SECRET not in str(info.value)
    assert len(storage) == 2
    assert backend.load(IDENT) is None


# -- store_meta ----------------------------------------------------------------------------


@pytest.mark.parametrize("store_meta", [True, False])
def test_store_meta(backend: Backend, store_meta: bool) -> None:
    config = ChatHistoryConfig(store_meta=store_meta)
    storage = ChatHistoryStorage(backend, IDENT, config)
    msgs = [
        UserMessage("hi", metadata={"trace": "abc"}),
        AssistantMessage("yo", metadata=_usage(5), extras={"kept": True}),
    ]
    for m in msgs:
        storage.add_message(m)
    storage.save()
    records = backend.load(IDENT)
    assert records is not None
    assert all(("metadata" in r) is store_meta for r in records)
    got = ChatHistoryStorage(backend, IDENT).messages()
    for g, w in zip(got, msgs, strict=True):
        assert g.id == w.id
        assert g.extras == w.extras
        assert g.text == w.text
        assert g.metadata == (w.metadata if store_meta else {})


# -- corrupt data --------------------------------------------------------------------------


def _json_file(tmp_path: Path) -> tuple[JsonFileBackend, Path, bytes]:
    backend = JsonFileBackend(tmp_path, fsync=False)
    storage = ChatHistoryStorage(backend, IDENT)
    for i in range(3):
        storage.add_message(UserMessage(f"{SECRET} {i}"))
    storage.save()
    path = Path(backend.path_of(IDENT))
    return backend, path, path.read_bytes()


def test_a_json_file_cut_anywhere_never_loads_partially(tmp_path: Path) -> None:
    backend, path, data = _json_file(tmp_path)
    for cut in range(len(data)):
        path.write_bytes(data[:cut])
        with pytest.raises(StorageError) as info:
            ChatHistoryStorage(backend, IDENT).messages()
        assert info.value.path.startswith(f"session {IDENT.key}")
        assert SECRET not in str(info.value)


def _cut_line(data: bytes, line: int) -> bytes:
    lines = data.split(b"\n")
    lines[line] = lines[line][:-1]
    return b"\n".join(lines)


@pytest.mark.parametrize(
    ("mutate", "path", "message"),
    [
        (lambda d: b"\x00\xff garbage\n", " header", "not valid UTF-8"),
        (lambda d: b"garbage\n", " header", "invalid JSON"),
        (lambda d: b"[]\n", " header", "expected a JSON object, got array"),
        (lambda d: b'{"format": "other"}\n', " header", "not a messages session file"),
        (lambda d: d.replace(b'"version":1', b'"version":2'), " header", "newer version"),
        (lambda d: d.replace(b'"version":1', b'"version":"1"'), " header", "invalid version"),
        (
            lambda d: d.replace(b'"count":3', b'"count":2'),
            "",
            "holds 3 messages, its header says 2",
        ),
        (lambda d: d.replace(b'"count":3', b'"count":-1'), " header", "invalid message count"),
        (
            lambda d: d.replace(b'"session":"chat"', b'"session":"other"'),
            " header",
            "another session",
        ),
        (
            lambda d: d.replace(b'"session":"chat"', b'"session":""'),
            " header",
            "invalid session identity",
        ),
        (lambda d: d.replace(b'"role":"user"', b'"role":"wizard"', 1), " messages[0].role", ""),
        (lambda d: _cut_line(d, 2), " messages[1]", "invalid JSON"),
        (lambda d: d.replace(b'"content"', b'"c"', 1), " messages[0]", ""),
        (lambda d: d.replace(b"\n{", b"\n[", 2), " messages[0]", "invalid JSON"),
        (lambda d: d[: d.rindex(b"\n{")] + b"\n\n", " messages[2]", "invalid JSON"),
        (lambda d: d[:-1], "", "truncated"),
    ],
)
def test_a_corrupt_json_file_names_session_and_position(
    tmp_path: Path, mutate: Any, path: str, message: str
) -> None:
    backend, file, data = _json_file(tmp_path)
    changed = mutate(data)
    assert changed != data
    file.write_bytes(changed)
    with pytest.raises(StorageError) as info:
        ChatHistoryStorage(backend, IDENT).messages()
    assert info.value.path.startswith(f"session {IDENT.key}{path}"), info.value.path
    assert message in info.value.message
    assert SECRET not in str(info.value)


def test_an_unreadable_directory_entry_gives_storage_error(tmp_path: Path) -> None:
    backend = JsonFileBackend(tmp_path, fsync=False)
    os.mkdir(backend.path_of(IDENT))  # a directory where the file should be
    with pytest.raises(StorageError, match="cannot read the file"):
        backend.load(IDENT)
    with pytest.raises(StorageError, match="cannot write the file"):
        backend.save(IDENT, [])
    assert [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")] == []


class BadBackend(MemoryBackend):
    def __init__(self, result: Any) -> None:
        super().__init__()
        self.result = result

    def load(self, identity: SessionIdentity) -> Any:
        return self.result

    def load_versioned(self, identity: SessionIdentity) -> Any:
        return self.result, 1


@pytest.mark.parametrize(
    ("result", "path"),
    [
        ({"role": "user"}, ""),
        ("text", ""),
        ([{"role": "user", "content": "a"}, "not a dict"], " messages[1]"),
        (
            [{"role": "user", "content": "a"}, {"role": "user", "content": [{"type": "nope"}]}],
            " messages[1].content[0]",
        ),
        ([{"role": "tool", "tool_call_id": "c", "content": "orphan"}], " messages[0]"),
    ],
)
def test_a_backend_returning_bad_data_gives_storage_error(result: Any, path: str) -> None:
    storage = ChatHistoryStorage(BadBackend(result), IDENT)
    with pytest.raises(StorageError) as info:
        storage.messages()
    assert info.value.path.startswith(f"session {IDENT.key}{path}")
    assert not storage.loaded


def test_an_unstorable_value_gives_storage_error() -> None:
    backend = MemoryBackend()
    with pytest.raises(StorageError) as info:
        backend.save(IDENT, [{"role": "user", "content": "a"}, {"role": "user", "content": {1, 2}}])
    assert info.value.path == f"session {IDENT.key} messages[1]"
    assert backend.load(IDENT) is None


# -- threads -------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", storage_backends.KINDS, indirect=True)
def test_threads_sharing_one_storage_lose_nothing(backend: Backend) -> None:
    # (The dbm example is left out: dbm objects are not thread-safe.)
    storage = ChatHistoryStorage(backend, IDENT)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(150):
                storage.add_message(UserMessage(f"t{n}-{i}"))
                if i % 10 == 0:
                    storage.save()
                storage.messages()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    storage.save()
    texts = [m.text for m in ChatHistoryStorage(backend, IDENT).messages()]
    assert len(texts) == 600
    for n in range(4):
        assert [t for t in texts if t.startswith(f"t{n}-")] == [f"t{n}-{i}" for i in range(150)]


# -- construction, config, repr -------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "path"),
    [
        ({"context_window": -1}, "context_window"),
        ({"context_window": 1.5}, "context_window"),
        ({"context_window": True}, "context_window"),
        ({"reserved_for_completion": -1}, "reserved_for_completion"),
        ({"reserved_for_completion": 1.0}, "reserved_for_completion"),
        ({"reserved_for_completion": False}, "reserved_for_completion"),
        ({"store_meta": 1}, "store_meta"),
        ({"on_before_add": "f"}, "on_before_add"),
        ({"on_after_add": 3}, "on_after_add"),
        ({"on_before_save": object()}, "on_before_save"),
        ({"on_after_load": []}, "on_after_load"),
        ({"truncation": "x"}, "truncation"),
        ({"policy": "strict"}, "policy"),
    ],
)
def test_bad_config_is_rejected(kwargs: dict[str, Any], path: str) -> None:
    with pytest.raises(ValidationError) as info:
        ChatHistoryConfig(**kwargs)
    assert info.value.path == path


def test_config_defaults_follow_the_contract() -> None:
    c = ChatHistoryConfig()
    assert (c.context_window, c.reserved_for_completion, c.store_meta) == (60000, 1000, True)
    assert c.max_prompt_tokens == 59000
    assert c.policy is None


@pytest.mark.parametrize(
    ("args", "path"),
    [
        ((object(), IDENT), "backend"),
        ((MemoryBackend(), ("bot", "chat")), "identity"),
        ((MemoryBackend(), IDENT, {"store_meta": False}), "config"),
    ],
)
def test_bad_storage_arguments_are_rejected(args: tuple[Any, ...], path: str) -> None:
    with pytest.raises(ValidationError) as info:
        ChatHistoryStorage(*args)
    assert info.value.path == path


def test_repr_shows_no_content() -> None:
    storage = ChatHistoryStorage(MemoryBackend(), SessionIdentity("bot", "chat"))
    assert "not loaded" in repr(storage)
    storage.add_message(UserMessage(SECRET))
    text = repr(storage)
    assert SECRET not in text
    assert "messages=1" in text
    assert "dirty=True" in text


def test_sqlite_helper_owns_and_closes_its_backend(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite"
    with ChatHistoryStorage.sqlite(path, IDENT) as storage:
        assert isinstance(storage.backend, SQLiteBackend)
        storage.add_message(UserMessage("hi"))
        storage.save()
    with ChatHistoryStorage.sqlite(path, IDENT) as storage:
        assert [m.text for m in storage.messages()] == ["hi"]


# -- a stored session that breaks the policy -------------------------------------------------


def _broken_session(backend: Backend) -> list[Message]:
    call = ToolCallMessage([ToolCall("c1", "lookup", {})])
    msgs: list[Message] = [UserMessage("q"), call, UserMessage("interleaved by another writer")]
    backend.save(IDENT, [m.to_dict() for m in msgs])
    return msgs


def test_stored_messages_breaking_the_policy_give_storage_error(backend: Backend) -> None:
    _broken_session(backend)
    with pytest.raises(StorageError) as info:
        ChatHistoryStorage(backend, IDENT).messages()
    assert info.value.path == f"session {IDENT.key} messages[2]"
    assert "tool_results_pending" in info.value.message


def test_repair_on_load_fixes_and_rewrites_the_session(backend: Backend) -> None:
    msgs = _broken_session(backend)
    storage = ChatHistoryStorage(backend, IDENT, ChatHistoryConfig(repair_on_load=True))
    got = storage.messages()
    assert [r.rule for r in storage.repairs] == ["unanswered_tool_call"]
    assert [type(m) for m in got] == [UserMessage, ToolCallMessage, ToolResultMessage, UserMessage]
    assert got[2].is_error  # type: ignore[attr-defined]
    assert got[3] == msgs[2]
    assert storage.dirty
    assert storage.save()
    again = ChatHistoryStorage(backend, IDENT)
    assert_same(again.messages(), got)
    assert again.repairs == ()


# -- hooks calling back into the storage -------------------------------------------------


def test_save_inside_on_before_save_does_nothing_and_the_outer_save_writes(
    backend: Backend,
) -> None:
    inner: list[bool] = []
    config = ChatHistoryConfig(on_before_save=lambda s: inner.append(s.save()))
    storage = ChatHistoryStorage(backend, IDENT, config)
    storage.add_message(UserMessage("x"))
    assert storage.save()
    assert inner == [False]
    assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == ["x"]


def test_on_before_save_may_remove_messages(backend: Backend) -> None:
    def drop_scratch(storage: ChatHistoryStorage) -> None:
        for m in storage.messages():
            if m.metadata.get("scratch"):
                storage.remove(m.id)

    storage = ChatHistoryStorage(backend, IDENT, ChatHistoryConfig(on_before_save=drop_scratch))
    storage.add_message(UserMessage("keep"))
    storage.add_message(UserMessage("scratch", metadata={"scratch": True}))
    storage.save()
    assert [m.text for m in ChatHistoryStorage(backend, IDENT).messages()] == ["keep"]


# -- property tests --------------------------------------------------------------------------


@pytest.fixture(scope="module", params=storage_backends.KINDS)
def shared_backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Backend]:
    # Module-scoped: hypothesis runs many examples against one backend.
    root = tmp_path_factory.mktemp(f"prop-{request.param}")
    with storage_backends.make_backend(request.param, root, request) as b:
        yield b


@settings(max_examples=60)
@given(strategies.message_lists)
def test_any_messages_survive_a_backend(shared_backend: Backend, msgs: list[Message]) -> None:
    shared_backend.save(IDENT, [m.to_dict() for m in msgs])
    records = shared_backend.load(IDENT)
    assert records is not None
    assert_same([Message.from_dict(r) for r in records], msgs)


@settings(max_examples=40)
@given(conversations(), st.booleans())
def test_any_conversation_survives_storage(
    shared_backend: Backend, msgs: list[Message], store_meta: bool
) -> None:
    shared_backend.delete(IDENT)
    config = ChatHistoryConfig(store_meta=store_meta)
    storage = ChatHistoryStorage(shared_backend, IDENT, config)
    half = len(msgs) // 2
    for m in msgs[:half]:
        storage.add_message(m)
    storage.save()
    for m in msgs[half:]:
        storage.add_message(m)
    storage.save()
    assert_same(ChatHistoryStorage(shared_backend, IDENT, config).messages(), msgs)


@settings(max_examples=150)
@given(
    st.binary(max_size=300)
    | st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass"))
)
def test_any_json_file_content_loads_or_gives_storage_error(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        backend = JsonFileBackend(tmp, fsync=False)
        Path(backend.path_of(IDENT)).write_bytes(data)
        try:
            ChatHistoryStorage(backend, IDENT).messages()
        except StorageError as exc:
            assert exc.path.startswith(f"session {IDENT.key}")


_ROW_SEEDS = [
    b'{"role":"user","content":"hi"}',
    b'{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}',
    b'{"role":"user","content":[{"type":"image_url","image_url":{"url":5}}]}',
    b'{"role":"user","content":"x","created_at":"2024-13-45T00:00:00Z"}',
    b'{"role":"user","content":"x","metadata":[1]}',
    b'{"role":"tool","tool_call_id":"a","content":"r"}',
    b'{"role":"user","content":"' + b"[" * 5000 + b'"}',
    b"[" * 100_000,
]

HEADER = b'{"format":"messages.session","version":1,"agent":"bot","session":"chat","scope":"user-1","count":1}\n'


@settings(max_examples=150)
@given(st.binary(max_size=200) | st.sampled_from(_ROW_SEEDS))
def test_any_stored_row_loads_or_gives_storage_error(row: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        backend = JsonFileBackend(tmp, fsync=False)
        Path(backend.path_of(IDENT)).write_bytes(HEADER + row.replace(b"\n", b" ") + b"\n")
        try:
            msgs = ChatHistoryStorage(backend, IDENT).messages()
        except StorageError as exc:
            assert exc.path.startswith(f"session {IDENT.key}")
        else:
            assert len(msgs) == 1
