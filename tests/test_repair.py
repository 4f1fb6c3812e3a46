"""repair(): imported conversations made to pass a policy, every change reported."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    ConversationHistory,
    Message,
    Messages,
    OrderingPolicy,
    Repair,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
    repair,
)
from messages._ordering import check_sequence
from messages._repair import UNANSWERED_TEXT
from tests.conversations import any_sequences, build, conversations, policies, spell

STRICT = OrderingPolicy.strict()
LENIENT = OrderingPolicy.lenient()
LATE = OrderingPolicy(allow_late_instructions=True)

# (policy, input, output, [(index, rule, action), ...])
CASES: list[tuple[OrderingPolicy, str, str, list[tuple[int, str, str]]]] = [
    (STRICT, "", "", []),
    (STRICT, "S U A", "S U A", []),
    (STRICT, "S U C:a", "S U C:a", []),  # pending at the end is legal: left alone
    (STRICT, "D U A", "D U A", []),
    (STRICT, "S U R:a A", "S U A", [(2, "orphan_tool_result", "dropped")]),
    (STRICT, "S U C:a R:a R:a A", "S U C:a R:a A", [(4, "duplicate_tool_result", "dropped")]),
    (STRICT, "S U C:a R:b R:a A", "S U C:a R:a A", [(3, "unknown_tool_call_id", "dropped")]),
    (
        STRICT,
        "S U C:a,b R:a A",
        "S U C:a,b R:a R:b A",
        [(2, "unanswered_tool_call", "inserted_error_result")],
    ),
    (
        STRICT,
        "S U C:a,b U",
        "S U C:a,b R:a R:b U",
        [
            (2, "unanswered_tool_call", "inserted_error_result"),
            (2, "unanswered_tool_call", "inserted_error_result"),
        ],
    ),
    (STRICT, "S U U A", "S U A", [(2, "alternation", "merged_into_previous")]),
    (STRICT, "S U A A", "S U A", [(3, "alternation", "merged_into_previous")]),
    (STRICT, "S U A C:a R:a A", "S U C:a R:a A", [(2, "alternation", "merged_into_next")]),
    (STRICT, "S S U A", "S U A", [(1, "single_system", "merged_into_first")]),
    (STRICT, "S U A S U A", "S U A U A", [(3, "single_system", "merged_into_first")]),
    (
        STRICT,
        "S U A D U A",
        "S D U A U A",
        [(3, "instructions_first", "moved_to_instructions")],
    ),
    (STRICT, "U D A", "D U A", [(1, "instructions_first", "moved_to_instructions")]),
    (STRICT, "S A U A", "S U A", [(1, "assistant_first", "dropped")]),
    (
        STRICT,
        "S C:a R:a U A",
        "S U A",
        [(1, "assistant_first", "dropped"), (2, "orphan_tool_result", "dropped")],
    ),
    (STRICT, "U A", "S U A", [(0, "system_first", "inserted_empty_system")]),
    (STRICT, "R:a", "", [(0, "orphan_tool_result", "dropped")]),
    (LENIENT, "U U A A", "U U A A", []),
    (LENIENT, "A S C:a R:a D", "A S C:a R:a D", []),
    (LENIENT, "U R:a", "U", [(1, "orphan_tool_result", "dropped")]),
    (LENIENT, "C:a U", "C:a R:a U", [(0, "unanswered_tool_call", "inserted_error_result")]),
    # a result arriving after another message closed its group comes too late
    (
        LENIENT,
        "C:a S R:a",
        "C:a R:a S",
        [
            (0, "unanswered_tool_call", "inserted_error_result"),
            (2, "duplicate_tool_result", "dropped"),
        ],
    ),
    (LATE, "U S A", "S U A", [(1, "system_first", "moved_to_instructions")]),
    (LATE, "S U D A", "S U D A", []),
]


@pytest.mark.parametrize(("policy", "given_", "expected", "records"), CASES)
def test_repair_table(
    policy: OrderingPolicy, given_: str, expected: str, records: list[tuple[int, str, str]]
) -> None:
    msgs = build(given_) if given_ else []
    out, changes = repair(msgs, policy)
    assert isinstance(out, Messages)
    assert spell(out) == expected
    assert [(r.index, r.rule, r.action) for r in changes] == records
    check_sequence(policy, out)


def test_merges_join_texts_and_keep_the_first_message() -> None:
    s1 = SystemMessage("one", metadata={"k": 1})
    msgs = [s1, SystemMessage("two"), *build("U", "a"), *build("U", "b"), *build("A", "")]
    out, _ = repair(msgs)
    assert out[0].text == "one\n\ntwo"
    assert out[0].id == s1.id
    assert out[0].metadata == {"k": 1}
    assert out[1].text == "a\n\nb"
    assert out[1].id == msgs[2].id


def test_text_followed_by_a_tool_call_joins_the_call_message() -> None:
    msgs = build("S U", "q") + build("A", "let me look") + build("C:a R:a A", "r")
    out, _ = repair(msgs)
    call = out[2]
    assert call.id == msgs[3].id  # the tool-call message, which may carry provider state
    assert call.text == "let me look"
    assert call.tool_calls == msgs[3].tool_calls


def test_inserted_error_results_name_the_call() -> None:
    out, _ = repair(build("S U C:a,b R:b U"))
    inserted = out[4]
    assert isinstance(inserted, ToolResultMessage)
    assert (inserted.tool_call_id, inserted.is_error, inserted.tool_name) == ("a", True, "tool_a")
    assert inserted.text == UNANSWERED_TEXT


def test_inserted_system_message_is_empty() -> None:
    out, _ = repair(build("U A"))
    assert isinstance(out[0], SystemMessage)
    assert out[0].text == ""


def test_repair_record_is_a_frozen_value() -> None:
    r = Repair(3, "alternation", "merged_into_previous")
    assert str(r) == "message 3: [alternation] merged_into_previous"
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.index = 4  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(r)) == r
    assert hash(r) == hash(Repair(3, "alternation", "merged_into_previous"))


@pytest.mark.parametrize("bad", [["x"], [Message.user("u"), 3]])
def test_non_messages_raise_validation_error(bad: list[Any]) -> None:
    with pytest.raises(ValidationError):
        repair(bad)


@given(conversations())
def test_a_valid_conversation_comes_back_unchanged(msgs: list[Message]) -> None:
    source = Messages(msgs)
    for policy in (STRICT, LENIENT):
        out, changes = repair(source, policy)
        assert changes == ()
        assert out is source
    out, changes = repair(msgs)
    assert changes == ()
    assert list(out) == msgs
    assert all(a is b for a, b in zip(out, msgs, strict=True))


@given(any_sequences(), policies)
def test_repaired_output_always_passes_the_policy(msgs: list[Message], policy: Any) -> None:
    out, changes = repair(msgs, policy)
    check_sequence(policy, out)
    ConversationHistory(out, policy=policy).validate()
    assert all(0 <= r.index < len(msgs) for r in changes)
    if not changes:
        assert list(out) == msgs
    # idempotent: the output is valid, so a second pass changes nothing
    again, more = repair(out, policy)
    assert more == ()
    assert again is out
    # nothing appears from nowhere: each output message is an input message, a
    # merge keeping an input id, or one of the two documented insertions
    ids = {m.id for m in msgs}
    for m in out:
        assert (
            m.id in ids
            or (isinstance(m, ToolResultMessage) and m.is_error and m.text == UNANSWERED_TEXT)
            or (isinstance(m, SystemMessage) and m.text == "")
        )
    # tool results are never merged or invented beyond the error answers
    inputs = {id(m) for m in msgs}
    for m in out:
        if isinstance(m, ToolResultMessage) and m.text != UNANSWERED_TEXT:
            assert id(m) in inputs


@given(any_sequences())
def test_lenient_repair_only_touches_tool_pairing(msgs: list[Message]) -> None:
    _, changes = repair(msgs, LENIENT)
    assert {r.rule for r in changes} <= {
        "orphan_tool_result",
        "unknown_tool_call_id",
        "duplicate_tool_result",
        "unanswered_tool_call",
    }


# -- duplicate message ids -------------------------------------------------------------------


def test_a_message_imported_twice_is_dropped() -> None:
    u = UserMessage("u")
    out, changes = repair([SystemMessage("s"), u, AssistantMessage("a"), u])
    assert spell(out) == "S U A"
    assert out[1] is u
    assert changes == (Repair(3, "duplicate_id", "dropped"),)
    ConversationHistory(out).validate()


def test_an_equal_copy_with_the_same_id_is_dropped() -> None:
    u = UserMessage("u", metadata={"k": 1})
    copy = Message.from_dict(u.to_dict())  # another object, same id, equal
    out, changes = repair([SystemMessage("s"), u, AssistantMessage("a"), copy])
    assert spell(out) == "S U A"
    assert changes == (Repair(3, "duplicate_id", "dropped"),)


def test_a_different_message_reusing_an_id_gets_a_fresh_one() -> None:
    u = UserMessage("first")
    other = dataclasses.replace(UserMessage("second", name="n"), id=u.id)
    out, changes = repair([SystemMessage("s"), u, AssistantMessage("a"), other])
    assert spell(out) == "S U A U"
    assert changes == (Repair(3, "duplicate_id", "assigned_new_id"),)
    kept = out[3]
    assert kept == other  # same class, content, name, metadata, extras
    assert type(kept) is UserMessage
    assert kept.id != u.id
    assert len(kept.id) == len(u.id)  # made the way the package makes ids
    assert kept.created_at == other.created_at
    assert out[1] is u
    ConversationHistory(out).validate()


def test_duplicate_ids_are_resolved_before_the_ordering_rules() -> None:
    u = UserMessage("a")  # its generated id is not formatted yet
    out, changes = repair([SystemMessage("s"), u, UserMessage("b"), AssistantMessage("c"), u])
    # the merge copies u (formatting its id on the way); the repeat of u is still found
    assert spell(out) == "S U A"
    assert out[1].text == "a\n\nb"
    assert out[1].id == u.id
    assert [(r.index, r.rule, r.action) for r in changes] == [
        (2, "alternation", "merged_into_previous"),
        (4, "duplicate_id", "dropped"),
    ]
    ConversationHistory(out).validate()


def test_a_tool_round_imported_twice_is_dropped_whole() -> None:
    msgs = build("S U C:a R:a A")
    again = [*msgs, UserMessage("more"), msgs[2], msgs[3], AssistantMessage("done")]
    out, changes = repair(again)
    assert spell(out) == "S U C:a R:a A U A"
    assert [(r.index, r.rule, r.action) for r in changes] == [
        (6, "duplicate_id", "dropped"),
        (7, "duplicate_id", "dropped"),
    ]
    ConversationHistory(out).validate()


@st.composite
def sequences_with_repeated_ids(draw: st.DrawFn) -> list[Message]:
    """``any_sequences`` with later messages repeating earlier ids: the same object,
    an equal decoded copy, or a different message under the same id."""
    msgs = list(draw(any_sequences()))
    for _ in range(draw(st.integers(0, 4))):
        if not msgs:
            break
        earlier = msgs[draw(st.integers(0, len(msgs) - 1))]
        how = draw(st.sampled_from(("same", "copy", "other")))
        if how == "same":
            dup = earlier
        elif how == "copy":
            dup = Message.from_dict(earlier.to_dict())
        else:
            dup = dataclasses.replace(draw(st.sampled_from(msgs)), id=earlier.id)
        msgs.insert(draw(st.integers(msgs.index(earlier) + 1, len(msgs))), dup)
    return msgs


@given(sequences_with_repeated_ids(), policies)
def test_repair_output_is_accepted_by_a_history_with_the_same_policy(
    msgs: list[Message], policy: OrderingPolicy
) -> None:
    out, changes = repair(msgs, policy)
    ConversationHistory(out, policy=policy).validate()  # raised OrderingError [duplicate_id]
    assert len({m.id for m in out}) == len(out)
    assert all(0 <= r.index < len(msgs) for r in changes)
    # every repeat of an earlier id is reported, once
    seen: set[str] = set()
    repeats = []
    for i, m in enumerate(msgs):
        if m.id in seen:
            repeats.append(i)
        seen.add(m.id)
    assert [r.index for r in changes if r.rule == "duplicate_id"] == repeats
    again, more = repair(out, policy)
    assert more == ()
    assert again is out
