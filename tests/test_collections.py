"""Messages and MessageStore: immutable collections, their operations and round trips."""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Sequence
from types import FrameType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    AudioPart,
    DecodeError,
    DeveloperMessage,
    ImagePart,
    Message,
    MessageRole,
    Messages,
    MessageStore,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
    estimate_tokens,
)
from messages._collections import mergeable
from tests.conftest import SECRET
from tests.conversations import any_sequences, build, spell
from tests.strategies import message_lists


def ms(spec: str, text: str = "text") -> Messages:
    return Messages(build(spec, text) if spec else [])


# -- Messages: the sequence ---------------------------------------------------------------


def test_is_an_immutable_sequence() -> None:
    msgs = build("S U A U")
    m = Messages(msgs)
    assert isinstance(m, Sequence)
    assert len(m) == 4
    assert m[0] is msgs[0]
    assert m[-1] is msgs[-1]
    assert list(m) == msgs
    assert list(reversed(m)) == msgs[::-1]
    assert msgs[1] in m
    assert Message.user("not there") not in m
    assert m.index(msgs[2]) == 2
    assert m.items == tuple(msgs)
    with pytest.raises(AttributeError):
        m._items = ()
    with pytest.raises(AttributeError):
        store().foo = 1
    with pytest.raises(TypeError):
        m[0] = msgs[1]  # type: ignore[index]


def test_slicing_returns_messages() -> None:
    msgs = build("S U A U A")
    m = Messages(msgs)
    part = m[1:3]
    assert isinstance(part, Messages)
    assert list(part) == msgs[1:3]
    assert list(m[::-2]) == msgs[::-2]
    assert m[10:] == Messages()


def test_accepts_any_iterable_and_refuses_non_messages() -> None:
    msgs = build("U A")
    assert Messages(iter(msgs)) == Messages(msgs) == Messages(tuple(msgs))
    assert Messages(Messages(msgs)) == Messages(msgs)
    with pytest.raises(ValidationError) as info:
        Messages([msgs[0], "text"])  # type: ignore[list-item]
    assert info.value.path == "[1]"
    assert "expected a Message, got str" in info.value.message


def test_equality_and_hash() -> None:
    msgs = build("S U A")
    a, b = Messages(msgs), Messages(build("S U A"))
    assert a == b  # message equality ignores ids
    assert hash(a) == hash(b)
    assert len({a, b, Messages(msgs[:2])}) == 2
    assert a != Messages(msgs[:2])
    # a list or tuple of equal messages is equal too, and the hash is the tuple's
    assert a == tuple(msgs)
    assert a == msgs
    assert msgs == a
    assert hash(a) == hash(tuple(msgs))
    assert a != msgs[:2]
    assert a != "S U A"


def test_append_extend_and_add_return_new_collections() -> None:
    base = ms("S U")
    a = Message.assistant("hi")
    longer = base.append(a)
    assert len(base) == 2
    assert spell(longer) == "S U A"
    assert longer[-1] is a
    more = base.extend(build("A U"))
    assert spell(more) == "S U A U"
    assert spell(base + build("A")) == "S U A"
    assert base.extend([]) is base
    with pytest.raises(ValidationError):
        base.append("x")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        base.extend([1])  # type: ignore[list-item]


def test_first_last_get() -> None:
    msgs = build("S U A")
    m = Messages(msgs)
    assert m.first() is msgs[0]
    assert m.last() is msgs[-1]
    assert Messages().first() is None
    assert Messages().last() is None
    for x in msgs:
        assert m.get(x.id) is x
    assert m.get("missing") is None


def test_get_returns_the_first_of_repeated_ids() -> None:
    a = Message.user("a", id="same")
    b = Message.user("b", id="same")
    assert Messages([a, b]).get("same") is a


# -- Messages: selecting ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roles", "kept", "dropped"),
    [
        ((MessageRole.USER,), "U U", "S D A C:a R:a A"),
        (("user", "assistant"), "U A C:a U A", "S D R:a"),
        ((" SYSTEM ", MessageRole.DEVELOPER), "S D", "U A C:a R:a U A"),
        (("tool",), "R:a", "S D U A C:a U A"),
        ((), "", "S D U A C:a R:a U A"),
    ],
)
def test_for_roles_and_except_roles(roles: tuple[Any, ...], kept: str, dropped: str) -> None:
    m = ms("S D U A C:a R:a U A")
    assert spell(m.for_roles(*roles)) == kept
    assert spell(m.except_roles(*roles)) == dropped


