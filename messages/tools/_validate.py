"""Checking a JSON value against a JSON Schema (what ``validate_arguments`` runs).

A subset of draft 2020-12: type, enum, const, properties, patternProperties,
additionalProperties, required, min/maxProperties, items, prefixItems,
min/maxItems, uniqueItems, min/maxLength, pattern, minimum, maximum,
exclusiveMinimum/Maximum, multipleOf, anyOf, oneOf, allOf, not, local ``$ref``.
Other keywords (format, title, default...) are annotations and are ignored.
Errors name the path, never the offending value.

Decisions:

* ``integer`` accepts ``1.0`` and rejects ``True``, as JSON Schema says.
  ``pattern`` uses Python's ``re`` (close to ECMA-262, not identical);
  ``multipleOf`` with floats allows a relative error of 1e-9 (0.3 is a multiple of 0.1).
* With ``nulls_absent`` (tool arguments), ``null`` for a property that its object
  schema declares but does not require counts as absent for that object schema
  (its properties, patternProperties, min/maxProperties): OpenAI's strict mode
  makes every optional parameter required and nullable, so models send ``null``
  for "left out".
* Paths are built only when a check fails: the success path formats no string.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from .._frozen import FrozenDict, FrozenList
from .._json import dumps_compact, json_type, show_name
from ..errors import ValidationError
from ._schema import MAX_DEPTH, compiled_pattern, is_number, resolve_ref

__all__ = ["canonical", "validate"]

# A path is the root's string or (parent path, property name or item index), rendered
# only on failure: checking a value formats no string.
Path = Any
_MISSING: Any = object()


def render_path(path: Path) -> str:
    """``arguments.items[2].name``: names escaped and cut (see show_name)."""
    parts: list[str] = []
    while type(path) is tuple:
        path, seg = path
        parts.append(f"[{seg}]" if type(seg) is int else "." + show_name(seg))
    parts.append(path)
    parts.reverse()
    return "".join(parts)


def _fail_at(path: Path, message: str) -> NoReturn:
    """Raise ValidationError at a lazily built path (rendered here, on failure)."""
    raise ValidationError(message, render_path(path))


def validate(
    value: Any, schema: Any, path: str = "arguments", *, nulls_absent: bool = False
) -> None:
    """Raise ValidationError (path set, value never shown) unless ``value`` fits ``schema``.

    ``value`` is a frozen JSON value (FrozenDict / tuples) and ``schema`` a checked,
    frozen schema; plain dicts and lists work too. ``nulls_absent``: a ``null`` for
    a declared, not required property counts as absent (tool arguments).
    """
    try:
        _Validator(schema, nulls_absent).check(value, schema, path, 0)
    except RecursionError:  # only when the caller's own stack is already deep
        _fail_at(path, "nested too deeply to validate")


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, (tuple, list)),
    "object": lambda v: isinstance(v, Mapping),
}


# (type name, exact Python type) pairs that always match: frozen and plain JSON values.
_EXACT_TYPES = frozenset(
    [
        ("string", str),
        ("integer", int),
        ("number", int),
        ("number", float),
        ("boolean", bool),
        ("null", type(None)),
        ("array", list),
        ("array", tuple),
        ("array", FrozenList),
        ("object", dict),
        ("object", FrozenDict),
    ]
)


def _check_value_type(value: Any, t: Any, path: Path) -> None:
    if type(t) is str:
        if _TYPE_TESTS[t](value):
            return
        expected = t
    else:
        for name in t:
            if _TYPE_TESTS[name](value):
                return
        expected = " or ".join(t)
    _fail_at(path, f"expected {expected}, got {json_type(value)}")


def canonical(value: Any) -> Any:
    """A hashable key equal for JSON-equal values (1 == 1.0, True != 1)."""
    if isinstance(value, bool):
        return ("b", value)
    if is_number(value):
        return ("n", value)
    if isinstance(value, (tuple, list)):
        return ("a", tuple([canonical(v) for v in value]))
    if isinstance(value, Mapping):
        return ("o", frozenset([(k, canonical(v)) for k, v in value.items()]))
    return ("s", value)


def _show(values: Any) -> str:
    """Schema-defined values (never the argument) for a message, shortened."""
    text = ", ".join(dumps_compact(v) for v in values)
    return text if len(text) <= 200 else text[:197] + "..."


def _is_array(value: Any) -> bool:
    return isinstance(value, (tuple, list))


def _is_object(value: Any) -> bool:
    # dict first: frozen arguments are dicts, and the Mapping ABC check is slow enough
    # to show on the "validate_arguments" rows of benchmarks/bench_tools.py
    return isinstance(value, (dict, Mapping))


class _Validator:
    """One validation run; holds the root schema that ``$ref`` resolves against.

    Each keyword method takes ``(value, keyword_value, schema, path, depth)`` and
    ignores values of a JSON type the keyword does not apply to.
    """

    __slots__ = ("nulls_absent", "root")

    def __init__(self, root: Any, nulls_absent: bool) -> None:
        self.root = root
        self.nulls_absent = nulls_absent

    def check(self, value: Any, s: Any, path: Path, depth: int) -> None:
        if s is True:
            return
        if s is False:
            _fail_at(path, "no value is allowed here (schema is false)")
        if depth > MAX_DEPTH:
            _fail_at(path, f"nested deeper than {MAX_DEPTH} levels")
        t = s.get("type")
        # One set lookup when the value's exact type is one the type name takes, instead
        # of a call and a test function per value (it shows on the "validate_arguments"
        # rows of benchmarks/bench_tools.py)
        if t is not None and (type(t) is not str or (t, type(value)) not in _EXACT_TYPES):
            _check_value_type(value, t, path)
        for key, kw in s.items():
            fn = _KEYWORDS.get(key)
            if fn is not None:
                fn(self, value, kw, s, path, depth)

    def absent(self, name: str, item: Any, s: Any) -> bool:
        """A null that counts as absent: for a declared property ``s`` does not require."""
        return (
            item is None
            and self.nulls_absent
            and name in (s.get("properties") or ())
            and name not in (s.get("required") or ())
        )

    def properties(self, value: Any, props: Any, s: Any, path: Path, d: int) -> None:
        if _is_object(value):
            for name, sub in props.items():
                item = value.get(name, _MISSING)
                if item is not _MISSING and not self.absent(name, item, s):
                    self.check(item, sub, (path, name), d + 1)

    def pattern_properties(self, value: Any, pats: Any, s: Any, path: Path, d: int) -> None:
        if _is_object(value):
            for pat, sub in pats.items():
                search = compiled_pattern(pat).search
                for name, item in value.items():
                    if search(name) and not self.absent(name, item, s):
                        self.check(item, sub, (path, name), d + 1)

    def additional_properties(self, value: Any, extra: Any, s: Any, path: Path, d: int) -> None:
        if not _is_object(value) or extra is True:
            return
        props = s.get("properties") or ()
        pats = [compiled_pattern(p).search for p in s.get("patternProperties") or ()]
        for name, item in value.items():
            if name in props or (pats and any(search(name) for search in pats)):
                continue
            if extra is False:
                _fail_at((path, name), "unexpected property (additionalProperties is false)")
            self.check(item, extra, (path, name), d + 1)

    def required(self, value: Any, names: Any, s: Any, path: Path, d: int) -> None:
        if _is_object(value):
            for name in names:
                if name not in value:
                    _fail_at((path, name), "required property is missing")

    def present(self, value: Any, s: Any) -> int:
        """How many properties ``value`` has, nulls that count as absent not counted."""
        n = len(value)
        if self.nulls_absent:
            n -= sum(1 for name, item in value.items() if self.absent(name, item, s))
        return n

    def min_properties(self, value: Any, n: Any, s: Any, path: Path, d: int) -> None:
        if _is_object(value):
            count = self.present(value, s)
            if count < n:
                _fail_at(path, f"object has {count} properties, fewer than minProperties {n}")

    def max_properties(self, value: Any, n: Any, s: Any, path: Path, d: int) -> None:
        if _is_object(value) and len(value) > n:
            count = self.present(value, s)
            if count > n:
                _fail_at(path, f"object has {count} properties, more than maxProperties {n}")

    def items(self, value: Any, items: Any, s: Any, path: Path, d: int) -> None:
        if not _is_array(value):
            return
        if isinstance(items, (tuple, list)):  # the draft-07 form of prefixItems
            if "prefixItems" not in s:
                self.prefix_items(value, items, s, path, d)
            return
        prefix = s.get("prefixItems")
        for i in range(len(prefix) if prefix else 0, len(value)):
            self.check(value[i], items, (path, i), d + 1)

    def prefix_items(self, value: Any, items: Any, s: Any, path: Path, d: int) -> None:
        if _is_array(value):
            for i in range(min(len(value), len(items))):
                self.check(value[i], items[i], (path, i), d + 1)

    def min_items(self, value: Any, n: Any, s: Any, path: Path, d: int) -> None:
        if _is_array(value) and len(value) < n:
            _fail_at(path, f"array has {len(value)} items, fewer than minItems {n}")

    def max_items(self, value: Any, n: Any, s: Any, path: Path, d: int) -> None:
        if _is_array(value) and len(value) > n:
            _fail_at(path, f"array has {len(value)} items, more than maxItems {n}")

    def unique_items(self, value: Any, flag: Any, s: Any, path: Path, d: int) -> None:
        if flag and _is_array(value):
            seen: set[Any] = set()
            for i, item in enumerate(value):
                key = canonical(item)
                if key in seen:
                    _fail_at((path, i), "duplicate item (uniqueItems is true)")
                seen.add(key)

    def min_length(self, value: Any, n: Any, s: Any, path: Path, d: int) -> None:
        if isinstance(value, str) and len(value) < n:
            _fail_at(path, f"string has length {len(value)}, shorter than minLength {n}")

    def max_length(self, value: Any, n: Any, s: Any, path: Path, d: int) -> None:
        if isinstance(value, str) and len(value) > n:
            _fail_at(path, f"string has length {len(value)}, longer than maxLength {n}")

    def pattern(self, value: Any, pat: Any, s: Any, path: Path, d: int) -> None:
        if isinstance(value, str) and compiled_pattern(pat).search(value) is None:
            _fail_at(path, "string does not match the schema's pattern")

    def minimum(self, value: Any, n: Any, s: Any, path: Path, d: int) -> None:
        if is_number(value) and value < n:
            _fail_at(path, f"number is less than minimum {n}")

    def maximum(self, value: Any, n: Any, s: Any, path: Path, d: int) -> None:
        if is_number(value) and value > n:
            _fail_at(path, f"number is greater than maximum {n}")

    def exclusive_minimum(self, value: Any, n: Any, s: Any, path: Path, d: int) -> None:
        if is_number(value) and value <= n:
            _fail_at(path, f"number is not greater than exclusiveMinimum {n}")

    def exclusive_maximum(self, value: Any, n: Any, s: Any, path: Path, d: int) -> None:
        if is_number(value) and value >= n:
            _fail_at(path, f"number is not less than exclusiveMaximum {n}")

    def multiple_of(self, value: Any, n: Any, s: Any, path: Path, d: int) -> None:
        if not is_number(value):
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
            _fail_at(path, f"number is not a multiple of {n}")

    def enum(self, value: Any, allowed: Any, s: Any, path: Path, d: int) -> None:
        key = canonical(value)
        for option in allowed:
            if canonical(option) == key:
                return
        _fail_at(path, f"expected one of {_show(allowed)}")

    def const(self, value: Any, const: Any, s: Any, path: Path, d: int) -> None:
        if canonical(value) != canonical(const):
            _fail_at(path, f"expected the constant {_show((const,))}")

    def matches(self, value: Any, s: Any, path: Path, d: int) -> ValidationError | None:
        try:
            self.check(value, s, path, d)
        except ValidationError as exc:
            return exc
        return None

    def no_branch(self, keyword: str, value: Any, branches: Any, path: Path, d: int) -> NoReturn:
        errors = [e for e in (self.matches(value, b, path, d + 1) for b in branches) if e]
        here = render_path(path)
        # When exactly one branch got past the type check, its error is the useful one.
        deeper = [e for e in errors if e.path != here]
        if len(deeper) == 1:
            raise deeper[0]
        parts = []
        for i, e in enumerate(errors[:4]):
            where = e.path[len(here) :] if e.path.startswith(here) else e.path
            parts.append(f"[{i}] {where + ': ' if where else ''}{e.message}")
        more = "; ..." if len(errors) > 4 else ""
        _fail_at(path, f"matches none of the {keyword} schemas ({'; '.join(parts)}{more})")

    def any_of(self, value: Any, branches: Any, s: Any, path: Path, d: int) -> None:
        for sub in branches:
            if self.matches(value, sub, path, d + 1) is None:
                return
        self.no_branch("anyOf", value, branches, path, d)

    def one_of(self, value: Any, branches: Any, s: Any, path: Path, d: int) -> None:
        matched = sum(1 for b in branches if self.matches(value, b, path, d + 1) is None)
        if matched == 0:
            self.no_branch("oneOf", value, branches, path, d)
        if matched > 1:
            _fail_at(path, f"matches {matched} of the oneOf schemas; exactly one must match")

    def all_of(self, value: Any, branches: Any, s: Any, path: Path, d: int) -> None:
        for sub in branches:
            self.check(value, sub, path, d + 1)

    def not_(self, value: Any, sub: Any, s: Any, path: Path, d: int) -> None:
        if self.matches(value, sub, path, d + 1) is None:
            _fail_at(path, "must not match the 'not' schema")

    def ref(self, value: Any, ref: Any, s: Any, path: Path, d: int) -> None:
        try:
            target = resolve_ref(ref, self.root, "")
        except ValidationError as exc:
            _fail_at(path, exc.message)
        self.check(value, target, path, d + 1)


# One dict lookup per schema keyword ("type" is checked first, in check()).
_KEYWORDS: dict[str, Callable[[_Validator, Any, Any, Any, Path, int], None]] = {
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
