"""The ordering state machine: policies, the transition table, every rule."""

from __future__ import annotations

import dataclasses
import itertools
import pickle
from typing import Any, ClassVar

import pytest
from hypothesis import given

from messages import (
    Message,
    MessageRole,
    OrderingError,
    ToolCall,
    ToolCallMessage,
    UserMessage,
)
from messages._ordering import (
    KIND_NAMES,
    OrderingPolicy,
    OrderingState,
    advance,
    check_sequence,
    kind_of,
)
from messages.errors import DecodeError, ValidationError
from tests.conftest import SECRET
from tests.conversations import build, conversations, make, policies

STRICT = OrderingPolicy.strict()
LENIENT = OrderingPolicy.lenient()
FLAGS = tuple(STRICT.to_dict())


def rejection(policy: OrderingPolicy, prefix: str, token: str) -> str | None:
    """The rule broken by adding ``token`` after ``prefix`` (None when accepted)."""
    state = check_sequence(policy, build(prefix)) if prefix else OrderingState(policy)
    try:
        advance(state, make(token), len(prefix.split()))
    except OrderingError as exc:
        return exc.rule
    return None


# -- policies -----------------------------------------------------------------------


def test_strict_is_the_default_and_lenient_relaxes_every_flag() -> None:
    assert OrderingPolicy() == STRICT
    assert STRICT.to_dict() == {
        "require_system_first": True,
        "allow_multiple_system": False,
        "allow_late_instructions": False,
        "allow_assistant_first": False,
        "allow_consecutive_user": False,
        "allow_consecutive_assistant": False,
    }
    assert LENIENT.to_dict() == {
        "require_system_first": False,
        "allow_multiple_system": True,
        "allow_late_instructions": True,
        "allow_assistant_first": True,
        "allow_consecutive_user": True,
        "allow_consecutive_assistant": True,
    }
    assert STRICT.name == "strict"
    assert LENIENT.name == "lenient"
    assert OrderingPolicy(allow_consecutive_user=True).name == "custom"


@pytest.mark.parametrize("flags", list(itertools.product([False, True], repeat=len(FLAGS))))
def test_every_policy_round_trips_through_dict_and_pickle(flags: tuple[bool, ...]) -> None:
    policy = OrderingPolicy(**dict(zip(FLAGS, flags, strict=True)))
    assert OrderingPolicy.from_dict(policy.to_dict()) == policy
    copy = pickle.loads(pickle.dumps(policy))
    assert copy == policy
    assert hash(copy) == hash(policy)
    assert copy.describe() == policy.describe()


def test_policy_is_immutable_and_hashable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        STRICT.allow_consecutive_user = True  # type: ignore[misc]
    assert len({STRICT, OrderingPolicy(), LENIENT}) == 2


def test_from_dict_fills_missing_flags_with_the_strict_defaults() -> None:
    assert OrderingPolicy.from_dict({}) == STRICT
    assert OrderingPolicy.from_dict({"allow_consecutive_user": True}) == OrderingPolicy(
        allow_consecutive_user=True
    )


@pytest.mark.parametrize(
    ("data", "path", "fragment"),
    [
        ([], "policy", "expected an object, got list"),
        ({"strict": True}, "policy.strict", "unknown policy flag"),
        ({"allow_consecutive_user": 1}, "policy.allow_consecutive_user", "expected bool, got int"),
        ({"require_system_first": "yes"}, "policy.require_system_first", "expected bool, got str"),
        ({"require_system_first": None}, "policy.require_system_first", "got NoneType"),
    ],
)
def test_from_dict_rejects_bad_input_with_a_path(data: Any, path: str, fragment: str) -> None:
    with pytest.raises(DecodeError) as info:
        OrderingPolicy.from_dict(data)
    assert info.value.path == path
    assert fragment in info.value.message


@pytest.mark.parametrize("flag", FLAGS)
def test_constructor_rejects_non_bool_flags(flag: str) -> None:
    with pytest.raises(ValidationError) as info:
        kwargs: dict[str, Any] = {flag: 1}
        OrderingPolicy(**kwargs)
    assert info.value.path == flag


def test_describe_lists_every_phase_and_names_the_rules() -> None:
    text = STRICT.describe()
    for phase in ("empty", "instructions", "user", "assistant", "calling", "answered"):
        assert f"\n{phase}: " in f"\n{text}"
    for rule in (
        "system_first",
        "instructions_first",
        "assistant_first",
        "alternation",
        "tool_results_pending",
        "orphan_tool_result",
    ):
        assert rule in text
    assert "alternation" not in LENIENT.describe()


# -- the transition table -------------------------------------------------------------

