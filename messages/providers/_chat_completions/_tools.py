"""Tool definitions on the chat-completions wire, both ways, and OpenAI strict mode.

``{"type": "function", "function": {"name", "description", "parameters"}}``
entries; with OpenAI's strict mode a strict definition also gets ``"strict": true``
and a schema rewritten to its rules (every object closed, every property required,
the optional ones nullable). Ollama shares the function shape without strict mode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import DecodeError, ValidationError
from .._base import Losses, as_list, as_mapping, opt_str
from .._openai_strict import strict_expressible, strict_schema
from ._readers import parser, req_str

if TYPE_CHECKING:
    from ...tools import ToolDefinition

__all__ = ["function_tools", "openai_strict_schema", "parse_function_tools", "strict_expressible"]


# -- OpenAI strict tool schemas -------------------------------------------------------

openai_strict_schema = strict_schema  # the name the family uses


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def function_tools(
    tools: Sequence[ToolDefinition], openai_strict: bool, losses: Losses | None = None
) -> list[dict[str, Any]]:
    """Tools in the ``{"type": "function", "function": {...}}`` shape.

    ``openai_strict``: a strict definition also gets ``"strict": true`` and the
    strict-mode schema rules (see :func:`openai_strict_schema`), unless its schema
    has what strict mode cannot express (a map: an object whose
    ``additionalProperties`` is a schema, an object without properties, or a
    schema without a type, such as ``Any``): closing it would change what the
    model may send, so it goes with ``"strict": false``, a loss in ``losses``.
    Elsewhere a strict definition is sent with its closed schema and no ``strict`` key.
    """
    out: list[dict[str, Any]] = []
    for k, tool in enumerate(tools):
        try:
            params = tool.wire_parameters()
            fn: dict[str, Any] = {
                "name": tool.name,
                "description": tool.description,
                "parameters": params,
            }
            if openai_strict and tool.strict:
                if strict_expressible(params):
                    fn["parameters"] = openai_strict_schema(params)
                    fn["strict"] = True
                else:
                    fn["strict"] = False
                    if losses is not None:
                        losses.add(
                            f"tools[{k}]",
                            "strict mode for a schema with open objects or untyped values",
                            "sent with strict false: OpenAI strict mode closes every object",
                        )
        except AttributeError:
            raise ValidationError(
                f"expected a ToolDefinition, got {type(tool).__name__}", f"tools[{k}]"
            ) from None
        out.append({"type": "function", "function": fn})
    return out


@parser
def parse_function_tools(body_or_list: object, read_strict: bool) -> list[ToolDefinition]:
    """ToolDefinitions from ``{"type": "function", "function": {...}}`` entries.

    ``read_strict``: a ``strict: true`` entry gives a strict definition (else every
    definition is ``strict=False``, its schema kept as written).
    """
    from ...tools import ToolDefinition

    if isinstance(body_or_list, Mapping):
        prefix = "tools"
        raw: Any = body_or_list.get("tools")
        if raw is None:
            return []
    else:
        prefix = ""
        raw = body_or_list
    out: list[ToolDefinition] = []
    for i, item in enumerate(as_list(raw, prefix)):
        path = f"{prefix}[{i}]"
        entry = as_mapping(item, path)
        fn = entry.get("function")
        if entry.get("type", "function") != "function" or fn is None:
            continue  # a custom tool or another kind: not a function
        fn = as_mapping(fn, f"{path}.function")
        name = req_str(fn.get("name"), f"{path}.function.name")
        description = opt_str(fn.get("description"), f"{path}.function.description") or name
        params = fn.get("parameters")
        if params is None:
            params = {"type": "object", "properties": {}}
        strict = read_strict and fn.get("strict") is True
        try:
            out.append(ToolDefinition(name, description, params, strict=strict))
        except ValidationError as exc:
            raise DecodeError(exc.message, exc.at(f"{path}.function").path) from None
    return out
