"""JSON Schema generated from type hints and docstrings (``from_function`` / ``from_type``).

Reads the node tree of :mod:`._typehints` (the walk ``arguments_as`` shares) and
writes the schema.

Decisions:

* ``X | None`` becomes ``{"anyOf": [X, {"type": "null"}]}``: it works for every
  ``X`` (objects, enums, references), where ``"type": [x, "null"]`` only works
  for plain types.
* A recursive type is defined once under ``$defs`` and referenced with ``$ref``
  (``"#"`` when the root type refers to itself); the validator resolves local
  references.
* Defaults are not written into the schema: they only make a property optional.
  So does ``None`` in the type: the model may leave the property out (and
  ``arguments_as`` passes ``None``).
* Generation errors name the Python location: ``Order.items[].sku`` (``[]`` for
  array items, ``.*`` for mapping values), ``search.query`` for a parameter.
"""

from __future__ import annotations

import enum
import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any

from .._frozen import freeze, thaw
from .._json import JSON_TYPE_NAMES, json_type, show_name
from ..errors import ValidationError
from ._docstrings import class_doc, parse_docstring
from ._schema import fail
from ._typehints import (
    NAMED,
    NO_HINT,
    SCALAR_NODES,
    AnnotatedNode,
    AnyNode,
    ArrayNode,
    EnumNode,
    Field,
    LiteralNode,
    MappingNode,
    Node,
    NoneNode,
    RecordNode,
    ScalarNode,
    TupleNode,
    UncheckedNode,
    UnionNode,
    Walker,
    is_record,
    strip_annotated,
    type_name,
)
from ._validate import canonical

__all__ = ["schema_from_function", "schema_from_type"]


def _refuse_kind(f: Field, path: str) -> None:
    """A parameter no named JSON argument can fill is refused."""
    if f.kind in NAMED:
        return
    where = f"{path}.{show_name(f.name)}"
    if f.kind is inspect.Parameter.POSITIONAL_ONLY:
        fail(where, "positional-only parameters cannot be passed as named arguments")
    star = "*" if f.kind is inspect.Parameter.VAR_POSITIONAL else "**"
    fail(where, f"{star}{f.name} cannot be described by a JSON schema; name each parameter")


class _Generator:
    """One schema generation: tracks records in progress to handle recursion."""

    def __init__(self, root: RecordNode | None) -> None:
        self.root = root
        self.stack: list[RecordNode] = []
        self.recursive: set[RecordNode] = set()
        self.names: dict[RecordNode, str] = {}
        self.defs: dict[str, dict[str, Any]] = {}
        self.docs: dict[RecordNode, tuple[str, dict[str, str]]] = {}  # each record's docstring

    def ref(self, rec: RecordNode) -> str:
        if rec is self.root:
            return "#"
        name = self.names.get(rec)
        if name is None:
            base = rec.name
            name, n = base, 2
            while name in self.names.values():
                name, n = f"{base}_{n}", n + 1
            self.names[rec] = name
        return f"#/$defs/{name}"

    def schema(self, node: Node, path: str) -> dict[str, Any]:
        return _SCHEMAS[type(node)](self, node, path)

    def scalar(self, node: ScalarNode, path: str) -> dict[str, Any]:
        return {"type": JSON_TYPE_NAMES[node.type]}

    def none(self, node: NoneNode, path: str) -> dict[str, Any]:
        return {"type": "null"}

    def any(self, node: AnyNode, path: str) -> dict[str, Any]:
        return {}

    def unchecked(self, node: UncheckedNode, path: str) -> dict[str, Any]:
        fail(path, node.reason)

    def literal(self, node: LiteralNode, path: str) -> dict[str, Any]:
        values: list[Any] = []
        for a in node.values:
            v = _plain_value(a, path, "Literal")
            if not any(canonical(v) == canonical(seen) for seen in values):
                values.append(v)
        return {"type": _json_types(values), "enum": values}

    def enum(self, node: EnumNode, path: str) -> dict[str, Any]:
        tp = node.type
        values = [_plain_value(m.value, path, f"enum {tp.__name__}") for m in tp]
        if not values:
            fail(path, f"enum {tp.__name__} has no members")
        return {"type": _json_types(values), "enum": values}

    def array(self, node: ArrayNode, path: str) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "array"}
        if node.item is not None:
            out["items"] = self.schema(node.item, f"{path}[]")
        if node.unique:
            out["uniqueItems"] = True
        return out

    def fixed_tuple(self, node: TupleNode, path: str) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "array"}
        if node.items:
            out["prefixItems"] = [self.schema(a, f"{path}[{i}]") for i, a in enumerate(node.items)]
            out["minItems"] = len(node.items)
        out["maxItems"] = len(node.items)
        return out

    def mapping(self, node: MappingNode, path: str) -> dict[str, Any]:
        if node.key is None or node.value is None:
            return {"type": "object", "additionalProperties": True}
        if strip_annotated(node.key) is not SCALAR_NODES[str]:
            fail(path, f"mapping keys must be str, got {type_name(node.key_hint)}")
        sub = self.schema(node.value, f"{path}.*")
        return {"type": "object", "additionalProperties": sub if sub else True}

    def union(self, node: UnionNode, path: str) -> dict[str, Any]:
        branches = [self.schema(b, path) for b in node.branches if not isinstance(b, NoneNode)]
        if len(branches) < len(node.branches):
            branches.append({"type": "null"})
        return branches[0] if len(branches) == 1 else {"anyOf": branches}

    def annotated(self, node: AnnotatedNode, path: str) -> dict[str, Any]:
        out = self.schema(node.base, path)
        for meta in node.metadata:
            if isinstance(meta, str):
                out["description"] = meta
            elif isinstance(meta, Mapping):
                out.update(thaw(freeze(meta, path)))
        return out

    def record(self, rec: RecordNode, path: str) -> dict[str, Any]:
        if rec in self.recursive and rec is not self.root:
            return {"$ref": self.ref(rec)}
        if rec in self.stack:
            self.recursive.add(rec)
            return {"$ref": self.ref(rec)}
        self.stack.append(rec)
        try:
            out = self.fields_schema(rec, path)
        finally:
            self.stack.pop()
        if rec in self.recursive and rec is not self.root:
            name = self.ref(rec).rsplit("/", 1)[1]
            self.defs[name] = out
            return {"$ref": self.ref(rec)}
        return out

    def fields_schema(self, rec: RecordNode, path: str) -> dict[str, Any]:
        if rec.hint_error is not None:
            fail(path, rec.hint_error)
        for f in rec.fields:
            _refuse_kind(f, path)
        summary, docs = self.docs[rec] = parse_docstring(class_doc(rec.type))
        return self.object(summary if rec is not self.root else "", rec.fields, docs, path)

    def object(
        self, description: str, fields: tuple[Field, ...], docs: Mapping[str, str], path: str
    ) -> dict[str, Any]:
        props: dict[str, Any] = {}
        required: list[str] = []
        for f in fields:
            sub = self.schema(f.node, f"{path}.{show_name(f.name)}")
            doc = docs.get(f.name)
            if doc and "description" not in sub:  # Annotated[X, "..."] wins over the docstring
                sub["description"] = doc
            props[f.name] = sub
            if f.required:
                required.append(f.name)
        out: dict[str, Any] = {"type": "object"}
        if description:
            out["description"] = description
        out["properties"] = props
        if required:
            out["required"] = required
        return out

    def finish(self, schema: dict[str, Any]) -> dict[str, Any]:
        if self.defs:
            schema["$defs"] = dict(sorted(self.defs.items()))
        return schema