# (prefix, next, rule under strict, rule under lenient); None means accepted, "-" that
# the prefix itself is not valid under that policy.
TABLE: list[tuple[str, str, str | None, str | None]] = [
    # the first message
    ("", "S", None, None),
    ("", "D", None, None),
    ("", "U", "system_first", None),
    ("", "A", "system_first", None),
    ("", "C:a", "system_first", None),
    ("", "R:a", "system_first", "orphan_tool_result"),
    # instructions
    ("S", "S", "single_system", None),
    ("S", "D", None, None),
    ("D", "S", None, None),
    ("D", "D", None, None),
    ("S D", "S", "single_system", None),
    ("S", "U", None, None),
    ("S", "A", "assistant_first", None),
    ("S", "C:a", "assistant_first", None),
    ("S", "R:a", "orphan_tool_result", "orphan_tool_result"),
    # alternation
    ("S U", "A", None, None),
    ("S U", "C:a", None, None),
    ("S U", "U", "alternation", None),
    ("S U A", "U", None, None),
    ("S U A", "A", "alternation", None),
    ("S U A", "C:a", "alternation", None),
    ("S U A U", "A", None, None),
    # late instructions
    ("S U", "S", "instructions_first", None),
    ("D U", "S", "instructions_first", None),
    ("S U", "D", "instructions_first", None),
    ("S U A", "D", "instructions_first", None),
    ("S U C:a R:a", "D", "instructions_first", None),
    # instructions are transparent to alternation where allowed
    ("U D", "U", "-", None),
    # tool pairing (every policy)
    ("S U A", "R:a", "orphan_tool_result", "orphan_tool_result"),
    ("S U", "R:a", "orphan_tool_result", "orphan_tool_result"),
    ("S U C:a", "R:a", None, None),
    ("S U C:a", "R:b", "unknown_tool_call_id", "unknown_tool_call_id"),
    ("S U C:a,b", "R:b", None, None),
    ("S U C:a,b R:b", "R:a", None, None),
    ("S U C:a,b R:b", "R:b", "duplicate_tool_result", "duplicate_tool_result"),
    ("S U C:a R:a", "R:a", "duplicate_tool_result", "duplicate_tool_result"),
    ("S U C:a R:a", "R:b", "unknown_tool_call_id", "unknown_tool_call_id"),
    ("S U C:a", "U", "tool_results_pending", "tool_results_pending"),
    ("S U C:a", "A", "tool_results_pending", "tool_results_pending"),
    ("S U C:a", "C:b", "tool_results_pending", "tool_results_pending"),
    ("S U C:a", "S", "tool_results_pending", "tool_results_pending"),
    ("S U C:a", "D", "tool_results_pending", "tool_results_pending"),
    ("S U C:a,b R:a", "A", "tool_results_pending", "tool_results_pending"),
    # after the results: the assistant continues, calls again, or the user speaks
    ("S U C:a R:a", "A", None, None),
    ("S U C:a R:a", "C:b", None, None),
    ("S U C:a R:a", "U", None, None),
    ("S U C:a R:a C:b R:b", "A", None, None),
    # a call id may be reused by a later round; pairing is per tool-call message
    ("S U C:a R:a A U C:a", "R:a", None, None),
    ("S U C:a R:a C:b", "R:a", "unknown_tool_call_id", "unknown_tool_call_id"),
]


@pytest.mark.parametrize(("prefix", "token", "strict", "lenient"), TABLE)
def test_transition_table(prefix: str, token: str, strict: str | None, lenient: str | None) -> None:
    for policy, expected in ((STRICT, strict), (LENIENT, lenient)):
        if expected == "-":
            with pytest.raises(OrderingError):
                check_sequence(policy, build(prefix))
        else:
            assert rejection(policy, prefix, token) == expected


# Each flag relaxes exactly one rule: (flag, prefix, next, rule it lifts).
FLAG_CASES = [
    ("require_system_first", "", "U", "system_first"),
    ("allow_multiple_system", "S", "S", "single_system"),
    ("allow_late_instructions", "S U", "D", "instructions_first"),
    ("allow_assistant_first", "S", "A", "assistant_first"),
    ("allow_consecutive_user", "S U", "U", "alternation"),
    ("allow_consecutive_assistant", "S U A", "A", "alternation"),
    ("allow_consecutive_assistant", "S U A", "C:a", "alternation"),
]


@pytest.mark.parametrize(("flag", "prefix", "token", "rule"), FLAG_CASES)
def test_each_flag_lifts_its_rule(flag: str, prefix: str, token: str, rule: str) -> None:
    assert rejection(STRICT, prefix, token) == rule
    relaxed = OrderingPolicy(**{**STRICT.to_dict(), flag: not getattr(STRICT, flag)})
    assert rejection(relaxed, prefix, token) is None


def test_late_system_under_allow_late_instructions_still_counts_as_second_system() -> None:
    policy = OrderingPolicy(allow_late_instructions=True)
    assert rejection(policy, "S U A", "S") == "single_system"
    assert rejection(policy, "S U A", "D") is None
    assert rejection(policy, "D U A", "S") is None


def test_instructions_are_transparent_to_alternation() -> None:
    policy = OrderingPolicy(allow_late_instructions=True)
    assert rejection(policy, "S U A D", "A") == "alternation"
    assert rejection(policy, "S U A D", "U") is None
    assert rejection(policy, "S U C:a R:a D", "A") is None


