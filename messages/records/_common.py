"""What the record formats share: reading a line's fields, keeping its other fields, losses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .._frozen import EMPTY, FrozenDict, freeze
from .._json import json_type
from ..errors import DecodeError, MessageError
from ..providers._base import GUARDED_ERRORS, Loss, format_error

if TYPE_CHECKING:
    from ..providers._base import Provider
    from ..tools._tool_definition import ToolDefinition
    from ._record import Record

__all__ = [
    "CONTAINERS",
    "Encoded",
    "Options",
    "foreign_extras",
    "formatted",
    "frozen",
    "key_at",
    "list_at",
    "object_at",
    "parsed",
    "provider",
    "split_tools",
    "weight_losses",
]

Encoded = tuple[dict[str, Any], list[Loss]]
"""A record written as one line's JSON value, and what that line could not carry."""

#: The extras keys that belong to one format's line: a batch line's request and url.
CONTAINERS: dict[str, str] = {
    "body": "openai-batch",
    "url": "openai-batch",
    "params": "anthropic-batch",
    "request": "gemini-batch",
}


class Options(NamedTuple):
    """How ``write`` writes: the batch url to force, and whether to write made-up stamps."""

    url: str | None = None
    """For ``openai-batch``: every line to this url (None: the record's own, else chat completions)."""
    stamps: bool = True
    """For ``canonical``: write each message's id and created_at (False: leave them out)."""


_providers: dict[str, Provider] = {}


def provider(name: str) -> Provider:
    """The provider called ``name``, looked up once per process (every record asks for it)."""
    found = _providers.get(name)
    if found is None:
        from ..providers import get_provider

        found = _providers[name] = get_provider(name)
    return found


def formatted(wire: Provider, record: Record) -> tuple[dict[str, Any], Sequence[Loss]]:
    """The request body ``wire`` writes for the record's messages and tools, and its losses.

    The provider's own formatter, without ``convert``'s checks of what it was given:
    a Record holds checked tuples of messages and tool definitions already, and this
    runs once per line of a dataset.
    """
    try:
        return wire._format(record.messages, record.tools)
    except MessageError:
        raise
    except GUARDED_ERRORS as exc:
        raise format_error(exc) from None


def object_at(
    obj: Mapping[str, Any], key: str, *, required: bool = True
) -> Mapping[str, Any] | None:
    """``obj[key]`` when it is a JSON object; DecodeError naming ``key`` otherwise."""
    value = obj.get(key)
    if value is None and not required and key not in obj:
        return None
    if type(value) is not dict:
        what = "is missing" if key not in obj else f"expected an object, got {json_type(value)}"
        raise DecodeError(what, key)
    return value


def list_at(obj: Mapping[str, Any], key: str, *, required: bool = True) -> list[Any] | None:
    """``obj[key]`` when it is a JSON array; DecodeError naming ``key`` otherwise."""
    value = obj.get(key)
    if value is None and not required and key not in obj:
        return None
    if type(value) is not list:
        what = "is missing" if key not in obj else f"expected an array, got {json_type(value)}"
        raise DecodeError(what, key)
    return value


def key_at(obj: Mapping[str, Any], name: str) -> str | None:
    """The record key at ``obj[name]``: a string, or None when absent."""
    value = obj.get(name)
    if value is None or type(value) is str:
        return value
    raise DecodeError(f"expected a string, got {json_type(value)}", name)


def frozen(values: Mapping[str, Any], skip: frozenset[str], path: str = "") -> FrozenDict:
    """The items of ``values`` whose key is not in ``skip``, deeply frozen (EMPTY when none)."""
    rest = {k: v for k, v in values.items() if k not in skip}
    if not rest:
        return EMPTY
    try:
        frozen_value: FrozenDict = freeze(rest, path)
    except MessageError as exc:
        raise DecodeError(exc.message, exc.path or path) from None
    return frozen_value


def parsed(provider: Provider, body: Mapping[str, Any], path: str) -> tuple[Any, ...]:
    """The messages of a request ``body`` as ``provider`` parses them, errors under ``path``."""
    try:
        return tuple(provider.parse_messages(body))
    except MessageError as exc:
        raise DecodeError(exc.message, _under(path, exc.path)) from None


def split_tools(
    provider: Provider, tools: list[Any], path: str
) -> tuple[tuple[ToolDefinition, ...], list[Any]]:
    """The function tools of a request's ``tools`` list, and the entries that are not
    function tools (a provider's built-in tools), kept as they are."""
    kept: list[Any] = []
    definitions: list[ToolDefinition] = []
    for i, entry in enumerate(tools):
        try:
            found = provider.parse_tools([entry])
        except MessageError as exc:
            raise DecodeError(exc.message, _under(f"{path}[{i}]", exc.path)) from None
        if found:
            definitions.extend(found)
        else:
            kept.append(entry)
    return tuple(definitions), kept


def _under(prefix: str, path: str) -> str:
    """``path`` (a provider's, relative to the body) under ``prefix``."""
    if not path or path == "$":
        return prefix
    if path.startswith("$"):
        path = path[1:].lstrip(".")
    if path.startswith("["):
        return prefix + path
    return f"{prefix}.{path}" if path else prefix


def foreign_extras(
    record: Record, target: str, own: frozenset[str], losses: list[Loss]
) -> dict[str, Any]:
    """The record's extras ``target`` writes at the top of its line, and a loss for the rest.

    A batch line's request options (``body``, ``params``, ``request``, ``url``) belong to
    their format: another format cannot carry them. Keys in ``own`` are the target's to
    place itself and are left out here. Batch formats carry no other top-level keys.
    """
    batch = target in CONTAINERS.values()
    out: dict[str, Any] = {}
    for key, value in record.extras.items():
        if key in own:
            continue
        owner = CONTAINERS.get(key)
        if owner is not None and owner != target:
            losses.append(Loss(key, f"the request options of the {owner} line", "not carried"))
        elif batch:
            losses.append(
                Loss(key, "a field of the line", f"not carried: {target} lines have no such field")
            )
        else:
            out[key] = value
    return out


def weight_losses(record: Record, target: str, losses: list[Loss]) -> None:
    """A loss for each message's fine-tuning ``weight``, which only ``openai-ft`` carries."""
    for i, message in enumerate(record.messages):
        if "weight" in message.extras:
            losses.append(
                Loss(f"messages[{i}].weight", "a fine-tuning weight", f"not carried: {target}")
            )
