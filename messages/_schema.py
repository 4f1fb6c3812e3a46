"""JSON Schema for tool parameters: checking, strict rewriting, validation, generation.

Four small pieces, all standard library:

* :func:`check_schema` rejects a malformed schema up front, so that the validator
  never meets a keyword of the wrong shape.
* :func:`strict_schema` adds ``additionalProperties: false`` to every object schema
  that does not set it (what ``strict=True`` sends).
* :func:`validate` checks a JSON value against a schema (a subset of draft 2020-12:
  type, enum, const, properties, patternProperties, additionalProperties, required,
  min/maxProperties, items, prefixItems, min/maxItems, uniqueItems, min/maxLength,
  pattern, minimum, maximum, exclusiveMinimum/Maximum, multipleOf, anyOf, oneOf,
  allOf, not, local ``$ref``). Other keywords (format, title, default...) are
  annotations and are ignored. Errors name the path, never the offending value.
* :func:`schema_from_type` / :func:`schema_from_function` generate a schema from
  type hints and docstrings.

Decisions:

* ``X | None`` becomes ``{"anyOf": [X, {"type": "null"}]}``: it works for every
  ``X`` (objects, enums, references), where ``"type": [x, "null"]`` only works
  for plain types.
* A recursive type is defined once under ``$defs`` and referenced with ``$ref``
  (``"#"`` when the root type refers to itself); the validator resolves local
  references.
* ``integer`` accepts ``1.0`` and rejects ``True``, as JSON Schema says.
  ``pattern`` uses Python's ``re`` (close to ECMA-262, not identical);
  ``multipleOf`` with floats allows a relative error of 1e-9 (0.3 is a multiple of 0.1).
* Defaults are not written into the schema: they only make a property optional.
* Generation errors name the Python location: ``Order.items[].sku`` (``[]`` for
  array items, ``.*`` for mapping values), ``search.query`` for a parameter.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import re
import types
import typing
from collections import abc
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from ._frozen import FrozenDict, freeze
from ._json import dumps_compact
from .errors import ValidationError

__all__ = [
    "check_schema",
    "parse_docstring",
    "schema_from_function",
    "schema_from_type",
    "strict_schema",
    "validate",
]

#: How deep validation may descend (data levels plus ``$ref`` hops).
MAX_DEPTH = 150

_TYPES = ("string", "integer", "number", "boolean", "null", "array", "object")
_TYPE_SET = frozenset(_TYPES)


def _fail(path: str, message: str) -> NoReturn:
    raise ValidationError(message, path)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value: object) -> str:
    """The JSON type of a value, ``integer`` for ints, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _compile(pattern: str, path: str) -> re.Pattern[str]:
    try:
        return _compiled(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        _fail(path, "not a valid regular expression")


_pattern_cache: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    found = _pattern_cache.get(pattern)
    if found is None:
        found = re.compile(pattern)
        if len(_pattern_cache) < 512:
            _pattern_cache[pattern] = found
    return found


# ---------------------------------------------------------------------------
# Checking a schema's shape


def check_schema(schema: Mapping[str, Any], path: str = "parameters") -> None:
    """Raise ValidationError if a (frozen) schema uses a known keyword wrongly."""
    _check(schema, path, schema)


def _check(s: Any, path: str, root: Mapping[str, Any]) -> None:
    if type(s) is bool:
        return
    if not isinstance(s, Mapping):
        _fail(path, f"a schema must be an object or a boolean, got {_kind(s)}")
    for key, value in s.items():
        checker = _CHECKERS.get(key)
        if checker is not None:
            checker(value, f"{path}.{key}", root)


def _check_type(value: Any, path: str, root: Mapping[str, Any]) -> None:
    names = value if isinstance(value, tuple) else (value,)
    if not names:
        _fail(path, "an empty type list allows nothing")
    for n in names:
        if type(n) is not str or n not in _TYPE_SET:
            _fail(path, "must be one of " + ", ".join(_TYPES) + " (or a list of them)")
    if len(set(names)) != len(names):
        _fail(path, "type names must be unique")


def _check_schema_map(value: Any, path: str, root: Mapping[str, Any]) -> None:
    if not isinstance(value, Mapping):
        _fail(path, f"expected an object of schemas, got {_kind(value)}")
    for name, sub in value.items():
        _check(sub, f"{path}.{name}", root)


def _check_pattern_map(value: Any, path: str, root: Mapping[str, Any]) -> None:
    _check_schema_map(value, path, root)
    for name in value:
        _compile(name, f"{path}.{name}")


def _check_schema_list(value: Any, path: str, root: Mapping[str, Any]) -> None:
    if not isinstance(value, tuple) or not value:
        _fail(path, "expected a non-empty array of schemas")
    for i, sub in enumerate(value):
        _check(sub, f"{path}[{i}]", root)


def _check_items(value: Any, path: str, root: Mapping[str, Any]) -> None:
    # An array is the draft-07 form of prefixItems; the validator treats it so.
    if isinstance(value, tuple):
        _check_schema_list(value, path, root)
    else:
        _check(value, path, root)


def _check_required(value: Any, path: str, root: Mapping[str, Any]) -> None:
    if not isinstance(value, tuple) or any(type(v) is not str for v in value):
        _fail(path, "expected an array of property names")
    if len(set(value)) != len(value):
        _fail(path, "property names must be unique")


def _check_enum(value: Any, path: str, root: Mapping[str, Any]) -> None:
    if not isinstance(value, tuple) or not value:
        _fail(path, "expected a non-empty array")


def _check_count(value: Any, path: str, root: Mapping[str, Any]) -> None:
    ok = (type(value) is int and value >= 0) or (
        type(value) is float and value.is_integer() and value >= 0
    )
    if not ok:
        _fail(path, "expected a non-negative integer")


def _check_number(value: Any, path: str, root: Mapping[str, Any]) -> None:
    if not _is_number(value):
        _fail(path, f"expected a number, got {_kind(value)}")


def _check_multiple(value: Any, path: str, root: Mapping[str, Any]) -> None:
    if not _is_number(value) or value <= 0:
        _fail(path, "expected a number greater than 0")


def _check_bool(value: Any, path: str, root: Mapping[str, Any]) -> None:
    if type(value) is not bool:
        _fail(path, f"expected a boolean, got {_kind(value)}")


def _check_str(value: Any, path: str, root: Mapping[str, Any]) -> None:
    if type(value) is not str:
        _fail(path, f"expected a string, got {_kind(value)}")


def _check_regex(value: Any, path: str, root: Mapping[str, Any]) -> None:
    _check_str(value, path, root)
    _compile(value, path)


def _check_ref(value: Any, path: str, root: Mapping[str, Any]) -> None:
    _check_str(value, path, root)
    _resolve(value, root, path)


_CHECKERS: dict[str, Callable[[Any, str, Mapping[str, Any]], None]] = {
    "type": _check_type,
    "properties": _check_schema_map,
    "patternProperties": _check_pattern_map,
    "$defs": _check_schema_map,
    "definitions": _check_schema_map,
    "additionalProperties": _check,
    "items": _check_items,
    "prefixItems": _check_schema_list,
    "anyOf": _check_schema_list,
    "oneOf": _check_schema_list,
    "allOf": _check_schema_list,
    "not": _check,
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


def _resolve(ref: str, root: Mapping[str, Any], path: str) -> Any:
    """Resolve a local reference (``#`` or ``#/json/pointer``) against the root."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        _fail(path, "only local references ('#' or '#/...') are supported")
    node: Any = root
    for raw in ref[2:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, tuple) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            _fail(path, "reference does not resolve inside this schema")
    if type(node) is not bool and not isinstance(node, Mapping):
        _fail(path, "reference does not point at a schema")
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


def strict_schema(schema: Any) -> Any:
    """Return a frozen copy where every object schema sets ``additionalProperties``."""
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SUB_MAP and isinstance(value, Mapping):
            out[key] = FrozenDict({n: strict_schema(v) for n, v in value.items()})
        elif key in _SUB_LIST and isinstance(value, tuple):
            out[key] = tuple([strict_schema(v) for v in value])
        elif key in _SUB_ONE:
            out[key] = strict_schema(value)
        else:
            out[key] = value
    if "additionalProperties" not in out and _is_object_schema(schema):
        out["additionalProperties"] = False
    return FrozenDict(out)


# ---------------------------------------------------------------------------
# Validation


def validate(value: Any, schema: Any, path: str = "arguments") -> None:
    """Raise ValidationError (path set, value never shown) unless ``value`` fits ``schema``.

    ``value`` is a frozen JSON value (FrozenDict / tuples) and ``schema`` a checked,
    frozen schema; plain dicts and lists work too.
    """
    try:
        _Validator(schema).check(value, schema, path, 0)
    except RecursionError:  # only when the caller's own stack is already deep
        _fail(path, "nested too deeply to validate")


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, (tuple, list)),
    "object": lambda v: isinstance(v, Mapping),
}


def _check_value_type(value: Any, t: Any, path: str) -> None:
    if type(t) is str:
        if _TYPE_TESTS[t](value):
            return
        expected = t
    else:
        for name in t:
            if _TYPE_TESTS[name](value):
                return
        expected = " or ".join(t)
    _fail(path, f"expected {expected}, got {_kind(value)}")


def _canonical(value: Any) -> Any:
    """A hashable key equal for JSON-equal values (1 == 1.0, True != 1)."""
    if isinstance(value, bool):
        return ("b", value)
    if _is_number(value):
        return ("n", value)
    if isinstance(value, (tuple, list)):
        return ("a", tuple([_canonical(v) for v in value]))
    if isinstance(value, Mapping):
        return ("o", frozenset([(k, _canonical(v)) for k, v in value.items()]))
    return ("s", value)


def _show(values: Any) -> str:
    """Schema-defined values (never the argument) for a message, shortened."""
    text = ", ".join(dumps_compact(v) for v in values)
    return text if len(text) <= 200 else text[:197] + "..."


def _is_array(value: Any) -> bool:
    return isinstance(value, (tuple, list))


class _Validator:
    """One validation run; holds the root schema that ``$ref`` resolves against.

    Each keyword method takes ``(value, keyword_value, schema, path, depth)`` and
    ignores values of a JSON type the keyword does not apply to.
    """

    __slots__ = ("root",)

    def __init__(self, root: Any) -> None:
        self.root = root

    def check(self, value: Any, s: Any, path: str, depth: int) -> None:
        if s is True:
            return
        if s is False:
            _fail(path, "no value is allowed here (schema is false)")
        if depth > MAX_DEPTH:
            _fail(path, f"nested deeper than {MAX_DEPTH} levels")
        t = s.get("type")
        if t is not None:
            _check_value_type(value, t, path)
        for key, kw in s.items():
            fn = _KEYWORDS.get(key)
            if fn is not None:
                fn(self, value, kw, s, path, depth)

    def properties(self, value: Any, props: Any, s: Any, path: str, d: int) -> None:
        if isinstance(value, Mapping):
            for name, sub in props.items():
                if name in value:
                    self.check(value[name], sub, f"{path}.{name}", d + 1)

    def pattern_properties(self, value: Any, pats: Any, s: Any, path: str, d: int) -> None:
        if isinstance(value, Mapping):
            for pat, sub in pats.items():
                search = _compiled(pat).search
                for name, item in value.items():
                    if search(name):
                        self.check(item, sub, f"{path}.{name}", d + 1)

    def additional_properties(self, value: Any, extra: Any, s: Any, path: str, d: int) -> None:
        if not isinstance(value, Mapping) or extra is True:
            return
        props = s.get("properties") or ()
        pats = [_compiled(p).search for p in s.get("patternProperties") or ()]
        for name, item in value.items():
            if name in props or any(search(name) for search in pats):
                continue
            if extra is False:
                _fail(f"{path}.{name}", "unexpected property (additionalProperties is false)")
            self.check(item, extra, f"{path}.{name}", d + 1)

    def required(self, value: Any, names: Any, s: Any, path: str, d: int) -> None:
        if isinstance(value, Mapping):
            for name in names:
                if name not in value:
                    _fail(f"{path}.{name}", "required property is missing")

    def min_properties(self, value: Any, n: Any, s: Any, path: str, d: int) -> None:
        if isinstance(value, Mapping) and len(value) < n:
            _fail(path, f"object has {len(value)} properties, fewer than minProperties {n}")

    def max_properties(self, value: Any, n: Any, s: Any, path: str, d: int) -> None:
        if isinstance(value, Mapping) and len(value) > n:
            _fail(path, f"object has {len(value)} properties, more than maxProperties {n}")

    def items(self, value: Any, items: Any, s: Any, path: str, d: int) -> None:
        if not _is_array(value):
            return
        if isinstance(items, (tuple, list)):  # the draft-07 form of prefixItems
            if "prefixItems" not in s:
                self.prefix_items(value, items, s, path, d)
            return
        prefix = s.get("prefixItems")
        for i in range(len(prefix) if prefix else 0, len(value)):
            self.check(value[i], items, f"{path}[{i}]", d + 1)

    def prefix_items(self, value: Any, items: Any, s: Any, path: str, d: int) -> None:
        if _is_array(value):
            for i in range(min(len(value), len(items))):
                self.check(value[i], items[i], f"{path}[{i}]", d + 1)

    def min_items(self, value: Any, n: Any, s: Any, path: str, d: int) -> None:
        if _is_array(value) and len(value) < n:
            _fail(path, f"array has {len(value)} items, fewer than minItems {n}")

    def max_items(self, value: Any, n: Any, s: Any, path: str, d: int) -> None:
        if _is_array(value) and len(value) > n:
            _fail(path, f"array has {len(value)} items, more than maxItems {n}")

    def unique_items(self, value: Any, flag: Any, s: Any, path: str, d: int) -> None:
        if flag and _is_array(value):
            seen: set[Any] = set()
            for i, item in enumerate(value):
                key = _canonical(item)
                if key in seen:
                    _fail(f"{path}[{i}]", "duplicate item (uniqueItems is true)")
                seen.add(key)

    def min_length(self, value: Any, n: Any, s: Any, path: str, d: int) -> None:
        if isinstance(value, str) and len(value) < n:
            _fail(path, f"string has length {len(value)}, shorter than minLength {n}")

    def max_length(self, value: Any, n: Any, s: Any, path: str, d: int) -> None:
        if isinstance(value, str) and len(value) > n:
            _fail(path, f"string has length {len(value)}, longer than maxLength {n}")

    def pattern(self, value: Any, pat: Any, s: Any, path: str, d: int) -> None:
        if isinstance(value, str) and _compiled(pat).search(value) is None:
            _fail(path, "string does not match the schema's pattern")

    def minimum(self, value: Any, n: Any, s: Any, path: str, d: int) -> None:
        if _is_number(value) and value < n:
            _fail(path, f"number is less than minimum {n}")

    def maximum(self, value: Any, n: Any, s: Any, path: str, d: int) -> None:
        if _is_number(value) and value > n:
            _fail(path, f"number is greater than maximum {n}")

    def exclusive_minimum(self, value: Any, n: Any, s: Any, path: str, d: int) -> None:
        if _is_number(value) and value <= n:
            _fail(path, f"number is not greater than exclusiveMinimum {n}")

    def exclusive_maximum(self, value: Any, n: Any, s: Any, path: str, d: int) -> None:
        if _is_number(value) and value >= n:
            _fail(path, f"number is not less than exclusiveMaximum {n}")

    def multiple_of(self, value: Any, n: Any, s: Any, path: str, d: int) -> None:
        if not _is_number(value):
            return
        if type(value) is int and type(n) is int:
            ok = value % n == 0
        else:
            # Floats: a relative tolerance, so that 0.3 counts as a multiple of 0.1.
            try:
                q = value / n
                ok = math.isfinite(q) and abs(q - round(q)) <= 1e-9 * max(1.0, abs(q))
            except OverflowError:
                ok = False
        if not ok:
            _fail(path, f"number is not a multiple of {n}")

    def enum(self, value: Any, allowed: Any, s: Any, path: str, d: int) -> None:
        key = _canonical(value)
        for option in allowed:
            if _canonical(option) == key:
                return
        _fail(path, f"expected one of {_show(allowed)}")

    def const(self, value: Any, const: Any, s: Any, path: str, d: int) -> None:
        if _canonical(value) != _canonical(const):
            _fail(path, f"expected the constant {_show((const,))}")

    def matches(self, value: Any, s: Any, path: str, d: int) -> ValidationError | None:
        try:
            self.check(value, s, path, d)
        except ValidationError as exc:
            return exc
        return None

    def no_branch(self, keyword: str, value: Any, branches: Any, path: str, d: int) -> NoReturn:
        errors = [e for e in (self.matches(value, b, path, d + 1) for b in branches) if e]
        # When exactly one branch got past the type check, its error is the useful one.
        deeper = [e for e in errors if e.path != path]
        if len(deeper) == 1:
            raise deeper[0]
        parts = []
        for i, e in enumerate(errors[:4]):
            where = e.path[len(path) :] if e.path.startswith(path) else e.path
            parts.append(f"[{i}] {where + ': ' if where else ''}{e.message}")
        more = "; ..." if len(errors) > 4 else ""
        _fail(path, f"matches none of the {keyword} schemas ({'; '.join(parts)}{more})")

    def any_of(self, value: Any, branches: Any, s: Any, path: str, d: int) -> None:
        for sub in branches:
            if self.matches(value, sub, path, d + 1) is None:
                return
        self.no_branch("anyOf", value, branches, path, d)

    def one_of(self, value: Any, branches: Any, s: Any, path: str, d: int) -> None:
        matched = sum(1 for b in branches if self.matches(value, b, path, d + 1) is None)
        if matched == 0:
            self.no_branch("oneOf", value, branches, path, d)
        if matched > 1:
            _fail(path, f"matches {matched} of the oneOf schemas; exactly one must match")

    def all_of(self, value: Any, branches: Any, s: Any, path: str, d: int) -> None:
        for sub in branches:
            self.check(value, sub, path, d + 1)

    def not_(self, value: Any, sub: Any, s: Any, path: str, d: int) -> None:
        if self.matches(value, sub, path, d + 1) is None:
            _fail(path, "must not match the 'not' schema")

    def ref(self, value: Any, ref: Any, s: Any, path: str, d: int) -> None:
        self.check(value, _resolve(ref, self.root, path), path, d + 1)


# Hot path: one dict lookup per schema keyword ("type" is checked first, in check()).
_KEYWORDS: dict[str, Callable[[_Validator, Any, Any, Any, str, int], None]] = {
    "required": _Validator.required,
    "properties": _Validator.properties,
    "patternProperties": _Validator.pattern_properties,
    "additionalProperties": _Validator.additional_properties,
    "minProperties": _Validator.min_properties,
    "maxProperties": _Validator.max_properties,
    "items": _Validator.items,
    "prefixItems": _Validator.prefix_items,
    "minItems": _Validator.min_items,
    "maxItems": _Validator.max_items,
    "uniqueItems": _Validator.unique_items,
    "minLength": _Validator.min_length,
    "maxLength": _Validator.max_length,
    "pattern": _Validator.pattern,
    "minimum": _Validator.minimum,
    "maximum": _Validator.maximum,
    "exclusiveMinimum": _Validator.exclusive_minimum,
    "exclusiveMaximum": _Validator.exclusive_maximum,
    "multipleOf": _Validator.multiple_of,
    "enum": _Validator.enum,
    "const": _Validator.const,
    "anyOf": _Validator.any_of,
    "oneOf": _Validator.one_of,
    "allOf": _Validator.all_of,
    "not": _Validator.not_,
    "$ref": _Validator.ref,
}


# ---------------------------------------------------------------------------
# Docstrings

_GOOGLE_HEADERS = frozenset(
    (
        "args",
        "arguments",
        "parameters",
        "params",
        "attributes",
        "fields",
        "keyword args",
        "keyword arguments",
        "kwargs",
        "other parameters",
    )
)
_NUMPY_HEADERS = frozenset(
    ("parameters", "attributes", "other parameters", "keyword arguments", "fields")
)
# Pattern sources, compiled on first use by re's own cache: compiling them at import
# would cost about 0.6 ms for a path that only schema generation takes.
_GOOGLE_ITEM = r"\*{0,2}([A-Za-z_]\w*)\s*(?:\(.*?\))?\s*:(.*)"
_SPHINX_ITEM = r":(?:param|parameter|arg|argument|key|keyword|ivar|var|cvar)\s+(?:[^:]*\s)?\*{0,2}(\w+)\s*:(.*)"
_NUMPY_ITEM = r"\*{0,2}([A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::.*)?"
_DASHES = r"-{3,}\s*"
_HEADER = r"([A-Za-z][A-Za-z ]*):\s*"


def _cleandoc(doc: str) -> list[str]:
    lines = doc.expandtabs().splitlines()
    indent = min((len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()), default=0)
    out = [lines[0].strip()] + [line[indent:].rstrip() for line in lines[1:]]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _is_numpy_header(lines: list[str], i: int) -> bool:
    return (
        i + 1 < len(lines)
        and bool(lines[i].strip())
        and bool(re.fullmatch(_DASHES, lines[i + 1].strip()))
    )


def _is_section_start(lines: list[str], i: int) -> bool:
    s = lines[i].strip()
    if s.startswith(":") or _is_numpy_header(lines, i):
        return True
    m = re.fullmatch(_HEADER, s)
    return m is not None and m.group(1).lower() in _GOOGLE_HEADERS | {"returns", "raises"}


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The first paragraph and per-parameter descriptions (Google, Sphinx, NumPy styles)."""
    if not doc or not doc.strip():
        return "", {}
    lines = _cleandoc(doc)
    summary: list[str] = []
    for i, line in enumerate(lines):
        if not line.strip() or _is_section_start(lines, i):
            break
        summary.append(line.strip())
    params: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if _is_numpy_header(lines, i):
            header = stripped.lower()
            i += 2
            if header in _NUMPY_HEADERS:
                i = _numpy_section(lines, i, _indent(line), params)
            continue
        m = re.fullmatch(_HEADER, stripped)
        if m is not None and m.group(1).lower() in _GOOGLE_HEADERS:
            i = _google_section(lines, i + 1, _indent(line), params)
            continue
        sm = re.fullmatch(_SPHINX_ITEM, stripped)
        if sm is not None:
            i = _continued(lines, i + 1, _indent(line), (sm.group(1), sm.group(2)), params)
            continue
        i += 1
    return " ".join(summary), params


def _continued(
    lines: list[str], i: int, base: int, item: tuple[str, str], params: dict[str, str]
) -> int:
    """Collect lines indented deeper than ``base`` as the description of ``item``."""
    name, first = item
    text = [first.strip()] if first.strip() else []
    while i < len(lines):
        line = lines[i]
        if line.strip():
            if _indent(line) <= base or line.strip().startswith(":"):
                break
            text.append(line.strip())
        i += 1
    if text:
        params.setdefault(name, " ".join(text))
    return i


def _google_section(lines: list[str], i: int, header_indent: int, params: dict[str, str]) -> int:
    item_indent = -1
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        indent = _indent(line)
        if indent <= header_indent:
            return i
        if item_indent < 0:
            item_indent = indent
        m = re.fullmatch(_GOOGLE_ITEM, line.strip()) if indent == item_indent else None
        if m is None:
            i += 1
            continue
        i = _continued(lines, i + 1, item_indent, (m.group(1), m.group(2)), params)
    return i


def _numpy_section(lines: list[str], i: int, base: int, params: dict[str, str]) -> int:
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if _indent(line) < base or _is_numpy_header(lines, i):
            return i
        m = re.fullmatch(_NUMPY_ITEM, line.strip()) if _indent(line) == base else None
        if m is None:
            i += 1
            continue
        i += 1
        text: list[str] = []
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > base):
            if lines[i].strip():
                text.append(lines[i].strip())
            i += 1
        if text:
            for name in m.group(1).split(","):
                params.setdefault(name.strip().lstrip("*"), " ".join(text))
    return i


def _class_doc(cls: type) -> str:
    """A class's own docstring, or "" for the one dataclass/NamedTuple generate."""
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str):
        return ""
    if doc.startswith(f"{cls.__name__}(") and "\n" not in doc:
        return ""
    return doc