def test_unknown_role_is_a_validation_error() -> None:
    with pytest.raises(ValidationError):
        ms("U").for_roles("robot")


def test_filter() -> None:
    m = ms("S U A U")
    assert spell(m.filter(lambda x: x.role is MessageRole.USER)) == "U U"
    assert m.filter(lambda x: False) == Messages()


# -- Messages: merging and emptiness ---------------------------------------------------------

img = ImagePart(url="https://example.com/a.png")
audio = AudioPart("AAAA", "wav")

MERGES: list[tuple[list[Message], list[Any]]] = [
    # (input, expected contents of the output, in order)
    ([UserMessage("a"), UserMessage("b")], ["a\n\nb"]),
    ([UserMessage("a"), UserMessage(""), UserMessage("b")], ["a\n\nb"]),
    ([UserMessage(""), UserMessage("")], [""]),
    ([SystemMessage("s1"), SystemMessage("s2"), UserMessage("u")], ["s1\n\ns2", "u"]),
    ([SystemMessage("s"), DeveloperMessage("d")], ["s", "d"]),
    ([UserMessage("a"), AssistantMessage("b"), UserMessage("c")], ["a", "b", "c"]),
    ([AssistantMessage("a"), AssistantMessage("b")], ["a\n\nb"]),
    (
        [UserMessage(["look", img]), UserMessage("and this")],
        [(TextPart("look"), img, TextPart("and this"))],
    ),
    (
        [UserMessage(["one"]), UserMessage(["two", audio])],
        [(TextPart("one\n\ntwo"), audio)],
    ),
    ([UserMessage([img]), UserMessage("")], [(img,)]),
    (
        [AssistantMessage([ReasoningPart("think")]), AssistantMessage("answer")],
        [(ReasoningPart("think"), TextPart("answer"))],
    ),
]


@pytest.mark.parametrize(("given_", "contents"), MERGES)
def test_merged_per_role(given_: list[Message], contents: list[Any]) -> None:
    out = Messages(given_).merged_per_role()
    assert [m.content for m in out] == contents
    assert out[0].id == given_[0].id
    assert type(out[0]) is type(given_[0])


def test_merged_per_role_never_merges_tool_calls_or_results() -> None:
    m = ms("S U C:a R:a C:b R:b A A")
    out = m.merged_per_role()
    assert spell(out) == "S U C:a R:a C:b R:b A"
    parallel = Messages(
        [
            ToolCallMessage([ToolCall("a", "f", {})]),
            ToolResultMessage("a", "x"),
            ToolResultMessage("b", "y"),
        ]
    )
    assert parallel.merged_per_role() is parallel
    mixed = Messages([AssistantMessage("t"), ToolCallMessage([ToolCall("a", "f", {})])])
    assert mixed.merged_per_role() is mixed


def test_merged_per_role_keeps_the_first_message_fields() -> None:
    a = UserMessage("a", name="alice", metadata={"k": 1})
    b = UserMessage("b", name="bob")
    (merged,) = Messages([a, b]).merged_per_role()
    assert (merged.id, merged.name, merged.metadata) == (a.id, "alice", {"k": 1})
    assert merged.created_at == a.created_at


def test_merged_per_role_of_nothing_to_merge_is_the_same_object() -> None:
    m = ms("S U A")
    assert m.merged_per_role() is m


@pytest.mark.parametrize(
    ("given_", "kept"),
    [
        ([UserMessage(""), UserMessage("x")], ["x"]),
        ([AssistantMessage(""), SystemMessage("")], []),
        ([UserMessage([img])], [(img,)]),
        ([UserMessage([TextPart("")])], [(TextPart(""),)]),
        ([AssistantMessage([ReasoningPart("r")])], [(ReasoningPart("r"),)]),
        ([ToolCallMessage([ToolCall("a", "f", {})])], [None]),
        ([ToolResultMessage("a", "")], [""]),  # an empty result still answers its call
    ],
)
def test_without_empty(given_: list[Message], kept: list[Any]) -> None:
    out = Messages(given_).without_empty()
    assert [m.content for m in out] == kept


def test_without_empty_of_nothing_empty_is_the_same_object() -> None:
    m = ms("S U A")
    assert m.without_empty() is m


# -- Messages: dicts and JSON ------------------------------------------------------------------


