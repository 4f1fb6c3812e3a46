"""ToolCall.arguments_as: values checked against the target's type hints and built.

This module uses ``from __future__ import annotations`` on purpose: every annotation
below is a string that arguments_as resolves with typing.get_type_hints.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import gc
import math
import sys
import traceback
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import (
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

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import ToolCall, ToolDefinition, ValidationError
from messages.tools import _arguments as arguments_module
from tests.conftest import SECRET


def build(cls: Callable[..., Any], args: Mapping[str, Any]) -> Any:
    return ToolCall("c", "f", args).arguments_as(cls)


def fail(cls: Callable[..., Any], args: Mapping[str, Any]) -> ValidationError:
    """Expect a ValidationError that shows no argument value anywhere."""
    with pytest.raises(ValidationError) as info:
        build(cls, args)
    err = info.value
    for text in (str(err), repr(err), err.path, err.message):
        assert SECRET not in text
    # Raised without a chain: the target's own exception may quote values.
    assert err.__cause__ is None
    assert err.__context__ is None
    return err


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Item:
    sku: str
    qty: int


class ItemTD(TypedDict):
    sku: str
    qty: int


class ItemNT(NamedTuple):
    sku: str
    qty: int = 1


@dataclasses.dataclass
class Order:
    items: list[Item]
    note: str | None = None
    color: Color = Color.RED
    tags: set[str] = dataclasses.field(default_factory=set)
    by_name: dict[str, Item] = dataclasses.field(default_factory=dict)
    pair: tuple[int, str] = (0, "")
    spare: Item | None = None
    kind: Literal["a", "b"] = "a"


@dataclasses.dataclass
class Node:
    name: str
    children: list[Node] = dataclasses.field(default_factory=list)


def box(annotation: Any) -> type:
    """A dataclass with one field ``x`` of the given annotation."""
    return dataclasses.make_dataclass("Box", [("x", annotation)])


# -- scalars, unions, literals, enums ---------------------------------------------------

UserId = NewType("UserId", int)


@pytest.mark.parametrize(
    ("annotation", "value", "expected"),
    [
        (str, "a", "a"),
        (str, "", ""),
        (int, 3, 3),
        (int, -(2**70), -(2**70)),
        (int, 3.0, 3),  # 3.0 is an integer in JSON, as validate_arguments says
        (float, 1.5, 1.5),
        (float, 2, 2.0),
        (bool, True, True),
        (bool, False, False),
        (None, None, None),
        (type(None), None, None),
        (Any, [1, {"a": [2]}], [1, {"a": [2]}]),
        (object, "x", "x"),
        (Optional[int], None, None),  # noqa: UP045 - the typing spelling is tested
        (int | None, 4, 4),
        (Union[int, str], "s", "s"),  # noqa: UP007 - the typing spelling is tested
        (int | str, 5, 5),
        (int | float, 5, 5),  # an exact fit wins: stays an int
        (float | int, 5, 5),
        (float | str, 5, 5.0),
        (Literal["a", 2, True], "a", "a"),
        (Literal["a", 2, True], 2, 2),
        (Literal["a", 2, True], 2.0, 2),
        (Literal["a", 2, True], True, True),
        (Color, "green", Color.GREEN),
        (Level, 2, Level.HIGH),
        (Literal[Color.RED], "red", Color.RED),
        (UserId, 7, 7),
    ],
)
def test_scalar_annotations_accept_and_build(annotation: Any, value: Any, expected: Any) -> None:
    got = build(box(annotation), {"x": value}).x
    assert got == expected
    assert type(got) is type(expected)


@pytest.mark.parametrize(
    ("annotation", "value", "message"),
    [
        (str, 1, "expected str, got integer"),
        (str, None, "expected str, got null"),
        (int, "1", "expected int, got string"),
        (int, True, "expected int, got boolean"),  # bool is not an int here
        (int, 1.5, "expected int, got number"),
        (float, "1.5", "expected float, got string"),
        (float, False, "expected float, got boolean"),
        (float, 10**400, "expected float, got an integer too large for a float"),
        (bool, 1, "expected bool, got integer"),
        (bool, "true", "expected bool, got string"),
        (None, 0, "expected None, got integer"),
        (Optional[int], "x", "expected int | None, got string"),  # noqa: UP045 - the spelling is tested
        (int | str, [1], "expected int | str, got array"),
        (int | str | None, 1.5, "expected int | str | None, got number"),
        (Literal["a", 2], "b", "expected Literal['a', 2], got string"),
        (Literal["a", 2], 1, "expected Literal['a', 2], got integer"),
        (Literal[1], True, "expected Literal[1], got boolean"),
        (Color, "blue", "expected Color ('red', 'green'), got string"),
        (Color, {"v": "red"}, "expected Color ('red', 'green'), got object"),
        (Level, "1", "expected Level (1, 2), got string"),
        (list[int], {"a": 1}, "expected list[int], got object"),
        (dict[str, int], [1], "expected dict[str, int], got array"),
        (Item, [1], "expected Item, got array"),
        (UserId, "7", "expected int, got string"),
    ],
)
def test_scalar_annotations_reject_with_types_not_values(
    annotation: Any, value: Any, message: str
) -> None:
    err = fail(box(annotation), {"x": value})
    assert err.message == f"arguments do not fit Box: {message}"
    assert err.path == "arguments.x"


# -- containers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("annotation", "value", "expected"),
    [
        (list[int], [1, 2.0], [1, 2]),
        (list, [1, {"a": [2]}], [1, {"a": [2]}]),
        (Sequence[str], ["a"], ["a"]),
        (tuple[int, ...], [1, 2], (1, 2)),
        (tuple[int, str], [1, "a"], (1, "a")),
        (tuple[()], [], ()),
        (tuple, [1, [2]], (1, [2])),
        (set[str], ["a", "b", "a"], {"a", "b"}),
        (frozenset[int], [1, 2], frozenset({1, 2})),
        (dict[str, float], {"a": 1, "b": 2.5}, {"a": 1.0, "b": 2.5}),
        (Mapping[str, bool], {"a": True}, {"a": True}),
        (dict, {"a": [1]}, {"a": [1]}),
        (dict[int, str], {"1": ["not checked"]}, {"1": ["not checked"]}),
        (list[list[int]], [[1], [], [2, 3]], [[1], [], [2, 3]]),
    ],
)
def test_containers_are_built_as_annotated(annotation: Any, value: Any, expected: Any) -> None:
    got = build(box(annotation), {"x": value}).x
    assert got == expected
    assert type(got) is type(expected)


def test_containers_are_plain_and_mutable() -> None:
    @dataclasses.dataclass
    class C:
        xs: list[int]
        m: dict[str, list[int]]
        anything: Any

    got = build(C, {"xs": [1], "m": {"a": [1]}, "anything": {"k": [1]}})
    got.xs.append(2)
    got.m["a"].append(2)
    got.anything["k"].append(2)
    assert (got.xs, got.m, got.anything) == ([1, 2], {"a": [1, 2]}, {"k": [1, 2]})


@pytest.mark.parametrize(
    ("annotation", "value", "path", "message"),
    [
        (list[int], [1, 2, "x"], "arguments.x[2]", "expected int, got string"),
        (tuple[int, str], [1, 2], "arguments.x[1]", "expected str, got integer"),
        (
            tuple[int, str],
            [1, "a", 3],
            "arguments.x",
            "expected tuple[int, str] (2 items), got an array of 3 items",
        ),
        (set[int], [1, None], "arguments.x[1]", "expected int, got null"),
        # A mapping's keys are data, not field names: never in the path.
        (dict[str, int], {SECRET: "v"}, "arguments.x.*", "expected int, got string"),
        (list[list[int]], [[1], [2, None]], "arguments.x[1][1]", "expected int, got null"),
    ],
)
def test_container_errors_name_the_item(
    annotation: Any, value: Any, path: str, message: str
) -> None:
    err = fail(box(annotation), {"x": value})
    assert (err.path, err.message) == (path, f"arguments do not fit Box: {message}")


def test_set_of_unhashable_items_is_a_validation_error() -> None:
    err = fail(box(set[Item]), {"x": [{"sku": "a", "qty": 1}]})
    assert err.message == "arguments do not fit Box: the items of set[Item] are not hashable"


# -- nested records ----------------------------------------------------------------------

ORDER_ARGS: dict[str, Any] = {
    "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}],
    "note": "n",
    "color": "green",
    "tags": ["t"],
    "by_name": {"k": {"sku": "c", "qty": 3}},
    "pair": [4, "p"],
    "spare": {"sku": "d", "qty": 5},
    "kind": "b",
}


def test_nested_records_are_built_everywhere() -> None:
    assert build(Order, ORDER_ARGS) == Order(
        items=[Item("a", 1), Item("b", 2)],
        note="n",
        color=Color.GREEN,
        tags={"t"},
        by_name={"k": Item("c", 3)},
        pair=(4, "p"),
        spare=Item("d", 5),
        kind="b",
    )


def test_nested_typeddict_and_namedtuple() -> None:
    @dataclasses.dataclass
    class Mixed:
        tds: list[ItemTD]
        nts: tuple[ItemNT, ...]
        either: ItemNT | int

    got = build(
        Mixed,
        {"tds": [{"sku": "a", "qty": 1}], "nts": [{"sku": "b"}], "either": {"sku": "c", "qty": 2}},
    )
    assert got == Mixed([{"sku": "a", "qty": 1}], (ItemNT("b", 1),), ItemNT("c", 2))
    assert type(got.nts[0]) is ItemNT


@pytest.mark.parametrize(
    ("args", "path", "message"),
    [
        (
            {
                "items": [
                    {"sku": "a", "qty": 1},
                    {"sku": "b", "qty": 2},
                    {"sku": "c", "qty": SECRET},
                ]
            },
            "arguments.items[2].qty",
            "expected int, got string",
        ),
        ({"items": [{"sku": "a"}]}, "arguments.items[0]", "missing qty for Item"),
        (
            {"items": [{"sku": "a", "qty": 1, "price": SECRET}]},
            "arguments.items[0]",
            "unexpected price for Item",
        ),
        (
            {"items": [], "spare": {"sku": SECRET, "qty": SECRET}},
            "arguments.spare.qty",
            "expected int, got string",
        ),
        ({"items": [], "spare": SECRET}, "arguments.spare", "expected Item | None, got string"),
        (
            {"items": [], "by_name": {SECRET: {"sku": 1, "qty": 1}}},
            "arguments.by_name.*.sku",
            "expected str, got integer",
        ),
        (
            {"items": [], "color": SECRET},
            "arguments.color",
            "expected Color ('red', 'green'), got string",
        ),
        ({"items": SECRET}, "arguments.items", "expected list[Item], got string"),
        ({}, "arguments", "missing items"),
    ],
)
def test_nested_errors_have_paths_and_no_values(
    args: dict[str, Any], path: str, message: str
) -> None:
    err = fail(Order, args)
    assert (err.path, err.message) == (path, f"arguments do not fit Order: {message}")


def test_union_reports_the_branch_that_takes_the_json_type() -> None:
    err = fail(box(Item | int | None), {"x": {"sku": "a", "qty": "1"}})
    assert (err.path, err.message) == (
        "arguments.x.qty",
        "arguments do not fit Box: expected int, got string",
    )


def test_recursive_type() -> None:
    args: dict[str, Any] = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}
    assert build(Node, args) == Node("a", [Node("b", [Node("c")])])
    args["children"][0]["children"][0]["name"] = 3
    assert fail(Node, args).path == "arguments.children[0].children[0].name"


def test_deep_recursive_input_is_built() -> None:
    args: dict[str, Any] = {"name": "leaf"}
    for _ in range(90):  # 180 levels of JSON nesting; ToolCall refuses over 200
        args = {"name": "n", "children": [args]}
    node = build(Node, args)
    for _ in range(90):
        node = node.children[0]
    assert node == Node("leaf")


def test_running_out_of_stack_is_a_validation_error() -> None:
    args: dict[str, Any] = {"name": "leaf"}
    for _ in range(90):
        args = {"name": "n", "children": [args]}
    call = ToolCall("c", "f", args)
    call.arguments_as(Node)  # compiled before the limit is lowered
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(traceback.extract_stack()) + 60)
    try:
        with pytest.raises(ValidationError) as info:
            call.arguments_as(Node)
    finally:
        sys.setrecursionlimit(limit)
    assert (info.value.path, info.value.message) == (
        "arguments",
        "arguments do not fit Node: nested too deeply",
    )


# -- TypedDict requiredness --------------------------------------------------------------


class Flags(TypedDict):
    a: int
    b: NotRequired[list[int]]


class Loose(TypedDict, total=False):
    a: Required[int]
    b: float


def test_typeddict_not_required_and_required_under_string_annotations() -> None:
    # With `from __future__ import annotations` Python 3.10/3.11 put NotRequired keys in
    # __required_keys__ anyway; arguments_as reads the qualifiers itself.
    assert build(Flags, {"a": 1}) == {"a": 1}
    assert build(Flags, {"a": 1, "b": [2]}) == {"a": 1, "b": [2]}
    assert fail(Flags, {"b": [1]}).message == "arguments do not fit Flags: missing a"
    assert fail(Flags, {"a": 1, "b": [1, "x"]}).path == "arguments.b[1]"
    assert build(Loose, {"a": 1}) == {"a": 1}
    got = build(Loose, {"a": 1, "b": 2})
    assert got == {"a": 1, "b": 2.0}
    assert type(got["b"]) is float
    assert fail(Loose, {"b": 1.0}).message == "arguments do not fit Loose: missing a"


def test_missing_optional_without_default_is_none() -> None:
    # from_type / from_function leave Optional fields out of "required", so a model
    # may omit them: they are passed as None.
    @dataclasses.dataclass
    class Q:
        a: int | None
        b: int | None

    class QT(TypedDict):
        a: int | None

    def f(a: str | None, *, b: int) -> tuple[str | None, int]:
        return (a, b)

    assert build(Q, {}) == Q(None, None)
    assert build(QT, {}) == {"a": None}
    assert build(f, {"b": 1}) == (None, 1)
    assert "required" not in ToolDefinition.from_type(Q, "q", "d").parameters


# -- annotations that are not checked -------------------------------------------------------


def test_unresolvable_forward_reference_is_not_checked() -> None:
    @dataclasses.dataclass
    class Local:
        a: int
        b: Missing  # type: ignore[name-defined]  # noqa: F821 - deliberately unresolvable
        c: list[Item]

    got = build(Local, {"a": 1, "b": {"any": [1]}, "c": [{"sku": "s", "qty": 1}]})
    assert (got.a, got.b, got.c) == (1, {"any": [1]}, [Item("s", 1)])
    assert fail(Local, {"a": "1", "b": 1, "c": []}).path == "arguments.a"


def test_unsupported_and_missing_annotations_are_not_checked() -> None:
    class Plain:
        def __init__(self, a, b: bytes, c: Callable[[], int], d: int = 0) -> None:  # type: ignore[no-untyped-def]
            self.values = (a, b, c, d)

    got = build(Plain, {"a": [1], "b": "x", "c": {"k": None}, "d": 4})
    assert got.values == ([1], "x", {"k": None}, 4)
    assert fail(Plain, {"a": 1, "b": 1, "c": 1, "d": "4"}).path == "arguments.d"


# -- callables -------------------------------------------------------------------------------


def search(query: str, limit: int = 10, *, tags: list[str] | None = None) -> tuple[Any, ...]:
    return (query, limit, tags)


class Searcher:
    def __init__(self, query: str, limit: int = 10) -> None:
        self.args = (query, limit)

    def run(self, query: str, level: Level) -> tuple[str, Level]:
        return (query, level)


def test_function_parameters_are_checked() -> None:
    assert build(search, {"query": "q", "tags": ["a"]}) == ("q", 10, ["a"])
    err = fail(search, {"query": "q", "tags": ["a", 1]})
    assert (err.path, err.message) == (
        "arguments.tags[1]",
        "arguments do not fit search: expected str, got integer",
    )
    assert (
        fail(search, {"query": "q", "zzz": 1}).message
        == "arguments do not fit search: unexpected zzz"
    )


def test_class_init_bound_method_and_partial() -> None:
    assert build(Searcher, {"query": "q"}).args == ("q", 10)
    assert fail(Searcher, {"query": "q", "limit": "3"}).path == "arguments.limit"
    assert build(Searcher("x").run, {"query": "q", "level": 1}) == ("q", Level.LOW)
    assert fail(Searcher("x").run, {"query": "q", "level": 3}).path == "arguments.level"
    part = functools.partial(search, limit=3)
    assert build(part, {"query": "q"}) == ("q", 3, None)
    assert fail(part, {"query": 1}).path == "arguments.query"


def test_var_keyword_values_are_checked_against_their_annotation() -> None:
    def f(a: int, **rest: bool) -> dict[str, Any]:
        return {"a": a, **rest}

    assert build(f, {"a": 1, "b": True}) == {"a": 1, "b": True}
    err = fail(f, {"a": 1, "b": SECRET})
    assert (err.path, err.message) == (
        "arguments.b",
        "arguments do not fit f: expected bool, got string",
    )
    assert build(lambda **kw: kw, {"a": [1, {"b": 2}]}) == {"a": [1, {"b": 2}]}


def test_callable_without_signature() -> None:
    assert build(dict, {"a": [1]}) == {"a": [1]}
    assert fail(int, {"a": SECRET}).message == "arguments rejected by int (TypeError)"


# -- the target's own exceptions ------------------------------------------------------------


class Refusal(Exception):
    pass


@dataclasses.dataclass
class Picky:
    x: str

    def __post_init__(self) -> None:
        if self.x != "ok":
            raise {"key": KeyError, "value": ValueError, "own": Refusal}.get(self.x, TypeError)(
                f"bad value {self.x}"
            )


@pytest.mark.parametrize(
    ("value", "exc_name"),
    [("key", "KeyError"), ("value", "ValueError"), ("own", "Refusal"), (SECRET, "TypeError")],
)
def test_any_exception_of_the_target_becomes_validation_error(value: str, exc_name: str) -> None:
    err = fail(Picky, {"x": value})
    assert (err.path, err.message) == ("arguments", f"arguments rejected by Picky ({exc_name})")


def test_exception_of_a_nested_target_names_it() -> None:
    @dataclasses.dataclass
    class Outer:
        inner: list[Picky]

    err = fail(Outer, {"inner": [{"x": "ok"}, {"x": SECRET}]})
    assert (err.path, err.message) == (
        "arguments.inner[1]",
        "arguments do not fit Outer: rejected by Picky (TypeError)",
    )


def test_base_exceptions_are_not_swallowed() -> None:
    def stop(x: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build(stop, {"x": 1})


# -- caching ----------------------------------------------------------------------------------


def test_plans_are_cached_and_bounded() -> None:
    build(Order, ORDER_ARGS)
    plan = arguments_module._PLANS[Order]
    build(Order, ORDER_ARGS)
    assert arguments_module._PLANS[Order] is plan
    for i in range(arguments_module._PLANS_MAX + 10):
        assert build(lambda n=i, **kw: n, {}) == i
    assert len(arguments_module._PLANS) <= arguments_module._PLANS_MAX


def test_unhashable_callable_still_works() -> None:
    class Unhashable:
        __hash__ = None  # type: ignore[assignment]

        def __call__(self, a: int) -> int:
            return a

    assert build(Unhashable(), {"a": 1}) == 1
    assert fail(Unhashable(), {"a": "1"}).path == "arguments.a"


# -- properties ---------------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["a", "b", "red", "green", SECRET, 2, 2.0, 1, 1.5, "sku", "qty"])
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4)
        # Keys are not secret-free by contract (an unexpected key is named), values are.
        | st.dictionaries(
            st.sampled_from(["sku", "qty", "x"]) | st.text(max_size=4), children, max_size=3
        )
    ),
    max_leaves=10,
)


def _is_int(v: Any) -> bool:
    return type(v) is int or (type(v) is float and v.is_integer())


def _is_number(v: Any) -> bool:
    return type(v) in (int, float)


def _is_item(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and set(v) == {"sku", "qty"}
        and type(v["sku"]) is str
        and _is_int(v["qty"])
    )


def _item(v: Any) -> Item:
    return Item(v["sku"], int(v["qty"]))


def _each(ok: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and all(ok(x) for x in v)


# (annotation, does the JSON value fit, what it builds)
ORACLES: list[tuple[Any, Callable[[Any], bool], Callable[[Any], Any]]] = [
    (str, lambda v: type(v) is str, lambda v: v),
    (int, _is_int, int),
    (float, _is_number, float),
    (bool, lambda v: type(v) is bool, lambda v: v),
    (None, lambda v: v is None, lambda v: v),
    (Any, lambda v: True, lambda v: v),
    (int | None, lambda v: v is None or _is_int(v), lambda v: v if v is None else int(v)),
    (
        int | str,
        lambda v: type(v) is str or _is_int(v),
        lambda v: v if type(v) is str else int(v),
    ),
    (
        Literal["a", 2],
        lambda v: v == "a" or (_is_int(v) and v == 2),
        lambda v: v if v == "a" else 2,
    ),
    (Color, lambda v: v in ("red", "green"), Color),
    (list[int], _each(_is_int), lambda v: [int(x) for x in v]),
    (Sequence[str], _each(lambda x: type(x) is str), list),
    (tuple[int, ...], _each(_is_int), lambda v: tuple(int(x) for x in v)),
    (
        tuple[int, str],
        lambda v: isinstance(v, list) and len(v) == 2 and _is_int(v[0]) and type(v[1]) is str,
        lambda v: (int(v[0]), v[1]),
    ),
    (set[str], _each(lambda x: type(x) is str), set),
    (frozenset[float], _each(_is_number), lambda v: frozenset(float(x) for x in v)),
    (
        dict[str, float],
        lambda v: isinstance(v, dict) and all(_is_number(x) for x in v.values()),
        lambda v: {k: float(x) for k, x in v.items()},
    ),
    (Mapping[str, Any], lambda v: isinstance(v, dict), lambda v: v),
    (Item, _is_item, _item),
    (Item | None, lambda v: v is None or _is_item(v), lambda v: None if v is None else _item(v)),
    (list[Item], _each(_is_item), lambda v: [_item(x) for x in v]),
]


def _typed(v: Any) -> Any:
    """A structure equal only for equal values of the same types (1 != 1.0, list != tuple)."""
    if isinstance(v, dict):
        return ("dict", sorted((k, repr(_typed(x))) for k, x in v.items()))
    if isinstance(v, (set, frozenset)):
        return (type(v).__name__, sorted(repr(_typed(x)) for x in v))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [_typed(x) for x in v])
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return (type(v).__name__, _typed(dataclasses.asdict(v)))
    return (type(v).__name__, v)


@pytest.mark.parametrize(("annotation", "fits", "expected"), ORACLES, ids=lambda x: repr(x)[:30])
@given(value=json_values)
def test_each_annotation_builds_or_rejects_any_json_value(
    annotation: Any, fits: Callable[[Any], bool], expected: Callable[[Any], Any], value: Any
) -> None:
    # The invariant: built exactly as the annotation says, or a ValidationError that
    # names the place and shows no value; never another exception.
    cls = box(annotation)
    if fits(value):
        assert _typed(build(cls, {"x": value}).x) == _typed(expected(value))
    else:
        err = fail(cls, {"x": value})
        assert err.path.startswith("arguments.x")
        assert err.message.startswith("arguments do not fit Box: ")


@given(
    st.dictionaries(
        st.sampled_from(list(ORDER_ARGS)) | st.text(max_size=5), json_values, max_size=8
    )
)
def test_any_arguments_build_or_raise_validation_error(args: dict[str, Any]) -> None:
    for target in (Order, Node, search, Flags):
        err = _error_or_none(target, args)
        if err is not None:
            assert SECRET not in str(err)
            assert SECRET not in repr(err)
            assert err.path == "arguments" or err.path.startswith("arguments.")


def _error_or_none(target: Callable[..., Any], args: dict[str, Any]) -> ValidationError | None:
    try:
        build(target, args)
    except ValidationError as err:
        return err
    return None


@dataclasses.dataclass
class Report:
    title: str
    items: list[Item]
    scores: dict[str, float]
    level: Level
    kind: Literal["a", "b"] = "a"
    when: tuple[int, int] | None = None
    parent: Item | None = None


def _near(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly right values, sometimes any JSON value."""
    return st.one_of(value, value, value, json_values)


