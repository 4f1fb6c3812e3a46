"""ToolCall, InvalidToolCall and ToolResult (FR-004a-36..70)."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any, NamedTuple, TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import (
    ImagePart,
    InvalidToolCall,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResult,
    ToolResultMessage,
    ValidationError,
)

# -- names --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["get_weather", "a", "A1", "x" * 64, "mcp-server__tool", "search-v2", "_", "-"]
)
def test_valid_names(name: str) -> None:
    assert ToolCall("c1", name).name == name


@pytest.mark.parametrize(
    "name", ["", "x" * 65, "get weather", "get.weather", "naïve", "a/b", "a\n", "tool!", None, 3]
)
def test_invalid_names(name: object) -> None:
    with pytest.raises(ValidationError) as info:
        ToolCall("c1", name)  # type: ignore[arg-type]
    assert info.value.path == "name"


def test_invalid_name_error_quotes_the_name(secret: str) -> None:
    with pytest.raises(ValidationError) as info:
        ToolCall("c1", secret + " !")
    assert f"'{secret} !'" in str(info.value)


@pytest.mark.parametrize("bad", ["", None, 5])
def test_id_required(bad: object) -> None:
    with pytest.raises(ValidationError) as info:
        ToolCall(bad, "f")  # type: ignore[arg-type]
    assert info.value.path == "id"


# -- arguments ------------------------------------------------------------------------


def test_arguments_from_mapping_and_string_are_equal() -> None:
    a = ToolCall("c1", "f", {"city": "Paris", "days": [1, 2]})
    b = ToolCall("c1", "f", '{"city": "Paris", "days": [1, 2]}')
    assert a == b
    assert hash(a) == hash(b)
    assert a.arguments["days"] == (1, 2)


def test_arguments_json_keeps_original_string() -> None:
    raw = '{ "city" : "Paris",\n "unit": "celsius" }'
    assert ToolCall("c1", "f", raw).arguments_json == raw


def test_arguments_json_is_compact_when_built_from_mapping() -> None:
    assert (
        ToolCall("c1", "f", {"a": 1, "b": [True, None]}).arguments_json == '{"a":1,"b":[true,null]}'
    )


def test_default_arguments_are_empty_object() -> None:
    call = ToolCall("c1", "f")
    assert dict(call.arguments) == {}
    assert call.arguments_json == "{}"


@pytest.mark.parametrize(
    "raw", ["[1, 2]", '"text"', "42", "null", "{", "{'a': 1}", '{"a": NaN}', "", '{"a": 1} x']
)
def test_arguments_string_must_be_json_object(raw: str) -> None:
    with pytest.raises(ValidationError) as info:
        ToolCall("c1", "f", raw)
    assert info.value.path == "arguments"


def test_arguments_error_does_not_echo_content(secret: str) -> None:
    with pytest.raises(ValidationError) as info:
        ToolCall("c1", "f", '{"password": "' + secret + '"')
    assert secret not in str(info.value)
    assert secret not in repr(info.value)


@pytest.mark.parametrize(
    "bad", [[1], 5, {1: "a"}, {"a": object()}, {"a": float("nan")}, {"a": {"b": {1, 2}}}]
)
def test_arguments_must_be_json_like_mapping(bad: Any) -> None:
    with pytest.raises(ValidationError):
        ToolCall("c1", "f", bad)


def test_callers_later_mutation_changes_nothing() -> None:
    args: dict[str, Any] = {"city": "Paris", "tags": ["a"], "nested": {"k": 1}}
    call = ToolCall("c1", "f", args)
    args["city"] = "Rome"
    args["tags"].append("b")
    args["nested"]["k"] = 2
    assert call.arguments["city"] == "Paris"
    assert call.arguments["tags"] == ("a",)
    assert call.arguments["nested"]["k"] == 1


def test_stored_arguments_cannot_be_mutated() -> None:
    call = ToolCall("c1", "f", {"a": {"b": [1]}})
    with pytest.raises(TypeError):
        call.arguments["a"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        call.arguments["a"]["b"] = 2
    with pytest.raises(TypeError):
        call.arguments.update({"x": 1})  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        call.arguments["a"]["b"].append(3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.name = "g"  # type: ignore[misc]


def test_get() -> None:
    call = ToolCall("c1", "f", {"a": 1})
    assert call.get("a") == 1
    assert call.get("missing") is None
    assert call.get("missing", 7) == 7


# -- arguments_as -------------------------------------------------------------------


@dataclasses.dataclass
class Where:
    city: str
    unit: str = "celsius"


@dataclasses.dataclass
class Trip:
    origin: Where
    days: int


class WhereTD(TypedDict):
    city: str
    unit: str


class WhereNT(NamedTuple):
    city: str
    unit: str = "celsius"


def test_arguments_as_dataclass() -> None:
    assert ToolCall("c", "f", {"city": "Paris"}).arguments_as(Where) == Where("Paris")


def test_arguments_as_nested_dataclass() -> None:
    call = ToolCall("c", "f", {"origin": {"city": "Oslo", "unit": "kelvin"}, "days": 3})
    assert call.arguments_as(Trip) == Trip(Where("Oslo", "kelvin"), 3)


def test_arguments_as_typeddict_and_namedtuple() -> None:
    call = ToolCall("c", "f", {"city": "Paris", "unit": "celsius"})
    assert call.arguments_as(WhereTD) == {"city": "Paris", "unit": "celsius"}
    assert call.arguments_as(WhereNT) == WhereNT("Paris", "celsius")


def test_arguments_as_callable() -> None:
    def f(city: str, unit: str = "c") -> str:
        return f"{city}/{unit}"

    assert ToolCall("c", "f", {"city": "Paris"}).arguments_as(f) == "Paris/c"


def test_arguments_as_gives_mutable_copies() -> None:
    def f(**kw: Any) -> dict[str, Any]:
        return kw

    out = ToolCall("c", "f", {"a": [1]}).arguments_as(f)
    out["a"].append(2)
    assert out == {"a": [1, 2]}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({}, ["missing", "city"]),
        ({"city": "x", "zip": 1}, ["unexpected", "zip"]),
    ],
)
def test_arguments_as_misfit_is_validation_error(args: dict[str, Any], words: list[str]) -> None:
    for cls in (Where, WhereTD, WhereNT):
        with pytest.raises(ValidationError) as info:
            ToolCall("c", "f", args).arguments_as(cls)
        for w in words:
            assert w in str(info.value)


def test_arguments_as_misfit_hides_values(secret: str) -> None:
    with pytest.raises(ValidationError) as info:
        ToolCall("c", "f", {"password": secret}).arguments_as(Where)
    assert secret not in str(info.value)


def test_arguments_as_checks_types_without_showing_values(secret: str) -> None:
    # More cases, nested and generated, in test_arguments_as.py.
    for cls in (Where, WhereTD, WhereNT):
        with pytest.raises(ValidationError) as info:
            ToolCall("c", "f", {"city": secret, "unit": 3}).arguments_as(cls)
        assert info.value.path == "arguments.unit"
        assert (
            info.value.message == f"arguments do not fit {cls.__name__}: expected str, got integer"
        )
        assert secret not in str(info.value)
        assert secret not in repr(info.value)


def test_arguments_as_builds_nested_records_inside_containers() -> None:
    @dataclasses.dataclass
    class Plan:
        stops: list[Where]
        start: Where | None = None

    call = ToolCall("c", "f", {"stops": [{"city": "Oslo"}], "start": {"city": "Rome", "unit": "k"}})
    assert call.arguments_as(Plan) == Plan([Where("Oslo")], Where("Rome", "k"))


# -- value semantics -------------------------------------------------------------------


def test_extras_are_frozen_and_part_of_equality() -> None:
    a = ToolCall("c", "f", {}, extras={"gemini": {"thought_signature": "sig"}})
    assert a.extras["gemini"]["thought_signature"] == "sig"
    assert a != ToolCall("c", "f", {})


def test_pickle_and_replace() -> None:
    call = ToolCall("c", "f", '{"a": 1}')
    back = pickle.loads(pickle.dumps(call))
    assert back == call
    assert back.arguments_json == '{"a": 1}'
    changed = dataclasses.replace(call, name="g")
    assert (changed.id, changed.name, dict(changed.arguments)) == ("c", "g", {"a": 1})
    assert call.with_arguments({"b": 2}).arguments_json == '{"b":2}'


def test_repr_hides_arguments(secret: str) -> None:
    assert secret not in repr(ToolCall("c", "f", {"k": secret}))
    assert secret not in repr(InvalidToolCall("c", "f", secret, "bad json"))


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=12,
)


@given(st.dictionaries(st.text(), json_values, max_size=6))
def test_equal_arguments_give_equal_hashes(args: dict[str, Any]) -> None:
    a = ToolCall("c", "f", args)
    b = ToolCall("c", "f", a.arguments_json)
    assert a == b
    assert hash(a) == hash(b)


# -- ToolResult ------------------------------------------------------------------------


def test_tool_result_factories() -> None:
    ok = ToolResult.success("call_1", '{"temp": 21}', tool_name="get_weather")
    assert (ok.is_error, ok.tool_name, ok.text) == (False, "get_weather", '{"temp": 21}')
    err = ToolResult.error("call_1", "city not found")
    assert err.is_error
    assert err.content == "city not found"


def test_tool_result_empty_content_is_valid() -> None:
    assert ToolResult.success("c", "").content == ""


def test_tool_result_to_message() -> None:
    r = ToolResult.error("call_9", "boom", tool_name="f")
    m = r.to_message()
    assert isinstance(m, ToolResultMessage)
    assert (m.tool_call_id, m.content, m.is_error, m.tool_name) == ("call_9", "boom", True, "f")
    assert m.result == r


def test_tool_result_parts() -> None:
    r = ToolResult.success("c", [TextPart("chart:"), ImagePart(url="https://x/c.png")])
    assert r.text == "chart:"
    assert isinstance(r.content, tuple)
    with pytest.raises(ValidationError):
        ToolResult.success("c", [ReasoningPart("no")])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"tool_call_id": "", "content": "x"},
        {"tool_call_id": "c", "content": None},
        {"tool_call_id": "c", "content": "x", "is_error": "yes"},
        {"tool_call_id": "c", "content": "x", "tool_name": ""},
    ],
)
def test_tool_result_rules(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ToolResult(**kwargs)


def test_tool_result_repr_hides_content(secret: str) -> None:
    assert secret not in repr(ToolResult.success("c", secret))