def test_dicts_and_json_round_trip() -> None:
    m = ms("S U C:a,b R:b R:a A", SECRET)
    dicts = m.to_dicts()
    assert [d["role"] for d in dicts] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    back = Messages.from_dicts(json.loads(json.dumps(dicts)))
    assert back == m
    assert [x.id for x in back] == [x.id for x in m]
    assert Messages.from_json(m.to_json()) == m
    assert Messages.from_dicts(iter(dicts)) == m


@given(any_sequences())
def test_any_messages_round_trip(msgs: list[Message]) -> None:
    m = Messages(msgs)
    back = Messages.from_json(m.to_json())
    assert back == m
    assert [type(x) for x in back] == [type(x) for x in m]


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"role": "user"}, ""),
        ("text", ""),
        ([{"role": "user", "content": "hi"}, {"role": "robot", "content": "x"}], "[1]"),
        ([{"role": "user", "content": "hi"}, 3], "[1]"),
        ([{"role": "tool", "content": "x"}], "[0]"),
    ],
)
def test_from_dicts_rejects_bad_input_with_a_path(data: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        Messages.from_dicts(data)
    assert info.value.path.startswith(path)


@pytest.mark.parametrize("text", ["", "{", "{}", "[1]", "null", '[{"role": "user"}]'])
def test_from_json_raises_only_decode_error(text: str) -> None:
    with pytest.raises(DecodeError):
        Messages.from_json(text)


def test_repr_shows_no_content() -> None:
    r = repr(ms("S U A", SECRET))
    assert r.startswith("Messages([SystemMessage(")
    assert SECRET not in r


# -- MessageStore ------------------------------------------------------------------------------


def store() -> MessageStore:
    return MessageStore(
        {"system": build("S"), "examples": build("U A"), "chat": build("U")},
        parameters={"model": "gpt", "temperature": 0.5},
    )


def test_store_keeps_section_order_and_flattens_in_order() -> None:
    s = store()
    assert s.section_names == ("system", "examples", "chat")
    assert spell(s.to_messages()) == "S U A U"
    assert list(s.sections) == ["system", "examples", "chat"]
    assert isinstance(s.section("chat"), Messages)
    assert "chat" in s
    assert "nope" not in s
    assert s.section("nope") == Messages()


def test_store_from_pairs_and_from_messages() -> None:
    pairs = MessageStore([("b", build("U")), ("a", build("S"))])
    assert pairs.section_names == ("b", "a")
    one = MessageStore.from_messages(build("U A"))
    assert one.section_names == ("messages",)
    assert spell(one.to_messages()) == "U A"
    assert MessageStore().to_messages() == Messages()


def test_with_section_replaces_in_place_or_appends() -> None:
    s = store()
    replaced = s.with_section("examples", build("U"))
    assert replaced.section_names == s.section_names
    assert spell(replaced.section("examples")) == "U"
    added = s.with_section("tail", build("A"))
    assert added.section_names == ("system", "examples", "chat", "tail")
    assert spell(s.section("examples")) == "U A"  # the original is unchanged


def test_append_to_existing_and_new_sections() -> None:
    s = store()
    a = Message.assistant("reply")
    s2 = s.append_to("chat", a)
    assert spell(s2.section("chat")) == "U A"
    assert s2.section("chat")[-1] is a
    s3 = s.append_to("new", build("U A"))
    assert s3.section_names[-1] == "new"
    assert spell(s.section("chat")) == "U"
    with pytest.raises(ValidationError):
        s.append_to("chat", ["x"])  # type: ignore[list-item]


def test_remove_and_select() -> None:
    s = store()
    assert s.remove_section("examples").section_names == ("system", "chat")
    assert s.remove_section("nope") is s
    picked = s.select("chat", "system", "nope", "chat")
    assert picked.section_names == ("chat", "system")
    assert spell(picked.to_messages()) == "U S"
    assert picked.parameters == s.parameters


def test_parameters_are_deeply_immutable() -> None:
    s = MessageStore(parameters={"stop": ["a", "b"], "opts": {"x": 1}})
    assert s.parameters["stop"] == ("a", "b")
    with pytest.raises(TypeError):
        s.parameters["model"] = "x"  # type: ignore[index]
    with pytest.raises(TypeError):
        s.parameters["opts"]["x"] = 2
    s2 = s.with_parameters(model="m")
    assert dict(s2.parameters) == {"stop": ("a", "b"), "opts": {"x": 1}, "model": "m"}
    assert dict(s.with_parameters({"only": 1}).parameters) == {"only": 1}
    assert "model" not in s.parameters
    with pytest.raises(ValidationError):
        s.with_parameters(bad=object())


def test_store_equality_is_order_sensitive_and_hashable() -> None:
    a = MessageStore([("x", build("U")), ("y", build("A"))])
    b = MessageStore([("x", build("U")), ("y", build("A"))])
    c = MessageStore([("y", build("A")), ("x", build("U"))])
    assert a == b
    assert hash(a) == hash(b)
    assert a != c
    assert a != a.with_parameters(k=1)
    assert len({a, b, c}) == 2


@pytest.mark.parametrize(
    ("sections", "path"),
    [
        ([("", build("U"))], "sections[0].name"),
        ([(3, build("U"))], "sections[0].name"),
        ([("a", build("U")), ("a", build("A"))], "sections[1].name"),
        ([("a", ["x"])], "sections[0].messages[0]"),
        (["abc"], "sections[0]"),
    ],
)
def test_store_rejects_bad_sections(sections: Any, path: str) -> None:
    with pytest.raises(ValidationError) as info:
        MessageStore(sections)
    assert info.value.path == path


def test_store_dict_and_json_round_trip() -> None:
    s = store()
    d = s.to_dict()
    assert [x["name"] for x in d["sections"]] == ["system", "examples", "chat"]
    assert d["parameters"] == {"model": "gpt", "temperature": 0.5}
    back = MessageStore.from_dict(json.loads(json.dumps(d)))
    assert back == s
    assert [m.id for m in back.to_messages()] == [m.id for m in s.to_messages()]
    assert MessageStore.from_json(s.to_json()) == s
    assert "parameters" not in MessageStore.from_messages(build("U")).to_dict()
    assert MessageStore.from_dict({}) == MessageStore()


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ([], ""),
        ({"sections": {}}, "sections"),
        ({"sections": [], "other": 1}, "other"),
        ({"sections": [3]}, "sections[0]"),
        ({"sections": [{"name": ""}]}, "sections[0].name"),
        ({"sections": [{"name": "a", "extra": 1}]}, "sections[0].extra"),
        ({"sections": [{"name": "a"}, {"name": "a"}]}, "sections[1].name"),
        ({"sections": [{"name": "a", "messages": [{"role": "x"}]}]}, "sections[0].messages[0]"),
        ({"sections": [{"name": "a", "messages": "no"}]}, "sections[0].messages"),
        ({"parameters": []}, "parameters"),
    ],
)
def test_store_from_dict_rejects_bad_input_with_a_path(data: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        MessageStore.from_dict(data)
    assert info.value.path.startswith(path)


def test_store_repr_shows_sizes_not_content() -> None:
    s = MessageStore({"chat": build("U A", SECRET)}, parameters={"secret": SECRET})
    assert repr(s) == "MessageStore(sections={'chat': 2}, parameters=1)"


# -- fuzz with every kind of message (tests/strategies.py) ---------------------------------------


@settings(max_examples=40)
@given(message_lists)
def test_merged_per_role_invariants(msgs: list[Message]) -> None:
    out = Messages(msgs).merged_per_role()
    assert len(out) <= len(msgs)
    for a, b in itertools.pairwise(out):
        assert not (a.role is b.role and mergeable(a) and mergeable(b))
    # tool calls and results pass through untouched, in order
    assert [id(x) for x in out if not mergeable(x)] == [id(x) for x in msgs if not mergeable(x)]
    # the role sequence is the input's with runs collapsed
    assert out.merged_per_role() is out


@settings(max_examples=40)
@given(message_lists)
def test_without_empty_and_estimate_on_any_message(msgs: list[Message]) -> None:
    out = Messages(msgs).without_empty()
    assert all(x.parts or x.tool_calls or isinstance(x, ToolResultMessage) for x in out)
    assert all(estimate_tokens(x) >= 4 for x in msgs)


@given(
    st.lists(
        st.tuples(st.text(min_size=1, max_size=8), any_sequences(max_size=6)),
        max_size=4,
        unique_by=lambda p: p[0],
    ),
    st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3),
)
def test_store_round_trip(
    sections: list[tuple[str, list[Message]]], params: dict[str, Any]
) -> None:
    s = MessageStore(sections, parameters=params)
    back = MessageStore.from_dict(s.to_dict())
    assert back == s
    assert back.section_names == tuple(name for name, _ in sections)
    assert list(back.to_messages()) == [m for _, ms_ in sections for m in ms_]
    assert MessageStore.from_json(s.to_json()) == s


