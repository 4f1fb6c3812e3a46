"""The shared type-hint walk: one node tree for the schema generator and arguments_as."""

from __future__ import annotations

import dataclasses
import enum
import inspect
from collections.abc import Callable, Mapping, MutableSet, Sequence
from typing import (
    Annotated,
    Any,
    Generic,
    Literal,
    NamedTuple,
    NewType,
    NotRequired,
    Optional,
    Required,
    TypedDict,
    TypeVar,
)

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import ToolCall, ToolDefinition, ValidationError
from messages.tools import _typehints as th
from tests.test_schema import with_little_stack


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Leaf:
    """A leaf."""

    name: str
    weight: float = 1.0


@dataclasses.dataclass
class Tree:
    """A tree."""

    leaves: list[Leaf]
    children: list[Tree] = dataclasses.field(default_factory=list)


UserId = NewType("UserId", int)


def shape(node: th.Node) -> Any:
    """A node tree as plain data, records by name (they may be cyclic)."""
    t = type(node)
    if t is th.ScalarNode:
        return node.type.__name__  # type: ignore[attr-defined]
    if node is th.NONE:
        return "None"
    if node is th.ANY:
        return "Any"
    if t is th.UncheckedNode:
        return ("unchecked", node.reason.split(";")[0])  # type: ignore[attr-defined]
    if t is th.LiteralNode:
        return ("literal", node.values)  # type: ignore[attr-defined]
    if t is th.EnumNode:
        return ("enum", node.type.__name__)  # type: ignore[attr-defined]
    if isinstance(node, th.ArrayNode):
        return ("array", node.origin.__name__, None if node.item is None else shape(node.item))
    if isinstance(node, th.TupleNode):
        return ("tuple", *[shape(i) for i in node.items])
    if isinstance(node, th.MappingNode):
        parts = (node.key, node.value)
        return ("mapping", node.origin.__name__, *[None if p is None else shape(p) for p in parts])
    if isinstance(node, th.UnionNode):
        return ("union", *[shape(b) for b in node.branches])
    if isinstance(node, th.AnnotatedNode):
        return ("annotated", shape(node.base), node.metadata)
    assert isinstance(node, th.RecordNode)
    return ("record", node.name)


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        (str, "str"),
        (int, "int"),
        (float, "float"),
        (bool, "bool"),
        (None, "None"),
        (type(None), "None"),
        (Any, "Any"),
        (object, "Any"),
        (UserId, "int"),
        (Optional[int], ("union", "int", "None")),  # noqa: UP045 - the typing spelling is read
        (None | int, ("union", "None", "int")),
        (Literal["a", 1], ("literal", ("a", 1))),
        (Color, ("enum", "Color")),
        (list, ("array", "list", None)),
        (list[int], ("array", "list", "int")),
        (Sequence[str], ("array", "Sequence", "str")),
        (tuple[int, ...], ("array", "tuple", "int")),
        (tuple, ("array", "tuple", None)),
        (tuple[int, str], ("tuple", "int", "str")),
        (tuple[()], ("tuple",)),
        (set[str], ("array", "set", "str")),
        (MutableSet[int], ("array", "MutableSet", "int")),
        (dict, ("mapping", "dict", None, None)),
        (dict[str, int], ("mapping", "dict", "str", "int")),
        (Mapping[str, list[int]], ("mapping", "Mapping", "str", ("array", "list", "int"))),
        (Annotated[int, "n"], ("annotated", "int", ("n",))),
        (Required[int], "int"),
        (NotRequired[list[str]], ("array", "list", "str")),
        (dataclasses.InitVar[int], "int"),
        (Leaf, ("record", "Leaf")),
        (bytes, ("unchecked", "unsupported type bytes")),
        (list[complex], ("array", "list", ("unchecked", "unsupported type complex"))),
    ],
)
def test_hints_become_nodes(hint: Any, expected: Any) -> None:
    assert shape(th.Walker().hint(hint)) == expected


def test_a_record_lists_its_constructor_fields() -> None:
    rec = th.Walker().target(Leaf)
    assert (rec.kind, rec.type, rec.hint_error) == ("dataclass", Leaf, None)
    assert [(f.name, shape(f.node), f.optional, f.required) for f in rec.fields] == [
        ("name", "str", False, True),
        ("weight", "float", True, False),
    ]


def test_a_recursive_type_is_one_node_with_a_cycle() -> None:
    rec = th.Walker().target(Tree)
    children = rec.fields[1].node
    assert isinstance(children, th.ArrayNode)
    assert children.item is rec


