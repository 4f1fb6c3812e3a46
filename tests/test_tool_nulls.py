"""Optional tool parameters and ``null`` (API.md, "Optional tool parameters and null").

OpenAI's strict mode sends every optional parameter as required and nullable, so a
model answers ``null`` for a parameter it leaves out. ``validate_arguments`` treats
that null as absent, ``arguments_as`` gives the field its default (or None when the
annotation allows it and there is no default); a null for a required parameter is
still an error.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple, NotRequired, TypedDict

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import ToolCall, ToolDefinition, ValidationError
from messages.providers._chat_completions import openai_strict_schema
from messages.tools._arguments import keyword_arguments
from tests.conftest import SECRET


def get_weather(
    city: str, unit: str = "celsius", *, days: int | None = None, hourly: bool = False
) -> tuple[str, str, int | None, bool]:
    """Get the weather.

    Args:
        city: The city.
        unit: celsius or fahrenheit.
        days: How many days ahead.
        hourly: One line per hour.
    """
    return (city, unit, days, hourly)


WEATHER = ToolDefinition.from_function(get_weather)


def call(args: dict[str, Any], name: str = "get_weather") -> ToolCall:
    return ToolCall("c1", name, args)


# -- the example ----------------------------------------------------------------------


def test_the_weather_tool_goes_to_openai_required_and_nullable() -> None:
    sent = openai_strict_schema(WEATHER.wire_parameters())
    assert sent["required"] == ["city", "unit", "days", "hourly"]
    answer = {"city": "Paris", "unit": None, "days": None, "hourly": None}
    jsonschema.validate(answer, sent)  # what OpenAI lets the model send
    WEATHER.validate_arguments(call(answer))
    assert call(answer).arguments_as(get_weather) == ("Paris", "celsius", None, False)


def test_null_for_each_optional_parameter_alone() -> None:
    for name, default in (("unit", "celsius"), ("days", None), ("hourly", False)):
        args = {"city": "Paris", name: None}
        WEATHER.validate_arguments(args)
        got = call(args).arguments_as(get_weather)
        assert got[("city", "unit", "days", "hourly").index(name)] == default


def test_null_for_a_required_parameter_is_still_an_error() -> None:
    with pytest.raises(ValidationError) as info:
        WEATHER.validate_arguments({"city": None})
    assert (info.value.path, info.value.message) == ("arguments.city", "expected string, got null")
    with pytest.raises(ValidationError) as info:
        call({"city": None, "unit": None}).arguments_as(get_weather)
    assert (info.value.path, info.value.message) == (
        "arguments.city",
        "arguments do not fit get_weather: expected str, got null",
    )


def test_a_wrong_value_for_an_optional_parameter_is_still_an_error() -> None:
    with pytest.raises(ValidationError) as info:
        WEATHER.validate_arguments({"city": "Paris", "unit": 3})
    assert info.value.path == "arguments.unit"
    with pytest.raises(ValidationError) as info:
        call({"city": "Paris", "days": SECRET}).arguments_as(get_weather)
    assert (info.value.path, info.value.message) == (
        "arguments.days",
        "arguments do not fit get_weather: expected int | None, got string",
    )
    assert SECRET not in str(info.value)


def test_keyword_arguments_leave_nulls_for_defaults_out() -> None:
    args = call({"city": "Paris", "unit": None, "days": 3, "hourly": None}).arguments
    kwargs = keyword_arguments(get_weather, args, "arguments")
    assert kwargs == {"city": "Paris", "days": 3}
    assert get_weather(**kwargs) == ("Paris", "celsius", 3, False)
    with pytest.raises(ValidationError) as info:
        keyword_arguments(get_weather, {"unit": None}, "arguments")
    assert info.value.message == "arguments do not fit get_weather: missing city"


# -- records ----------------------------------------------------------------------------------


@dataclasses.dataclass
class Item:
    """A line item."""

    sku: str
    qty: int = 1
    note: str | None = "none given"
    tags: list[str] = dataclasses.field(default_factory=list)
    extra: Any = "default"


@dataclasses.dataclass
class Order:
    """An order."""

    items: list[Item]
    gift: Item | None = None
    priority: int | None = None


def test_dataclass_defaults_and_default_factory() -> None:
    d = ToolDefinition.from_type(Item)
    args = {"sku": "a", "qty": None, "note": None, "tags": None, "extra": None}
    d.validate_arguments(args)
    first = call(args, "Item").arguments_as(Item)
    second = call(args, "Item").arguments_as(Item)
    assert first == Item("a")
    assert first.tags is not second.tags  # the factory runs per call


def test_a_nullable_field_with_another_default_gets_the_default() -> None:
    # "null" means "left out" here, so the default ("none given"), not None.
    assert call({"sku": "a", "note": None}, "Item").arguments_as(Item).note == "none given"
    assert call({"sku": "a", "note": "n"}, "Item").arguments_as(Item).note == "n"


def test_nulls_inside_nested_records() -> None:
    d = ToolDefinition.from_type(Order)
    args = {
        "items": [{"sku": "a", "qty": None}, {"sku": "b", "qty": 2, "tags": None}],
        "gift": {"sku": "g", "note": None},
        "priority": None,
    }
    d.validate_arguments(args)
    assert call(args, "Order").arguments_as(Order) == Order(
        [Item("a"), Item("b", 2)], Item("g"), None
    )
    bad: dict[str, Any] = {"items": [{"sku": "a"}, {"sku": None}]}
    with pytest.raises(ValidationError) as info:
        d.validate_arguments(bad)
    assert info.value.path == "arguments.items[1].sku"
    with pytest.raises(ValidationError) as info:
        call(bad, "Order").arguments_as(Order)
    assert info.value.path == "arguments.items[1].sku"


class Point(NamedTuple):
    """A point."""

    x: float
    y: float = 0.0
    label: str = "origin"


def test_namedtuple_defaults() -> None:
    d = ToolDefinition.from_type(Point)
    args = {"x": 1, "y": None, "label": None}
    d.validate_arguments(args)
    assert call(args, "Point").arguments_as(Point) == Point(1.0)
    with pytest.raises(ValidationError):
        d.validate_arguments({"x": None})


class Movie(TypedDict):
    """A movie."""

    title: str
    year: NotRequired[int]
    rating: NotRequired[float | None]


def test_typeddict_not_required() -> None:
    d = ToolDefinition.from_type(Movie)
    args = {"title": "t", "year": None, "rating": None}
    d.validate_arguments(args)
    # No default to give: a null for a NotRequired key leaves it out, unless the
    # annotation allows None (then None is what the model said).
    assert call(args, "Movie").arguments_as(Movie) == {"title": "t", "rating": None}
    assert call({"title": "t", "year": None}, "Movie").arguments_as(Movie) == {"title": "t"}
    with pytest.raises(ValidationError):
        call({"title": None}, "Movie").arguments_as(Movie)


def test_optional_without_default_gets_none() -> None:
    @dataclasses.dataclass
    class Q:
        a: int | None
        b: str

    d = ToolDefinition.from_type(Q, description="Q.")
    assert d.parameters["required"] == ("b",)
    d.validate_arguments({"a": None, "b": "x"})
    assert call({"a": None, "b": "x"}, "Q").arguments_as(Q) == Q(None, "x")
    assert call({"b": "x"}, "Q").arguments_as(Q) == Q(None, "x")


def test_keyword_only_parameters_and_methods() -> None:
    class Service:
        def lookup(self, key: str, *, fresh: bool = False, limit: int = 10) -> tuple[Any, ...]:
            """Look a key up."""
            return (key, fresh, limit)

    d = ToolDefinition.from_function(Service.lookup)
    args = {"key": "k", "fresh": None, "limit": None}
    d.validate_arguments(args)
    assert call(args, "lookup").arguments_as(Service().lookup) == ("k", False, 10)


# -- hand-written schemas -------------------------------------------------------------------


def _tool(schema: dict[str, Any], strict: bool = True) -> ToolDefinition:
    return ToolDefinition("t", "d", schema, strict)


def test_null_for_an_undeclared_key_is_still_unexpected() -> None:
    d = _tool({"type": "object", "properties": {"a": {"type": "string"}}})
    with pytest.raises(ValidationError) as info:
        d.validate_arguments({"b": None})
    assert (info.value.path, info.value.message) == (
        "arguments.b",
        "unexpected property (additionalProperties is false)",
    )


@pytest.mark.parametrize(
    ("schema", "args", "ok"),
    [
        # minProperties counts a null that is absent as absent
        ({"properties": {"a": {}, "b": {}}, "minProperties": 2}, {"a": 1, "b": None}, False),
        ({"properties": {"a": {}, "b": {}}, "minProperties": 1}, {"a": 1, "b": None}, True),
        ({"properties": {"a": {}, "b": {}}, "maxProperties": 1}, {"a": 1, "b": None}, True),
        ({"properties": {"a": {}, "b": {}}, "maxProperties": 1}, {"a": 1, "b": 2}, False),
        # patternProperties do not see a null that is absent
        (
            {"properties": {"x1": {}}, "patternProperties": {"^x": {"type": "string"}}},
            {"x1": None},
            True,
        ),
        (
            {"properties": {"x1": {}}, "patternProperties": {"^x": {"type": "string"}}},
            {"x1": 3},
            False,
        ),
        # a required property: null is checked against its schema
        ({"properties": {"a": {"type": "string"}}, "required": ["a"]}, {"a": None}, False),
        ({"properties": {"a": {"type": ["string", "null"]}}, "required": ["a"]}, {"a": None}, True),
    ],
)
def test_null_counts_as_absent_for_the_whole_object_schema(
    schema: dict[str, Any], args: dict[str, Any], ok: bool
) -> None:
    d = _tool({"type": "object", **schema}, strict=False)
    if ok:
        d.validate_arguments(args)
    else:
        with pytest.raises(ValidationError):
            d.validate_arguments(args)


# -- properties -------------------------------------------------------------------------------


@dataclasses.dataclass
class Many:
    """Many optional fields."""

    name: str
    count: int = 3
    ratio: float = 0.5
    flag: bool = True
    label: str | None = "x"
    words: list[str] = dataclasses.field(default_factory=lambda: ["w"])
    inner: Item | None = None
    mode: Any = "auto"


MANY = ToolDefinition.from_type(Many)
MANY_VALUES: dict[str, Any] = {
    "count": 7,
    "ratio": 1.5,
    "flag": False,
    "label": "y",
    "words": ["a", "b"],
    "inner": {"sku": "s", "qty": None, "note": None, "tags": None, "extra": None},
    "mode": "manual",
}


def _many_args(choice: dict[str, str]) -> dict[str, Any]:
    args: dict[str, Any] = {"name": "n"}
    for field, how in choice.items():
        if how == "null":
            args[field] = None
        elif how == "value":
            args[field] = MANY_VALUES[field]
    return args


def _check_built(built: Many, choice: dict[str, str]) -> None:
    default = Many("n")
    for field in MANY_VALUES:
        got = getattr(built, field)
        if choice.get(field) == "value":
            assert got != getattr(default, field)
        else:
            assert got == getattr(default, field)


@given(
    st.dictionaries(
        st.sampled_from(sorted(MANY_VALUES)), st.sampled_from(["null", "value", "left out"])
    )
)
def test_any_subset_of_optional_fields_as_null_validates_and_builds_with_defaults(
    choice: dict[str, str],
) -> None:
    args = _many_args(choice)
    MANY.validate_arguments(args)
    _check_built(call(args, "Many").arguments_as(Many), choice)


@given(st.fixed_dictionaries({k: st.sampled_from(["null", "value"]) for k in MANY_VALUES}))
def test_every_answer_openai_strict_mode_allows_validates_and_builds(
    choice: dict[str, str],
) -> None:
    args = _many_args(choice)
    jsonschema.validate(args, openai_strict_schema(MANY.wire_parameters()))
    MANY.validate_arguments(args)
    _check_built(call(args, "Many").arguments_as(Many), choice)


@given(
    st.sampled_from([None, "Paris", "left out"]),
    st.dictionaries(st.sampled_from(["unit", "days", "hourly", "zone"]), st.none()),
)
def test_validate_arguments_and_arguments_as_agree_on_nulls(
    city: str | None, nulls: dict[str, None]
) -> None:
    args: dict[str, Any] = dict(nulls)
    if city != "left out":
        args["city"] = city
    try:
        WEATHER.validate_arguments(args)
        valid = True
    except ValidationError:
        valid = False
    try:
        built = call(args).arguments_as(get_weather)
    except ValidationError:
        built = None
    # Only a null (or nothing) for the required city, or an unknown key, is refused.
    assert valid == (city == "Paris" and "zone" not in args)
    assert (built is not None) == valid
    if built is not None:
        assert built == ("Paris", "celsius", None, False)