# ---------------------------------------------------------------------------
# Generation from type hints

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    None: {"type": "null"},
}
_JSON_OF_PY = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}

# Origins (or bare classes) that become arrays, and the ones that also mean uniqueItems.
_SETS: frozenset[Any] = frozenset((set, frozenset, abc.Set, abc.MutableSet))
_SEQUENCES: frozenset[Any] = _SETS | {list, tuple, abc.Sequence, abc.MutableSequence}
_MAPPINGS: frozenset[Any] = frozenset((dict, abc.Mapping, abc.MutableMapping))


def _type_name(tp: Any) -> str:
    name = getattr(tp, "__name__", None)
    return name if isinstance(name, str) else repr(tp)


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _is_namedtuple(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def _is_record(tp: Any) -> bool:
    return isinstance(tp, type) and (
        dataclasses.is_dataclass(tp) or _is_typeddict(tp) or _is_namedtuple(tp)
    )


def _qualifier(origin: Any) -> str | None:
    """``Required`` / ``NotRequired`` / ``ReadOnly`` wrappers, by name (3.10 has none)."""
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


def _is_optional(hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return _is_optional(typing.get_args(hint)[0])
    if hint is None or hint is type(None):
        return True
    if origin is typing.Union or origin is types.UnionType:
        return type(None) in typing.get_args(hint)
    return False


class _Generator:
    """One schema generation: tracks types in progress to handle recursion."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.stack: list[Any] = []
        self.recursive: set[Any] = set()
        self.names: dict[Any, str] = {}
        self.defs: dict[str, dict[str, Any]] = {}

    def ref(self, tp: Any) -> str:
        if tp is self.root:
            return "#"
        name = self.names.get(tp)
        if name is None:
            base = _type_name(tp)
            name, n = base, 2
            while name in self.names.values():
                name, n = f"{base}_{n}", n + 1
            self.names[tp] = name
        return f"#/$defs/{name}"

    def schema(self, tp: Any, path: str) -> dict[str, Any]:
        if _is_record(tp):
            return self.record(tp, path)
        try:
            scalar = _SCALARS.get(tp)
        except TypeError:  # an unhashable annotation object
            scalar = None
        if scalar is not None:
            return dict(scalar)
        if tp is typing.Any or tp is object:
            return {}
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            return self.annotated(args[0], tp.__metadata__, path)
        if origin is typing.Union or origin is types.UnionType:
            return self.union(args, path)
        if origin is typing.Literal:
            return _literal(args, path)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return _enum(tp, path)
        base = origin if origin is not None else tp
        if base in _SEQUENCES:
            return self.array(tp, origin, args, path)
        if base in _MAPPINGS:
            return self.mapping(args, path)
        supertype = getattr(tp, "__supertype__", None)  # typing.NewType
        if supertype is not None:
            return self.schema(supertype, path)
        _fail(
            path,
            f"unsupported type {_type_name(tp)}; use str, int, float, bool, None, Literal, an "
            "Enum, list/tuple/Sequence, dict[str, X], a Union, Annotated, or a dataclass, "
            "TypedDict or NamedTuple",
        )

    def annotated(self, base: Any, metadata: tuple[Any, ...], path: str) -> dict[str, Any]:
        out = self.schema(base, path)
        for meta in metadata:
            if isinstance(meta, str):
                out["description"] = meta
            elif isinstance(meta, Mapping):
                frozen = freeze(meta, path)
                out.update({k: _thawed(v) for k, v in frozen.items()})
        return out

    def union(self, args: tuple[Any, ...], path: str) -> dict[str, Any]:
        branches = [self.schema(a, path) for a in args if a is not type(None)]
        if type(None) in args:
            branches.append({"type": "null"})
        return branches[0] if len(branches) == 1 else {"anyOf": branches}

    def array(self, tp: Any, origin: Any, args: tuple[Any, ...], path: str) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "array"}
        # tuple[()]: 3.10 spells its args ((),), 3.11+ (); bare typing.Tuple has none either.
        bare = tp is typing.Tuple  # noqa: UP006 - a comparison with the alias, not an annotation
        if origin is tuple and (args == ((),) or (not args and not bare)):
            out["maxItems"] = 0
            return out
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            out["prefixItems"] = [self.schema(a, f"{path}[{i}]") for i, a in enumerate(args)]
            out["minItems"] = out["maxItems"] = len(args)
            return out
        if args:
            out["items"] = self.schema(args[0], f"{path}[]")
        if (origin if origin is not None else tp) in _SETS:
            out["uniqueItems"] = True
        return out

    def mapping(self, args: tuple[Any, ...], path: str) -> dict[str, Any]:
        if not args:
            return {"type": "object", "additionalProperties": True}
        key, value = args
        key_base = typing.get_args(key)[0] if typing.get_origin(key) is typing.Annotated else key
        if key_base is not str:
            _fail(path, f"mapping keys must be str, got {_type_name(key_base)}")
        sub = self.schema(value, f"{path}.*")
        return {"type": "object", "additionalProperties": sub if sub else True}

    def record(self, tp: type, path: str) -> dict[str, Any]:
        if tp in self.recursive and tp is not self.root:
            return {"$ref": self.ref(tp)}
        if tp in self.stack:
            self.recursive.add(tp)
            return {"$ref": self.ref(tp)}
        self.stack.append(tp)
        try:
            out = self.fields_schema(tp, path)
        finally:
            self.stack.pop()
        if tp in self.recursive and tp is not self.root:
            name = self.ref(tp).rsplit("/", 1)[1]
            self.defs[name] = out
            return {"$ref": self.ref(tp)}
        return out

    def fields_schema(self, tp: type, path: str) -> dict[str, Any]:
        try:
            hints = typing.get_type_hints(tp, include_extras=True)
        except Exception as exc:  # NameError, TypeError...: annotations that don't evaluate
            _fail(path, f"cannot resolve the type hints of {tp.__name__} ({exc})")
        summary, docs = parse_docstring(_class_doc(tp))
        fields: list[tuple[str, Any, bool | None]] = []
        if dataclasses.is_dataclass(tp):
            for f in dataclasses.fields(tp):
                if f.init:
                    has_default = not (
                        f.default is dataclasses.MISSING
                        and f.default_factory is dataclasses.MISSING
                    )
                    fields.append((f.name, hints.get(f.name, f.type), not has_default))
        elif _is_typeddict(tp):
            required_keys: frozenset[str] = tp.__required_keys__  # type: ignore[attr-defined]
            for name, hint in hints.items():
                base, explicit = _strip_qualifiers(hint)
                fields.append((name, base, name in required_keys if explicit is None else explicit))
        else:
            defaults: Mapping[str, Any] = tp._field_defaults  # type: ignore[attr-defined]
            for name in tp._fields:  # type: ignore[attr-defined]
                if name not in hints:
                    _fail(f"{path}.{name}", "field has no type annotation")
                fields.append((name, hints[name], name not in defaults))
        return self.object(summary if tp is not self.root else "", fields, docs, path)

    def object(
        self,
        description: str,
        fields: list[tuple[str, Any, bool | None]],
        docs: Mapping[str, str],
        path: str,
    ) -> dict[str, Any]:
        props: dict[str, Any] = {}
        required: list[str] = []
        for name, hint, needed in fields:
            sub = self.schema(hint, f"{path}.{name}")
            doc = docs.get(name)
            if doc and "description" not in sub:  # Annotated[X, "..."] wins over the docstring
                sub["description"] = doc
            props[name] = sub
            if needed and not _is_optional(hint):
                required.append(name)
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


def _thawed(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thawed(v) for v in value]
    return value


def _json_types(values: list[Any]) -> str | list[str]:
    names: list[str] = []
    for v in values:
        name = _JSON_OF_PY[type(v)]
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
    _fail(
        path,
        f"{owner} has a value of type {type(v).__name__}; "
        "only str, int, float, bool and None are supported",
    )


def _literal(args: tuple[Any, ...], path: str) -> dict[str, Any]:
    values: list[Any] = []
    for a in args:
        v = _plain_value(a, path, "Literal")
        if not any(_canonical(v) == _canonical(seen) for seen in values):
            values.append(v)
    return {"type": _json_types(values), "enum": values}


def _enum(tp: type[enum.Enum], path: str) -> dict[str, Any]:
    values = [_plain_value(m.value, path, f"enum {tp.__name__}") for m in tp]
    if not values:
        _fail(path, f"enum {tp.__name__} has no members")
    return {"type": _json_types(values), "enum": values}


def schema_from_type(
    tp: Any, path: str | None = None
) -> tuple[dict[str, Any], str, dict[str, str]]:
    """The object schema of a dataclass, TypedDict or NamedTuple, with its docstring summary.

    Returns ``(schema, summary, field_docs)``; errors name ``Type.field.sub`` paths.
    """
    if not _is_record(tp):
        _fail(
            path or "tp",
            f"expected a dataclass, TypedDict or NamedTuple class, got {_type_name(tp)}",
        )
    gen = _Generator(tp)
    schema = gen.finish(gen.record(tp, path or tp.__name__))
    summary, docs = parse_docstring(_class_doc(tp))
    return schema, summary, docs


def schema_from_function(fn: Callable[..., Any]) -> tuple[dict[str, Any], str]:
    """The object schema of a function's parameters, and its docstring's first paragraph."""
    import functools
    import inspect

    root = getattr(fn, "__name__", None) or type(fn).__name__
    try:
        inspect.signature(fn)
    except (TypeError, ValueError):
        _fail(root, f"cannot read the signature of {root}")
    try:
        sig = inspect.signature(fn, eval_str=True)
    except Exception as exc:  # NameError, TypeError...: annotations that don't evaluate
        _fail(root, f"cannot resolve the type hints of {root} ({exc})")
    if isinstance(fn, functools.partial):
        doc = getattr(fn.func, "__doc__", None)
    elif isinstance(fn, type):
        doc = _class_doc(fn)
    else:
        doc = getattr(fn, "__doc__", None)
    summary, docs = parse_docstring(doc if isinstance(doc, str) else None)
    params = list(sig.parameters.values())
    if (
        params
        and params[0].name in ("self", "cls")
        and params[0].kind in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD)
    ):
        params = params[1:]
    gen = _Generator(None)
    fields: list[tuple[str, Any, bool | None]] = []
    for p in params:
        where = f"{root}.{p.name}"
        if p.kind is p.VAR_POSITIONAL or p.kind is p.VAR_KEYWORD:
            star = "*" if p.kind is p.VAR_POSITIONAL else "**"
            _fail(
                where, f"{star}{p.name} cannot be described by a JSON schema; name each parameter"
            )
        if p.kind is p.POSITIONAL_ONLY:
            _fail(where, "positional-only parameters cannot be passed as named arguments")
        if p.annotation is p.empty:
            _fail(where, "parameter has no type annotation")
        fields.append((p.name, p.annotation, p.default is p.empty))
    schema = gen.finish(gen.object("", fields, docs, root))
    return schema, summary
