"""ToolDefinition: construction rules, strict wire schemas, schema generation, validation."""

from __future__ import annotations

import copy
import dataclasses
import enum
import functools
import json
import pickle
import sys
import warnings
from collections.abc import Mapping, MutableMapping, Sequence
from typing import (
    Annotated,
    Any,
    Literal,
    NamedTuple,
    NewType,
    NotRequired,
    Optional,
    Required,
    TypedDict,
    Union,
)

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import DecodeError, ToolCall, ToolDefinition, ValidationError
from messages._frozen import FrozenDict
from messages.tools._docstrings import parse_docstring
from messages.tools._validate import validate
from tests.conftest import SECRET

OBJ: dict[str, Any] = {"type": "object"}
WEATHER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["city"],
}


def weather(strict: bool = True) -> ToolDefinition:
    return ToolDefinition("get_weather", "Get the weather.", WEATHER, strict)


def plain(d: ToolDefinition) -> Any:
    """The parameters as plain dicts and lists, for comparing with literals."""
    return d.to_dict()["parameters"]


# -- construction ---------------------------------------------------------------------


def test_fields_and_default_strict() -> None:
    d = ToolDefinition("get_weather", "Get the weather.", WEATHER)
    assert d.name == "get_weather"
    assert d.description == "Get the weather."
    assert plain(d) == WEATHER
    assert d.strict is True


@pytest.mark.parametrize("name", ["a", "get_weather", "mcp-tool__x", "x" * 64, "A1-_"])
def test_valid_names(name: str) -> None:
    assert ToolDefinition(name, "d", OBJ).name == name


@pytest.mark.parametrize("name", ["", "x" * 65, "get weather", "a.b", "naïve", "a/b", None, 3])
def test_invalid_names(name: object) -> None:
    with pytest.raises(ValidationError) as info:
        ToolDefinition(name, "d", OBJ)  # type: ignore[arg-type]
    assert info.value.path == "name"


@pytest.mark.parametrize("description", ["", "   ", "\n\t", None, 5, b"bytes"])
def test_invalid_descriptions(description: object) -> None:
    with pytest.raises(ValidationError) as info:
        ToolDefinition("t", description, OBJ)  # type: ignore[arg-type]
    assert info.value.path == "description"


def test_description_of_1024_characters_gives_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = ToolDefinition("t", "x" * 1024, OBJ)
    assert len(d.description) == 1024


def test_long_description_warns_but_is_accepted() -> None:
    text = SECRET * 60
    with pytest.warns(UserWarning, match=f"{len(text)} characters") as record:
        d = ToolDefinition("t", text, OBJ)
    assert d.description == text
    assert SECRET not in str(record[0].message)
    assert record[0].filename == __file__  # points at the caller


@pytest.mark.parametrize(
    ("parameters", "path"),
    [
        (None, "parameters"),
        ([], "parameters"),
        ("{}", "parameters"),
        ({}, "parameters.type"),
        ({"type": "array"}, "parameters.type"),
        ({"type": ["object"]}, "parameters.type"),
        ({"type": "object", "properties": {"a": {1, 2}}}, "parameters.properties.a"),
        ({"type": "object", "properties": []}, "parameters.properties"),
        ({"type": "object", "properties": {"a": 3}}, "parameters.properties.a"),
        ({"type": "object", "properties": {"a": {"type": "text"}}}, "parameters.properties.a.type"),
        ({"type": "object", "properties": {"a": {"type": []}}}, "parameters.properties.a.type"),
        (
            {"type": "object", "properties": {"a": {"type": ["string", "string"]}}},
            "parameters.properties.a.type",
        ),
        ({"type": "object", "required": "a"}, "parameters.required"),
        ({"type": "object", "required": ["a", 1]}, "parameters.required"),
        ({"type": "object", "required": ["a", "a"]}, "parameters.required"),
        ({"type": "object", "additionalProperties": 3}, "parameters.additionalProperties"),
        ({"type": "object", "x": {"enum": []}}, None),  # unknown keyword: not a schema
        ({"type": "object", "properties": {"a": {"enum": []}}}, "parameters.properties.a.enum"),
        ({"type": "object", "properties": {"a": {"enum": 1}}}, "parameters.properties.a.enum"),
        ({"type": "object", "minProperties": -1}, "parameters.minProperties"),
        (
            {"type": "object", "properties": {"a": {"maxLength": 1.5}}},
            "parameters.properties.a.maxLength",
        ),
        (
            {"type": "object", "properties": {"a": {"minItems": True}}},
            "parameters.properties.a.minItems",
        ),
        (
            {"type": "object", "properties": {"a": {"minimum": "0"}}},
            "parameters.properties.a.minimum",
        ),
        (
            {"type": "object", "properties": {"a": {"multipleOf": 0}}},
            "parameters.properties.a.multipleOf",
        ),
        (
            {"type": "object", "properties": {"a": {"pattern": "("}}},
            "parameters.properties.a.pattern",
        ),
        (
            {"type": "object", "properties": {"a": {"pattern": 5}}},
            "parameters.properties.a.pattern",
        ),
        ({"type": "object", "patternProperties": {"(": {}}}, "parameters.patternProperties.("),
        (
            {"type": "object", "properties": {"a": {"uniqueItems": 1}}},
            "parameters.properties.a.uniqueItems",
        ),
        ({"type": "object", "properties": {"a": {"anyOf": []}}}, "parameters.properties.a.anyOf"),
        ({"type": "object", "properties": {"a": {"oneOf": {}}}}, "parameters.properties.a.oneOf"),
        (
            {"type": "object", "properties": {"a": {"allOf": [1]}}},
            "parameters.properties.a.allOf[0]",
        ),
        ({"type": "object", "properties": {"a": {"not": "x"}}}, "parameters.properties.a.not"),
        (
            {"type": "object", "properties": {"a": {"items": [1]}}},
            "parameters.properties.a.items[0]",
        ),
        ({"type": "object", "properties": {"a": {"items": "x"}}}, "parameters.properties.a.items"),
        ({"type": "object", "$defs": {"n": 1}}, "parameters.$defs.n"),
        (
            {"type": "object", "properties": {"a": {"$ref": "http://x/s"}}},
            "parameters.properties.a.$ref",
        ),
        (
            {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
            "parameters.properties.a.$ref",
        ),
        (
            {"type": "object", "properties": {"a": {"$ref": "#/type"}}},
            "parameters.properties.a.$ref",
        ),
        ({"type": "object", "description": 5}, "parameters.description"),
        (
            {"type": "object", "properties": {"a": {"const": float("nan")}}},
            "parameters.properties.a.const",
        ),
    ],
)
def test_invalid_parameters(parameters: Any, path: str | None) -> None:
    if path is None:
        ToolDefinition("t", "d", parameters)
        return
    with pytest.raises(ValidationError) as info:
        ToolDefinition("t", "d", parameters)
    assert info.value.path == path


@pytest.mark.parametrize(
    "parameters",
    [
        OBJ,
        WEATHER,
        {"type": "object", "properties": {"a": True, "b": False}},
        {"type": "object", "properties": {"n": {"$ref": "#"}}},
        {
            "type": "object",
            "$defs": {"x": {"type": "integer"}},
            "properties": {"a": {"$ref": "#/$defs/x"}},
        },
        {
            "type": "object",
            "definitions": {"a/b": {}},
            "properties": {"a": {"$ref": "#/definitions/a~1b"}},
        },
        {"type": "object", "properties": {"a": {"items": [{"type": "string"}], "minItems": 1.0}}},
        {"type": "object", "format": "anything", "title": "T", "default": {}, "examples": [1]},
    ],
)
def test_valid_parameters(parameters: dict[str, Any]) -> None:
    assert plain(ToolDefinition("t", "d", parameters)) == parameters


@pytest.mark.parametrize("strict", [None, 1, "true"])
def test_strict_must_be_bool(strict: object) -> None:
    with pytest.raises(ValidationError) as info:
        ToolDefinition("t", "d", OBJ, strict)  # type: ignore[arg-type]
    assert info.value.path == "strict"


def test_errors_do_not_echo_descriptions_and_quote_names() -> None:
    with pytest.raises(ValidationError) as info:
        ToolDefinition(SECRET + " !", SECRET, OBJ)
    assert f"'{SECRET} !'" in str(info.value)  # a name is an identifier: shown, quoted
    with pytest.raises(ValidationError) as info:
        ToolDefinition("t", SECRET, {"type": "array", "items": SECRET})
    assert SECRET not in str(info.value)  # the description never is


# -- immutability, equality, repr -----------------------------------------------------


def test_mutating_the_input_changes_nothing() -> None:
    schema = copy.deepcopy(WEATHER)
    d = ToolDefinition("t", "d", schema)
    schema["properties"]["city"]["type"] = "integer"
    schema["required"].append("unit")
    schema["type"] = "array"
    assert plain(d) == WEATHER
    d.validate_arguments({"city": "Paris"})


def test_stored_parameters_cannot_be_mutated() -> None:
    d = weather()
    params: Any = d.parameters
    with pytest.raises(TypeError):
        params["type"] = "array"
    with pytest.raises(TypeError):
        params["properties"]["city"]["type"] = "integer"
    with pytest.raises(AttributeError):
        params["required"].append("unit")
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.name = "other"  # type: ignore[misc]
    assert plain(d) == WEATHER


def test_wire_parameters_is_a_fresh_mutable_copy() -> None:
    d = weather()
    wire = d.wire_parameters()
    assert type(wire) is dict
    assert type(wire["properties"]) is dict
    assert type(wire["required"]) is list
    wire["properties"]["city"]["type"] = "integer"
    wire["required"].append("x")
    assert d.wire_parameters()["properties"]["city"]["type"] == "string"
    assert d.wire_parameters()["required"] == ["city"]


def test_equality_and_hash() -> None:
    a = ToolDefinition("t", "d", WEATHER)
    b = ToolDefinition("t", "d", json.loads(json.dumps(WEATHER)))
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b}) == 1
    assert a != ToolDefinition("t", "d", WEATHER, strict=False)
    assert a != ToolDefinition("u", "d", WEATHER)
    assert a != ToolDefinition("t", "e", WEATHER)
    assert a != ToolDefinition("t", "d", OBJ)
    assert isinstance(a.parameters, FrozenDict)


