"""The JSON helpers every message uses: one JSON type name, one way to show a name."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages._frozen import SCALARS, FrozenDict, freeze
from messages._json import json_type, loads, show_name
from messages.errors import DecodeError


class Level(enum.IntEnum):
    LOW = 1


class Name(enum.StrEnum):
    A = "a"


class View(Mapping[str, int]):
    def __getitem__(self, key: str) -> int:
        raise KeyError(key)

    def __iter__(self) -> Any:
        return iter(())

    def __len__(self) -> int:
        return 0


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, "null"),
        (True, "boolean"),
        (0, "integer"),
        (10**40, "integer"),
        (1.0, "number"),
        (1.5, "number"),
        ("", "string"),
        ([], "array"),
        ((), "array"),
        (freeze([1]), "array"),
        ({}, "object"),
        (FrozenDict(), "object"),
        (View(), "object"),
        (Level.LOW, "integer"),
        (Name.A, "string"),
        (b"x", "bytes"),
        ({1}, "set"),
    ],
)
def test_json_type_speaks_json_schema(value: object, name: str) -> None:
    assert json_type(value) == name


@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=5,
    )
)
def test_json_type_of_every_json_value_is_a_json_schema_type(value: Any) -> None:
    names = {"null", "boolean", "integer", "number", "string", "array", "object"}
    assert json_type(value) in names
    assert json_type(freeze(value)) == json_type(value)


def test_json_scalar_types_are_what_loads_gives() -> None:
    assert {type(v) for v in loads('[null, true, 1, 1.5, "s"]')} == SCALARS


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("get_weather", "get_weather"),
        ("", ""),
        ("tab\there", "tab\\there"),
        ("quote'and\"both", "quote'and\"both"),
        ("quote'and\"both\n", "quote\\'and\"both\\n"),
        ("x" * 100, "x" * 61 + "..."),
    ],
)
def test_show_name_escapes_and_cuts(name: str, shown: str) -> None:
    assert show_name(name) == shown


@given(st.text(max_size=300))
def test_show_name_is_printable_and_short(name: str) -> None:
    shown = show_name(name)
    assert shown.isprintable()
    assert len(shown) <= 64
    if name.isprintable() and len(name) <= 64:
        assert shown == name


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('"abc', "invalid JSON (Unterminated string starting at line 1 column 1)"),
        ('"a\x01"', "invalid JSON (Invalid control character at line 1 column 3)"),
        ("[1,", "invalid JSON (Expecting value at line 1 column 4)"),
    ],
)
def test_a_syntax_error_says_where_once(text: str, message: str) -> None:
    with pytest.raises(DecodeError) as e:
        loads(text)
    assert e.value.message == message
