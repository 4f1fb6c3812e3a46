"""MessageRegistry: role first, then ordered predicates; user classes round-trip as themselves."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from messages import (
    AssistantMessage,
    DecodeError,
    DeveloperMessage,
    Message,
    MessageRegistry,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
    default_registry,
    from_dict,
    from_json,
    to_dict,
    to_json,
)
from messages._registry import has_tool_calls

CALL = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}


class Note(UserMessage):
    """A user message the application marks as a note (kind in metadata)."""

    __slots__ = ()

    @property
    def is_note(self) -> bool:
        return True


class Plan(AssistantMessage):
    __slots__ = ()


class Act(ToolCallMessage):
    __slots__ = ()


class Unrelated:
    pass


def is_note(d: Mapping[str, Any]) -> bool:
    meta = d.get("metadata")
    return isinstance(meta, Mapping) and meta.get("kind") == "note"


def test_the_default_candidates() -> None:
    reg = MessageRegistry()
    assert reg.candidates("system") == ((SystemMessage, None),)
    assert reg.candidates("developer") == ((DeveloperMessage, None),)
    assert reg.candidates("user") == ((UserMessage, None),)
    assert reg.candidates("tool") == ((ToolResultMessage, None),)
    assert reg.candidates("assistant") == (
        (ToolCallMessage, has_tool_calls),
        (AssistantMessage, None),
    )
    assert default_registry.candidates("assistant") == reg.candidates("assistant")


@pytest.mark.parametrize(
    ("d", "cls"),
    [
        ({"role": "assistant", "content": "x"}, AssistantMessage),
        ({"role": "assistant", "content": "x", "tool_calls": []}, AssistantMessage),
        ({"role": "assistant", "content": "x", "tool_calls": None}, AssistantMessage),
        ({"role": "assistant", "tool_calls": [CALL]}, ToolCallMessage),
        ({"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}}, ToolCallMessage),
        ({"role": "user", "content": "x"}, UserMessage),
        ({"role": "tool", "content": "x", "tool_call_id": "c"}, ToolResultMessage),
    ],
)
def test_resolve_picks_by_role_then_predicate(d: dict[str, Any], cls: type[Message]) -> None:
    assert default_registry.resolve(d["role"], d) is cls
    assert type(from_dict(d)) is cls


def test_a_registered_subclass_round_trips_as_itself() -> None:
    reg = MessageRegistry()
    reg.register("user", Note, is_note)
    note = Note("remember", metadata={"kind": "note"})
    plain = UserMessage("hello")
    back_note = from_dict(to_dict(note), registry=reg)
    back_plain = from_dict(to_dict(plain), registry=reg)
    assert type(back_note) is Note
    assert back_note == note
    assert back_note.id == note.id
    assert type(back_plain) is UserMessage
    back_list = from_json(to_json([note, plain]), registry=reg)
    assert [type(m) for m in back_list] == [Note, UserMessage]  # type: ignore[union-attr]
    assert reg.decode(to_dict(note)) == note
    # the default registry is untouched
    assert type(from_dict(to_dict(note))) is UserMessage


def test_register_without_a_predicate_takes_the_role() -> None:
    reg = MessageRegistry()
    reg.register("user", Note)
    assert type(from_dict({"role": "user", "content": "x"}, registry=reg)) is Note
    assert reg.candidates("user")[-1] == (UserMessage, None)


def test_assistant_subclasses_get_the_predicate_of_their_base() -> None:
    reg = MessageRegistry()
    reg.register("assistant", Plan)
    reg.register("assistant", Act)
    assert [c for c, _ in reg.candidates("assistant")] == [
        Act,
        Plan,
        ToolCallMessage,
        AssistantMessage,
    ]
    plan = from_dict({"role": "assistant", "content": "x"}, registry=reg)
    act = from_dict({"role": "assistant", "tool_calls": [CALL]}, registry=reg)
    assert type(plan) is Plan
    assert type(act) is Act
    assert act.tool_calls == (ToolCall("c", "f", {}),)
    same = Act([ToolCall("c", "f")], "thinking")
    assert from_dict(to_dict(same), registry=reg) == same


def test_before_places_a_candidate() -> None:
    reg = MessageRegistry()
    reg.register("assistant", Plan, lambda d: True, before=AssistantMessage)
    assert [c for c, _ in reg.candidates("assistant")] == [ToolCallMessage, Plan, AssistantMessage]
    assert (
        type(from_dict({"role": "assistant", "tool_calls": [CALL]}, registry=reg))
        is ToolCallMessage
    )
    assert type(from_dict({"role": "assistant", "content": "x"}, registry=reg)) is Plan


def test_registering_again_moves_the_class_and_unregister_removes_it() -> None:
    reg = MessageRegistry()
    reg.register("user", Note, is_note)
    reg.register("user", Note, is_note)
    assert [c for c, _ in reg.candidates("user")] == [Note, UserMessage]
    reg.unregister("user", Note)
    assert reg.candidates("user") == ((UserMessage, None),)


def test_the_last_candidate_is_the_fallback() -> None:
    reg = MessageRegistry()
    reg.register("user", Note, is_note)
    reg.unregister("user", UserMessage)
    # Note is now the only candidate: it decodes everything of that role.
    assert reg.candidates("user") == ((Note, None),)
    assert type(from_dict({"role": "user", "content": "x"}, registry=reg)) is Note
    with pytest.raises(ValidationError, match="cannot remove the only candidate"):
        reg.unregister("user", Note)


def test_copy_is_independent() -> None:
    reg = MessageRegistry()
    other = reg.copy()
    other.register("user", Note)
    assert reg.candidates("user") == ((UserMessage, None),)
    assert [c for c, _ in other.candidates("user")] == [Note, UserMessage]
    assert "Note" in repr(other)
    assert "assistant: [ToolCallMessage, AssistantMessage]" in repr(reg)


@dataclass(frozen=True, slots=True)
class WithField(UserMessage):
    extra: int = 0


def test_a_subclass_with_fields_registers_and_round_trips_them() -> None:
    reg = MessageRegistry()
    reg.register("user", WithField, predicate=lambda d: "extra" in d)
    m = WithField("hi", extra=3, metadata={"k": 1})
    d = m.to_dict()
    assert d["extra"] == 3 and "extras" not in d
    back = from_dict(d, registry=reg)
    assert type(back) is WithField and back == m and back.id == m.id
    assert from_dict(UserMessage("hi").to_dict(), registry=reg).__class__ is UserMessage


@pytest.mark.parametrize(
    ("role", "cls", "kwargs", "fragment"),
    [
        ("user", Unrelated, {}, "expected a subclass of a message class"),
        ("user", Message, {}, "does not derive from a concrete message class"),
        ("assistant", Note, {}, "has role user, not assistant"),
        ("wizard", Note, {}, "unknown role"),
        ("user", Note, {"predicate": "yes"}, "predicate must be callable"),
        (
            "user",
            Note,
            {"before": AssistantMessage},
            "AssistantMessage is not a candidate for role user",
        ),
    ],
)
def test_register_refuses(role: str, cls: Any, kwargs: dict[str, Any], fragment: str) -> None:
    reg = MessageRegistry()
    with pytest.raises(ValidationError) as e:
        reg.register(role, cls, **kwargs)
    assert fragment in str(e.value)
    assert reg.candidates("user") == ((UserMessage, None),)


def test_unregister_refuses_what_is_not_there() -> None:
    with pytest.raises(ValidationError, match="Note is not a candidate for role user"):
        MessageRegistry().unregister("user", Note)


def test_a_failing_predicate_is_a_decode_error() -> None:
    reg = MessageRegistry()

    def broken(d: Mapping[str, Any]) -> bool:
        return bool(d["missing"])

    reg.register("user", Note, broken)
    with pytest.raises(DecodeError) as e:
        from_dict({"role": "user", "content": "x"}, registry=reg)
    assert "the predicate of Note failed (KeyError)" in str(e.value)


def test_an_unregistered_subclass_decodes_as_itself_when_asked_by_name() -> None:
    note = Note("x")
    back = Note.from_dict(note.to_dict())
    assert type(back) is Note
    assert back == note
    with pytest.raises(DecodeError, match="expected a Note"):
        Note.from_dict({"role": "assistant", "content": "x"})


def test_decoding_while_another_thread_registers() -> None:
    reg = MessageRegistry()
    dicts = [
        to_dict(UserMessage("u", metadata={"kind": "note"})),
        to_dict(AssistantMessage("a")),
        to_dict(ToolCallMessage([ToolCall("c", "f")])),
        to_dict(ToolResultMessage("c", "r")),
    ]
    allowed = {UserMessage, Note, AssistantMessage, Plan, ToolCallMessage, Act, ToolResultMessage}
    stop = threading.Event()
    errors: list[BaseException] = []
    seen: set[type] = set()

    def decode() -> None:
        try:
            while not stop.is_set():
                for d in dicts:
                    m = from_dict(d, registry=reg)
                    if type(m) not in allowed:
                        raise AssertionError(type(m))
                    seen.add(type(m))
        except BaseException as exc:
            errors.append(exc)

    def churn() -> None:
        try:
            for _ in range(300):
                reg.register("user", Note, is_note)
                reg.register("assistant", Plan)
                reg.register("assistant", Act)
                reg.unregister("assistant", Act)
                reg.unregister("assistant", Plan)
                reg.unregister("user", Note)
        except BaseException as exc:
            errors.append(exc)

    readers = [threading.Thread(target=decode) for _ in range(3)]
    writer = threading.Thread(target=churn)
    for t in readers:
        t.start()
    writer.start()
    writer.join()
    stop.set()
    for t in readers:
        t.join()
    assert errors == []
    assert {UserMessage, AssistantMessage, ToolCallMessage, ToolResultMessage} <= seen
