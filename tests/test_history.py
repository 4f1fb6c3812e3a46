"""ConversationHistory: ordering on add, atomic changes, snapshots, ids, truncation, dicts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    ConversationHistory,
    DecodeError,
    Message,
    MessageRole,
    OrderingError,
    OrderingPolicy,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
    estimate_tokens,
    repair,
)
from messages._ordering import check_sequence
from tests.conftest import SECRET
from tests.conversations import any_sequences, build, conversations, make, policies, spell

STRICT = OrderingPolicy.strict()
LENIENT = OrderingPolicy.lenient()


def history(spec: str = "", policy: OrderingPolicy = STRICT) -> ConversationHistory:
    return ConversationHistory(build(spec) if spec else (), policy=policy)


def state_of(h: ConversationHistory) -> tuple[Any, ...]:
    """Everything observable about a history, to compare before and after a rejection."""
    snap = h.messages()
    return (
        snap,
        tuple(id(m) for m in snap),
        len(h),
        h.last,
        h.pending_tool_calls,
        tuple(m.id for m in snap),
        {m.id: h.get(m.id) is m for m in snap},
    )


# -- seed 001, ConversationHistoryTests ---------------------------------------------------


def test_starts_empty() -> None:
    h = ConversationHistory()
    assert len(h) == 0
    assert h.len() == 0
    assert h.messages() == ()
    assert h.last is None
    assert h.pending_tool_calls == ()
    assert not h


def test_requires_system_first() -> None:
    with pytest.raises(OrderingError, match=r"system.*first"):
        ConversationHistory().add(Message.user("Hello"))


def test_accepts_system_as_first_message() -> None:
    h = ConversationHistory()
    h.add(Message.system("You are helpful."))
    assert len(h) == 1
    assert h.last is not None
    assert h.last.role is MessageRole.SYSTEM


def test_rejects_second_system_message() -> None:
    h = history("S")
    with pytest.raises(OrderingError, match=r"system.*already"):
        h.add(Message.system("System 2"))


def test_validates_user_assistant_alternation() -> None:
    h = history("S U")
    with pytest.raises(OrderingError, match=r"user.*assistant.*alternate"):
        h.add(Message.user("User 2"))


def test_accepts_valid_alternation() -> None:
    h = ConversationHistory()
    for m in build("S U A U A"):
        h.add(m)
    assert len(h) == 5


def test_allows_tool_after_tool_calls() -> None:
    h = history("S U")
    h.add(Message.assistant(None, [ToolCall("call_123", "write_file", {"path": "test.cs"})]))
    h.add(Message.tool_result("call_123", "Success"))
    assert len(h) == 4
    assert h.last is not None
    assert h.last.role is MessageRole.TOOL


def test_rejects_tool_without_preceding_tool_calls() -> None:
    h = history("S U A")
    with pytest.raises(OrderingError, match=r"tool.*tool_calls"):
        h.add(Message.tool_result("call_123", "Result"))


def test_validates_tool_call_id_matches() -> None:
    h = history("S U C:call_abc")
    with pytest.raises(OrderingError, match=r"tool_call_id"):
        h.add(Message.tool_result("call_xyz", "Result"))


def test_allows_multiple_tool_results_for_multiple_calls() -> None:
    h = history("S U C:call_1,call_2")
    h.add(Message.tool_result("call_1", "Result 1"))
    h.add(Message.tool_result("call_2", "Result 2"))
    assert len(h) == 5


def test_tracks_count_and_last_message() -> None:
    h = ConversationHistory()
    h.add(Message.system("System"))
    assert len(h) == 1
    user = Message.user("Hello")
    h.add(user)
    assert len(h) == 2
    assert h.last is user


def test_messages_is_an_immutable_tuple() -> None:
    h = history("S U")
    snap = h.messages()
    assert isinstance(snap, tuple)


def test_clear_then_system_again() -> None:
    h = history("S U C:a")
    h.clear()
    assert len(h) == 0
    assert h.last is None
    assert h.pending_tool_calls == ()
    h.add(Message.system("System 2"))
    assert len(h) == 1


# -- every rejection leaves the history exactly as it was -----------------------------------

REJECTIONS = [
    ("", "U", STRICT, "system_first"),
    ("S", "S", STRICT, "single_system"),
    ("S", "A", STRICT, "assistant_first"),
    ("S U", "U", STRICT, "alternation"),
    ("S U A", "A", STRICT, "alternation"),
    ("S U A", "D", STRICT, "instructions_first"),
    ("S U A", "R:a", STRICT, "orphan_tool_result"),
    ("S U C:a,b", "U", STRICT, "tool_results_pending"),
    ("S U C:a,b R:a", "A", STRICT, "tool_results_pending"),
    ("S U C:a,b R:a", "R:a", STRICT, "duplicate_tool_result"),
    ("S U C:a,b R:a", "R:c", STRICT, "unknown_tool_call_id"),
    ("", "R:a", LENIENT, "orphan_tool_result"),
    ("U U A A", "R:a", LENIENT, "orphan_tool_result"),
    ("U C:a", "S", LENIENT, "tool_results_pending"),
    ("U C:a", "C:b", LENIENT, "tool_results_pending"),
    ("U C:a R:a", "R:a", LENIENT, "duplicate_tool_result"),
]


@pytest.mark.parametrize(("prefix", "token", "policy", "rule"), REJECTIONS)
def test_rejected_add_changes_nothing(
    prefix: str, token: str, policy: OrderingPolicy, rule: str
) -> None:
    h = history(prefix, policy)
    before = state_of(h)
    bad = make(token, SECRET)
    with pytest.raises(OrderingError) as info:
        h.add(bad)
    assert info.value.rule == rule
    assert info.value.index == len(before[0])
    assert SECRET not in str(info.value)
    assert state_of(h) == before
    assert bad.id not in h
    h.validate()


@pytest.mark.parametrize(("prefix", "token", "policy", "rule"), REJECTIONS)
def test_rejected_extend_changes_nothing(
    prefix: str, token: str, policy: OrderingPolicy, rule: str
) -> None:
    h = history(prefix, policy)
    before = state_of(h)
    # A batch whose first messages are fine until the bad one.
    with pytest.raises(OrderingError) as info:
        h.extend([make(token, SECRET)])
    assert info.value.rule == rule
    assert state_of(h) == before


def test_extend_is_all_or_nothing() -> None:
    h = history("S")
    before = state_of(h)
    batch = build("U C:a,b R:b R:a A U U A")  # the second U at batch index 6 breaks alternation
    with pytest.raises(OrderingError) as info:
        h.extend(batch)
    assert info.value.rule == "alternation"
    assert info.value.index == 1 + 6
    assert state_of(h) == before
    h.extend(batch[:6])
    assert spell(h) == "S U C:a,b R:b R:a A U"


def test_extend_refuses_a_pending_group_left_open_mid_batch() -> None:
    h = history("S U")
    with pytest.raises(OrderingError) as info:
        h.extend(build("C:a,b R:a A"))
    assert info.value.rule == "tool_results_pending"
    assert info.value.index == 4
    assert h.pending_tool_calls == ()
    assert len(h) == 2


def test_extend_accepts_any_iterable_and_an_empty_batch() -> None:
    h = history("S")
    h.extend(m for m in build("U A"))
    h.extend([])
    assert spell(h) == "S U A"


def test_add_and_extend_refuse_non_messages_without_change() -> None:
    h = history("S")
    before = state_of(h)
    with pytest.raises(OrderingError) as info:
        h.add("hello")  # type: ignore[arg-type]
    assert info.value.rule == "not_a_message"
    with pytest.raises(OrderingError):
        h.extend([Message.user("x"), 3])  # type: ignore[list-item]
    for not_iterable in (3, None):
        with pytest.raises(ValidationError) as bad:
            h.extend(not_iterable)  # type: ignore[arg-type]
        assert bad.value.path == "messages"
    assert state_of(h) == before


def test_constructor_checks_the_initial_messages_and_the_policy() -> None:
    with pytest.raises(OrderingError) as info:
        ConversationHistory(build("S U U"))
    assert info.value.index == 2
    with pytest.raises(ValidationError):
        ConversationHistory(policy="strict")  # type: ignore[arg-type]
    assert ConversationHistory(build("U U"), policy=LENIENT).policy is LENIENT


# -- ids ---------------------------------------------------------------------------------


def test_get_by_id() -> None:
    msgs = build("S U C:a R:a A")
    h = ConversationHistory(msgs)
    for m in msgs:
        assert h.get(m.id) is m
        assert m.id in h
    assert h.get("nope") is None
    assert "nope" not in h
    fallback = Message.user("x")
    assert h.get("nope", fallback) is fallback


def test_the_same_message_cannot_be_added_twice() -> None:
    h = history("", LENIENT)
    m = Message.user("hi")
    h.add(m)
    with pytest.raises(OrderingError) as info:
        h.add(m)
    assert info.value.rule == "duplicate_id"
    assert info.value.index == 1
    assert len(h) == 1


def test_a_copy_with_the_same_id_is_a_duplicate() -> None:
    h = history("", LENIENT)
    m = Message.user("hi")
    h.add(m)  # added before its id was ever read
    edited = m.with_content("edited")
    assert edited.id == m.id
    with pytest.raises(OrderingError) as info:
        h.add(edited)
    assert info.value.rule == "duplicate_id"
    with pytest.raises(OrderingError):
        h.extend([Message.user("ok"), edited])
    assert len(h) == 1


def test_explicit_ids_are_checked_too() -> None:
    h = history("", LENIENT)
    h.add(Message.user("a", id="m1"))
    with pytest.raises(OrderingError) as info:
        h.add(Message.user("b", id="m1"))
    assert info.value.rule == "duplicate_id"
    with pytest.raises(OrderingError):
        h.extend([Message.user("c", id="m2"), Message.user("d", id="m2")])
    assert [m.id for m in h] == ["m1"]


def test_ids_mix_of_read_and_unread() -> None:
    h = history("", LENIENT)
    msgs = [Message.user(str(i)) for i in range(20)]
    for i, m in enumerate(msgs):
        if i % 3 == 0:
            _ = m.id  # some ids formatted before add, others not
        h.add(m)
    for m in msgs:
        assert h.get(m.id) is m
    h.validate()


# -- replace and remove --------------------------------------------------------------------


def test_replace_keeps_the_position_and_returns_the_old_message() -> None:
    msgs = build("S U A")
    h = ConversationHistory(msgs)
    new = Message.user("changed")
    old = h.replace(msgs[1].id, new)
    assert old is msgs[1]
    assert h.messages() == (msgs[0], new, msgs[2])
    assert h.get(new.id) is new
    assert h.get(msgs[1].id) is None


def test_replace_with_an_edited_copy_keeping_the_id() -> None:
    msgs = build("S U A")
    h = ConversationHistory(msgs)
    edited = msgs[1].with_content("edited")
    h.replace(msgs[1].id, edited)
    assert h.get(msgs[1].id) is edited


@pytest.mark.parametrize(
    ("spec", "position", "token", "rule"),
    [
        ("S U A", 1, "A", "assistant_first"),
        ("S U A U A", 2, "U", "alternation"),
        ("S U A", 0, "U", "system_first"),
        ("S U C:a R:a A", 2, "C:b", "unknown_tool_call_id"),
        ("S U C:a R:a A", 3, "R:b", "unknown_tool_call_id"),
        ("S U C:a,b R:a R:b A", 4, "R:a", "duplicate_tool_result"),
        ("S U C:a R:a A", 2, "A", "orphan_tool_result"),
    ],
)
def test_illegal_replace_changes_nothing(spec: str, position: int, token: str, rule: str) -> None:
    h = history(spec)
    before = state_of(h)
    target = h.messages()[position].id
    with pytest.raises(OrderingError) as info:
        h.replace(target, make(token))
    assert info.value.rule == rule
    assert state_of(h) == before


def test_replace_with_an_id_already_used_elsewhere_is_refused() -> None:
    msgs = build("S U A U")
    h = ConversationHistory(msgs)
    before = state_of(h)
    clash = Message.user("x", id=msgs[1].id)
    with pytest.raises(OrderingError) as info:
        h.replace(msgs[3].id, clash)
    assert info.value.rule == "duplicate_id"
    assert state_of(h) == before


def test_replace_and_remove_of_an_unknown_id_raise_key_error() -> None:
    h = history("S U")
    with pytest.raises(KeyError):
        h.replace("nope", Message.user("x"))
    with pytest.raises(KeyError):
        h.remove("nope")


def test_remove_returns_the_message_and_reindexes() -> None:
    msgs = build("S U A U A", text="t")
    h = ConversationHistory(msgs)
    assert h.remove(msgs[4].id) is msgs[4]
    assert h.remove(msgs[3].id) is msgs[3]
    assert h.messages() == tuple(msgs[:3])
    for m in msgs[:3]:
        assert h.get(m.id) is m
    h.add(Message.user("again"))
    assert len(h) == 4


def test_remove_of_the_last_result_reopens_the_call() -> None:
    msgs = build("S U C:a,b R:a R:b")
    h = ConversationHistory(msgs)
    h.remove(msgs[4].id)
    assert [c.id for c in h.pending_tool_calls] == ["b"]


@pytest.mark.parametrize(
    ("spec", "position", "rule"),
    [
        ("S U A", 0, "system_first"),
        ("S U A U", 2, "alternation"),
        ("S U C:a R:a A", 2, "orphan_tool_result"),
        ("S U C:a R:a A", 3, "tool_results_pending"),
        ("S U A", 1, "assistant_first"),
    ],
)
def test_illegal_remove_changes_nothing(spec: str, position: int, rule: str) -> None:
    h = history(spec)
    before = state_of(h)
    with pytest.raises(OrderingError) as info:
        h.remove(h.messages()[position].id)
    assert info.value.rule == rule
    assert state_of(h) == before


def test_lenient_remove_keeps_only_pairing() -> None:
    h = history("S U U A A C:a R:a", LENIENT)
    h.remove(h.messages()[0].id)
    h.remove(h.messages()[1].id)
    with pytest.raises(OrderingError):
        h.remove(h.messages()[3].id)  # the tool call: its result would be an orphan
    assert spell(h) == "U A A C:a R:a"


# -- snapshots, iteration, pending -----------------------------------------------------------


def test_snapshots_share_messages_and_are_cached() -> None:
    msgs = build("S U A")
    h = ConversationHistory(msgs)
    snap = h.messages()
    assert snap is h.messages()  # no copy while nothing changes
    assert all(a is b for a, b in zip(snap, msgs, strict=True))
    h.add(Message.user("more"))
    assert len(snap) == 3  # an old snapshot never changes
    assert h.messages() is not snap
    assert len(h.messages()) == 4


def test_iteration_is_over_a_snapshot() -> None:
    h = history("S U A")
    seen = []
    for i, m in enumerate(h):
        seen.append(m)
        if i == 0:
            h.extend(build("U A"))
    assert len(seen) == 3
    assert len(h) == 5


def test_pending_tool_calls_in_call_order() -> None:
    calls = [ToolCall("c2", "f", {}), ToolCall("c1", "g", {"x": 1})]
    h = history("S U")
    h.add(ToolCallMessage(calls))
    assert h.pending_tool_calls == tuple(calls)
    h.add(ToolResultMessage("c1", "ok"))
    assert h.pending_tool_calls == (calls[0],)
    h.add(ToolResultMessage("c2", "ok"))
    assert not h.pending_tool_calls


def test_validate_checks_the_whole_sequence_from_scratch() -> None:
    h = history("S U C:a R:a A")
    h.validate()
    # Corrupt the private list behind the history's back: validate does not trust
    # the incremental state.
    h._items.insert(1, Message.user("sneaked in"))
    h._snapshot = None
    with pytest.raises(OrderingError) as info:
        h.validate()
    assert info.value.rule == "alternation"
    assert info.value.index == 2


def test_repr_shows_sizes_not_content() -> None:
    h = ConversationHistory(build("S U C:a", text=SECRET))
    assert repr(h) == "ConversationHistory(len=3, policy=strict, pending=1)"
    assert "custom" in repr(ConversationHistory(policy=OrderingPolicy(allow_consecutive_user=True)))


# -- dict and JSON ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "policy", [STRICT, LENIENT, OrderingPolicy(allow_assistant_first=True)], ids=str
)
def test_dict_and_json_round_trip_with_the_policy(policy: OrderingPolicy) -> None:
    msgs = build("S U C:a,b R:b R:a A U C:c")
    h = ConversationHistory(msgs, policy=policy)
    d = h.to_dict()
    assert d["policy"] == policy.to_dict()
    assert len(d["messages"]) == len(msgs)
    back = ConversationHistory.from_dict(json.loads(json.dumps(d)))
    assert back.policy == policy
    assert back.messages() == h.messages()
    assert [m.id for m in back] == [m.id for m in h]
    assert [c.id for c in back.pending_tool_calls] == ["c"]
    again = ConversationHistory.from_json(h.to_json())
    assert again.messages() == h.messages()


def test_from_dict_without_policy_is_strict() -> None:
    d = history("S U").to_dict()
    del d["policy"]
    assert ConversationHistory.from_dict(d).policy == STRICT


@pytest.mark.parametrize(
    ("data", "path", "fragment"),
    [
        ([], "", "expected an object"),
        ({"messages": [], "extra": 1}, "extra", "unknown key"),
        ({"messages": {}}, "messages", "expected an array"),
        ({"policy": {"nope": True}, "messages": []}, "policy.nope", "unknown policy flag"),
        ({"messages": [{"role": "system", "content": "s"}, {"role": "robot"}]}, "messages[1]", ""),
        (
            {"messages": [{"role": "user", "content": "hi"}]},
            "messages[0]",
            "[system_first]",
        ),
        (
            {
                "messages": [
                    {"role": "system", "content": "s"},
                    {"role": "tool", "tool_call_id": "x", "content": ""},
                ]
            },
            "messages[1]",
            "[orphan_tool_result]",
        ),
    ],
)
def test_from_dict_rejects_bad_input_with_decode_error(data: Any, path: str, fragment: str) -> None:
    with pytest.raises(DecodeError) as info:
        ConversationHistory.from_dict(data)
    assert info.value.path.startswith(path)
    assert fragment in info.value.message


def test_from_json_rejects_bad_json() -> None:
    with pytest.raises(DecodeError):
        ConversationHistory.from_json("{nope")


# -- truncation --------------------------------------------------------------------------------


def test_truncate_is_a_no_op_when_it_fits() -> None:
    h = history("S U A")
    before = h.messages()
    assert h.truncate(10_000) == ()
    assert h.messages() is before


def test_truncate_drops_oldest_turns_and_keeps_instructions() -> None:
    msgs = build("S D U A U A U A", text="x" * 40)  # 14 tokens each
    h = ConversationHistory(msgs)
    # Room for five messages; under strict the kept part must start with a user
    # message, so only S D + U A remain.
    removed = h.truncate(14 * 5)
    assert removed == tuple(msgs[2:6])
    assert h.messages() == (msgs[0], msgs[1], msgs[6], msgs[7])
    h.validate()
    # lenient drops whole turns too: an answer never stays without its question
    lenient = ConversationHistory(msgs, policy=LENIENT)
    assert lenient.truncate(14 * 5) == tuple(msgs[2:6])
    assert lenient.messages() == (msgs[0], msgs[1], msgs[6], msgs[7])


def test_truncate_never_splits_a_tool_group() -> None:
    msgs = build("S U C:a,b R:a R:b A", text="x" * 40)
    h = ConversationHistory(msgs, policy=LENIENT)
    one = estimate_tokens(msgs[0])
    # room for the system message and the last two messages only: the call cannot stay
    # without its first result, so everything but the system message and A goes.
    removed = h.truncate(one + estimate_tokens(msgs[4]) + estimate_tokens(msgs[5]))
    assert spell(h) == "S A"
    assert spell(removed) == "U C:a,b R:a R:b"


def test_truncate_under_strict_restarts_at_a_user_message() -> None:
    msgs = build("S U C:a R:a A U A", text="x" * 40)
    h = ConversationHistory(msgs)
    h.truncate(sum(estimate_tokens(m) for m in msgs) - 1)
    assert spell(h) == "S U A"


def test_truncate_under_lenient_drops_whole_turns() -> None:
    # an answer never stays without its question
    msgs = build("S U A U A", text="x" * 40)
    h = ConversationHistory(msgs, policy=OrderingPolicy.lenient())
    h.truncate(sum(estimate_tokens(m) for m in msgs) - 1)
    assert spell(h) == "S U A"


def test_truncate_keeps_the_newest_tool_rounds_of_an_agent_run() -> None:
    # one question, then many tool rounds: past the last user message the cut may
    # fall on a call, so the newest rounds stay (not the whole run dropped)
    spec = "S U " + " ".join(f"C:c{i} R:c{i}" for i in range(8)) + " A"
    msgs = build(spec, text="x" * 40)
    h = ConversationHistory(msgs, policy=OrderingPolicy.lenient())
    removed = h.truncate(sum(estimate_tokens(m) for m in msgs) * 6 // 10)
    assert spell(h).startswith("S C:")
    assert spell(h).endswith("R:c7 A")
    assert spell(removed).startswith("U C:c0")
    h.validate()


def test_truncate_under_lenient_without_user_messages_cuts_anywhere_legal() -> None:
    msgs = build("A A A", text="x" * 40)
    h = ConversationHistory(msgs, policy=OrderingPolicy.lenient())
    h.truncate(sum(estimate_tokens(m) for m in msgs) - 1)
    assert spell(h) == "A A"


def test_truncate_keeps_instructions_even_over_budget() -> None:
    h = history("S D U A")
    removed = h.truncate(0)
    assert spell(h) == "S D"
    assert spell(removed) == "U A"
    h.add(Message.user("again"))


def test_truncate_keeps_pending_calls() -> None:
    h = history("S U A U C:a,b R:a")
    h.truncate(sum(estimate_tokens(m) for m in h) - 1)
    assert spell(h) == "S U C:a,b R:a"
    assert [c.id for c in h.pending_tool_calls] == ["b"]
    h.add(make("R:b"))


def test_truncate_with_a_custom_counter() -> None:
    h = history("S U A U A U A")
    removed = h.truncate(3, counter=lambda m: 1)
    assert spell(h) == "S U A"
    assert len(removed) == 4


def test_truncate_reindexes_ids() -> None:
    msgs = build("S U A U A")
    h = ConversationHistory(msgs)
    h.truncate(3, counter=lambda m: 1)
    assert h.get(msgs[1].id) is None
    assert h.get(msgs[3].id) is msgs[3]
    h.remove(msgs[4].id)


@pytest.mark.parametrize("bad", [-1, 1.5, "10", True, None])
def test_truncate_rejects_a_bad_budget(bad: Any) -> None:
    with pytest.raises(ValidationError) as info:
        history("S").truncate(bad)
    assert info.value.path == "max_tokens"


def _oracle(policy: OrderingPolicy, msgs: list[Message], budget: int) -> list[Message]:
    """The longest legal suffix (plus every instruction) that fits, by brute force: it
    starts at a user message while a later one remains, else anywhere legal."""
    instr = [m.role in (MessageRole.SYSTEM, MessageRole.DEVELOPER) for m in msgs]
    if sum(estimate_tokens(m) for m in msgs) <= budget:
        return msgs
    last_user = max((i for i, m in enumerate(msgs) if m.role is MessageRole.USER), default=-1)
    cuts = [
        i
        for i in range(len(msgs))
        if not instr[i] and (msgs[i].role is MessageRole.USER or i > last_user)
    ] + [len(msgs)]
    for cut in cuts:
        kept = [m for i, m in enumerate(msgs) if i >= cut or instr[i]]
        if cut < len(msgs) and sum(estimate_tokens(m) for m in kept) > budget:
            continue
        try:
            check_sequence(policy, kept)
        except OrderingError:
            continue
        return kept
    raise AssertionError("instructions alone are always a legal result")


@given(
    conversations(),
    st.integers(0, 400),
    st.sampled_from([STRICT, LENIENT, OrderingPolicy(allow_assistant_first=True)]),
)
def test_truncation_invariants(msgs: list[Message], budget: int, policy: OrderingPolicy) -> None:
    h = ConversationHistory(msgs, policy=policy)
    removed = h.truncate(budget)
    kept = h.messages()
    h.validate()
    # instructions always kept; removed + kept is the original, in order
    assert all(m in kept for m in msgs if m.role in (MessageRole.SYSTEM, MessageRole.DEVELOPER))
    position = {id(m): i for i, m in enumerate(msgs)}
    assert sorted([*removed, *kept], key=lambda m: position[id(m)]) == msgs
    assert [position[id(m)] for m in kept] == sorted(position[id(m)] for m in kept)
    assert [position[id(m)] for m in removed] == sorted(position[id(m)] for m in removed)
    # the oldest go first: every removed message is older than every kept turn
    kept_turns = [
        position[id(m)] for m in kept if m.role not in (MessageRole.SYSTEM, MessageRole.DEVELOPER)
    ]
    assert all(position[id(m)] < min(kept_turns, default=len(msgs)) for m in removed)
    # it fits unless only instructions are left
    if kept_turns:
        assert sum(estimate_tokens(m) for m in kept) <= budget or not removed
    # no orphan results: every kept result's call is kept
    kept_calls = {c.id for m in kept for c in m.tool_calls}
    assert all(m.tool_call_id in kept_calls for m in kept if isinstance(m, ToolResultMessage))
    # and it is the longest legal suffix that fits
    assert list(kept) == _oracle(policy, msgs, budget)
    for m in kept:
        assert h.get(m.id) is m


@given(conversations(max_turns=4))
def test_round_trip_of_generated_conversations(msgs: list[Message]) -> None:
    h = ConversationHistory(msgs)
    back = ConversationHistory.from_dict(h.to_dict())
    assert back.messages() == h.messages()
    assert back.pending_tool_calls == h.pending_tool_calls


# -- the token estimate ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "tokens"),
    [
        (SystemMessage(""), 4),
        (UserMessage("abcd"), 5),
        (UserMessage("abcde"), 6),
        (UserMessage("abcd", name="bob"), 6),
        (AssistantMessage("x" * 400), 104),
        (ToolResultMessage("call", "abcd"), 6),
        (ToolCallMessage([ToolCall("c", "f", {})]), 4 + 8 + 1),  # name "f" + "{}" -> 3 chars
        (ToolCallMessage([ToolCall("c", "abcd", {"k": 1})], "hi"), 4 + 1 + 8 + 3),
        (UserMessage(["ab", "cd"]), 5),
    ],
)
def test_estimate_tokens_formula(message: Message, tokens: int) -> None:
    assert estimate_tokens(message) == tokens


def test_estimate_counts_media_parts_flat() -> None:
    from messages import ImagePart, ReasoningPart

    img = ImagePart(url="https://example.com/x.png")
    assert estimate_tokens(UserMessage(["abcd", img])) == 4 + 1 + 85
    assert estimate_tokens(AssistantMessage([ReasoningPart("abcdefgh"), "ab"])) == 4 + 3


@given(any_sequences(), policies, st.integers(0, 200))
def test_truncation_under_any_policy(msgs: list[Message], policy: Any, budget: int) -> None:
    # any sequence, repaired to pass the policy, then truncated
    valid, _ = repair(msgs, policy)
    h = ConversationHistory(valid, policy=policy)
    removed = h.truncate(budget)
    h.validate()
    assert list(h.messages()) == _oracle(policy, list(valid), budget)
    kept_ids = {id(m) for m in h}
    assert [m for m in valid if id(m) not in kept_ids] == list(removed)


def test_from_dict_of_a_misbehaving_mapping_is_a_decode_error() -> None:
    class Hostile(dict):  # type: ignore[type-arg]
        def __iter__(self) -> Any:
            raise ZeroDivisionError("secret-content")

    with pytest.raises(DecodeError) as info:
        ConversationHistory.from_dict(Hostile(messages=[]))
    assert "secret" not in str(info.value)
    assert info.value.__cause__ is None
