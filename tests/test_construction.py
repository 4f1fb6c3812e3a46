"""How messages and tool calls are built: exact types, frozen results, and user subclasses.

Every value class checks its fields in ``__post_init__``, which runs for every
construction; decoders build through ``messages._build``. These tests pin what a
user sees: the exact class, frozen instances, pickling, ``dataclasses.replace``,
subclasses with or without their own ``__init__`` (one that retries after a failed
check included), and that building defines no classes.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    MessageRegistry,
    MessageRole,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
    from_dict,
    from_json,
    to_dict,
    to_json,
)

CALL = ToolCall("call_1", "get_weather", {"city": "Paris"})

BUILDERS: list[Callable[[], Message]] = [
    lambda: SystemMessage("s"),
    lambda: DeveloperMessage("d"),
    lambda: UserMessage("u"),
    lambda: AssistantMessage("a"),
    lambda: ToolCallMessage((CALL,)),
    lambda: ToolResultMessage("call_1", "r"),
    lambda: UserMessage("u", name="bo", metadata={"k": 1}, extras={"x": [1]}),
]


@pytest.mark.parametrize("build", BUILDERS)
def test_built_messages_have_their_exact_class_and_are_frozen(build: Callable[[], Message]) -> None:
    m = build()
    cls = type(m)
    assert cls in (
        SystemMessage,
        DeveloperMessage,
        UserMessage,
        AssistantMessage,
        ToolCallMessage,
        ToolResultMessage,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.name = "x"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del m.name
    assert type(from_dict(to_dict(m))) is cls
    assert type(from_json(to_json(m))) is cls


@pytest.mark.parametrize("build", BUILDERS)
def test_pickle_copy_and_replace_keep_class_id_and_value(build: Callable[[], Message]) -> None:
    m = build()
    for again in (pickle.loads(pickle.dumps(m)), copy.copy(m), copy.deepcopy(m)):
        assert type(again) is type(m)
        assert (again.id, again.created_at) == (m.id, m.created_at)
        assert again == m
    changed = dataclasses.replace(m, name="other")
    assert type(changed) is type(m)
    assert changed.id == m.id and changed.name == "other"


def test_unpickling_a_message_whose_id_was_never_read() -> None:
    m = UserMessage("fresh")
    again = pickle.loads(pickle.dumps(m))
    assert (again.id, again.created_at) == (m.id, m.created_at)


def test_message_itself_is_abstract() -> None:
    with pytest.raises(TypeError, match="abstract"):
        Message()


def test_tool_call_is_frozen_exact_and_picklable() -> None:
    c = ToolCall("c1", "f", '{"a": [1, 2]}')
    assert type(c) is ToolCall
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.id = "c2"  # type: ignore[misc]
    again = pickle.loads(pickle.dumps(c))
    assert type(again) is ToolCall and again == c and again.arguments_json == '{"a": [1, 2]}'
    assert dataclasses.replace(c, name="g") == ToolCall("c1", "g", {"a": [1, 2]})
    assert [f.name for f in dataclasses.fields(c) if f.init] == [
        "id",
        "name",
        "arguments",
        "extras",
    ]


# -- user subclasses ----------------------------------------------------------------------


class Note(UserMessage):
    """A subclass that adds behaviour only."""

    __slots__ = ()

    @property
    def shouted(self) -> str:
        return self.text.upper()


class Ticket(UserMessage):
    """A subclass with its own __init__ that calls super().__init__ with other arguments."""

    __slots__ = ()

    def __init__(self, text: str, ticket: int, **kwargs: Any) -> None:
        super().__init__(f"[#{ticket}] {text}", metadata={"ticket": ticket}, **kwargs)


class Loose(AssistantMessage):
    """A subclass without __slots__ (it has a __dict__)."""

    def note(self) -> str:
        return "loose"


class Act(ToolCallMessage):
    """A ToolCallMessage subclass with its own __init__."""

    __slots__ = ()

    def __init__(self, *calls: ToolCall) -> None:
        super().__init__(calls, "acting")


class NamedCall(ToolCall):
    """A ToolCall subclass with its own __init__."""

    __slots__ = ()

    def __init__(self, name: str, **arguments: Any) -> None:
        super().__init__(f"call_{name}", name, arguments)


def test_subclass_without_init_builds_as_itself() -> None:
    n = Note("hi", name="bo")
    assert type(n) is Note and n.shouted == "HI" and n.name == "bo"
    assert n.content == "hi" and len(n.id) == 32
    with pytest.raises(dataclasses.FrozenInstanceError):
        n.content = "x"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(n)) == n


def test_subclass_with_its_own_init_calls_super_init() -> None:
    t = Ticket("printer on fire", 42, name="ops")
    assert type(t) is Ticket
    assert t.content == "[#42] printer on fire"
    assert t.metadata == {"ticket": 42} and t.name == "ops"
    assert isinstance(t, UserMessage) and t.role is MessageRole.USER
    assert len(t.id) == 32 and t.created_at.tzinfo is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.content = "x"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="name"):
        Ticket("x", 1, name=5)
    again = pickle.loads(pickle.dumps(t))
    assert type(again) is Ticket and again == t and again.id == t.id


def test_subclass_with_own_init_round_trips_through_a_registry() -> None:
    registry = MessageRegistry()
    registry.register(
        MessageRole.USER, Ticket, lambda d: "ticket" in (d.get("metadata") or {}), UserMessage
    )
    t = Ticket("x", 7)
    back = from_dict(to_dict(t), registry=registry)
    assert type(back) is Ticket and back == t and back.id == t.id


def test_subclass_with_a_dict_builds_and_stays_frozen() -> None:
    m = Loose("answer")
    assert type(m) is Loose and m.note() == "loose" and m.text == "answer"
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.content = "x"  # type: ignore[misc]


def test_tool_call_message_subclass_with_its_own_init() -> None:
    a = Act(CALL, ToolCall("call_2", "f"))
    assert type(a) is Act and a.content == "acting" and a.tool_call_ids == ("call_1", "call_2")
    with pytest.raises(ValidationError, match="duplicate"):
        Act(CALL, CALL)


def test_tool_call_subclass_with_its_own_init() -> None:
    c = NamedCall("lookup", q="x", n=2)
    assert type(c) is NamedCall
    assert (c.id, c.name, dict(c.arguments)) == ("call_lookup", "lookup", {"q": "x", "n": 2})
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.name = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="name"):
        NamedCall("not a name!")


def test_validation_still_names_the_field_for_every_constructor() -> None:
    with pytest.raises(ValidationError, match="content"):
        UserMessage(None)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="tool_calls"):
        ToolCallMessage(())
    with pytest.raises(ValidationError, match="tool_calls"):
        ToolCallMessage([CALL, "not a call"])  # type: ignore[list-item]
    with pytest.raises(ValidationError, match="tool_call_id"):
        ToolResultMessage("", "r")
    with pytest.raises(ValidationError, match="id"):
        UserMessage("x", id="")
    with pytest.raises(ValidationError, match="arguments"):
        ToolCall("c", "f", "[1]")


# -- a failed construction leaves nothing behind; building defines no classes -------------


class Lenient(UserMessage):
    """A subclass whose __init__ retries with fewer fields after a failed check."""

    __slots__ = ()

    def __init__(self, content: Any, **kwargs: Any) -> None:
        try:
            UserMessage.__init__(self, content, **kwargs)
        except ValidationError:
            UserMessage.__init__(self, content)


def test_a_subclass_that_retries_after_a_failed_check_is_frozen_and_itself() -> None:
    x = Lenient("hello", name=5)
    assert type(x) is Lenient and type(x).__qualname__ == "Lenient"
    assert (x.content, x.name) == ("hello", None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.content = "mutated"  # type: ignore[misc]
    assert x.content == "hello"


def test_building_defines_no_classes_and_fires_no_subclass_hooks() -> None:
    seen: list[type] = []

    class Hooked(UserMessage):
        __slots__ = ()

        def __init_subclass__(cls, **kwargs: Any) -> None:
            seen.append(cls)

    @dataclasses.dataclass(frozen=True, slots=True)
    class Concrete(UserMessage):
        tag: str = ""

    before = {cls: list(cls.__subclasses__()) for cls in (UserMessage, Hooked, Concrete)}
    for build in (
        lambda: Concrete("x", tag="t"),
        lambda: Hooked("x"),
        lambda: from_dict(to_dict(Hooked("y"))),
        lambda: Message.user("z"),
        lambda: ToolCall("c", "f", {"a": 1}),
    ):
        build()
    assert {cls: list(cls.__subclasses__()) for cls in before} == before
    assert seen == []


@pytest.mark.parametrize(
    "bad",
    [
        lambda: UserMessage(5),  # type: ignore[arg-type]
        lambda: UserMessage("x", metadata={"k": object()}),
        lambda: ToolCallMessage([CALL, CALL]),
        lambda: ToolResultMessage("c", "r", is_error=1),  # type: ignore[arg-type]
        lambda: ToolCall("c", "not a name!"),
    ],
)
def test_a_failed_construction_raises_validation_error_only(bad: Callable[[], object]) -> None:
    with pytest.raises(ValidationError):
        bad()


def test_a_dataclass_subclass_runs_the_base_checks_and_its_own() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Tagged(UserMessage):
        tag: str = ""

        def __post_init__(self) -> None:
            UserMessage.__post_init__(self)
            if not isinstance(self.tag, str):
                raise ValidationError("expected str", "tag")

    t = Tagged(["a", "b"], tag="t")  # type: ignore[arg-type]  # a list is taken too
    assert t.content == (TextPart("a"), TextPart("b")) and t.tag == "t" and len(t.id) == 32
    with pytest.raises(ValidationError, match="content"):
        Tagged(None, tag="t")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="tag"):
        Tagged("x", tag=5)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="name"):
        Tagged("x", name=5)  # type: ignore[arg-type]


def test_fields_hold_their_declared_types_when_read() -> None:
    from datetime import datetime

    for m in (UserMessage("x"), from_dict(to_dict(UserMessage("y"))), Message.user("z")):
        assert type(m.id) is str and type(m.created_at) is datetime
        assert dataclasses.replace(m).id == m.id
    fields = {
        f.name: getattr(ToolCallMessage((CALL,)), f.name)
        for f in dataclasses.fields(ToolCallMessage)
    }
    assert type(fields["id"]) is str and type(fields["created_at"]) is datetime


def test_threads_build_messages_side_by_side() -> None:
    import threading

    made: list[list[Message]] = [[] for _ in range(4)]

    def work(out: list[Message]) -> None:
        out.extend(UserMessage(f"m{k}") for k in range(2000))

    threads = [threading.Thread(target=work, args=(out,)) for out in made]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [m.id for out in made for m in out]
    assert len(set(ids)) == len(ids) == 8000
    assert all(type(m) is UserMessage for out in made for m in out)
