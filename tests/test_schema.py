"""Schema checking and strict rewriting are depth-bounded; names in paths are escaped."""

from __future__ import annotations

import functools
import sys
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import DecodeError, ToolDefinition, ValidationError
from messages._frozen import freeze
from messages.tools._schema import MAX_DEPTH, check_nesting, check_schema, strict_schema
from messages.tools._validate import validate

T = TypeVar("T")


def nested_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def nested_items(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    for _ in range(levels):
        schema = {"type": "array", "items": schema}
    return schema


def test_check_nesting_refuses_deep_values_without_recursing() -> None:
    check_nesting(nested_schema(MAX_DEPTH // 2 - 1))
    with pytest.raises(ValidationError) as info:
        check_nesting(nested_schema(1000))  # 2000 levels: no recursion limit meets it
    assert info.value.message == f"nested deeper than {MAX_DEPTH} levels"
    assert info.value.path.startswith("parameters.properties.a.properties.a")
    with pytest.raises(ValidationError) as info:
        check_nesting({"x": [[[1]]]}, "body", limit=3)
    assert info.value.path == "body.x[0][0]"


def with_little_stack(headroom: int, fn: Callable[[], T]) -> T:
    """Run ``fn`` with only ``headroom`` frames of stack left (a caller deep in recursion)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(traceback.extract_stack()) + headroom)
    try:
        return fn()
    finally:
        sys.setrecursionlimit(limit)


def test_check_nesting_from_a_deep_call_stack() -> None:
    deep = nested_items(5000)
    with pytest.raises(ValidationError):
        with_little_stack(40, lambda: check_nesting(deep))


def test_check_nesting_names_keys_escaped_and_cut() -> None:
    key = "k\n" + "x" * 100
    with pytest.raises(ValidationError) as info:
        check_nesting({key: [[1]]}, "p", limit=2)
    assert info.value.path == "p." + ("k\\n" + "x" * 100)[:61] + "...[0]"


@pytest.mark.parametrize("schema", [nested_schema(MAX_DEPTH + 5), nested_items(MAX_DEPTH + 5)])
def test_check_and_strict_schema_refuse_schemas_nested_too_deeply(schema: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match=f"nested deeper than {MAX_DEPTH} levels"):
        check_schema(schema)
    with pytest.raises(ValidationError, match=f"nested deeper than {MAX_DEPTH} levels"):
        strict_schema(schema)
    with pytest.raises(ValidationError):
        ToolDefinition("t", "d", schema)


def test_a_schema_nested_1000_deep_is_a_validation_error() -> None:
    with pytest.raises(ValidationError):
        ToolDefinition("t", "d", nested_schema(1000))
    with pytest.raises(DecodeError):
        ToolDefinition.from_dict(
            {"name": "t", "description": "d", "parameters": nested_schema(1000)}
        )


def test_schemas_within_the_limit_are_accepted() -> None:
    d = ToolDefinition("t", "d", nested_schema(40))
    args: Any = "x"
    for _ in range(40):
        args = {"a": args}
    d.validate_arguments(args)


def test_check_schema_and_strict_schema_from_a_deep_call_stack() -> None:
    # Within MAX_DEPTH, so only the stack can stop the walk; at least one frame per
    # level on every Python version (3.12 inlines comprehensions), more than the 80 left.
    frozen = freeze(nested_items(MAX_DEPTH - 10))
    for fn in (check_schema, strict_schema):
        with pytest.raises(ValidationError) as info:
            with_little_stack(80, functools.partial(fn, frozen))
        assert info.value.message == "nested too deeply to check"


# -- names in paths ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ("plain", "plain"),
        ("with space", "with space"),
        ("a\nb", "a\\nb"),
        ("\x1b[31mred", "\\x1b[31mred"),
        ("é", "é"),
        ("k" * 64, "k" * 64),
        ("k" * 65, "k" * 61 + "..."),
        ("\n" * 40, "\\n" * 30 + "\\..."),
    ],
)
def test_unexpected_keys_in_paths_are_escaped_and_cut(key: str, shown: str) -> None:
    d = ToolDefinition("t", "d", {"type": "object", "properties": {}})
    with pytest.raises(ValidationError) as info:
        d.validate_arguments({key: 1})
    assert info.value.path == f"arguments.{shown}"


def test_declared_names_in_paths_are_escaped_too() -> None:
    name = "line\nbreak"
    schema = {"type": "object", "properties": {name: {"type": "integer"}}}
    with pytest.raises(ValidationError) as info:
        validate({name: "x"}, schema)
    assert info.value.path == "arguments.line\\nbreak"
    with pytest.raises(ValidationError) as info:
        ToolDefinition("t", "d", {"type": "object", "properties": {name: {"type": 3}}})
    assert info.value.path == "parameters.properties.line\\nbreak.type"


@given(st.text(max_size=200))
def test_any_key_shows_at_most_64_printable_characters(key: str) -> None:
    d = ToolDefinition("t", "d", {"type": "object", "properties": {}})
    with pytest.raises(ValidationError) as info:
        d.validate_arguments({key: 1})
    shown = info.value.path.removeprefix("arguments.")
    assert len(shown) <= 64
    assert shown.isprintable()
