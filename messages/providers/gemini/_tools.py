"""Tool declarations both ways: JSON Schema to Gemini's schema subset, and back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._frozen import MAX_DEPTH, thaw
from ...errors import DecodeError, ValidationError
from .._base import Losses, as_list, as_mapping, decode_error, freeze_decoded, opt_str
from ._wire import field, spelled

if TYPE_CHECKING:
    from ...tools import ToolDefinition

# -- JSON Schema -> Gemini -----------------------------------------------------------------

# Gemini's Schema object (an OpenAPI 3.0 subset) keeps these keywords as they are.
_SCHEMA_KEEP = frozenset(
    (
        "description",
        "title",
        "nullable",
        "maxItems",
        "minItems",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "propertyOrdering",
        "default",
        "minimum",
        "maximum",
    )
)
# Annotations with no effect on what the model may produce: dropped without a Loss.
_SCHEMA_SILENT = frozenset(
    (
        "$schema",
        "$id",
        "$comment",
        "$anchor",
        "$defs",
        "definitions",
        "examples",
        "readOnly",
        "writeOnly",
        "deprecated",
    )
)
_FORMATS: dict[str, frozenset[str]] = {
    "string": frozenset(("enum", "date-time")),
    "number": frozenset(("float", "double")),
    "integer": frozenset(("int32", "int64")),
}
#: Deeper schemas are cut (a Loss); a definition's schema is at most MAX_DEPTH deep anyway.
MAX_SCHEMA_DEPTH = 64


class _SchemaConverter:
    """Rewrites a JSON Schema into the subset Gemini's ``parameters`` accepts."""

    __slots__ = ("free_form", "losses", "root")

    def __init__(self, root: Mapping[str, Any], losses: Losses) -> None:
        self.root = root
        self.losses = losses
        # an object with no properties (a map: ``dict[str, X]``) met below the root:
        # Gemini's Schema rejects it ("properties: should be non-empty for OBJECT type")
        self.free_form = False

    def drop(self, path: str, key: str, rule: str = "") -> None:
        self.losses.add(
            f"{path}.{key}",
            f"schema keyword {key}",
            rule or "dropped: Gemini's schema subset rejects it",
        )

    def convert(
        self, node: Any, path: str, refs: tuple[str, ...] = (), depth: int = 0
    ) -> dict[str, Any]:
        if not isinstance(node, Mapping):
            if node is not True:
                self.losses.add(path, "boolean schema", "replaced by an unconstrained schema")
            return {}
        if depth > MAX_SCHEMA_DEPTH:
            self.losses.add(path, "schema nested too deeply", "replaced by an object schema")
            return {"type": "object"}
        ref = node.get("$ref")
        if type(ref) is str:
            return self.inline(node, ref, path, refs, depth)
        out, nullable = _type(node.get("type"))
        kind = out.get("type")  # as the node gives it (a keyword below may add one)
        for key, value in node.items():
            if key in ("type", "$ref"):
                continue
            if key in _SUBSCHEMA_KEYWORDS:
                found = self.subschemas(out, key, value, path, refs, depth)
            else:
                found = self.keyword(out, key, value, kind, path)
            nullable = found or nullable
        if nullable:
            out["nullable"] = True
        if kind == "object" and not out.get("properties"):
            self.free_form = True
        return out

    def subschemas(
        self,
        out: dict[str, Any],
        key: str,
        value: Any,
        path: str,
        refs: tuple[str, ...],
        depth: int,
    ) -> bool:
        """A keyword holding schemas, converted in turn; whether it made the node nullable."""
        if key == "properties" and isinstance(value, Mapping):
            out[key] = {
                name: self.convert(sub, f"{path}.properties.{name}", refs, depth + 1)
                for name, sub in value.items()
            }
        elif key == "items":
            if isinstance(value, Mapping):
                out[key] = self.convert(value, f"{path}.items", refs, depth + 1)
            else:
                self.drop(path, key, "dropped: Gemini has no tuple items")
        elif key in ("anyOf", "oneOf") and isinstance(value, (list, tuple)):
            return self.branches(out, key, value, path, refs, depth)
        elif key == "allOf" and isinstance(value, (list, tuple)) and len(value) == 1:
            for k, v in self.convert(value[0], f"{path}.allOf[0]", refs, depth + 1).items():
                out.setdefault(k, v)
        else:
            self.drop(path, key)
        return False

    def keyword(self, out: dict[str, Any], key: str, value: Any, kind: Any, path: str) -> bool:
        """Any other keyword: kept, rewritten or dropped; whether it made the node nullable."""
        if key in _SCHEMA_KEEP:
            out[key] = thaw(value)
        elif key == "const":
            if type(value) is str:
                out["enum"] = [value]
                out.setdefault("type", "string")
            else:
                self.drop(path, key, "dropped: Gemini enums hold strings only")
        elif key == "enum":
            return self.enum(out, value, path)
        elif key == "format":
            allowed = _FORMATS.get(kind) if type(kind) is str else None
            if allowed is not None and value in allowed:
                out[key] = value
            else:
                self.drop(path, key, "dropped: Gemini does not support this format here")
        elif key == "additionalProperties":
            # True / {} is what an open object means anyway; False is what strict adds,
            # and Gemini has no strict mode (see the package docstring)
            if value is not True and value != {} and value is not False:
                self.drop(path, key)
        elif key not in _SCHEMA_SILENT:
            self.drop(path, key)
        return False

    def inline(
        self, node: Mapping[str, Any], ref: str, path: str, refs: tuple[str, ...], depth: int
    ) -> dict[str, Any]:
        """A ``$ref`` node: the schema it points to (siblings win), or an object schema."""
        if ref in refs:
            self.losses.add(path, "recursive $ref", "replaced by an object schema")
            out: dict[str, Any] = {"type": "object"}
            if type(node.get("description")) is str:
                out["description"] = node["description"]
            return out
        target = _resolve(ref, self.root)
        if target is None:
            self.losses.add(f"{path}.$ref", "unresolvable $ref", "replaced by an object schema")
            return {"type": "object"}
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return self.convert(merged, path, (*refs, ref), depth + 1)

    def branches(
        self,
        out: dict[str, Any],
        key: str,
        value: Sequence[Any],
        path: str,
        refs: tuple[str, ...],
        depth: int,
    ) -> bool:
        """``anyOf`` / ``oneOf``: a null branch is ``nullable`` (returned), one branch is inlined."""
        nullable = False
        branches = []
        for j, sub in enumerate(value):
            if isinstance(sub, Mapping) and sub.get("type") == "null" and len(sub) == 1:
                nullable = True
            else:
                branches.append(self.convert(sub, f"{path}.{key}[{j}]", refs, depth + 1))
        if key == "oneOf" and len(branches) > 1:
            self.losses.add(f"{path}.oneOf", "schema keyword oneOf", "converted to anyOf")
        if len(branches) == 1:
            for k, v in branches[0].items():
                out.setdefault(k, v)
        elif branches:
            out["anyOf"] = out.get("anyOf", []) + branches
        return nullable

    def enum(self, out: dict[str, Any], value: Any, path: str) -> bool:
        """A string ``enum`` is kept; ``["a", null]`` is the strings and ``nullable`` (True)."""
        if isinstance(value, (list, tuple)):
            if all(type(v) is str for v in value):
                out["enum"] = list(value)
                return False
            if any(type(v) is str for v in value) and all(
                type(v) is str or v is None for v in value
            ):
                out["enum"] = [v for v in value if v is not None]
                return True
        self.drop(path, "enum", "dropped: Gemini enums hold strings only")
        return False


