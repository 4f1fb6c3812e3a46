"""Tools: ``toolConfig`` both ways, and ``toolUse`` blocks both ways (valid and invalid calls).

``toolConfig`` is ``{"tools": [{"toolSpec": {"name", "description", "inputSchema":
{"json": schema}}}]}``. Bedrock refuses a request whose messages hold ``toolUse`` or
``toolResult`` blocks without a ``toolConfig``; when no tools are given and the
conversation holds such blocks, the formatter declares each tool the conversation
called, by name, with an open schema (``{"type": "object"}``): the request is
accepted and the model sees which tools it used, as it would have with them given.
A ``cachePoint`` entry of a parsed ``tools`` list is not a tool (it is skipped).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from ..._build import tool_call
from ..._fields import tool_name_ok
from ..._frozen import EMPTY, freeze_mapping
from ..._json import json_type
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ValidationError, ident
from .._base import Losses, as_list, as_mapping, decode_error, opt_str, raw_json_text, required_str
from ._common import is_state_key

if TYPE_CHECKING:
    from ...tools import ToolDefinition

_NAME_RULE: Final = "^[a-zA-Z0-9_-]{1,64}$"
_OPEN_SCHEMA: Final = {"type": "object", "properties": {}}


# -- reading toolUse ------------------------------------------------------------------------


def read_call(block: Any, raw: str | None, path: str) -> ToolCall | InvalidToolCall:
    """The call of a ``toolUse`` object at ``path`` (``raw``: its input text when streamed).

    DecodeError for what names no call (no id, a name that is not a string); an
    InvalidToolCall for a call the model got wrong (a name that breaks the rule,
    input that is not an object).
    """
    use = as_mapping(block, path)
    call_id = use.get("toolUseId")
    if type(call_id) is not str or not call_id:
        what = "must not be empty" if call_id == "" else _missing_or_type(call_id)
        raise DecodeError(what, f"{path}.toolUseId")
    name = use.get("name")
    if type(name) is not str:
        raise DecodeError(_missing_or_type(name), f"{path}.name")
    args = use.get("input")
    if not tool_name_ok(name):
        why = "an empty tool name" if not name else f"invalid tool name {ident(name)}"
        return _invalid(call_id, name, args, raw, f"{path}.name: {why}")
    if not isinstance(args, Mapping):
        return _invalid(
            call_id, name, args, raw, f"{path}.input: expected an object, got {json_type(args)}"
        )
    try:
        frozen = freeze_mapping(args, "")
    except ValidationError as exc:
        return _invalid(
            call_id, name, args, raw, f"{decode_error(exc, f'{path}.input').path}: {exc.message}"
        )
    return tool_call(ToolCall, call_id, name, frozen, EMPTY, raw)  # each field checked above


def _missing_or_type(value: Any) -> str:
    return "missing" if value is None else f"expected a string, got {json_type(value)}"


def _invalid(call_id: str, name: str, args: Any, raw: str | None, error: str) -> InvalidToolCall:
    if raw is None:
        raw = args if type(args) is str else ("" if args is None else raw_json_text(args))
    return InvalidToolCall(call_id, name, raw, error)


# -- writing toolUse -------------------------------------------------------------------------


def call_state_losses(extras: Mapping[str, Any], tag: str, path: str, losses: Losses) -> None:
    """A loss for each other provider's (or origin's) state on a call."""
    for key in extras:
        if key != tag and is_state_key(key):
            losses.add(
                f"{path}.extras.{key}",
                f"{key} state of the tool call",
                f"dropped: only re-sent to {key}",
            )


def tool_use(c: ToolCall, args: dict[str, Any]) -> dict[str, Any]:
    """The ``toolUse`` block of a call."""
    return {"toolUse": {"toolUseId": c.id, "name": c.name, "input": args}}


def invalid_tool_use(
    c: InvalidToolCall, tag: str, path: str, losses: Losses
) -> dict[str, Any] | None:
    """The ``toolUse`` block of an invalid call (input ``{}``), or None when its name is refused."""
    if c.extras:
        call_state_losses(c.extras, tag, path, losses)
    name = c.name
    if name is None or not tool_name_ok(name):
        rule = f"dropped: a toolUse name must match {_NAME_RULE} (a result for it is dropped too)"
        losses.add(path, "invalid tool call whose name Bedrock refuses", rule)
        return None
    losses.add(
        f"{path}.raw_arguments",
        "arguments of an invalid tool call",
        "sent as input {}: Bedrock needs an object",
    )
    return {"toolUse": {"toolUseId": c.id, "name": name, "input": {}}}


# -- definitions -----------------------------------------------------------------------------


def format_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """``toolConfig.tools`` entries: ``toolSpec`` with name, description and ``inputSchema.json``."""
    return [
        {
            "toolSpec": {
                "name": d.name,
                "description": d.description,
                "inputSchema": {"json": d.wire_parameters()},
            }
        }
        for d in tools
    ]


def derived_tools(names: Iterable[str]) -> list[dict[str, Any]]:
    """Specs of the tools a conversation called, by name, with an open schema (module docstring)."""
    return [{"toolSpec": {"name": n, "inputSchema": {"json": dict(_OPEN_SCHEMA)}}} for n in names]


def parse_tools(body_or_list: Any) -> list[ToolDefinition]:
    """The tool specs of a request body (its ``toolConfig``), a ``toolConfig`` or a ``tools`` list."""
    from ...tools import ToolDefinition

    raw, prefix = _tool_list(body_or_list)
    out = []
    for i, item in enumerate(raw):
        path = f"{prefix}[{i}]"
        entry = as_mapping(item, path)
        if "toolSpec" not in entry:
            continue  # a cachePoint, or a system tool: not a function
        spath = f"{path}.toolSpec"
        spec = as_mapping(entry["toolSpec"], spath)
        name = required_str(spec, "name", spath)
        description = opt_str(spec.get("description"), f"{spath}.description") or name
        schema_box = as_mapping(spec.get("inputSchema"), f"{spath}.inputSchema")
        schema = as_mapping(schema_box.get("json"), f"{spath}.inputSchema.json")
        try:
            frozen = freeze_mapping(schema, f"{spath}.inputSchema.json")
            out.append(ToolDefinition(name, description, frozen, strict=False))
        except ValidationError as exc:
            raise decode_error(exc, spath) from None
    return out


def _tool_list(body_or_list: Any) -> tuple[Sequence[Any], str]:
    if isinstance(body_or_list, Mapping):
        if "toolConfig" in body_or_list:
            config = body_or_list.get("toolConfig")
            if config is None:
                return [], ""
            config = as_mapping(config, "toolConfig")
            return as_list(config.get("tools", []), "toolConfig.tools"), "toolConfig.tools"
        if "tools" in body_or_list:
            return as_list(body_or_list["tools"], "tools"), "tools"
        return [], ""
    return as_list(body_or_list, ""), ""