_SCHEMAS: dict[type[Node], Callable[[_Generator, Any, str], dict[str, Any]]] = {
    ScalarNode: _Generator.scalar,
    NoneNode: _Generator.none,
    AnyNode: _Generator.any,
    UncheckedNode: _Generator.unchecked,
    LiteralNode: _Generator.literal,
    EnumNode: _Generator.enum,
    ArrayNode: _Generator.array,
    TupleNode: _Generator.fixed_tuple,
    MappingNode: _Generator.mapping,
    UnionNode: _Generator.union,
    AnnotatedNode: _Generator.annotated,
    RecordNode: _Generator.record,
}


def _json_types(values: list[Any]) -> str | list[str]:
    names: list[str] = []
    for v in values:
        name = json_type(v)
        if name not in names:
            names.append(name)
    if "integer" in names and "number" in names:
        names.remove("integer")
    return names[0] if len(names) == 1 else names


def _plain_value(v: Any, path: str, owner: str) -> Any:
    if isinstance(v, enum.Enum):
        v = v.value
    if v is None:
        return None
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float) and math.isfinite(v):
        return float(v)
    if isinstance(v, str):
        return str(v)
    raise ValidationError(
        f"{owner} has a value of type {type(v).__name__}; "
        "only str, int, float, bool and None are supported",
        path,
    )


def schema_from_type(
    tp: Any, path: str | None = None
) -> tuple[dict[str, Any], str, dict[str, str]]:
    """The object schema of a dataclass, TypedDict or NamedTuple, with its docstring summary.

    Returns ``(schema, summary, field_docs)``; errors name ``Type.field.sub`` paths.
    """
    if not is_record(tp):
        fail(
            path or "tp",
            f"expected a dataclass, TypedDict or NamedTuple class, got {type_name(tp)}",
        )
    where = path or tp.__name__
    try:
        rec = Walker().record(tp, 0)
        gen = _Generator(rec)
        schema = gen.finish(gen.record(rec, where))
    except RecursionError:  # only when the caller's own stack is already deep
        fail(where, "type hints nested too deeply")
    summary, docs = gen.docs[rec]
    return schema, summary, docs


def schema_from_function(fn: Callable[..., Any]) -> tuple[dict[str, Any], str]:
    """The object schema of a function's parameters, and its docstring's first paragraph."""
    import functools

    root = getattr(fn, "__name__", None) or type(fn).__name__
    try:
        rec = Walker().callable(fn, root)
    except RecursionError:  # only when the caller's own stack is already deep
        fail(root, "type hints nested too deeply")
    if rec.no_signature:
        fail(root, f"cannot read the signature of {root}")
    if rec.hint_error is not None:
        fail(root, rec.hint_error)
    if isinstance(fn, functools.partial):
        doc = getattr(fn.func, "__doc__", None)
    elif isinstance(fn, type):
        doc = class_doc(fn)
    else:
        doc = getattr(fn, "__doc__", None)
    summary, docs = parse_docstring(doc if isinstance(doc, str) else None)
    params = rec.fields
    if (
        params
        and params[0].name in ("self", "cls")
        and params[0].kind
        in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ):
        params = params[1:]
    for p in params:
        _refuse_kind(p, root)
        node = p.node
        if isinstance(node, UncheckedNode) and node.hint is NO_HINT:
            fail(f"{root}.{show_name(p.name)}", node.reason)
    gen = _Generator(None)
    try:
        schema = gen.finish(gen.object("", params, docs, root))
    except RecursionError:  # only when the caller's own stack is already deep
        fail(root, "type hints nested too deeply")
    return schema, summary