# -- decoders raise only DecodeError, whatever the input and the caller's stack -------------


def _deep_object(levels: int) -> dict[str, Any]:
    d: dict[str, Any] = {}
    for _ in range(levels):
        d = {"a": d}
    return d


def _call_with_stack_used(frames: int, fn: Any) -> Any:
    """Call ``fn`` with ``frames`` more frames on the stack (a caller already deep in recursion)."""
    if frames <= 0:
        return fn()
    return _call_with_stack_used(frames - 1, fn)


def _frames_in_use() -> int:
    n = 0
    f: FrameType | None = sys._getframe()
    while f is not None:
        n, f = n + 1, f.f_back
    return n


DEEP = _deep_object(10**5)


@pytest.mark.parametrize("free", [None, 600, 150, 60])
def test_store_from_dict_of_deep_parameters_is_a_decode_error_at_any_stack_depth(
    free: int | None,
) -> None:
    # free: frames left below the recursion limit (None: the test's own depth); 600
    # and fewer leave too little for freezing 200 levels, which raised RecursionError
    used = 0 if free is None else sys.getrecursionlimit() - _frames_in_use() - free
    with pytest.raises(DecodeError) as info:
        _call_with_stack_used(
            used, lambda: MessageStore.from_dict({"sections": [], "parameters": DEEP})
        )
    assert info.value.path.startswith("parameters")
    assert "nested" in info.value.message


