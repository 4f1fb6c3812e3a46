"""JSON Schema for tool parameters: what a schema may be, and its strict form.

* :func:`check_schema` rejects a malformed schema up front, so that the validator
  (:mod:`._validate`) never meets a keyword of the wrong shape.
* :func:`strict_schema` adds ``additionalProperties: false`` to every object schema
  that does not set it (what ``strict=True`` sends).
* :func:`check_nesting` refuses a JSON value (a schema from the wire) nested
  deeper than a limit without recursing, so a caller may walk it recursively after.

Generation from type hints is in :mod:`._schema_gen`, validation in
:mod:`._validate`. Every walk here is depth-bounded (:data:`MAX_DEPTH`): a schema
nested too deeply is a ValidationError, never a RecursionError.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from .._frozen import FrozenDict
from .._json import json_type, show_name
from ..errors import ValidationError

__all__ = [
    "MAX_DEPTH",
    "check_nesting",
    "check_schema",
    "fail",
    "compiled_pattern",
    "is_number",
    "resolve_ref",
    "strict_schema",
]

#: How deep a schema may nest, and how deep validation may descend (data levels
#: plus ``$ref`` hops).
MAX_DEPTH = 150

_TYPES = ("string", "integer", "number", "boolean", "null", "array", "object")
_TYPE_SET = frozenset(_TYPES)


def fail(path: str, message: str) -> NoReturn:
    """Raise ValidationError at ``path``."""
    raise ValidationError(message, path)


def is_number(value: object) -> bool:
    """A JSON number: an int or a float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def compile_pattern(pattern: str, path: str) -> re.Pattern[str]:
    """A schema's regular expression, or ValidationError at ``path``."""
    try:
        return compiled_pattern(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        fail(path, "not a valid regular expression")


_pattern_cache: dict[str, re.Pattern[str]] = {}


def compiled_pattern(pattern: str) -> re.Pattern[str]:
    """``re.compile`` with a bounded cache of its own (re's is small and shared)."""
    found = _pattern_cache.get(pattern)
    if found is None:
        found = re.compile(pattern)
        if len(_pattern_cache) < 512:
            _pattern_cache[pattern] = found
    return found


# ---------------------------------------------------------------------------
# Checking a schema's shape


def check_schema(schema: Mapping[str, Any], path: str = "parameters") -> None:
    """Raise ValidationError if a (frozen) schema uses a known keyword wrongly.

    Schemas nested deeper than :data:`MAX_DEPTH` levels are refused too.
    """
    try:
        _check(schema, path, schema, 0)
    except RecursionError:  # only when the caller's own stack is already deep
        fail(path, "nested too deeply to check")


def _check(s: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    if type(s) is bool:
        return
    if depth > MAX_DEPTH:
        fail(path, f"nested deeper than {MAX_DEPTH} levels")
    if not isinstance(s, Mapping):
        fail(path, f"a schema must be an object or a boolean, got {json_type(s)}")
    for key, value in s.items():
        checker = _CHECKERS.get(key)
        if checker is not None:
            checker(value, f"{path}.{key}", root, depth)


def _check_sub(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    _check(value, path, root, depth + 1)


def _check_type(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    names = value if isinstance(value, tuple) else (value,)
    if not names:
        fail(path, "an empty type list allows nothing")
    for n in names:
        if type(n) is not str or n not in _TYPE_SET:
            fail(path, "must be one of " + ", ".join(_TYPES) + " (or a list of them)")
    if len(set(names)) != len(names):
        fail(path, "type names must be unique")


def _check_schema_map(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    if not isinstance(value, Mapping):
        fail(path, f"expected an object of schemas, got {json_type(value)}")
    for name, sub in value.items():
        _check(sub, f"{path}.{show_name(name)}", root, depth + 1)


def _check_pattern_map(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    _check_schema_map(value, path, root, depth)
    for name in value:
        compile_pattern(name, f"{path}.{show_name(name)}")


def _check_schema_list(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    if not isinstance(value, tuple) or not value:
        fail(path, "expected a non-empty array of schemas")
    for i, sub in enumerate(value):
        _check(sub, f"{path}[{i}]", root, depth + 1)


def _check_items(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    # An array is the draft-07 form of prefixItems; the validator treats it so.
    if isinstance(value, tuple):
        _check_schema_list(value, path, root, depth)
    else:
        _check(value, path, root, depth + 1)


def _check_required(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    if not isinstance(value, tuple) or any(type(v) is not str for v in value):
        fail(path, "expected an array of property names")
    if len(set(value)) != len(value):
        fail(path, "property names must be unique")


def _check_enum(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    if not isinstance(value, tuple) or not value:
        fail(path, "expected a non-empty array")


def _check_count(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    ok = (type(value) is int and value >= 0) or (
        type(value) is float and value.is_integer() and value >= 0
    )
    if not ok:
        fail(path, "expected a non-negative integer")


def _check_number(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    if not is_number(value):
        fail(path, f"expected a number, got {json_type(value)}")


def _check_multiple(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    if not is_number(value) or value <= 0:
        fail(path, "expected a number greater than 0")


def _check_bool(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    if type(value) is not bool:
        fail(path, f"expected a boolean, got {json_type(value)}")


def _check_str(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    if type(value) is not str:
        fail(path, f"expected a string, got {json_type(value)}")


def _check_regex(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    _check_str(value, path, root, depth)
    compile_pattern(value, path)


def _check_ref(value: Any, path: str, root: Mapping[str, Any], depth: int) -> None:
    _check_str(value, path, root, depth)
    resolve_ref(value, root, path)


_CHECKERS: dict[str, Callable[[Any, str, Mapping[str, Any], int], None]] = {
    "type": _check_type,
    "properties": _check_schema_map,
    "patternProperties": _check_pattern_map,
    "$defs": _check_schema_map,
    "definitions": _check_schema_map,
    "additionalProperties": _check_sub,
    "items": _check_items,
    "prefixItems": _check_schema_list,
    "anyOf": _check_schema_list,
    "oneOf": _check_schema_list,
    "allOf": _check_schema_list,
    "not": _check_sub,
    "required": _check_required,
    "enum": _check_enum,
    "minItems": _check_count,
    "maxItems": _check_count,
    "minLength": _check_count,
    "maxLength": _check_count,
    "minProperties": _check_count,
    "maxProperties": _check_count,
    "minimum": _check_number,
    "maximum": _check_number,
    "exclusiveMinimum": _check_number,
    "exclusiveMaximum": _check_number,
    "multipleOf": _check_multiple,
    "uniqueItems": _check_bool,
    "pattern": _check_regex,
    "$ref": _check_ref,
    "description": _check_str,
    "title": _check_str,
}


def resolve_ref(ref: str, root: Mapping[str, Any], path: str) -> Any:
    """Resolve a local reference (``#`` or ``#/json/pointer``) against the root."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        fail(path, "only local references ('#' or '#/...') are supported")
    node: Any = root
    for raw in ref[2:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, tuple) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            fail(path, "reference does not resolve inside this schema")
    if type(node) is not bool and not isinstance(node, Mapping):
        fail(path, "reference does not point at a schema")
    return node


# ---------------------------------------------------------------------------
# Strict rewriting

# Keywords whose value is one subschema, an object of subschemas, or a list of them.
# ``allOf`` and ``not`` are left alone on purpose: closing each allOf branch makes
# every branch reject the other branches' properties, and closing a negated schema
# widens what the ``not`` accepts.
_SUB_ONE = frozenset(("additionalProperties", "items", "contains"))
_SUB_MAP = frozenset(("properties", "patternProperties", "$defs", "definitions"))
_SUB_LIST = frozenset(("anyOf", "oneOf", "prefixItems", "items"))


def _is_object_schema(s: Mapping[str, Any]) -> bool:
    t = s.get("type")
    if t is None:
        return "properties" in s
    return t == "object" or (isinstance(t, tuple) and "object" in t)


def strict_schema(schema: Any, path: str = "parameters") -> Any:
    """Return a frozen copy where every object schema sets ``additionalProperties``.

    Schemas nested deeper than :data:`MAX_DEPTH` levels raise ValidationError.
    """
    try:
        return _strict(schema, path, 0)
    except RecursionError:  # only when the caller's own stack is already deep
        fail(path, "nested too deeply to check")


def _strict(schema: Any, path: str, depth: int) -> Any:
    if not isinstance(schema, Mapping):
        return schema
    if depth > MAX_DEPTH:
        fail(path, f"nested deeper than {MAX_DEPTH} levels")
    d = depth + 1
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SUB_MAP and isinstance(value, Mapping):
            out[key] = FrozenDict({n: _strict(v, path, d) for n, v in value.items()})
        elif key in _SUB_LIST and isinstance(value, tuple):
            out[key] = tuple([_strict(v, path, d) for v in value])
        elif key in _SUB_ONE:
            out[key] = _strict(value, path, d)
        else:
            out[key] = value
    if "additionalProperties" not in out and _is_object_schema(schema):
        out["additionalProperties"] = False
    return FrozenDict(out)


# ---------------------------------------------------------------------------
# Nesting


def check_nesting(value: Any, path: str = "parameters", limit: int = MAX_DEPTH) -> None:
    """Raise ValidationError if ``value`` nests objects/arrays deeper than ``limit``.

    Iterative, so it never meets the recursion limit itself: call it before walking
    an untrusted schema recursively (a provider's ``parse_tools`` does).
    """
    # (value, depth, index of the parent entry, key): the path is built on failure only.
    entries: list[tuple[Any, int, int, Any]] = [(value, 0, -1, None)]
    pending = [0]
    while pending:
        at = pending.pop()
        node, depth, _, _ = entries[at]
        if isinstance(node, Mapping):
            children: Any = node.items()
        elif isinstance(node, (list, tuple)):
            children = enumerate(node)
        else:
            continue
        if depth >= limit:
            fail(_entry_path(entries, at, path), f"nested deeper than {limit} levels")
        for key, child in children:
            if isinstance(child, (Mapping, list, tuple)):
                pending.append(len(entries))
                entries.append((child, depth + 1, at, key))


def _entry_path(entries: list[tuple[Any, int, int, Any]], at: int, root: str) -> str:
    parts: list[str] = []
    while at > 0:
        _, _, parent, key = entries[at]
        parts.append(f"[{key}]" if type(key) is int else f".{show_name(str(key))}")
        at = parent
    return root + "".join(reversed(parts))