item_json = st.fixed_dictionaries(
    {"sku": _near(st.text(max_size=3)), "qty": _near(st.integers(-5, 5))},
    optional={"extra": json_values},
)
report_json = st.fixed_dictionaries(
    {"title": _near(st.text(max_size=3)), "items": _near(st.lists(_near(item_json), max_size=3))},
    optional={
        "scores": _near(
            st.dictionaries(st.text(max_size=3), _near(st.floats(-1e9, 1e9)), max_size=3)
        ),
        "level": _near(st.sampled_from([1, 2])),
        "kind": _near(st.sampled_from(["a", "b"])),
        "when": _near(st.none() | st.lists(_near(st.integers(0, 9)), min_size=2, max_size=2)),
        "parent": _near(st.none() | item_json),
        "bogus": json_values,
    },
)
REPORT_TOOL = ToolDefinition.from_type(Report, "report", "Make a report.")


@given(report_json)
def test_agrees_with_the_generated_schema(args: dict[str, Any]) -> None:
    # What validate_arguments accepts for a from_type schema, arguments_as builds, and
    # the other way round (the schema is closed: strict=True).
    try:
        REPORT_TOOL.validate_arguments(args)
        valid = True
    except ValidationError:
        valid = False
    try:
        build(Report, args)
        built = True
    except ValidationError:
        built = False
    assert valid == built


