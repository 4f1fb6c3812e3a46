"""Type hints read once into a small tree of nodes, for both tool-schema consumers.

``ToolDefinition.from_function`` / ``from_type`` (the schema generator,
:mod:`._schema_gen`) and ``ToolCall.arguments_as`` (the converter compiler,
:mod:`._arguments`) both start here, so they read ``Optional`` / unions,
``Literal``, enums, containers, records, ``Annotated``, the TypedDict
qualifiers, ``NewType``, forward references and recursive types the same way.
What they do with a node differs on purpose: the generator refuses a hint it
cannot describe (an :class:`UncheckedNode`), ``arguments_as`` passes its value on
unchecked.

The nodes:

=================  =================================================================
``ScalarNode``     ``str``, ``int``, ``float``, ``bool`` (:data:`SCALAR_NODES`)
``NONE``           ``None`` / ``NoneType``
``ANY``            ``Any``, ``object``
``UncheckedNode``  anything else: an unsupported type, a missing or unresolvable
                   annotation, or hints nested deeper than :data:`MAX_DEPTH`
``LiteralNode``    ``Literal[...]``: its values as written (enum members kept)
``EnumNode``       an ``Enum`` class
``ArrayNode``      ``list``, ``tuple[X, ...]``, ``set``, ``frozenset``, ``Sequence``...
                   (``item`` is None when bare)
``TupleNode``      a fixed-length ``tuple[X, Y]`` (or ``tuple[()]``)
``MappingNode``    ``dict``, ``Mapping``, ``MutableMapping`` (key and value None when bare)
``UnionNode``      ``X | Y``, ``Optional[X]``: its branches in the order written
``AnnotatedNode``  ``Annotated[X, ...]``: the base node and the metadata
``RecordNode``     a dataclass, TypedDict or NamedTuple, or a callable's parameters:
                   :class:`Field` s (name, node, optional, kind)
=================  =================================================================

``Required`` / ``NotRequired`` / ``ReadOnly``, ``InitVar`` and ``NewType`` leave no
node of their own. A record is read once per walk: a recursive type gives a node
graph with a cycle (its field refers back to the same :class:`RecordNode`), which
each consumer cuts (``$ref``; a shared plan).
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import sys
import types
import typing
from collections import abc
from typing import Any

__all__ = [
    "ANY",
    "MAX_DEPTH",
    "NAMED",
    "NONE",
    "NO_HINT",
    "SCALAR_NODES",
    "AnnotatedNode",
    "AnyNode",
    "ArrayNode",
    "EnumNode",
    "Field",
    "LiteralNode",
    "MappingNode",
    "Node",
    "NoneNode",
    "RecordNode",
    "ScalarNode",
    "TupleNode",
    "UncheckedNode",
    "UnionNode",
    "VAR_KEYWORD",
    "Walker",
    "allows_none",
    "is_record",
    "is_typeddict",
    "strip_annotated",
    "type_name",
]

#: How deeply hints may nest (each container, union, Annotated or record field is a
#: level). Deeper hints become an UncheckedNode on every Python version: the walk counts
#: its levels, and an annotation that nests deeper is not given to ``typing`` to resolve
#: (typing recurses as deep, and where that runs out of stack differs by version).
MAX_DEPTH = 100

#: Why a hint nested deeper than MAX_DEPTH is not read.
TOO_DEEP = f"type hints nested deeper than {MAX_DEPTH} levels"

# Origins (or bare classes) that are arrays, the ones that are also sets, and mappings.
SETS: frozenset[Any] = frozenset((set, frozenset, abc.Set, abc.MutableSet))
SEQUENCES: frozenset[Any] = SETS | {list, tuple, abc.Sequence, abc.MutableSequence}
MAPPINGS: frozenset[Any] = frozenset((dict, abc.Mapping, abc.MutableMapping))

#: The parameter kinds a JSON argument can fill (by name).
NAMED = frozenset((inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY))
#: ``**kwargs``: takes the arguments no other parameter names.
VAR_KEYWORD = inspect.Parameter.VAR_KEYWORD

#: No annotation, or one that does not resolve.
NO_HINT: Any = inspect.Parameter.empty

_UNSUPPORTED = (
    "; use str, int, float, bool, None, Literal, an Enum, list/tuple/Sequence, dict[str, X], "
    "a Union, Annotated, or a dataclass, TypedDict or NamedTuple"
)


class Node:
    """One read type hint."""

    __slots__ = ()


class ScalarNode(Node):
    """``str``, ``int``, ``float`` or ``bool``."""

    __slots__ = ("type",)

    def __init__(self, tp: type) -> None:
        self.type = tp


class NoneNode(Node):
    """``None``."""

    __slots__ = ()


class AnyNode(Node):
    """``Any`` / ``object``: every JSON value."""

    __slots__ = ()


NONE = NoneNode()
ANY = AnyNode()
SCALAR_NODES: dict[Any, Node] = {
    str: ScalarNode(str),
    int: ScalarNode(int),
    float: ScalarNode(float),
    bool: ScalarNode(bool),
    None: NONE,
    type(None): NONE,
}


class UncheckedNode(Node):
    """A hint no consumer reads: ``reason`` says why (for the generator's error)."""

    __slots__ = ("hint", "reason")

    def __init__(self, hint: Any, reason: str) -> None:
        self.hint = hint
        self.reason = reason


class LiteralNode(Node):
    """``Literal[...]``: the values as written (enum members kept)."""

    __slots__ = ("values",)

    def __init__(self, values: tuple[Any, ...]) -> None:
        self.values = values


class EnumNode(Node):
    """An ``Enum`` class: one of its members, given by value."""

    __slots__ = ("type",)

    def __init__(self, tp: type[enum.Enum]) -> None:
        self.type = tp


class ArrayNode(Node):
    """A homogeneous array; ``origin`` is the container class, ``item`` None when bare."""

    __slots__ = ("item", "origin")

    def __init__(self, origin: Any, item: Node | None) -> None:
        self.origin = origin
        self.item = item

    @property
    def unique(self) -> bool:
        """A set: items are unique."""
        return self.origin in SETS


class TupleNode(Node):
    """A fixed-length tuple, one node per position (none for ``tuple[()]``)."""

    __slots__ = ("items",)

    def __init__(self, items: tuple[Node, ...]) -> None:
        self.items = items


class MappingNode(Node):
    """A mapping; ``key`` / ``value`` None when bare; ``key_hint`` the key's type (for messages)."""

    __slots__ = ("key", "key_hint", "origin", "value")

    def __init__(self, origin: Any, key: Node | None, key_hint: Any, value: Node | None) -> None:
        self.origin = origin
        self.key = key
        self.key_hint = key_hint
        self.value = value


class UnionNode(Node):
    """A union; branches in the order written (``None`` where it was written)."""

    __slots__ = ("branches",)

    def __init__(self, branches: tuple[Node, ...]) -> None:
        self.branches = branches


class AnnotatedNode(Node):
    """``Annotated[base, *metadata]``."""

    __slots__ = ("base", "metadata")

    def __init__(self, base: Node, metadata: tuple[Any, ...]) -> None:
        self.base = base
        self.metadata = metadata


class Field:
    """One named argument of a record.

    ``optional``: it may be left out (a default, or ``NotRequired``); ``kind`` is the
    ``inspect.Parameter`` kind (a record field is keyword-only): consumers take the
    :data:`NAMED` ones and refuse or skip the others.
    """

    __slots__ = ("kind", "name", "node", "optional")

    def __init__(
        self,
        name: str,
        node: Node,
        optional: bool,
        kind: inspect._ParameterKind = inspect.Parameter.KEYWORD_ONLY,
    ) -> None:
        self.name = name
        self.node = node
        self.optional = optional
        self.kind = kind

    @property
    def required(self) -> bool:
        """In the schema's ``required``: no default and ``None`` not allowed."""
        return not self.optional and not allows_none(self.node)


class RecordNode(Node):
    """A dataclass, TypedDict or NamedTuple class, or a callable's parameters.

    ``kind`` is ``"dataclass"``, ``"typeddict"``, ``"namedtuple"`` or ``"callable"``;
    ``type`` the class (None for a callable). ``hint_error`` is set when the hints
    did not resolve all at once (each field's that did is still read) and
    ``no_signature`` when the callable has no signature (no fields then).
    """

    __slots__ = ("fields", "hint_error", "kind", "name", "no_signature", "type")

    def __init__(self, tp: Any, kind: str, name: str) -> None:
        self.type = tp
        self.kind = kind
        self.name = name
        self.fields: tuple[Field, ...] = ()
        self.hint_error: str | None = None
        self.no_signature = False


# ---------------------------------------------------------------------------------------


def type_name(tp: Any) -> str:
    """A hint's name for messages (``bytes``, ``Item``), its repr when it has none."""
    name = getattr(tp, "__name__", None)
    return name if isinstance(name, str) else repr(tp)


def is_typeddict(tp: Any) -> bool:
    """A TypedDict class."""
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _is_namedtuple(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def is_record(tp: Any) -> bool:
    """A dataclass, TypedDict or NamedTuple class."""
    return isinstance(tp, type) and (
        dataclasses.is_dataclass(tp) or is_typeddict(tp) or _is_namedtuple(tp)
    )


def strip_annotated(node: Node) -> Node:
    """The node under any ``Annotated`` wrappers."""
    while type(node) is AnnotatedNode:
        node = node.base
    return node


def allows_none(node: Node) -> bool:
    """``None`` or a union with ``None`` (through ``Annotated``): an optional type."""
    node = strip_annotated(node)
    if node is NONE:
        return True
    return type(node) is UnionNode and any(strip_annotated(b) is NONE for b in node.branches)


def _qualifier(origin: Any) -> str | None:
    """``Required`` / ``NotRequired`` / ``ReadOnly`` wrappers, by name (typing has ReadOnly from 3.13)."""
    name = getattr(origin, "_name", None)
    return name if name in ("Required", "NotRequired", "ReadOnly") else None


def _strip_qualifiers(hint: Any) -> tuple[Any, bool | None]:
    """Remove Required/NotRequired/ReadOnly; return the hint and the explicit requiredness."""
    if typing.get_origin(hint) is typing.Annotated:
        base, explicit = _strip_qualifiers(hint.__origin__)
        if base is hint.__origin__:
            return hint, explicit
        params = (base, *hint.__metadata__)
        return typing.Annotated[params], explicit
    required: bool | None = None
    while True:
        q = _qualifier(typing.get_origin(hint))
        if q is None:
            return hint, required
        if q != "ReadOnly":
            required = q == "Required"
        hint = typing.get_args(hint)[0]


_UnionType = types.UnionType


class Walker:
    """One walk: records already read are shared (recursive and repeated types)."""

    __slots__ = ("records",)

    def __init__(self) -> None:
        self.records: dict[Any, RecordNode] = {}

    def target(self, target: Any) -> RecordNode:
        """A record class's node, or any other callable's parameters."""
        if is_record(target):
            return self.record(target, 0)
        return self.callable(target)

    def hint(self, hint: Any, depth: int = 0) -> Node:
        """The node of one (resolved) annotation; never raises but RecursionError."""
        if depth > MAX_DEPTH:
            return UncheckedNode(hint, TOO_DEEP)
        try:
            return self._hint(hint, depth)
        except RecursionError:
            raise
        except Exception:  # an annotation object this code cannot read
            return UncheckedNode(hint, f"unsupported type {type_name(hint)}{_UNSUPPORTED}")

    def _hint(self, hint: Any, depth: int) -> Node:
        try:
            scalar = SCALAR_NODES.get(hint)
        except TypeError:  # an unhashable annotation object
            scalar = None
        if scalar is not None:
            return scalar
        if hint is typing.Any or hint is object:
            return ANY
        if is_record(hint):
            return self.record(hint, depth)
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        deeper = depth + 1
        if origin is typing.Annotated:
            return AnnotatedNode(self.hint(args[0], deeper), hint.__metadata__)
        if _qualifier(origin) is not None:
            return self.hint(args[0], deeper)
        if isinstance(hint, dataclasses.InitVar):
            return self.hint(hint.type, deeper)
        if origin is typing.Union or origin is _UnionType:
            return UnionNode(tuple([self.hint(a, deeper) for a in args]))
        if origin is typing.Literal:
            return LiteralNode(args)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return EnumNode(hint)
        if origin is not None and is_record(origin):  # a generic dataclass alias
            return self.record(origin, depth)
        base = origin if origin is not None else hint
        if base in SEQUENCES:
            return self._array(hint, base, args, deeper)
        if base in MAPPINGS:
            if not args:
                return MappingNode(base, None, None, None)
            key, value = args
            shown = key.__origin__ if typing.get_origin(key) is typing.Annotated else key
            return MappingNode(base, self.hint(key, deeper), shown, self.hint(value, deeper))
        supertype = getattr(hint, "__supertype__", None)  # typing.NewType
        if supertype is not None:
            return self.hint(supertype, deeper)
        return UncheckedNode(hint, f"unsupported type {type_name(hint)}{_UNSUPPORTED}")

    def _array(self, hint: Any, base: Any, args: tuple[Any, ...], depth: int) -> Node:
        if base is tuple:
            # tuple[()] has no args, as bare tuple / typing.Tuple have none.
            bare = hint is tuple or hint is typing.Tuple  # noqa: UP006 - the alias itself
            if not args and not bare:
                return TupleNode(())
            if args and not (len(args) == 2 and args[1] is Ellipsis):
                return TupleNode(tuple([self.hint(a, depth) for a in args]))
        return ArrayNode(base, self.hint(args[0], depth) if args else None)

    # -- records ----------------------------------------------------------------------

    def record(self, tp: type, depth: int) -> RecordNode:
        """A dataclass, TypedDict or NamedTuple: read once per walk."""
        rec = self.records.get(tp)
        if rec is not None:
            return rec
        if is_typeddict(tp):
            kind = "typeddict"
        elif dataclasses.is_dataclass(tp):
            kind = "dataclass"
        else:
            kind = "namedtuple"
        rec = self.records[tp] = RecordNode(tp, kind, tp.__name__)
        hints = self._class_hints(tp, rec)
        if kind == "typeddict":
            rec.fields = self._typeddict_fields(tp, hints, depth)
        else:
            # What the constructor takes (InitVars included, init=False fields not).
            self._signature_fields(rec, tp, hints, depth, "field has no type annotation")
        return rec

    def _typeddict_fields(self, tp: type, hints: dict[str, Any], depth: int) -> tuple[Field, ...]:
        required_keys: frozenset[str] = getattr(tp, "__required_keys__", frozenset())
        fields: list[Field] = []
        for name in tp.__annotations__:
            hint = hints.get(name, NO_HINT)
            explicit = None
            if hint is not NO_HINT:  # NotRequired[...] even where __required_keys__ missed it
                hint, explicit = _strip_qualifiers(hint)
            required = name in required_keys if explicit is None else explicit
            node = self._field_hint(hint, depth, "field has no type annotation")
            fields.append(Field(name, node, not required))
        return tuple(fields)

    def callable(self, target: Any, name: str | None = None) -> RecordNode:
        """A callable's parameters (all of them: each consumer picks what it takes)."""
        if name is None:
            name = getattr(target, "__name__", None) or type(target).__name__
        rec = RecordNode(None, "callable", name)
        self._signature_fields(rec, target, None, 0, "parameter has no type annotation")
        return rec

    def _signature_fields(
        self,
        rec: RecordNode,
        target: Any,
        hints: dict[str, Any] | None,
        depth: int,
        unannotated: str,
    ) -> None:
        try:
            sig = inspect.signature(target)
        except (TypeError, ValueError):  # a builtin without a signature
            rec.no_signature = True
            return
        if hints is None:
            hints = self._callable_hints(target, sig, rec)
        fields = []
        for p in sig.parameters.values():
            hint = hints.get(p.name, NO_HINT)
            if hint is NO_HINT and p.annotation is not p.empty:  # e.g. a hand-written __init__
                hint = _resolve(p.annotation, _globals_of(target), None)
            node = self._field_hint(hint, depth, unannotated)
            fields.append(Field(p.name, node, p.default is not p.empty, p.kind))
        rec.fields = tuple(fields)

    def _field_hint(self, hint: Any, depth: int, unannotated: str) -> Node:
        if hint is NO_HINT:
            return UncheckedNode(NO_HINT, unannotated)
        if type(hint) is _DeepText:
            return UncheckedNode(hint.text, TOO_DEEP)
        return self.hint(hint, depth + 1)

    def _class_hints(self, tp: type, rec: RecordNode) -> dict[str, Any]:
        """The resolved annotations of ``tp`` and its bases (see :func:`_resolve`)."""
        layers = [(base, inspect.get_annotations(base)) for base in reversed(tp.__mro__)]
        if not any(_too_deep(v) for _, notes in layers for v in notes.values()):
            try:
                return typing.get_type_hints(tp, include_extras=True)
            except RecursionError:  # out of stack: the caller says "nested too deeply"
                raise
            except Exception as exc:  # NameError, TypeError...: resolve them one by one
                rec.hint_error = f"cannot resolve the type hints of {tp.__name__} ({exc})"
        hints: dict[str, Any] = {}
        for base, notes in layers:
            module = getattr(sys.modules.get(base.__module__), "__dict__", {})
            # get_type_hints looks in the module before the class namespace.
            for name, value in notes.items():
                hints[name] = _resolve(value, dict(vars(base)), module)
        return hints

    def _callable_hints(
        self, target: Any, sig: inspect.Signature, rec: RecordNode
    ) -> dict[str, Any]:
        if not any(_too_deep(p.annotation) for p in sig.parameters.values()):
            try:
                resolved = inspect.signature(target, eval_str=True)
                return {n: p.annotation for n, p in resolved.parameters.items()}
            except RecursionError:  # out of stack: the caller says "nested too deeply"
                raise
            except Exception as exc:  # one bad annotation: resolve the others one by one
                rec.hint_error = f"cannot resolve the type hints of {rec.name} ({exc})"
        module = _globals_of(target)
        return {n: _resolve(p.annotation, module, None) for n, p in sig.parameters.items()}


class _DeepText:
    """A string annotation nested deeper than MAX_DEPTH: never evaluated, read as TOO_DEEP."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _resolve(value: Any, globalns: dict[str, Any], localns: Any) -> Any:
    """One annotation (maybe a string); NO_HINT when it does not resolve.

    An annotation nested deeper than MAX_DEPTH is not resolved: an object is read as
    it is (the walk stops at MAX_DEPTH), a string becomes a :class:`_DeepText`.
    """
    if value is inspect.Parameter.empty:
        return NO_HINT
    if _too_deep(value):
        text = value.__forward_arg__ if isinstance(value, typing.ForwardRef) else value
        return _DeepText(text) if isinstance(text, str) else value
    holder = types.SimpleNamespace(__annotations__={"x": value})
    try:
        return typing.get_type_hints(holder, globalns, localns, include_extras=True)["x"]
    except RecursionError:  # out of stack: the caller says "nested too deeply"
        raise
    except Exception:  # an unresolvable annotation
        return NO_HINT


def _too_deep(annotation: Any) -> bool:
    """Whether an annotation nests deeper than MAX_DEPTH, counted without recursing.

    A level is a subscript (``list[X]``, ``X | Y``, ``Annotated[X, ...]``), in a string
    a pair of square brackets (quoted text skipped). ``Literal`` values and a generic
    record's type arguments are not counted: the walk does not read them as levels.
    """
    pending = [(annotation, 0)]
    try:
        while pending:
            hint, depth = pending.pop()
            if isinstance(hint, typing.ForwardRef):
                hint = hint.__forward_arg__
            if isinstance(hint, str):
                depth += _bracket_depth(hint)
            if depth > MAX_DEPTH:
                return True
            args = getattr(hint, "__args__", None)
            origin = typing.get_origin(hint)
            if type(args) is tuple and origin is not typing.Literal and not is_record(origin):
                pending.extend((a, depth + 1) for a in args)
    except Exception:  # an annotation object that cannot be read: resolving it decides
        return False
    return False


def _bracket_depth(text: str) -> int:
    """How deeply square brackets nest in an annotation's source, quoted text skipped."""
    depth = deepest = 0
    quote = ""
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif quote:
            escaped = ch == "\\"
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "[":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == "]":
            depth -= 1
    return deepest


def _globals_of(target: Any) -> dict[str, Any]:
    """The namespace a callable's string annotations are evaluated in."""
    import functools

    obj = target
    for _ in range(20):  # partial of a bound method of ... : unwrap a few layers
        if isinstance(obj, functools.partial):
            obj = obj.func
        elif isinstance(obj, types.MethodType):
            obj = obj.__func__
        else:
            break
    if isinstance(obj, type):
        init = getattr(obj, "__init__", None)
        g = getattr(init, "__globals__", None)
        if isinstance(g, dict):
            return g
    else:
        g = getattr(inspect.unwrap(obj), "__globals__", None)
        if isinstance(g, dict):
            return g
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    return getattr(module, "__dict__", {})
