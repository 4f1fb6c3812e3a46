"""Tool definitions in the Interactions shape, both directions.

A function tool is flat: ``{"type": "function", "name", "description", "parameters"}``
with ``parameters`` the JSON Schema ``ToolDefinition.wire_parameters()`` gives (its
objects closed when the definition is strict; the API has no strict flag, and
``ToolDefinition.validate_arguments`` still checks the calls that come back). Built-in tools given as mappings (``{"type": "google_search"}``,
``code_execution``, ``url_context``, ``mcp_server``, ``file_search``...) pass through
unchanged. Reading a request, a missing description is the name and missing
parameters are an object without properties; built-in tools are not
ToolDefinitions and are left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._frozen import thaw
from ...errors import DecodeError, ValidationError
from .._base import Losses
from ._wire import array, mapping, opt_string, string

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
            entry: dict[str, Any] = {
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.wire_parameters(),
            }
        except AttributeError:
            raise ValidationError(
                f"expected a ToolDefinition or a tool mapping, got {type(tool).__name__}",
                f"{prefix}[{k}]",
            ) from None
        out.append(entry)
    return out


def parse_tools(body_or_list: object) -> list[ToolDefinition]:
    """The function tools of a request body (or its ``tools`` list), ``strict=False``."""
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
        path = f"{prefix}[{i}]" if prefix else f"[{i}]"
        entry = mapping(item, path)
        if entry.get("type") != "function":
            continue
        name = string(entry.get("name"), f"{path}.name")
        description = opt_string(entry.get("description"), f"{path}.description") or name
        params = entry.get("parameters")
        if params is None:
            params = {"type": "object", "properties": {}}
        try:
            out.append(ToolDefinition(name, description, params, strict=False))
        except ValidationError as exc:
            raise DecodeError(exc.message, exc.at(path).path) from None
    return out