# -- the state -------------------------------------------------------------------------


def test_rejection_changes_nothing_in_the_state() -> None:
    state = check_sequence(STRICT, build("S U C:a,b R:a"))
    before = (state.phase, state.has_system, dict(state.pending), set(state.answered))
    for token in ("U", "A", "C:c", "R:a", "R:z", "S", "D"):
        with pytest.raises(OrderingError):
            advance(state, make(token), 5)
        assert (state.phase, state.has_system, dict(state.pending), set(state.answered)) == before
    advance(state, make("R:b"), 5)
    assert not state.pending


def test_copy_is_independent() -> None:
    state = check_sequence(STRICT, build("S U C:a,b"))
    other = state.copy()
    advance(other, make("R:a"), 4)
    assert list(state.pending) == ["a", "b"]
    assert list(other.pending) == ["b"]
    assert state.answered == set()


def test_pending_keeps_call_order_and_the_calls() -> None:
    calls = [ToolCall("z", "f", {}), ToolCall("a", "g", {}), ToolCall("m", "h", {})]
    state = check_sequence(STRICT, [*build("S U"), ToolCallMessage(calls)])
    assert tuple(state.pending.values()) == tuple(calls)
    advance(state, make("R:a"), 3)
    assert list(state.pending) == ["z", "m"]


@given(conversations())
def test_generated_conversations_pass_every_policy(msgs: list[Message]) -> None:
    check_sequence(STRICT, msgs)
    check_sequence(LENIENT, msgs)


@given(conversations(), policies)
def test_every_policy_accepts_what_strict_accepts(msgs: list[Message], policy: Any) -> None:
    check_sequence(policy, msgs)


# -- kinds -----------------------------------------------------------------------------


class Note(UserMessage):
    """A user-message subclass (as a registry user might define)."""

    __slots__ = ()


class Odd(Message):
    """A message class with the tool role that is not a ToolResultMessage."""

    __slots__ = ("content",)
    role: ClassVar[MessageRole] = MessageRole.TOOL

    def __init__(self) -> None:
        object.__setattr__(self, "content", "")


def test_subclasses_are_classified_by_their_base() -> None:
    note = Note("hi")
    assert KIND_NAMES[kind_of(note)] == "user"
    check_sequence(STRICT, [*build("S"), note, *build("A")])


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("hello", "expected a Message, got str"),
        (None, "expected a Message, got NoneType"),
        ({"role": "user"}, "expected a Message, got dict"),
    ],
)
def test_non_messages_are_refused(value: Any, fragment: str) -> None:
    state = OrderingState(LENIENT)
    with pytest.raises(OrderingError) as info:
        advance(state, value, 0)
    assert info.value.rule == "not_a_message"
    assert fragment in str(info.value)


def test_a_tool_role_message_must_be_a_tool_result() -> None:
    with pytest.raises(OrderingError) as info:
        kind_of(Odd())
    assert info.value.rule == "not_a_message"


# -- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "token", "fragments"),
    [
        ("", "U", ["system", "first"]),
        ("S", "S", ["system", "already"]),
        ("S U", "U", ["user and assistant", "alternate", "user after user"]),
        ("S U A", "C:a", ["alternate", "assistant after assistant"]),
        ("S U A", "R:a", ["tool", "tool_calls"]),
        ("S U C:a", "R:b", ["tool_call_id", "'b'"]),
        ("S U C:a R:a", "R:a", ["tool_call_id", "already answered"]),
        ("S U C:a,b,c,d", "U", ["4 tool call(s)", "'a', 'b', 'c', ... (4 in all)"]),
        ("S U", "D", ["developer messages must come before"]),
        ("S", "A", ["first turn must be a user message"]),
    ],
)
def test_error_messages_say_which_rule_and_where(
    prefix: str, token: str, fragments: list[str]
) -> None:
    msgs = build(prefix, SECRET) if prefix else []
    state = check_sequence(STRICT, msgs)
    with pytest.raises(OrderingError) as info:
        advance(state, make(token, SECRET), len(msgs))
    err = info.value
    assert err.index == len(msgs)
    text = str(err)
    assert text.startswith(f"message {len(msgs)}: [{err.rule}] ")
    for fragment in fragments:
        assert fragment in text
    assert SECRET not in text
    assert SECRET not in repr(err)
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.rule, copy.index, str(copy)) == (err.rule, err.index, text)


class _Hostile(dict):  # type: ignore[type-arg]
    """A Mapping whose methods raise."""

    def items(self) -> Any:
        raise RuntimeError("boom")

    def __getitem__(self, key: object) -> Any:
        raise RuntimeError("boom")


def test_policy_from_dict_turns_a_hostile_mapping_into_a_decode_error() -> None:
    with pytest.raises(DecodeError) as info:
        OrderingPolicy.from_dict(_Hostile(require_system_first=True))
    assert info.value.path == "policy"
    assert "RuntimeError" in info.value.message
    with pytest.raises(DecodeError) as info:
        OrderingPolicy.from_dict({"wizard": True})
    assert "'wizard'" in info.value.message
