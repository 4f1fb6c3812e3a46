"""Tools: definitions both ways, and ``tool_use`` blocks both ways (valid and invalid calls).

A ``tool_use`` block is read by one decoder (``read_call``) whatever carries it
(a response, a request, a finished stream): it raises DecodeError for what names
no call (no id, a name that is not a string) and makes an InvalidToolCall of a call
the model got wrong (a name that breaks the rule, input that is not an object, or
an object JSON cannot hold). Formatting sends an invalid call back as a
``tool_use`` with its name and ``input: {}`` (a loss: the wire needs an object),
or not at all when the API would refuse its name (a loss too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._build import tool_call
from ..._fields import tool_name_ok
from ..._frozen import EMPTY, FrozenDict, freeze_mapping
from ..._json import json_type
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ValidationError, ident
from .._base import (
    Losses,
    as_list,
    as_mapping,
    decode_error,
    opt_str,
    raw_json_text,
    required_str,
)
from ._common import is_state_key

if TYPE_CHECKING:
    from ...tools import ToolDefinition

_NAME_RULE = "^[a-zA-Z0-9_-]{1,64}$"


# -- reading tool_use ---------------------------------------------------------------------


def read_call(
    call_id: Any, name: Any, args: Any, raw: str | None, prefix: str, j: int
) -> ToolCall | InvalidToolCall:
    """The call of a ``tool_use`` block at ``prefix[j]`` (its id, name and input).

    ``raw`` is the input text when it was streamed (kept on the call). Paths are
    formatted only when something is wrong.
    """
    if type(call_id) is not str or not call_id:
        _bad_id(call_id, f"{prefix}[{j}]")
    if type(name) is not str:
        raise DecodeError(_missing_or_type(name), f"{prefix}[{j}].name")
    if not tool_name_ok(name):
        return _invalid(call_id, name, args, raw, f"{prefix}[{j}].name", _bad_name(name))
    if not isinstance(args, (dict, Mapping)):
        what = f"expected an object, got {json_type(args)}"
        return _invalid(call_id, name, args, raw, f"{prefix}[{j}].input", what)
    try:
        frozen = freeze_mapping(args, "")
    except ValidationError as exc:
        # an object holding what JSON cannot (NaN from a lenient decoder)
        where = decode_error(exc, f"{prefix}[{j}].input").path
        return _invalid(call_id, name, args, raw, where, exc.message)
    return tool_call(ToolCall, call_id, name, frozen, EMPTY, raw)


def _bad_id(call_id: Any, path: str) -> None:
    what = "must not be empty" if call_id == "" else _missing_or_type(call_id)
    raise DecodeError(what, f"{path}.id")


def _missing_or_type(value: Any) -> str:
    return "missing" if value is None else f"expected a string, got {json_type(value)}"


def _bad_name(name: str) -> str:
    return "an empty tool name" if not name else f"invalid tool name {ident(name)}"


def _invalid(
    call_id: str, name: str, args: Any, raw: str | None, where: str, what: str
) -> InvalidToolCall:
    if raw is None:
        raw = args if type(args) is str else ("" if args is None else raw_json_text(args))
    return InvalidToolCall(call_id, name, raw, f"{where}: {what}")


# -- writing tool_use -----------------------------------------------------------------------


def call_state_losses(extras: Mapping[str, Any], tag: str, path: str, losses: Losses) -> None:
    """A loss for each other provider's (or origin's) state on a call."""
    for key in extras:
        if key != tag and is_state_key(key):
            losses.add(
                f"{path}.extras.{key}",
                f"{key} state of the tool call",
                f"dropped: only re-sent to {key}",
            )


def invalid_tool_use(
    c: InvalidToolCall, tag: str, path: str, losses: Losses
) -> dict[str, Any] | None:
    """The ``tool_use`` block of an invalid call (input ``{}``), or None when it cannot go.

    Anthropic checks a ``tool_use`` name in a request against ``^[a-zA-Z0-9_-]{1,64}$``
    and its ``input`` must be an object: the raw arguments cannot be sent.
    """
    if c.extras:
        call_state_losses(c.extras, tag, path, losses)
    name = c.name
    if name is None or not tool_name_ok(name):
        losses.add(
            path,
            "invalid tool call whose name Anthropic refuses",
            f"dropped: a tool_use name must match {_NAME_RULE} (a result for it is dropped too)",
        )
        return None
    losses.add(
        f"{path}.raw_arguments",
        "arguments of an invalid tool call",
        "sent as input {}: Anthropic needs an object",
    )
    return {"type": "tool_use", "id": c.id, "name": name, "input": {}}


# -- definitions ----------------------------------------------------------------------------


def format_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """``tools`` entries: name, description and ``input_schema`` (closed when strict)."""
    return [
        {"name": d.name, "description": d.description, "input_schema": d.wire_parameters()}
        for d in tools
    ]


def parse_tools(body_or_list: Any) -> list[ToolDefinition]:
    """The function tools of a request body or a ``tools`` list (``strict=False``)."""
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
        t = as_mapping(item, path)
        schema = t.get("input_schema")
        if schema is None:
            continue  # a server tool (web search, code execution...): not a function
        name = required_str(t, "name", path)
        description = opt_str(t.get("description"), f"{path}.description") or name
        try:
            out.append(ToolDefinition(name, description, _schema(schema, path), strict=False))
        except ValidationError as exc:
            raise decode_error(exc, path) from None
    return out


def _schema(schema: Any, path: str) -> FrozenDict:
    if not isinstance(schema, Mapping):
        raise DecodeError(f"expected an object, got {json_type(schema)}", f"{path}.input_schema")
    try:
        return freeze_mapping(schema, f"{path}.input_schema")
    except ValidationError as exc:
        raise DecodeError(exc.message, exc.path) from None
