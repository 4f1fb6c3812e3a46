"""OpenAI's strict mode for tool parameters, shared by both OpenAI wire formats.

Chat completions (``function.strict``) and the Responses API (``strict`` on a
function tool) take the same restricted JSON Schema: every object closed, every
property listed in ``required``, an optional one made nullable so that the model
sends ``null`` for "absent" (``ToolDefinition.validate_arguments`` and
``arguments_as`` read that null as absent).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .._frozen import thaw

__all__ = ["strict_expressible", "strict_schema"]

_SCHEMA_MAPS: Final = frozenset(("properties", "$defs", "definitions", "patternProperties"))
_SCHEMA_LISTS: Final = frozenset(("anyOf", "oneOf", "allOf", "prefixItems"))
_SCHEMA_ONE: Final = frozenset(("items", "not", "additionalItems", "contains"))
_SCHEMA_WORDS: Final = frozenset(("type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"))


def strict_schema(schema: Any) -> Any:
    """``schema`` rewritten for OpenAI strict mode (a new plain value; the input is not changed).

    Every object with ``properties`` gets ``additionalProperties: false`` and lists
    all its properties in ``required``; a property that was optional becomes
    nullable (``"type": [t, "null"]``, ``null`` added to an ``enum``, or
    ``anyOf: [schema, {"type": "null"}]``). The input was checked when its
    ToolDefinition was built (at most 150 levels deep).
    """
    if not isinstance(schema, Mapping):
        return thaw(schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {k: strict_schema(v) for k, v in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, (list, tuple)):
            out[key] = [strict_schema(v) for v in value]
        elif key in _SCHEMA_ONE:
            out[key] = strict_schema(value)
        else:
            out[key] = thaw(value)
    props = out.get("properties")
    if isinstance(props, dict) and (out.get("type") in (None, "object") or "properties" in schema):
        required = schema.get("required")
        needed = set(required) if isinstance(required, (list, tuple)) else set()
        out["properties"] = {k: v if k in needed else _nullable(v) for k, v in props.items()}
        out["required"] = list(props)
        out["additionalProperties"] = False
    elif out.get("type") == "object":
        out["additionalProperties"] = False
    return out


def _nullable(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    t = schema.get("type")
    out = dict(schema)
    if isinstance(t, str):
        if t != "null":
            out["type"] = [t, "null"]
    elif isinstance(t, list):
        if "null" not in t:
            out["type"] = [*t, "null"]
    else:
        any_of = schema.get("anyOf")
        if isinstance(any_of, list):
            if {"type": "null"} not in any_of:
                out["anyOf"] = [*any_of, {"type": "null"}]
            return out
        return {"anyOf": [schema, {"type": "null"}]}
    enum = out.get("enum")
    if isinstance(enum, list) and None not in enum:
        out["enum"] = [*enum, None]
    return out


def strict_expressible(schema: Any, depth: int = 0) -> bool:
    """False when OpenAI strict mode cannot express ``schema`` without changing it.

    Strict mode closes every object and needs every value typed, so a map (an
    object whose ``additionalProperties`` is a schema or true, or an object
    without ``properties``) and an untyped schema (``{}``, from ``Any``) cannot
    be sent strict.
    """
    if not isinstance(schema, Mapping) or depth > 64:
        return True
    if not any(word in schema for word in _SCHEMA_WORDS):
        return False  # {} or only annotations: any value
    extra = schema.get("additionalProperties")
    if extra is True or isinstance(extra, Mapping):
        return False
    if schema.get("type") == "object" and not schema.get("properties") and extra is not False:
        return False
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            subs: Any = value.values()
        elif key in _SCHEMA_LISTS and isinstance(value, (list, tuple)):
            subs = value
        elif key in _SCHEMA_ONE:
            subs = (value,)
        else:
            continue
        if not all(strict_expressible(v, depth + 1) for v in subs):
            return False
    return True