def test_pickle_round_trip_without_a_second_warning() -> None:
    with pytest.warns(UserWarning):
        d = ToolDefinition("t", "x" * 2000, WEATHER, strict=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = pickle.loads(pickle.dumps(d))
    assert back == d
    assert back.wire_parameters() == d.wire_parameters()


def test_copy_returns_an_equal_definition() -> None:
    d = weather()
    assert copy.copy(d) == d
    assert copy.deepcopy(d) == d


def test_repr_shows_name_and_size_not_description() -> None:
    d = ToolDefinition("get_weather", SECRET, WEATHER)
    assert repr(d) == "ToolDefinition(name='get_weather', properties=2, strict=True)"
    assert (
        repr(ToolDefinition("t", "d", OBJ, False))
        == "ToolDefinition(name='t', properties=0, strict=False)"
    )


# -- wire_parameters --------------------------------------------------------------------

F = False


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (OBJ, {"type": "object", "additionalProperties": F}),
        (
            {"type": "object", "properties": {"a": {"type": "object"}}},
            {
                "type": "object",
                "properties": {"a": {"type": "object", "additionalProperties": F}},
                "additionalProperties": F,
            },
        ),
        (
            {"type": "object", "additionalProperties": True},
            {"type": "object", "additionalProperties": True},
        ),
        (
            {"type": "object", "additionalProperties": {"type": "object"}},
            {
                "type": "object",
                "additionalProperties": {"type": "object", "additionalProperties": F},
            },
        ),
        (
            {"type": "object", "properties": {"l": {"type": "array", "items": {"properties": {}}}}},
            {
                "type": "object",
                "properties": {
                    "l": {"type": "array", "items": {"properties": {}, "additionalProperties": F}}
                },
                "additionalProperties": F,
            },
        ),
        (
            {"type": "object", "$defs": {"N": {"type": "object"}}, "definitions": {"M": OBJ}},
            {
                "type": "object",
                "$defs": {"N": {"type": "object", "additionalProperties": F}},
                "definitions": {"M": {"type": "object", "additionalProperties": F}},
                "additionalProperties": F,
            },
        ),
        (
            {"type": "object", "properties": {"u": {"anyOf": [OBJ, {"type": "null"}]}}},
            {
                "type": "object",
                "properties": {
                    "u": {
                        "anyOf": [{"type": "object", "additionalProperties": F}, {"type": "null"}]
                    }
                },
                "additionalProperties": F,
            },
        ),
        (
            {"type": "object", "properties": {"u": {"oneOf": [OBJ], "prefixItems": [OBJ]}}},
            {
                "type": "object",
                "properties": {
                    "u": {
                        "oneOf": [{"type": "object", "additionalProperties": F}],
                        "prefixItems": [{"type": "object", "additionalProperties": F}],
                    }
                },
                "additionalProperties": F,
            },
        ),
        (
            {"type": "object", "properties": {"u": {"type": ["object", "null"]}}},
            {
                "type": "object",
                "properties": {"u": {"type": ["object", "null"], "additionalProperties": F}},
                "additionalProperties": F,
            },
        ),
        (
            {"type": "object", "patternProperties": {"^x": OBJ}},
            {
                "type": "object",
                "patternProperties": {"^x": {"type": "object", "additionalProperties": F}},
                "additionalProperties": F,
            },
        ),
        # allOf branches and not-schemas stay open: closing them changes their meaning.
        (
            {"type": "object", "additionalProperties": True, "allOf": [OBJ], "not": OBJ},
            {"type": "object", "additionalProperties": True, "allOf": [OBJ], "not": OBJ},
        ),
        # non-object schemas are untouched
        (
            {"type": "object", "properties": {"s": {"type": "string"}, "t": True}},
            {
                "type": "object",
                "properties": {"s": {"type": "string"}, "t": True},
                "additionalProperties": F,
            },
        ),
    ],
)
def test_wire_parameters_strict(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert ToolDefinition("t", "d", schema).wire_parameters() == expected
    assert ToolDefinition("t", "d", schema, strict=False).wire_parameters() == schema


# -- to_dict / from_dict ----------------------------------------------------------------


def test_to_dict_round_trip() -> None:
    d = weather(strict=False)
    out = d.to_dict()
    assert out == {
        "name": "get_weather",
        "description": "Get the weather.",
        "parameters": WEATHER,
        "strict": False,
    }
    assert type(out["parameters"]["required"]) is list
    out["parameters"]["type"] = "array"  # plain and mutable, detached
    assert ToolDefinition.from_dict(d.to_dict()) == d
    assert ToolDefinition.from_dict(json.loads(json.dumps(d.to_dict()))) == d


def test_from_dict_strict_defaults_to_true() -> None:
    d = ToolDefinition.from_dict({"name": "t", "description": "d", "parameters": OBJ})
    assert d.strict is True


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (None, "tools[0]"),
        ([], "tools[0]"),
        ({"description": "d", "parameters": OBJ}, "tools[0].name"),
        ({"name": "t", "parameters": OBJ}, "tools[0].description"),
        ({"name": "t", "description": "d"}, "tools[0].parameters"),
        ({"name": "t", "description": "d", "parameters": OBJ, "extra": 1}, "tools[0].extra"),
        ({"name": "a b", "description": "d", "parameters": OBJ}, "tools[0].name"),
        ({"name": "t", "description": 1, "parameters": OBJ}, "tools[0].description"),
        ({"name": "t", "description": "d", "parameters": []}, "tools[0].parameters"),
        (
            {"name": "t", "description": "d", "parameters": {"type": "string"}},
            "tools[0].parameters.type",
        ),
        (
            {"name": "t", "description": "d", "parameters": {"type": "object", "required": 1}},
            "tools[0].parameters.required",
        ),
        ({"name": "t", "description": "d", "parameters": OBJ, "strict": "yes"}, "tools[0].strict"),
    ],
)
def test_from_dict_errors(data: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        ToolDefinition.from_dict(data, path="tools[0]")
    assert info.value.path == path


def test_from_dict_without_path_prefix() -> None:
    with pytest.raises(DecodeError) as info:
        ToolDefinition.from_dict({"name": "t", "description": "d", "parameters": {"type": 1}})
    assert info.value.path == "parameters.type"


_json_leaf = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
)
_json = st.recursive(
    _json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "properties", "required", "a", "items", "$ref"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=10,
)