def test_dataclass_initvar_kw_only_and_init_false() -> None:
    @dataclasses.dataclass
    class C:
        """C."""

        a: int
        b: dataclasses.InitVar[str]
        c: int = dataclasses.field(init=False, default=0)
        d: list[int] = dataclasses.field(default_factory=list)
        e: bool = dataclasses.field(default=False, kw_only=True)

        def __post_init__(self, b: str) -> None:
            self.c = len(b)

    rec = th.Walker().target(C)
    assert [(f.name, shape(f.node), f.optional) for f in rec.fields] == [
        ("a", "int", False),
        ("b", "str", False),
        ("d", ("array", "list", "int"), True),
        ("e", "bool", True),
    ]
    # Both consumers read the same fields: the schema lists what arguments_as takes.
    d = ToolDefinition.from_type(C)
    assert list(d.parameters["properties"]) == ["a", "b", "d", "e"]
    assert d.parameters["required"] == ("a", "b")
    built = ToolCall("c", "C", {"a": 1, "b": "xyz", "e": None}).arguments_as(C)
    assert (built.a, built.c, built.d, built.e) == (1, 3, [], False)


def test_typeddict_qualifiers_and_totality() -> None:
    class TD(TypedDict, total=False):
        a: Required[int]
        b: Annotated[NotRequired[str], "B"]
        c: float

    rec = th.Walker().target(TD)
    assert rec.kind == "typeddict"
    assert [(f.name, shape(f.node), f.optional) for f in rec.fields] == [
        ("a", "int", False),
        ("b", ("annotated", "str", ("B",)), True),
        ("c", "float", True),
    ]


def test_namedtuple_and_generic_dataclass_alias() -> None:
    class P(NamedTuple):
        x: int
        y: int = 0

    assert [(f.name, f.optional) for f in th.Walker().target(P).fields] == [
        ("x", False),
        ("y", True),
    ]
    T = TypeVar("T")

    @dataclasses.dataclass
    class Box(Generic[T]):
        item: T

    node = th.Walker().hint(Box[int])
    assert isinstance(node, th.RecordNode)
    assert node.type is Box
    # The type variable is not read: arguments_as passes the value on, the generator refuses.
    built: Any = ToolCall("c", "b", {"item": [1]}).arguments_as(Box[int])
    assert built.item == [1]