#: The keywords whose values are schemas.
_SUBSCHEMA_KEYWORDS = frozenset(("properties", "items", "anyOf", "oneOf", "allOf"))


def _type(t: Any) -> tuple[dict[str, Any], bool]:
    """A node's ``type`` (``[x, "null"]`` is ``x`` and nullable; several: ``anyOf``),
    and whether it allows null."""
    out: dict[str, Any] = {}
    if isinstance(t, (list, tuple)):
        kinds = [k for k in t if k != "null"]
        if len(kinds) == 1:
            out["type"] = kinds[0]
        elif kinds:
            out["anyOf"] = [{"type": k} for k in kinds]
        return out, len(kinds) < len(t)
    if t is not None:
        out["type"] = t
    return out, False


def _resolve(ref: str, root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for raw in ref[2:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, (list, tuple)) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node if isinstance(node, Mapping) else None


def declarations(tools: Sequence[ToolDefinition], losses: Losses) -> list[dict[str, Any]]:
    """The ``functionDeclarations`` of ``tools``; what the schema subset drops goes to ``losses``."""
    decls = []
    for k, d in enumerate(tools):
        decl: dict[str, Any] = {"name": d.name, "description": d.description}
        params = d.parameters
        if params.get("properties"):
            found = Losses()
            converter = _SchemaConverter(params, found)
            path = f"tools[0].functionDeclarations[{k}].parameters"
            schema = converter.convert(params, path)
            if converter.free_form:
                # a map (``dict[str, X]``), which ``parameters`` cannot express, goes
                # whole as JSON Schema (generateContent takes it; the Live API does not)
                decl["parametersJsonSchema"] = thaw(params)
            else:
                decl["parameters"] = schema
                losses.items.extend(found.items)
        elif _is_map(params.get("additionalProperties")):
            decl["parametersJsonSchema"] = thaw(params)
        decls.append(decl)
    return decls


def _is_map(additional: Any) -> bool:
    """Whether a root schema's ``additionalProperties`` lets the model send any keys."""
    return additional is True or isinstance(additional, Mapping)


# -- Gemini -> JSON Schema ------------------------------------------------------------------

#: Gemini ``Schema`` fields in their proto spelling -> the JSON Schema keyword.
_SCHEMA_NAMES = {
    "any_of": "anyOf",
    "max_items": "maxItems",
    "min_items": "minItems",
    "max_properties": "maxProperties",
    "min_properties": "minProperties",
    "max_length": "maxLength",
    "min_length": "minLength",
    "property_ordering": "propertyOrdering",
}
_SCHEMA_MAPS = frozenset(("properties", "$defs", "definitions", "patternProperties"))
_SCHEMA_SUBS = frozenset(
    ("items", "anyOf", "oneOf", "allOf", "prefixItems", "additionalProperties", "not")
)


def _json_schema(node: Any, proto: bool, depth: int) -> Any:
    """A (frozen) Gemini schema as JSON Schema: type names lower-cased and, for a
    ``Schema`` object (``proto``), its proto field names in JSON Schema spelling."""
    if depth > MAX_DEPTH:  # the input is frozen, so this is never met; the walk is bounded
        raise DecodeError(f"nested deeper than {MAX_DEPTH} levels", "")
    if isinstance(node, (list, tuple)):
        return [_json_schema(v, proto, depth + 1) for v in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for name, value in node.items():
        key: Any = _SCHEMA_NAMES.get(name, name) if proto else name
        if key == "type" and type(value) is str:
            out[key] = value.lower()
        elif key == "type" and isinstance(value, (list, tuple)):
            out[key] = [v.lower() if type(v) is str else v for v in value]
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {k: _json_schema(v, proto, depth + 2) for k, v in value.items()}
        elif key in _SCHEMA_SUBS:
            out[key] = _json_schema(value, proto, depth + 1)
        else:
            out[key] = value
    return out


def parse_tools(body_or_list: Any) -> list[ToolDefinition]:
    """The function declarations of a request body (or its ``tools`` list), ``strict=False``."""
    from ...tools import ToolDefinition

    if isinstance(body_or_list, Mapping):
        prefix = "tools"
        raw = body_or_list.get("tools")
        if raw is None:
            return []
        raw = as_list(raw, "tools")
    else:
        prefix = ""
        raw = as_list(body_or_list, "")
    out = []
    for i, item in enumerate(raw):
        path = f"{prefix}[{i}]"
        tool = as_mapping(item, path)
        decls = field(tool, "functionDeclarations")
        if decls is None:
            continue  # googleSearch, codeExecution...: not functions
        path = f"{path}.{spelled(tool, 'functionDeclarations')}"
        for k, d in enumerate(as_list(decls, path)):
            dpath = f"{path}[{k}]"
            decl = as_mapping(d, dpath)
            out.append(_declaration(decl, dpath, ToolDefinition))
    return out


def _declaration(decl: Mapping[str, Any], path: str, cls: type[ToolDefinition]) -> ToolDefinition:
    name = decl.get("name")
    if type(name) is not str:
        what = "missing" if name is None else "expected a string"
        raise DecodeError(what, f"{path}.name")
    description = opt_str(decl.get("description"), f"{path}.description") or name
    params = decl.get("parameters")
    proto = params is not None  # a Gemini Schema (OpenAPI subset), not JSON Schema
    key = "parameters" if proto else spelled(decl, "parametersJsonSchema")
    if not proto:
        params = field(decl, "parametersJsonSchema")
    if params is None:
        schema: Any = {"type": "object", "properties": {}}
    else:
        # frozen first: deeper than MAX_DEPTH is a DecodeError naming where, and the
        # walk below is bounded by it
        schema = _json_schema(freeze_decoded(params, f"{path}.{key}"), proto, 0)
    try:
        return cls(name, description, schema, strict=False)
    except ValidationError as exc:
        raise decode_error(exc, path) from None
