"""Tool definitions in the Responses shape, both directions.

A function tool is flat: ``{"type": "function", "name", "description",
"parameters", "strict"}``. ``strict`` is always sent, because the Responses API
makes a function strict when the key is absent (Chat Completions does the
opposite): a strict definition gets OpenAI's strict-mode schema (every property
required, optional ones nullable, objects closed); one whose schema strict mode
cannot express (a map, an untyped value) goes with ``strict: false`` (a Loss); a
definition with ``strict=False`` goes with ``strict: false`` and its schema as
given. Built-in tool definitions (``web_search``, ``file_search``, ``mcp``,
``custom``...) given as mappings pass through unchanged. Reading a request,
a function without ``strict`` is strict (the API's default); other tools are not
ToolDefinitions and are left out (the command line reports them).

The strict-mode schema comes from ``providers._openai_strict``, shared with Chat
Completions: both follow OpenAI's structured-outputs rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._frozen import thaw
from ...errors import DecodeError, ValidationError
from .._base import Losses
from .._openai_strict import strict_expressible, strict_schema
from ._read import array, mapping, opt_string, string

if TYPE_CHECKING:
    from ...tools import ToolDefinition

__all__ = ["format_tools", "parse_tools"]


def format_tools(
    tools: Sequence[ToolDefinition | Mapping[str, Any]], losses: Losses, prefix: str = "tools"
) -> list[dict[str, Any]]:
    """The ``tools`` of a request; built-in tool mappings pass through as plain copies."""
    out: list[dict[str, Any]] = []
    for k, tool in enumerate(tools):
        if isinstance(tool, Mapping):
            kind = tool.get("type")
            if not isinstance(kind, str) or not kind:
                raise ValidationError(
                    "a built-in tool definition needs a string type", f"{prefix}[{k}].type"
                )
            out.append(thaw(tool))
            continue
        try:
            params = tool.wire_parameters()
            entry: dict[str, Any] = {
                "type": "function",
                "name": tool.name,
                "description": tool.description,
            }
            strict = tool.strict
        except AttributeError:
            raise ValidationError(
                f"expected a ToolDefinition or a tool mapping, got {type(tool).__name__}",
                f"{prefix}[{k}]",
            ) from None
        if strict and not strict_expressible(params):
            strict = False
            losses.add(
                f"{prefix}[{k}]",
                "strict mode for a schema with open objects or untyped values",
                "sent with strict false: OpenAI strict mode closes every object",
            )
        entry["parameters"] = strict_schema(params) if strict else params
        entry["strict"] = strict
        out.append(entry)
    return out


def parse_tools(body_or_list: object) -> list[ToolDefinition]:
    """The function tools of a request body (or its ``tools`` list) as ToolDefinitions.

    A function without ``strict`` is strict, as the API treats it; a missing
    description is the name; missing parameters are an object without properties.
    Built-in and custom tools are not functions and are left out.
    """
    from ...tools import ToolDefinition

    if isinstance(body_or_list, Mapping):
        raw = body_or_list.get("tools")
        if raw is None:
            return []
        prefix = "tools"
    else:
        raw, prefix = body_or_list, ""
    out: list[ToolDefinition] = []
    for i, item in enumerate(array(raw, prefix)):
        path = f"{prefix}[{i}]"
        entry = mapping(item, path)
        if entry.get("type") != "function":
            continue
        name = string(entry.get("name"), f"{path}.name")
        description = opt_string(entry.get("description"), f"{path}.description") or name
        params = entry.get("parameters")
        if params is None:
            params = {"type": "object", "properties": {}}
        strict = entry.get("strict")
        if strict is not None and not isinstance(strict, bool):
            raise DecodeError("expected a boolean", f"{path}.strict")
        try:
            out.append(ToolDefinition(name, description, params, strict=strict is not False))
        except ValidationError as exc:
            raise DecodeError(exc.message, exc.at(path).path) from None
    return out
