"""The message classes and factories (API.md "Messages"; FR-004a-11..35)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    AudioPart,
    DeveloperMessage,
    FilePart,
    ImagePart,
    Message,
    MessageRole,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
)

CALL_A = ToolCall("call_a", "get_weather", {"city": "Paris"})
CALL_B = ToolCall("call_b", "get_weather", {"city": "Tokyo"})


def all_kinds(text: str = "hello") -> list[Message]:
    return [
        SystemMessage(text),
        DeveloperMessage(text),
        UserMessage(text),
        UserMessage([TextPart(text), ImagePart(url="https://x/i.png")]),
        AssistantMessage(text),
        AssistantMessage([ReasoningPart("think", "sig", provider="anthropic"), TextPart(text)]),
        ToolCallMessage([CALL_A, CALL_B]),
        ToolCallMessage([CALL_A], text),
        ToolResultMessage("call_a", text),
        ToolResultMessage("call_b", text, is_error=True, tool_name="get_weather"),
    ]


@pytest.mark.parametrize(
    ("msg", "role"),
    [
        (SystemMessage("s"), MessageRole.SYSTEM),
        (DeveloperMessage("d"), MessageRole.DEVELOPER),
        (UserMessage("u"), MessageRole.USER),
        (AssistantMessage("a"), MessageRole.ASSISTANT),
        (ToolCallMessage([CALL_A]), MessageRole.ASSISTANT),
        (ToolResultMessage("call_a", "r"), MessageRole.TOOL),
    ],
)
def test_roles(msg: Message, role: MessageRole) -> None:
    assert msg.role is role


def test_tool_call_message_is_an_assistant_message() -> None:
    assert issubclass(ToolCallMessage, AssistantMessage)
    assert isinstance(ToolCallMessage([CALL_A]), AssistantMessage)


# -- content rules ---------------------------------------------------------------------


@pytest.mark.parametrize("cls", [SystemMessage, DeveloperMessage, UserMessage, AssistantMessage])
def test_empty_string_content_is_valid(cls: Any) -> None:
    m = cls("")
    assert m.text == ""
    assert m.parts == ()


def test_empty_string_tool_result_is_valid() -> None:
    assert ToolResultMessage("c", "").text == ""


@pytest.mark.parametrize("cls", [SystemMessage, DeveloperMessage, UserMessage, AssistantMessage])
def test_none_content_is_rejected(cls: Any) -> None:
    with pytest.raises(ValidationError) as info:
        cls(None)
    assert info.value.path == "content"


def test_tool_call_message_may_have_no_content() -> None:
    m = ToolCallMessage([CALL_A])
    assert m.content is None
    assert m.text == ""
    assert m.parts == ()


@pytest.mark.parametrize("cls", [SystemMessage, DeveloperMessage])
def test_system_and_developer_take_only_str(cls: Any) -> None:
    with pytest.raises(ValidationError):
        cls([TextPart("x")])


def test_user_accepts_media_parts_and_plain_strings_in_lists() -> None:
    m = UserMessage(
        ["look:", ImagePart(url="https://x/i.png"), AudioPart("AA==", "wav"), FilePart(file_id="f")]
    )
    assert m.text == "look:"
    assert isinstance(m.parts[0], TextPart)
    assert len(m.parts) == 4


def test_user_rejects_reasoning() -> None:
    with pytest.raises(ValidationError) as info:
        UserMessage([TextPart("x"), ReasoningPart("no")])
    assert info.value.path == "content[1]"


@pytest.mark.parametrize(
    "part", [ImagePart(url="https://x"), AudioPart("AA==", "wav"), FilePart(file_id="f")]
)
def test_assistant_takes_only_text_and_reasoning(part: Any) -> None:
    with pytest.raises(ValidationError):
        AssistantMessage([part])
    with pytest.raises(ValidationError):
        ToolCallMessage([CALL_A], [part])


def test_tool_result_rejects_reasoning_but_takes_images() -> None:
    assert len(ToolResultMessage("c", [TextPart("x"), ImagePart(url="https://x")]).parts) == 2
    with pytest.raises(ValidationError):
        ToolResultMessage("c", [ReasoningPart("r")])


@pytest.mark.parametrize("bad", [5, {"text": "x"}, b"bytes", object()])
def test_content_of_wrong_type(bad: object) -> None:
    with pytest.raises(ValidationError):
        UserMessage(bad)  # type: ignore[arg-type]


def test_tool_call_message_needs_calls_with_unique_ids() -> None:
    with pytest.raises(ValidationError):
        ToolCallMessage([])
    with pytest.raises(ValidationError) as info:
        ToolCallMessage([CALL_A, ToolCall("call_a", "other")])
    assert info.value.path == "tool_calls[1].id"
    with pytest.raises(ValidationError):
        ToolCallMessage(["not a call"])  # type: ignore[list-item]
    with pytest.raises(ValidationError):
        ToolCallMessage(CALL_A)  # type: ignore[arg-type]
    three = ToolCallMessage([CALL_A, CALL_B, ToolCall("call_c", "f")])
    assert three.tool_call_ids == ("call_a", "call_b", "call_c")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"tool_call_id": "", "content": "x"},
        {"tool_call_id": None, "content": "x"},
        {"tool_call_id": "c", "content": "x", "is_error": 1},
        {"tool_call_id": "c", "content": "x", "tool_name": ""},
    ],
)
def test_tool_result_message_rules(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ToolResultMessage(**kwargs)


# -- views -------------------------------------------------------------------------


def test_text_joins_text_parts_without_separator() -> None:
    m = AssistantMessage([ReasoningPart("hidden"), TextPart("Hello, "), TextPart("world")])
    assert m.text == "Hello, world"
    assert m.reasoning == (ReasoningPart("hidden"),)


def test_tool_calls_property() -> None:
    assert UserMessage("x").tool_calls == ()
    assert AssistantMessage("x").tool_calls == ()
    assert ToolCallMessage([CALL_A, CALL_B]).tool_calls == (CALL_A, CALL_B)


def test_parts_of_str_content() -> None:
    assert UserMessage("hi").parts == (TextPart("hi"),)


# -- factories ---------------------------------------------------------------------


def test_factories() -> None:
    assert isinstance(Message.system("s"), SystemMessage)
    assert isinstance(Message.developer("d"), DeveloperMessage)
    assert isinstance(Message.user("u"), UserMessage)
    a = Message.assistant("a")
    assert type(a) is AssistantMessage
    t = Message.assistant(tool_calls=[CALL_A])
    assert type(t) is ToolCallMessage
    assert t.content is None
    t2 = Message.assistant("calling", [CALL_A])
    assert isinstance(t2, ToolCallMessage)
    assert t2.text == "calling"
    r = Message.tool_result("call_a", "ok", is_error=True, tool_name="get_weather")
    assert (r.tool_call_id, r.is_error, r.tool_name) == ("call_a", True, "get_weather")
    assert Message.user("u", name="bob").name == "bob"


def test_message_base_is_abstract() -> None:
    with pytest.raises(TypeError):
        Message()


# -- ids and timestamps ----------------------------------------------------------------


def test_ids_are_unique_and_time_ordered() -> None:
    ms = [UserMessage("x") for _ in range(2000)]
    ids = [m.id for m in ms]
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)


def test_ids_read_in_any_order_stay_ordered() -> None:
    ms = [UserMessage("x") for _ in range(50)]
    ids = [m.id for m in reversed(ms)][::-1]
    assert ids == sorted(ids)


def test_created_at_is_aware_utc_now() -> None:
    before = datetime.now(UTC)
    m = UserMessage("x")
    after = datetime.now(UTC)
    assert m.created_at.tzinfo is not None
    assert m.created_at.utcoffset() == timedelta(0)
    assert before - timedelta(milliseconds=1) <= m.created_at <= after + timedelta(milliseconds=1)


def test_created_at_stable_whichever_is_read_first() -> None:
    a = UserMessage("x")
    first = a.created_at
    assert a.id
    assert a.created_at == first
    b = UserMessage("x")
    bid = b.id
    assert b.created_at == b.created_at and b.id == b.id
    assert b.id == bid


def test_explicit_id_and_created_at() -> None:
    when = datetime(2024, 5, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    m = UserMessage("x", id="msg-1", created_at=when)
    assert m.id == "msg-1"
    assert m.created_at == when
    assert m.created_at.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    ("kwargs", "path"),
    [
        ({"id": ""}, "id"),
        ({"id": 5}, "id"),
        ({"created_at": datetime(2024, 1, 1)}, "created_at"),
        ({"created_at": "2024-01-01"}, "created_at"),
        ({"name": 5}, "name"),
        ({"metadata": ["a"]}, "metadata"),
        ({"metadata": {"a": object()}}, "metadata.a"),
        ({"extras": {1: "x"}}, "extras"),
    ],
)
def test_common_field_rules(kwargs: dict[str, Any], path: str) -> None:
    with pytest.raises(ValidationError) as info:
        UserMessage("x", **kwargs)
    assert info.value.path == path


# -- equality, hash, immutability ------------------------------------------------------


def test_equality_ignores_id_and_created_at() -> None:
    a = UserMessage("x", metadata={"k": 1})
    b = UserMessage("x", metadata={"k": 1}, id="other", created_at=datetime(2020, 1, 1, tzinfo=UTC))
    assert a == b
    assert hash(a) == hash(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (UserMessage("x"), UserMessage("y")),
        (UserMessage("x"), UserMessage("x", name="n")),
        (UserMessage("x"), UserMessage("x", metadata={"a": 1})),
        (UserMessage("x"), UserMessage("x", extras={"a": 1})),
        (UserMessage("x"), SystemMessage("x")),
        (AssistantMessage("x"), ToolCallMessage([CALL_A], "x")),
        (ToolCallMessage([CALL_A]), ToolCallMessage([CALL_B])),
        (ToolResultMessage("a", "x"), ToolResultMessage("a", "x", is_error=True)),
        (ToolResultMessage("a", "x"), ToolResultMessage("b", "x")),
        (ToolResultMessage("a", "x"), ToolResultMessage("a", "x", tool_name="f")),
    ],
)
def test_inequality(a: Message, b: Message) -> None:
    assert a != b


def test_empty_metadata_equals_no_metadata() -> None:
    assert UserMessage("x", metadata={}) == UserMessage("x")


@pytest.mark.parametrize("msg", all_kinds(), ids=lambda m: type(m).__name__)
def test_messages_are_frozen_dataclasses_without_dict(msg: Message) -> None:
    assert dataclasses.is_dataclass(msg)
    assert not hasattr(msg, "__dict__")
    for f in dataclasses.fields(msg):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(msg, f.name, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        del msg.name


def test_metadata_is_deeply_immutable_and_detached() -> None:
    meta: dict[str, Any] = {"trace": {"spans": [1, 2]}}
    m = UserMessage("x", metadata=meta)
    meta["trace"]["spans"].append(3)
    assert m.metadata["trace"]["spans"] == (1, 2)
    with pytest.raises(TypeError):
        m.metadata["new"] = 1  # type: ignore[index]


def test_content_parts_list_is_detached() -> None:
    parts: list[Any] = [TextPart("a")]
    m = UserMessage(parts)
    parts.append(TextPart("b"))
    assert m.text == "a"
    assert isinstance(m.content, tuple)


# -- changing a message ----------------------------------------------------------------


@pytest.mark.parametrize("msg", all_kinds(), ids=lambda m: type(m).__name__)
def test_replace_keeps_id_and_created_at(msg: Message) -> None:
    changed = dataclasses.replace(msg, name="renamed")
    assert changed.id == msg.id
    assert changed.created_at == msg.created_at
    assert changed.name == "renamed"
    assert type(changed) is type(msg)


def test_with_methods() -> None:
    m = UserMessage("x", metadata={"a": 1})
    assert m.with_content("y").text == "y"
    assert m.with_content("y").id == m.id
    assert m.with_name("n").name == "n"
    assert dict(m.with_metadata(b=2).metadata) == {"a": 1, "b": 2}
    assert dict(m.with_metadata({"c": 3}).metadata) == {"c": 3}
    assert dict(m.with_extras({"x": 1}).extras) == {"x": 1}
    with pytest.raises(ValidationError):
        m.with_content(None)


def test_replace_validates() -> None:
    with pytest.raises(ValidationError):
        dataclasses.replace(ToolCallMessage([CALL_A]), tool_calls=())


@pytest.mark.parametrize("msg", all_kinds(), ids=lambda m: type(m).__name__)
def test_pickle_and_copy_round_trip(msg: Message) -> None:
    back = pickle.loads(pickle.dumps(msg))
    assert back == msg
    assert type(back) is type(msg)
    assert (back.id, back.created_at) == (msg.id, msg.created_at)
    assert copy.deepcopy(msg) == msg
    assert copy.copy(msg) is msg


def test_pickle_before_id_read() -> None:
    m = UserMessage("x")
    back = pickle.loads(pickle.dumps(m))
    assert back.id == m.id
    assert back.created_at == m.created_at


# -- repr never shows content -----------------------------------------------------------


@pytest.mark.parametrize("i", range(len(all_kinds())))
def test_repr_shows_role_id_sizes_not_content(i: int, secret: str) -> None:
    msg = all_kinds(secret)[i]
    text = repr(msg)
    assert secret not in text
    assert secret not in str(msg)
    assert msg.id in text
    assert msg.role.value in text


def test_repr_hides_tool_arguments(secret: str) -> None:
    m = ToolCallMessage([ToolCall("c", "f", {"key": secret})])
    assert secret not in repr(m)


def test_validation_errors_never_contain_content(secret: str) -> None:
    attempts: list[Any] = [
        lambda: UserMessage([secret, ReasoningPart(secret)]),
        lambda: UserMessage(secret, metadata={"k": {secret}}),
        lambda: ToolCallMessage(
            [ToolCall("c", "f", {"a": secret}), ToolCall("c", "f", {"a": secret})]
        ),
        lambda: ToolCall("c", "f", secret),
        lambda: MessageRole.parse(secret),
    ]
    for attempt in attempts:
        with pytest.raises(ValidationError) as info:
            attempt()
        assert secret not in str(info.value)
        assert secret not in repr(info.value)


# -- properties ----------------------------------------------------------------------------

texts = st.text(max_size=30)
metas = st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3)


@st.composite
def messages(draw: Any) -> Message:
    kind = draw(st.sampled_from(["system", "developer", "user", "assistant", "calls", "result"]))
    text = draw(texts)
    meta = draw(metas)
    if kind == "system":
        return SystemMessage(text, metadata=meta)
    if kind == "developer":
        return DeveloperMessage(text, metadata=meta)
    if kind == "user":
        return UserMessage(text, metadata=meta)
    if kind == "assistant":
        return AssistantMessage(text, metadata=meta)
    if kind == "calls":
        n = draw(st.integers(1, 3))
        return ToolCallMessage(
            [ToolCall(f"c{i}", "f", {"t": text}) for i in range(n)], metadata=meta
        )
    return ToolResultMessage("c0", text, draw(st.booleans()), metadata=meta)


@given(messages())
def test_equal_messages_hash_equal(m: Message) -> None:
    twin = dataclasses.replace(m, id="another-id")
    assert twin == m
    assert hash(twin) == hash(m)
    assert twin.id != m.id


@given(messages(), messages())
def test_equality_is_consistent_with_hash(a: Message, b: Message) -> None:
    if a == b:
        assert hash(a) == hash(b)
    assert (a == b) == (b == a)


@given(messages(), st.text(max_size=10))
def test_replace_never_mutates_the_original(m: Message, new_name: str) -> None:
    before = (m.id, m.name, m.text, dict(m.metadata))
    dataclasses.replace(m, name=new_name or None)
    assert (m.id, m.name, m.text, dict(m.metadata)) == before