@settings(max_examples=150)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.sampled_from(["t", "", "a b"]) | _json,
            "description": st.sampled_from(["d", ""]) | _json,
            "parameters": st.just(OBJ) | _json,
            "strict": st.booleans() | _json,
        },
    )
    | _json
)
def test_from_dict_fuzz_accepts_or_raises_decode_error(data: Any) -> None:
    try:
        d = ToolDefinition.from_dict(data)
    except DecodeError:
        return
    assert ToolDefinition.from_dict(d.to_dict()) == d


# -- from_function ----------------------------------------------------------------------


def google(query: str, limit: int = 10, *, exact: bool = False) -> list[str]:
    """Search the index.

    Returns ranked hits; this second paragraph is not part of the description.

    Args:
        query (str): What to look for,
            in plain words.
        limit: How many hits
            to return at most.
        exact: Match the whole phrase.

    Returns:
        The hits.
    """
    return []


def sphinx(path: str, mode: Literal["r", "w"] = "r", encoding: str | None = None) -> None:
    """Open a file
    for reading or writing.

    :param path: The file to open.
    :param str mode: Read or write,
        nothing else.
    :param encoding: Text encoding.
    :type encoding: str
    :returns: nothing
    """


def numpy_style(x: float, y: Optional[int], flags: Sequence[str] = ()) -> None:  # noqa: UP045
    """Plot a point.

    Parameters
    ----------
    x : float
        The horizontal
        coordinate.
    y : int, optional
        The vertical coordinate.
    flags : sequence of str
        Drawing flags.

    Returns
    -------
    None
    """


def undocumented(a: int, b: str) -> None:
    pass


def test_from_function_google() -> None:
    d = ToolDefinition.from_function(google)
    assert d.name == "google"
    assert d.description == "Search the index."
    assert plain(d) == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, in plain words."},
            "limit": {"type": "integer", "description": "How many hits to return at most."},
            "exact": {"type": "boolean", "description": "Match the whole phrase."},
        },
        "required": ["query"],
    }


def test_from_function_sphinx() -> None:
    d = ToolDefinition.from_function(sphinx)
    assert d.description == "Open a file for reading or writing."
    assert plain(d) == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "The file to open."},
            "mode": {
                "type": "string",
                "enum": ["r", "w"],
                "description": "Read or write, nothing else.",
            },
            "encoding": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "description": "Text encoding.",
            },
        },
        "required": ["path"],
    }


def test_from_function_numpy() -> None:
    d = ToolDefinition.from_function(numpy_style)
    assert d.description == "Plot a point."
    assert plain(d) == {
        "type": "object",
        "properties": {
            "x": {"type": "number", "description": "The horizontal coordinate."},
            "y": {
                "anyOf": [{"type": "integer"}, {"type": "null"}],
                "description": "The vertical coordinate.",
            },
            "flags": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Drawing flags.",
            },
        },
        "required": ["x"],
    }


def test_from_function_overrides_and_strict() -> None:
    d = ToolDefinition.from_function(
        undocumented, name="do-it", description="Does it.", strict=False
    )
    assert (d.name, d.description, d.strict) == ("do-it", "Does it.", False)
    assert d.parameters["required"] == ("a", "b")


def test_from_function_needs_a_description() -> None:
    with pytest.raises(ValidationError) as info:
        ToolDefinition.from_function(undocumented)
    assert info.value.path == "description"


class Service:
    """A service."""

    def lookup(self, key: str, fresh: bool = False) -> str:
        """Look a key up."""
        return key

    @classmethod
    def build(cls, size: int) -> Service:
        """Build one."""
        return cls()

    def __call__(self, text: str) -> str:
        """Echo."""
        return text


def test_from_function_skips_self_and_cls() -> None:
    for fn in (Service.lookup, Service().lookup):
        d = ToolDefinition.from_function(fn)
        assert d.name == "lookup"
        assert list(d.parameters["properties"]) == ["key", "fresh"]
        assert d.parameters["required"] == ("key",)
    assert list(ToolDefinition.from_function(Service.build).parameters["properties"]) == ["size"]


def test_from_function_on_partial_and_callable_object() -> None:
    d = ToolDefinition.from_function(functools.partial(google, limit=3), name="search")
    assert d.description == "Search the index."
    assert d.parameters["required"] == ("query",)
    c = ToolDefinition.from_function(Service(), name="echo")
    assert c.parameters["properties"] == {"text": {"type": "string"}}


def test_from_function_on_a_class_uses_its_constructor() -> None:
    d = ToolDefinition.from_function(Item, name="add_item")
    assert d.description == "A line item."
    assert plain(d) == {
        "type": "object",
        "properties": {
            "sku": {"type": "string", "description": "Stock keeping unit."},
            "qty": {"type": "integer", "description": "How many."},
        },
        "required": ["sku"],
    }


def f_args(a: int, *rest: int) -> None:
    """X."""


def f_kwargs(a: int, **opts: int) -> None:
    """X."""


def f_posonly(a: int, /, b: int) -> None:
    """X."""


def f_unannotated(a, b: int) -> None:  # type: ignore[no-untyped-def]
    """X."""


def f_bytes(a: int, blob: bytes) -> None:
    """X."""


def f_nested_bad(items: list[dict[str, complex]]) -> None:
    """X."""


def f_bad_keys(m: dict[int, str]) -> None:
    """X."""


def f_forward(a: Undefined) -> None:  # type: ignore[name-defined]  # noqa: F821
    """X."""