items = st.builds(Item, st.text(max_size=4), st.integers())
orders = st.builds(
    Order,
    items=st.lists(items, max_size=3),
    note=st.none() | st.text(max_size=4),
    color=st.sampled_from(Color),
    tags=st.sets(st.text(max_size=3), max_size=3),
    by_name=st.dictionaries(st.text(max_size=3), items, max_size=2),
    pair=st.tuples(st.integers(), st.text(max_size=3)),
    spare=st.none() | items,
    kind=st.sampled_from(["a", "b"]),
)


def _to_json(v: Any) -> Any:
    if isinstance(v, enum.Enum):
        return v.value
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {f.name: _to_json(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, dict):
        return {k: _to_json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        return [_to_json(x) for x in v]
    return v


@given(orders)
def test_round_trip_through_json_arguments(order: Order) -> None:
    call = ToolCall("c", "f", _to_json(order))
    assert call.arguments_as(Order) == order
    assert ToolCall("c", "f", call.arguments_json).arguments_as(Order) == order


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_round_trip_exactly(x: float) -> None:
    got = build(box(float), {"x": x}).x
    assert got == x
    assert math.copysign(1.0, got) == math.copysign(1.0, x)


def test_unexpected_keys_are_named_only_when_short_and_printable() -> None:
    args = {"city": "x", "zip": 1, "k" * 65: 1, "a\nb": 1}
    err = fail(Item, {"sku": "s", "qty": 1, **args})
    assert err.message == (
        "arguments do not fit Item: unexpected <key of length 3>, city, <key of length 65>, zip"
    )
    many = {f"k{i}": i for i in range(10)}
    err = fail(Item, {"sku": "s", "qty": 1, **many})
    assert err.message.endswith("unexpected k0, k1, k2, k3, k4, k5, k6, k7 and 2 more")


# -- the plan cache ----------------------------------------------------------------------


def test_equal_callables_are_each_called_themselves() -> None:
    # a cached plan never calls the target it was compiled for
    @dataclasses.dataclass(frozen=True)
    class Handler:
        name: str
        fn: Any = dataclasses.field(compare=False)

        def __call__(self, **kw: Any) -> Any:
            return self.fn(**kw)

    call = ToolCall("c", "f", {"q": "x"})
    first = Handler("search", lambda **kw: "one")
    second = Handler("search", lambda **kw: "two")
    assert first == second
    assert (call.arguments_as(first), call.arguments_as(second)) == ("one", "two")

    def make(n: int) -> Any:
        return lambda q: f"{q}{n}"  # same code, another closure each time

    assert (call.arguments_as(make(1)), call.arguments_as(make(2))) == ("x1", "x2")


def test_the_plan_cache_keeps_no_instance_alive() -> None:
    class Big:
        def run(self, q: str) -> str:
            return q

    call = ToolCall("c", "f", {"q": "x"})
    refs = []
    for _ in range(5):
        big = Big()
        refs.append(weakref.ref(big))
        assert call.arguments_as(big.run) == "x"
        del big
    gc.collect()
    assert [r() for r in refs] == [None] * 5


def test_decorated_functions_each_get_their_own_signature() -> None:
    def deco(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return f(*args, **kwargs)

        return wrapper

    @deco
    def get_weather(city: str) -> str:
        return f"w:{city}"

    @deco
    def get_time(zone: str, *, fmt: str = "iso") -> str:
        return f"t:{zone}:{fmt}"

    assert ToolCall("c", "t", {"city": "P"}).arguments_as(get_weather) == "w:P"
    assert ToolCall("c", "t", {"zone": "UTC"}).arguments_as(get_time) == "t:UTC:iso"
    with pytest.raises(ValidationError):
        ToolCall("c", "t", {"city": 3}).arguments_as(get_weather)