def test_a_callable_keeps_every_parameter_kind() -> None:
    def f(a: int, /, b: str, *rest: int, c: bool = True, **more: float) -> None: ...

    rec = th.Walker().target(f)
    assert rec.kind == "callable"
    assert [(p.name, p.kind) for p in rec.fields] == [
        ("a", inspect.Parameter.POSITIONAL_ONLY),
        ("b", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        ("rest", inspect.Parameter.VAR_POSITIONAL),
        ("c", inspect.Parameter.KEYWORD_ONLY),
        ("more", inspect.Parameter.VAR_KEYWORD),
    ]


def test_unresolvable_hints_are_read_one_by_one() -> None:
    @dataclasses.dataclass
    class Local:
        a: int
        b: Missing  # type: ignore[name-defined]  # noqa: F821 - deliberately unresolvable

    rec = th.Walker().target(Local)
    assert rec.hint_error is not None
    assert "Missing" in rec.hint_error
    assert [shape(f.node) for f in rec.fields] == [
        "int",
        ("unchecked", "field has no type annotation"),
    ]


def test_a_builtin_without_signature() -> None:
    rec = th.Walker().target(dict)
    assert rec.no_signature
    assert rec.fields == ()


# -- depth bounds ----------------------------------------------------------------------------


def _nested_list(levels: int) -> Any:
    hint: Any = int
    for _ in range(levels):
        hint = list[hint]
    return hint


def test_hints_deeper_than_the_limit_are_not_read() -> None:
    node = th.Walker().hint(_nested_list(th.MAX_DEPTH + 50))
    depth = 0
    while isinstance(node, th.ArrayNode):
        assert node.item is not None
        node, depth = node.item, depth + 1
    assert isinstance(node, th.UncheckedNode)
    assert node.reason == f"type hints nested deeper than {th.MAX_DEPTH} levels"
    assert depth == th.MAX_DEPTH + 1


def test_deep_hints_give_validation_errors_never_recursion_errors() -> None:
    cls = dataclasses.make_dataclass("Deep", [("x", _nested_list(400))])
    cls.__doc__ = "Deep."
    with pytest.raises(ValidationError) as info:
        ToolDefinition.from_type(cls)
    assert info.value.message == f"type hints nested deeper than {th.MAX_DEPTH} levels"
    assert info.value.path.startswith("Deep.x[][]")
    value: Any = 1
    for _ in range(150):
        value = [value]
    built = ToolCall("c", "d", {"x": value}).arguments_as(cls)
    assert built.x == value


@pytest.mark.parametrize("levels", [th.MAX_DEPTH + 1, 600])
def test_annotations_deeper_than_the_limit_are_not_resolved(levels: int) -> None:
    # typing resolves an annotation by recursing once per level, and where that runs
    # out of stack differs by Python version: an annotation deeper than MAX_DEPTH is
    # not given to it, so every version says the same. An object is read up to the
    # limit; a string is not evaluated at all.
    text = "list[" * levels + "int" + "]" * levels
    deep: Any = dataclasses.make_dataclass("Deep", [("x", _nested_list(levels))])
    deep.__doc__ = "Deep."
    quoted: Any = dataclasses.dataclass(
        type(
            "Quoted", (), {"__annotations__": {"x": text}, "__doc__": "Q.", "__module__": __name__}
        )
    )

    def fn(x: Any) -> None:
        """F."""

    fn.__annotations__ = {"x": text}
    attempts: list[tuple[Callable[[], object], str]] = [
        (lambda: ToolDefinition.from_type(deep), "Deep.x[][]"),
        (lambda: ToolDefinition.from_type(quoted), "Quoted.x"),
        (lambda: ToolDefinition.from_function(fn), "fn.x"),
    ]
    for attempt, path in attempts:
        with pytest.raises(ValidationError) as info:
            attempt()
        assert info.value.message == f"type hints nested deeper than {th.MAX_DEPTH} levels"
        assert info.value.path.startswith(path)
    value: Any = [[1]]
    assert ToolCall("c", "d", {"x": value}).arguments_as(quoted).x == value


def test_brackets_in_quoted_text_are_not_levels() -> None:
    odd = "[" * (th.MAX_DEPTH + 5)
    values = (odd, "it's " + odd, "both \" and ' " + odd)
    text = f"Literal[{', '.join(repr(v) for v in values)}]"
    cls: Any = dataclasses.dataclass(
        type(
            "Quoted", (), {"__annotations__": {"x": text}, "__doc__": "Q.", "__module__": __name__}
        )
    )
    params = ToolDefinition.from_type(cls).to_dict()["parameters"]
    assert params["properties"]["x"]["enum"] == list(values)


def test_a_deep_call_stack_gives_validation_errors() -> None:
    # However little stack is left, a fresh type gives a ToolDefinition or a plan, or
    # a ValidationError: never a RecursionError.
    ToolDefinition.from_type(Leaf)  # the lazily imported modules are loaded here
    call = ToolCall("c", "f", {"items": [{"k": [{"name": "n"}]}]})
    outcomes: set[str] = set()
    for headroom in range(14, 90, 3):

        @dataclasses.dataclass
        class Fresh:
            """Fresh: not compiled before."""

            items: list[dict[str, list[Leaf]]]

        def fresh_fn(x: list[list[list[Leaf]]], y: Leaf | None = None) -> None:
            """F."""

        attempts = (
            lambda: ToolDefinition.from_type(Fresh),
            lambda: ToolDefinition.from_function(fresh_fn),
            lambda: call.arguments_as(Fresh),
        )
        for attempt in attempts:
            try:
                with_little_stack(headroom, attempt)
                outcomes.add("ok")
            except ValidationError as exc:
                outcomes.add(exc.message)
    assert "ok" in outcomes
    assert len(outcomes) > 1  # the limit did strike
    for outcome in outcomes - {"ok"}:
        assert "nested too deeply" in outcome


# -- both consumers agree ---------------------------------------------------------------------
#
# The invariant the shared walk exists for: for any type built from the supported
# pieces, what validate_arguments accepts for the generated schema, arguments_as
# builds, and the other way round. (Sets are left out on purpose: arguments_as
# builds a set from duplicates, the schema says uniqueItems.)

_leaf_hints = st.sampled_from(
    [str, int, float, bool, type(None), Any, Literal["a", 1], Color, UserId, Leaf]
)


def _combine(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        inner.map(lambda h: list[h]),  # type: ignore[valid-type]
        inner.map(lambda h: dict[str, h]),  # type: ignore[valid-type]
        inner.map(lambda h: tuple[h, ...]),  # type: ignore[valid-type]
        inner.map(lambda h: Optional[h]),  # noqa: UP045 - the typing spelling is read too
        inner.map(lambda h: Annotated[h, "described"]),
        st.tuples(inner, inner).map(lambda p: tuple[p]),  # type: ignore[valid-type]
        st.tuples(inner, inner).map(lambda p: p[0] | p[1]),
    )


_hints = st.recursive(_leaf_hints, _combine, max_leaves=4)
_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([1.0, 1.5, "a", "b", "red", "n", 2**53])
    | st.fixed_dictionaries({"name": st.sampled_from(["n", 1])}, optional={"weight": st.none()}),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["k", "name"]), inner, max_size=2)
    ),
    max_leaves=6,
)


@settings(max_examples=300)
@given(_hints, _hints, _values, st.none() | _values)
def test_validate_arguments_and_arguments_as_agree_on_any_type(
    required: Any, optional: Any, x: Any, y: Any
) -> None:
    try:
        cls = dataclasses.make_dataclass(
            "R", [("x", required), ("y", optional, dataclasses.field(default="dflt"))]
        )
    except TypeError:  # a hint dataclasses refuses
        return
    cls.__doc__ = "R."
    tool = ToolDefinition.from_type(cls)
    for args in ({"x": x}, {"x": x, "y": y}, {}):
        try:
            tool.validate_arguments(args)
            valid = True
        except ValidationError:
            valid = False
        try:
            ToolCall("c", "R", args).arguments_as(cls)
            built = True
        except ValidationError:
            built = False
        assert valid == built, args