def test_store_from_dict_six_hundred_frames_deep() -> None:
    # the audit's case: parameters 10**5 levels deep, the caller ~600 frames deep
    with pytest.raises(DecodeError):
        _call_with_stack_used(
            600, lambda: MessageStore.from_dict({"sections": [], "parameters": DEEP})
        )


class _BadMapping(dict):  # type: ignore[type-arg]
    """A Mapping whose methods fail with exceptions of their own."""

    def get(self, *args: Any) -> Any:
        raise RuntimeError(SECRET)

    def items(self) -> Any:
        raise RuntimeError(SECRET)


class _BadList(list):  # type: ignore[type-arg]
    def __iter__(self) -> Any:
        raise RuntimeError(SECRET)


def _failing_iterable() -> Any:
    yield {"role": "user", "content": "x"}
    raise RuntimeError(SECRET)


@pytest.mark.parametrize(
    ("decode", "data"),
    [
        (MessageStore.from_dict, _BadMapping(sections=[])),
        (MessageStore.from_dict, {"sections": [_BadMapping(name="a")]}),
        (MessageStore.from_dict, {"sections": [{"name": "a", "messages": _BadList()}]}),
        (MessageStore.from_dict, {"parameters": _BadMapping(k=1)}),
        (MessageStore.from_dict, {"sections": _BadList()}),
        (Messages.from_dicts, _BadList([{"role": "user", "content": "x"}])),
        (Messages.from_dicts, _failing_iterable()),
        (Messages.from_dicts, [_BadMapping(role="user", content="x")]),
    ],
)
def test_misbehaving_containers_give_decode_error(decode: Any, data: Any) -> None:
    with pytest.raises(DecodeError) as info:
        decode(data)
    assert SECRET not in str(info.value)


def test_messages_from_dicts_deep_stack() -> None:
    bad = [{"role": "user", "content": "x", "metadata": DEEP}]
    with pytest.raises(DecodeError) as info:
        _call_with_stack_used(600, lambda: Messages.from_dicts(bad))
    assert info.value.path.startswith("[0]")


def test_to_dicts_and_store_to_dict_are_plain_data() -> None:
    m = UserMessage("x", metadata={"tags": ["a"]}, extras={"x": {"y": [1]}})
    for d in (
        Messages([m]).to_dicts()[0],
        MessageStore({"s": [m]}).to_dict()["sections"][0]["messages"][0],
    ):
        assert type(d["metadata"]) is dict
        assert type(d["metadata"]["tags"]) is list
        assert type(d["x"]["y"]) is list
        d["metadata"]["tags"].append("b")
    store = MessageStore({"s": [m]}, parameters={"stop": ["a"], "o": {"k": [1]}}).to_dict()
    assert type(store["parameters"]["stop"]) is list
    assert type(store["parameters"]["o"]["k"]) is list
    assert m.metadata == {"tags": ["a"]}