@pytest.mark.parametrize(
    ("fn", "path", "fragment"),
    [
        (f_args, "f_args.rest", "*rest"),
        (f_kwargs, "f_kwargs.opts", "**opts"),
        (f_posonly, "f_posonly.a", "positional-only"),
        (f_unannotated, "f_unannotated.a", "no type annotation"),
        (f_bytes, "f_bytes.blob", "unsupported type bytes"),
        (f_nested_bad, "f_nested_bad.items[].*", "unsupported type complex"),
        (f_bad_keys, "f_bad_keys.m", "keys must be str"),
        (f_forward, "f_forward", "Undefined"),
        (42, "int", "signature"),
    ],
)
def test_from_function_errors(fn: Any, path: str, fragment: str) -> None:
    with pytest.raises(ValidationError) as info:
        ToolDefinition.from_function(fn)
    assert info.value.path == path
    assert fragment in info.value.message


def test_from_function_lambda_needs_a_name() -> None:
    with pytest.raises(ValidationError) as info:
        ToolDefinition.from_function(lambda: None, description="d")
    assert info.value.path == "name"


# -- docstrings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "summary", "params"),
    [
        (None, "", {}),
        ("", "", {}),
        ("One line.", "One line.", {}),
        ("  Two\n  lines.\n\n  Body.", "Two lines.", {}),
        ("\n    Args:\n        a: A.\n    ", "", {"a": "A."}),
        (
            "S.\n\nArgs:\n    a (int): A.\n    *args: Rest.\n    **kw: Keywords.",
            "S.",
            {"a": "A.", "args": "Rest.", "kw": "Keywords."},
        ),
        (
            "S.\n\nArguments:\n  a: first\n    more\n\n  b: second\nReturns:\n  c: no",
            "S.",
            {"a": "first more", "b": "second"},
        ),
        ("S.\n\nAttributes:\n    name: The name.\n", "S.", {"name": "The name."}),
        (
            "S.\n\nArgs:\n    m (dict(str, int)): Counts (by key).\n    n:\n        On the next line.",
            "S.",
            {"m": "Counts (by key).", "n": "On the next line."},
        ),
        ("S.\n:param a: A.\n:param b:\n    B.\n:type a: int", "S.", {"a": "A.", "b": "B."}),
        ("S.\n\n:ivar x: The x.", "S.", {"x": "The x."}),
        (
            "S.\n\nParameters\n----------\na, b : int\n    Both.\nc\n    C.\n\nReturns\n-------\nint\n    Not a param.",
            "S.",
            {"a": "Both.", "b": "Both.", "c": "C."},
        ),
        ("S.\n\n    Attributes\n    ----------\n    z : str\n        Zed.\n", "S.", {"z": "Zed."}),
    ],
)
def test_parse_docstring(doc: str | None, summary: str, params: dict[str, str]) -> None:
    assert parse_docstring(doc) == (summary, params)


# -- from_type ----------------------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Item:
    """A line item.

    Attributes:
        sku: Stock keeping unit.
        qty: How many.
    """

    sku: str
    qty: int = 1


@dataclasses.dataclass
class Order:
    """Place an order.

    Longer text that is not part of the description.

    Attributes:
        items: What to buy.
        note: Free text.
    """

    items: list[Item]
    color: Color
    speed: Literal["fast", "slow"]
    note: Optional[str]  # noqa: UP045 - the old spelling is under test
    priority: Level = Level.LOW
    tags: dict[str, int] = dataclasses.field(default_factory=dict)
    gift: Item | None = None
    score: Annotated[float, "A score from 0 to 1"] = 0.0


ORDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "description": "A line item.",
                "properties": {
                    "sku": {"type": "string", "description": "Stock keeping unit."},
                    "qty": {"type": "integer", "description": "How many."},
                },
                "required": ["sku"],
            },
            "description": "What to buy.",
        },
        "color": {"type": "string", "enum": ["red", "green"]},
        "speed": {"type": "string", "enum": ["fast", "slow"]},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Free text."},
        "priority": {"type": "integer", "enum": [1, 2]},
        "tags": {"type": "object", "additionalProperties": {"type": "integer"}},
        "gift": {
            "anyOf": [
                {
                    "type": "object",
                    "description": "A line item.",
                    "properties": {
                        "sku": {"type": "string", "description": "Stock keeping unit."},
                        "qty": {"type": "integer", "description": "How many."},
                    },
                    "required": ["sku"],
                },
                {"type": "null"},
            ]
        },
        "score": {"type": "number", "description": "A score from 0 to 1"},
    },
    "required": ["items", "color", "speed"],
}


def test_from_type_dataclass() -> None:
    d = ToolDefinition.from_type(Order)
    assert d.name == "Order"
    assert d.description == "Place an order."
    assert plain(d) == ORDER_SCHEMA


def test_from_type_name_and_description_arguments() -> None:
    d = ToolDefinition.from_type(Order, "place_order", "Order things.")
    assert (d.name, d.description) == ("place_order", "Order things.")


class Movie(TypedDict):
    """A movie.

    Attributes:
        title: The title.
    """

    title: str
    year: NotRequired[int]
    rating: Annotated[NotRequired[float], "Stars"]


class Partial(TypedDict, total=False):
    """Partial."""

    a: int
    b: Required[str]
    c: Optional[str]  # noqa: UP045 - the old spelling is under test


class Point(NamedTuple):
    """A point."""

    x: float
    y: float
    label: str = ""


def test_from_type_typeddict_total() -> None:
    d = ToolDefinition.from_type(Movie)
    assert plain(d) == {
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "The title."},
            "year": {"type": "integer"},
            "rating": {"type": "number", "description": "Stars"},
        },
        "required": ["title"],
    }


def test_from_type_typeddict_not_total() -> None:
    d = ToolDefinition.from_type(Partial)
    assert d.parameters["required"] == ("b",)
    assert d.parameters["properties"]["c"] == {"anyOf": ({"type": "string"}, {"type": "null"})}


def test_from_type_namedtuple() -> None:
    d = ToolDefinition.from_type(Point)
    assert d.description == "A point."
    assert plain(d) == {
        "type": "object",
        "properties": {
            "x": {"type": "number"},
            "y": {"type": "number"},
            "label": {"type": "string"},
        },
        "required": ["x", "y"],
    }


UserId = NewType("UserId", str)


def _schema_of(annotation: Any) -> Any:
    cls = dataclasses.make_dataclass("T", [("x", annotation)])
    cls.__doc__ = "T."
    return plain(ToolDefinition.from_type(cls, strict=False))["properties"]["x"]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (type(None), {"type": "null"}),
        (Any, {}),
        (object, {}),
        (UserId, {"type": "string"}),
        (Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),  # noqa: UP045
        (int | None, {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        (Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}),  # noqa: UP007
        (
            Union[None, int, str],  # noqa: UP007
            {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
        ),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
        (Literal[True], {"type": "boolean", "enum": [True]}),
        (Literal[1, 1.5], {"type": "number", "enum": [1, 1.5]}),
        (Literal["a", 1, None], {"type": ["string", "integer", "null"], "enum": ["a", 1, None]}),
        (Literal[Color.RED], {"type": "string", "enum": ["red"]}),
        (Color, {"type": "string", "enum": ["red", "green"]}),
        (Level, {"type": "integer", "enum": [1, 2]}),
        (list, {"type": "array"}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (Sequence[str], {"type": "array", "items": {"type": "string"}}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (tuple[()], {"type": "array", "maxItems": 0}),
        (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (frozenset[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (dict, {"type": "object", "additionalProperties": True}),
        (dict[str, Any], {"type": "object", "additionalProperties": True}),
        (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
        (
            Mapping[str, list[int]],
            {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "integer"}},
            },
        ),
        (
            MutableMapping[str, bool],
            {"type": "object", "additionalProperties": {"type": "boolean"}},
        ),
        (Annotated[int, "How many"], {"type": "integer", "description": "How many"}),
        (
            Annotated[int, {"minimum": 0, "maximum": 9}],
            {"type": "integer", "minimum": 0, "maximum": 9},
        ),
        (
            Annotated[list[str], "Tags", {"maxItems": 3}],
            {"type": "array", "items": {"type": "string"}, "description": "Tags", "maxItems": 3},
        ),
        (
            Optional[Annotated[str, "Name"]],  # noqa: UP045
            {"anyOf": [{"type": "string", "description": "Name"}, {"type": "null"}]},
        ),
    ],
)
def test_type_table(annotation: Any, expected: dict[str, Any]) -> None:
    assert _schema_of(annotation) == expected


@pytest.mark.parametrize(
    ("annotation", "fragment"),
    [
        (bytes, "unsupported type bytes"),
        (complex, "unsupported type complex"),
        (list[bytes], "unsupported type bytes"),
        (dict[int, str], "keys must be str"),
        (Literal[b"x"], "Literal has a value of type bytes"),
        (Literal[float("inf")], "Literal has a value of type float"),
    ],
)
def test_unsupported_types(annotation: Any, fragment: str) -> None:
    with pytest.raises(ValidationError) as info:
        _schema_of(annotation)
    assert info.value.path.startswith("T.x")
    assert fragment in info.value.message


class Shape(enum.Enum):
    POINT = (0, 0)


@dataclasses.dataclass
class Inner:
    """Inner."""

    bad: bytes


@dataclasses.dataclass
class Outer:
    """Outer."""

    inner: Inner


@dataclasses.dataclass
class WithShape:
    """With shape."""

    shape: Shape


@dataclasses.dataclass
class Dangling:
    """Dangling."""

    x: Missing  # type: ignore[name-defined]  # noqa: F821


@pytest.mark.parametrize(
    ("tp", "path", "fragment"),
    [
        (Outer, "Outer.inner.bad", "unsupported type bytes"),
        (WithShape, "WithShape.shape", "enum Shape has a value of type tuple"),
        (Dangling, "Dangling", "Missing"),
        (int, "tp", "expected a dataclass, TypedDict or NamedTuple"),
        (list[Item], "tp", "expected a dataclass"),
    ],
)
def test_from_type_errors(tp: Any, path: str, fragment: str) -> None:
    with pytest.raises(ValidationError) as info:
        ToolDefinition.from_type(tp)
    assert info.value.path == path
    assert fragment in info.value.message


@dataclasses.dataclass
class NoDoc:
    a: int


def test_from_type_without_docstring_needs_a_description() -> None:
    with pytest.raises(ValidationError) as info:
        ToolDefinition.from_type(NoDoc)
    assert info.value.path == "description"
    assert ToolDefinition.from_type(NoDoc, description="D.").description == "D."


@dataclasses.dataclass
class Tree:
    """A tree."""

    value: int
    children: list[Tree] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Forest:
    """A forest."""

    trees: list[Tree]
    biggest: Tree | None = None


@dataclasses.dataclass
class Ping:
    """Ping."""

    pong: Pong | None = None


@dataclasses.dataclass
class Pong:
    """Pong."""

    ping: Ping | None = None


@dataclasses.dataclass
class Game:
    """Game."""

    start: Ping


def test_recursive_root_type_refers_to_root() -> None:
    d = ToolDefinition.from_type(Tree)
    assert d.parameters["properties"]["children"] == {"type": "array", "items": {"$ref": "#"}}
    d.validate_arguments({"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]})
    with pytest.raises(ValidationError) as info:
        d.validate_arguments({"value": 1, "children": [{"value": 2, "children": [{"value": "x"}]}]})
    assert info.value.path == "arguments.children[0].children[0].value"


def test_recursive_nested_type_goes_to_defs() -> None:
    d = ToolDefinition.from_type(Forest)
    params = d.wire_parameters()
    assert params["properties"]["trees"] == {"type": "array", "items": {"$ref": "#/$defs/Tree"}}
    assert params["properties"]["biggest"] == {
        "anyOf": [{"$ref": "#/$defs/Tree"}, {"type": "null"}]
    }
    assert params["$defs"]["Tree"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Tree"}
    assert params["$defs"]["Tree"]["additionalProperties"] is False
    jsonschema.Draft202012Validator.check_schema(params)
    good = {"trees": [{"value": 1, "children": [{"value": 2}]}]}
    d.validate_arguments(good)
    jsonschema.validate(good, params)
    with pytest.raises(ValidationError) as info:
        d.validate_arguments({"trees": [{"value": 1, "children": [{"value": 2, "leaf": True}]}]})
    assert info.value.path == "arguments.trees[0].children[0].leaf"


def test_mutually_recursive_types() -> None:
    d = ToolDefinition.from_type(Game)
    params = d.wire_parameters()
    assert params["properties"]["start"] == {"$ref": "#/$defs/Ping"}
    assert set(params["$defs"]) == {"Ping"}
    jsonschema.Draft202012Validator.check_schema(params)
    d.validate_arguments({"start": {"pong": {"ping": {"pong": None}}}})
    with pytest.raises(ValidationError) as info:
        d.validate_arguments({"start": {"pong": {"ping": {"pong": 3}}}})
    assert info.value.path == "arguments.start.pong.ping.pong"


@dataclasses.dataclass
class LinkA:
    """Link."""

    next: LinkA | None = None


@dataclasses.dataclass
class LinkB:
    """Another link class that happens to share the name."""

    next: LinkB | None = None


LinkB.__name__ = "LinkA"


@dataclasses.dataclass
class Chains:
    """Chains."""

    a: LinkA
    b: LinkB


def test_recursive_types_with_the_same_name_get_distinct_defs() -> None:
    params = ToolDefinition.from_type(Chains).wire_parameters()
    assert params["properties"] == {
        "a": {"$ref": "#/$defs/LinkA"},
        "b": {"$ref": "#/$defs/LinkA_2"},
    }
    assert params["$defs"]["LinkA_2"]["description"].startswith("Another link")


def test_annotated_description_wins_over_docstring() -> None:
    @dataclasses.dataclass
    class C:
        """C.

        Attributes:
            a: From the docstring.
            b: From the docstring.
        """

        a: Annotated[int, "From Annotated"]
        b: int

    props = ToolDefinition.from_type(C).parameters["properties"]
    assert props["a"]["description"] == "From Annotated"
    assert props["b"]["description"] == "From the docstring."


def test_dataclass_init_false_fields_are_skipped() -> None:
    @dataclasses.dataclass
    class C:
        """C."""

        a: int
        b: int = dataclasses.field(init=False, default=0)

    assert list(ToolDefinition.from_type(C).parameters["properties"]) == ["a"]


# -- validate_arguments -------------------------------------------------------------------


def _td(
    props: dict[str, Any], required: Sequence[str] = (), strict: bool = True, **extra: Any
) -> ToolDefinition:
    schema: dict[str, Any] = {"type": "object", "properties": props, **extra}
    if required:
        schema["required"] = list(required)
    return ToolDefinition("t", "d", schema, strict)


ITEMS = {
    "items": {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
            "required": ["name"],
        },
    }
}

# (properties, required, arguments, error path or None when valid, message fragment)
VALIDATION_CASES: list[tuple[dict[str, Any], list[str], dict[str, Any], str | None, str]] = [
    ({"a": {"type": "string"}}, [], {"a": "x"}, None, ""),
    ({"a": {"type": "string"}}, [], {"a": 1}, "arguments.a", "expected string, got integer"),
    ({"a": {"type": "integer"}}, [], {"a": 1}, None, ""),
    ({"a": {"type": "integer"}}, [], {"a": 1.0}, None, ""),
    ({"a": {"type": "integer"}}, [], {"a": 1.5}, "arguments.a", "expected integer, got number"),
    ({"a": {"type": "integer"}}, [], {"a": True}, "arguments.a", "expected integer, got boolean"),
    ({"a": {"type": "number"}}, [], {"a": 1}, None, ""),
    ({"a": {"type": "number"}}, [], {"a": False}, "arguments.a", "got boolean"),
    ({"a": {"type": "boolean"}}, [], {"a": 0}, "arguments.a", "expected boolean"),
    ({"a": {"type": "null"}}, [], {"a": None}, None, ""),
    ({"a": {"type": "null"}}, [], {"a": ""}, "arguments.a", "expected null, got string"),
    ({"a": {"type": ["string", "null"]}}, [], {"a": None}, None, ""),
    ({"a": {"type": ["string", "null"]}}, [], {"a": 3}, "arguments.a", "expected string or null"),
    ({"a": {"type": "array"}}, [], {"a": {}}, "arguments.a", "expected array, got object"),
    ({"a": {"type": "object"}}, [], {"a": []}, "arguments.a", "expected object, got array"),
    ({"a": {}}, ["a"], {}, "arguments.a", "required property is missing"),
    ({"a": {}}, ["a"], {"a": None}, None, ""),
    ({"a": {}}, [], {"b": 1}, "arguments.b", "unexpected property"),
    (
        {"a": {"type": "object", "properties": {"b": {}}}},
        [],
        {"a": {"c": 1}},
        "arguments.a.c",
        "unexpected",
    ),
    ({"a": {"enum": ["x", 1]}}, [], {"a": 1.0}, None, ""),
    ({"a": {"enum": ["x", 1]}}, [], {"a": True}, "arguments.a", 'expected one of "x", 1'),
    ({"a": {"enum": [[1, 2]]}}, [], {"a": [1, 2]}, None, ""),
    ({"a": {"const": {"k": [1]}}}, [], {"a": {"k": [1.0]}}, None, ""),
    ({"a": {"const": 0}}, [], {"a": False}, "arguments.a", "expected the constant 0"),
    (ITEMS, [], {"items": [{"name": "a"}, {"name": "b", "qty": 2}]}, None, ""),
    (
        ITEMS,
        [],
        {"items": [{"name": "a"}, {"name": "b"}, {"name": 3}]},
        "arguments.items[2].name",
        "expected string",
    ),
    (ITEMS, [], {"items": [{"name": "a"}, {"qty": 1}]}, "arguments.items[1].name", "missing"),
    (
        ITEMS,
        [],
        {"items": [{"name": "a", "qty": 0}]},
        "arguments.items[0].qty",
        "less than minimum 1",
    ),
    (ITEMS, [], {"items": [{"name": "a", "x": 0}]}, "arguments.items[0].x", "unexpected"),
    (
        {"a": {"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}},
        [],
        {"a": ["s", 1, 2]},
        None,
        "",
    ),
    (
        {"a": {"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}},
        [],
        {"a": ["s", 1, "x"]},
        "arguments.a[2]",
        "expected integer",
    ),
    (
        {"a": {"prefixItems": [{"type": "string"}]}},
        [],
        {"a": [1]},
        "arguments.a[0]",
        "expected string",
    ),
    ({"a": {"items": [{"type": "string"}]}}, [], {"a": [1]}, "arguments.a[0]", "expected string"),
    ({"a": {"minItems": 2}}, [], {"a": [1]}, "arguments.a", "fewer than minItems 2"),
    ({"a": {"maxItems": 1}}, [], {"a": [1, 2]}, "arguments.a", "more than maxItems 1"),
    ({"a": {"uniqueItems": True}}, [], {"a": [1, True, "1", [1], {"x": 1}]}, None, ""),
    (
        {"a": {"uniqueItems": True}},
        [],
        {"a": [{"x": [1]}, {"x": [1.0]}]},
        "arguments.a[1]",
        "duplicate",
    ),
    ({"a": {"minLength": 2}}, [], {"a": "é"}, "arguments.a", "length 1, shorter than minLength 2"),
    ({"a": {"maxLength": 2}}, [], {"a": "abc"}, "arguments.a", "longer than maxLength 2"),
    ({"a": {"maxLength": 2}}, [], {"a": 12345}, None, ""),
    ({"a": {"pattern": "^[a-z]+$"}}, [], {"a": "abc"}, None, ""),
    ({"a": {"pattern": "^[a-z]+$"}}, [], {"a": "ABC"}, "arguments.a", "does not match"),
    ({"a": {"minimum": 0, "maximum": 10}}, [], {"a": 10}, None, ""),
    ({"a": {"maximum": 10}}, [], {"a": 10.5}, "arguments.a", "greater than maximum 10"),
    ({"a": {"exclusiveMinimum": 0}}, [], {"a": 0}, "arguments.a", "exclusiveMinimum"),
    ({"a": {"exclusiveMaximum": 1}}, [], {"a": 1}, "arguments.a", "exclusiveMaximum"),
    ({"a": {"multipleOf": 3}}, [], {"a": 9}, None, ""),
    ({"a": {"multipleOf": 0.1}}, [], {"a": 0.3}, None, ""),
    ({"a": {"multipleOf": 3}}, [], {"a": 10}, "arguments.a", "multiple of 3"),
    ({"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}, [], {"a": 1}, None, ""),
    (
        {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
        [],
        {"a": 1.5},
        "arguments.a",
        "matches none of the anyOf",
    ),
    (
        {
            "a": {
                "anyOf": [
                    {"type": "null"},
                    {"type": "object", "properties": {"b": {"type": "string"}}},
                ]
            }
        },
        [],
        {"a": {"b": 1}},
        "arguments.a.b",
        "expected string",
    ),
    ({"a": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}, [], {"a": 1.5}, None, ""),
    (
        {"a": {"oneOf": [{"type": "integer"}, {"type": "number"}]}},
        [],
        {"a": 1},
        "arguments.a",
        "matches 2 of the oneOf",
    ),
    (
        {"a": {"oneOf": [{"type": "integer"}, {"type": "null"}]}},
        [],
        {"a": "s"},
        "arguments.a",
        "matches none of the oneOf",
    ),
    ({"a": {"allOf": [{"minimum": 0}, {"maximum": 5}]}}, [], {"a": 6}, "arguments.a", "maximum 5"),
    ({"a": {"not": {"type": "string"}}}, [], {"a": "s"}, "arguments.a", "must not match"),
    ({"a": {"not": {"type": "string"}}}, [], {"a": 1}, None, ""),
    ({"a": False}, [], {"a": 1}, "arguments.a", "no value is allowed"),
    ({"a": True}, [], {"a": [1, {"b": None}]}, None, ""),
    (
        {"a": {"type": "object", "minProperties": 1}},
        [],
        {"a": {}},
        "arguments.a",
        "minProperties 1",
    ),
    (
        {"a": {"type": "object", "maxProperties": 1, "additionalProperties": True}},
        [],
        {"a": {"x": 1, "y": 2}},
        "arguments.a",
        "maxProperties 1",
    ),
    (
        {"a": {"type": "object", "additionalProperties": {"type": "integer"}}},
        [],
        {"a": {"x": 1, "y": "2"}},
        "arguments.a.y",
        "expected integer",
    ),
    (
        {"a": {"type": "object", "patternProperties": {"^n_": {"type": "integer"}}}},
        [],
        {"a": {"n_1": 1}},
        None,
        "",
    ),
    (
        {"a": {"type": "object", "patternProperties": {"^n_": {"type": "integer"}}}},
        [],
        {"a": {"n_1": "x"}},
        "arguments.a.n_1",
        "expected integer",
    ),
    (
        {"a": {"type": "object", "patternProperties": {"^n_": {"type": "integer"}}}},
        [],
        {"a": {"m": 1}},
        "arguments.a.m",
        "unexpected",
    ),
]


@pytest.mark.parametrize(("props", "required", "args", "path", "fragment"), VALIDATION_CASES)
def test_validate_arguments(
    props: dict[str, Any],
    required: list[str],
    args: dict[str, Any],
    path: str | None,
    fragment: str,
) -> None:
    d = _td(props, required)
    if path is None:
        d.validate_arguments(args)
        d.validate_arguments(ToolCall("c1", "t", args))
        return
    with pytest.raises(ValidationError) as info:
        d.validate_arguments(args)
    assert info.value.path == path
    assert fragment in info.value.message
    with pytest.raises(ValidationError) as info2:
        d.validate_arguments(ToolCall("c1", "t", json.dumps(args)))
    assert info2.value.path == path


def _comparable(props: dict[str, Any]) -> bool:
    a = props.get("a")
    if a == {"multipleOf": 0.1}:
        return False  # floats: a tolerance here, exact division in jsonschema
    return not (isinstance(a, dict) and isinstance(a.get("items"), list))  # draft-07 form


@pytest.mark.parametrize(
    ("props", "required", "args", "path", "fragment"),
    [case for case in VALIDATION_CASES if _comparable(case[0])],
)
def test_validator_agrees_with_jsonschema(
    props: dict[str, Any],
    required: list[str],
    args: dict[str, Any],
    path: str | None,
    fragment: str,
) -> None:
    wire = _td(props, required).wire_parameters()
    assert jsonschema.Draft202012Validator(wire).is_valid(args) == (path is None)


def test_strict_rejects_unknown_properties_only_when_strict() -> None:
    loose = _td({"a": {"type": "object"}}, strict=False)
    loose.validate_arguments({"a": {"x": 1}, "b": 2})
    strict = _td({"a": {"type": "object"}})
    with pytest.raises(ValidationError) as info:
        strict.validate_arguments({"a": {}, "b": 2})
    assert info.value.path == "arguments.b"
    with pytest.raises(ValidationError) as info:
        strict.validate_arguments({"a": {"x": 1}})
    assert info.value.path == "arguments.a.x"
    open_ = _td({}, additionalProperties=True)
    open_.validate_arguments({"anything": 1})


def test_validate_accepts_toolcall_and_checks_its_name() -> None:
    d = weather()
    d.validate_arguments(ToolCall("c1", "get_weather", {"city": "Paris"}))
    d.validate_arguments(ToolCall("c1", "get_weather", '{"city":"Paris","unit":"celsius"}'))
    with pytest.raises(ValidationError) as info:
        d.validate_arguments(ToolCall("c1", "other", {"city": "Paris"}))
    assert info.value.path == "name"


@pytest.mark.parametrize(
    ("arg", "path"),
    [
        ([("city", "x")], "arguments"),
        ("city", "arguments"),
        (None, "arguments"),
        ({"city": {1, 2}}, "arguments.city"),
        ({"city": float("nan")}, "arguments.city"),
        ({1: "x"}, "arguments"),
    ],
)
def test_validate_rejects_non_json_arguments(arg: Any, path: str) -> None:
    with pytest.raises(ValidationError) as info:
        weather().validate_arguments(arg)
    assert info.value.path == path


def _secret_cases() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    s = SECRET
    return [
        ({"a": {"type": "integer"}}, {"a": s}),
        ({"a": {"enum": ["x", "y"]}}, {"a": s}),
        ({"a": {"const": "x"}}, {"a": s}),
        ({"a": {"maxLength": 3}}, {"a": s}),
        ({"a": {"minLength": 300}}, {"a": s}),
        ({"a": {"pattern": "^[0-9]+$"}}, {"a": s}),
        ({"a": {"type": "string"}}, {"a": s, "b": s}),
        ({"a": {"type": "string"}}, {"a": [s]}),
        ({"a": {"uniqueItems": True}}, {"a": [s, s]}),
        ({"a": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}, {"a": s}),
        ({"a": {"oneOf": [{"type": "string"}, {"minLength": 1}]}}, {"a": s}),
        ({"a": {"not": {"type": "string"}}}, {"a": s}),
        ({"a": {"items": {"type": "object"}}}, {"a": [{"k": s}, s]}),
        ({"a": {"type": "object", "additionalProperties": {"type": "integer"}}}, {"a": {"k": s}}),
        ({"a": {"maximum": 1}}, {"a": 987654321987}),
    ]


@pytest.mark.parametrize(("props", "args"), _secret_cases())
def test_errors_never_contain_argument_values(props: dict[str, Any], args: dict[str, Any]) -> None:
    d = _td(props)
    for given_args in (args, ToolCall("c1", "t", args)):
        with pytest.raises(ValidationError) as info:
            d.validate_arguments(given_args)
        text = str(info.value) + repr(info.value) + repr(info.value.args)
        assert SECRET not in text
        assert "987654321987" not in text


def test_deep_recursive_data_gives_validation_error() -> None:
    d = ToolDefinition.from_type(Tree)
    node: dict[str, Any] = {"value": 0}
    for i in range(60):
        node = {"value": i, "children": [node]}
    with pytest.raises(ValidationError) as info:
        d.validate_arguments(node)
    assert "nested deeper" in info.value.message
    shallow: dict[str, Any] = {"value": 0}
    for i in range(20):
        shallow = {"value": i, "children": [shallow]}
    d.validate_arguments(shallow)


def test_validation_from_a_deep_call_stack_gives_validation_error() -> None:
    d = ToolDefinition.from_type(Tree)
    node: dict[str, Any] = {"value": 0}
    for i in range(40):
        node = {"value": i, "children": [node]}

    def nest(depth: int) -> None:
        if depth:
            nest(depth - 1)
        else:
            d.validate_arguments(node)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        with pytest.raises(ValidationError, match="too deeply to validate"):
            nest(150)
    finally:
        sys.setrecursionlimit(limit)


def test_reference_loop_in_schema_gives_validation_error() -> None:
    d = ToolDefinition(
        "t",
        "d",
        {
            "type": "object",
            "$defs": {"a": {"$ref": "#/$defs/a"}},
            "properties": {"x": {"$ref": "#/$defs/a"}},
        },
    )
    with pytest.raises(ValidationError) as info:
        d.validate_arguments({"x": 1})
    assert info.value.path == "arguments.x"


# -- property tests ---------------------------------------------------------------------

_finite = st.floats(allow_nan=False, allow_infinity=False)


def _item() -> st.SearchStrategy[Item]:
    return st.builds(Item, sku=st.text(max_size=8), qty=st.integers())


_orders = st.builds(
    Order,
    items=st.lists(_item(), max_size=3),
    color=st.sampled_from(Color),
    speed=st.sampled_from(["fast", "slow"]),
    note=st.none() | st.text(max_size=5),
    priority=st.sampled_from(Level),
    tags=st.dictionaries(st.text(max_size=4), st.integers(), max_size=3),
    gift=st.none() | _item(),
    score=_finite,
)


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


ORDER = ToolDefinition.from_type(Order)
FOREST = ToolDefinition.from_type(Forest)
POINT = ToolDefinition.from_type(Point)
MOVIE = ToolDefinition.from_type(Movie)


@settings(max_examples=60)
@given(_orders)
def test_generated_schema_accepts_dataclass_instances(order: Order) -> None:
    args = _plain(dataclasses.asdict(order))
    ORDER.validate_arguments(args)
    jsonschema.validate(args, ORDER.wire_parameters())


_trees: st.SearchStrategy[Tree] = st.deferred(
    lambda: st.builds(Tree, value=st.integers(), children=st.lists(_trees, max_size=2))
)


@settings(max_examples=40)
@given(st.lists(_trees, max_size=3), st.none() | _trees)
def test_generated_recursive_schema_accepts_instances(
    trees: list[Tree], biggest: Tree | None
) -> None:
    FOREST.validate_arguments(_plain(dataclasses.asdict(Forest(trees, biggest))))


@settings(max_examples=40)
@given(
    st.builds(Point, x=_finite, y=_finite, label=st.text(max_size=3)),
    st.fixed_dictionaries(
        {"title": st.text(max_size=5)}, optional={"year": st.integers(), "rating": _finite}
    ),
)
def test_generated_schema_accepts_namedtuple_and_typeddict(
    point: Point, movie: dict[str, Any]
) -> None:
    POINT.validate_arguments(point._asdict())
    MOVIE.validate_arguments(movie)


@settings(max_examples=60)
@given(
    _orders,
    st.sampled_from(["items", "color", "speed", "note", "tags", "score"]),
    st.sampled_from([[1], "s", 2.5, {"k": 1}]),
)
def test_wrong_field_type_is_reported_at_that_field(order: Order, field: str, bad: Any) -> None:
    args = _plain(dataclasses.asdict(order))
    args[field] = bad
    try:
        jsonschema.validate(args, ORDER.wire_parameters())
    except jsonschema.ValidationError:
        with pytest.raises(ValidationError) as info:
            ORDER.validate_arguments(args)
        assert info.value.path.startswith(f"arguments.{field}")
    else:
        ORDER.validate_arguments(args)


# Random schemas from a small grammar, random instances: our validator agrees with
# jsonschema's Draft 2020-12 validator on every pair.
_keys = st.sampled_from(["a", "b", "c"])
_scalar = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.5, 1.0, 2.0])
    | st.sampled_from(["", "a", "ab", "abc"])
)
_value = st.recursive(
    _scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=3),
    max_leaves=8,
)


def _schemas(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.fixed_dictionaries(
            {},
            optional={
                "type": st.sampled_from(
                    ["string", "integer", "number", "boolean", "null", "array", "object"]
                )
                | st.lists(
                    st.sampled_from(["string", "integer", "null", "object"]),
                    min_size=1,
                    max_size=2,
                    unique=True,
                ),
                "properties": st.dictionaries(_keys, inner, max_size=2),
                "required": st.lists(_keys, max_size=2, unique=True),
                "additionalProperties": st.booleans() | inner,
                "items": inner,
                "prefixItems": st.lists(inner, min_size=1, max_size=2),
                "enum": st.lists(_value, min_size=1, max_size=3),
                "const": _value,
                "minItems": st.integers(0, 3),
                "maxItems": st.integers(0, 3),
                "uniqueItems": st.booleans(),
                "minLength": st.integers(0, 3),
                "maxLength": st.integers(0, 3),
                "minimum": st.integers(-2, 2),
                "maximum": st.integers(-2, 2),
                "exclusiveMinimum": st.integers(-2, 2),
                "multipleOf": st.integers(1, 3),
                "pattern": st.sampled_from(["^a", "b$", "^$"]),
                "anyOf": st.lists(inner, min_size=1, max_size=2),
                "oneOf": st.lists(inner, min_size=1, max_size=2),
                "not": inner,
            },
        ),
        st.booleans(),
    )


_schema_strategy: st.SearchStrategy[Any] = st.recursive(st.just({}), _schemas, max_leaves=6)


@settings(max_examples=300)
@given(_schema_strategy, _value)
def test_validator_agrees_with_jsonschema_on_random_pairs(schema: Any, value: Any) -> None:
    expected = jsonschema.Draft202012Validator(schema).is_valid(value)
    try:
        validate(value, schema)
    except ValidationError:
        assert not expected
    else:
        assert expected


def _nullable_optionals(schema: Any) -> Any:
    """The schema where each declared, not required property also takes null.

    What validate_arguments's "null counts as absent" means, in plain JSON Schema
    (for schemas without patternProperties and min/maxProperties, as generated here).
    """
    if isinstance(schema, list):
        return [_nullable_optionals(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _nullable_optionals(v) for k, v in schema.items() if k != "properties"}
    if isinstance(schema.get("properties"), dict):
        required = schema.get("required", [])
        out["properties"] = {
            name: sub if name in required else {"anyOf": [sub, {"type": "null"}]}
            for name, sub in _nullable_optionals(schema["properties"]).items()
        }
    return out


@settings(max_examples=150)
@given(
    st.dictionaries(_keys, _schema_strategy, max_size=3), st.dictionaries(_keys, _value, max_size=3)
)
def test_strict_validation_matches_jsonschema_on_wire_parameters(
    props: dict[str, Any], args: dict[str, Any]
) -> None:
    d = _td(props)
    wire = _nullable_optionals(d.wire_parameters())
    expected = jsonschema.Draft202012Validator(wire).is_valid(args)
    try:
        d.validate_arguments(args)
    except ValidationError:
        assert not expected
    else:
        assert expected


@dataclasses.dataclass(frozen=True, slots=True)
class OwnedTool(ToolDefinition):
    """A user's subclass with a field of its own."""

    owner: str = ""


def test_a_subclass_with_its_own_field_survives_pickle_and_copy() -> None:
    tool = OwnedTool(
        "t", "d", {"type": "object", "properties": {"a": {"type": "string"}}}, owner="me"
    )
    for twin in (pickle.loads(pickle.dumps(tool)), copy.copy(tool), copy.deepcopy(tool)):
        assert type(twin) is OwnedTool
        assert twin == tool
        assert twin.owner == "me"
        assert twin.wire_parameters() == tool.wire_parameters()
    assert dataclasses.replace(tool, owner="you").owner == "you"
    tool.validate_arguments({"a": None})
