"""The tool definitions of a provider's request body, and those that cannot be carried."""

from __future__ import annotations

from ..errors import MessageError
from .formats import is_provider
from .source import Document, Lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..providers import Provider
    from ..tools import ToolDefinition

    _Parse = Callable[[Any], list[ToolDefinition]]

__all__ = ["body_tools"]


def body_tools(
    source: Document | Lines, fmt: str
) -> tuple[list[ToolDefinition], list[tuple[str, str]]]:
    """The tool definitions of a provider's request body, and ``(path, why)`` of those left out.

    A body's ``tools`` are carried to a provider output; a tool the input
    provider's ``parse_tools`` does not read (a server tool such as web search),
    or every tool when it has no ``parse_tools``, is reported instead of dropped
    without a word.
    """
    if not is_provider(fmt) or not isinstance(source, Document):
        return [], []
    body = source.value
    if type(body) is not dict or not body.get("tools"):
        return [], []
    from ..providers import get_provider

    provider = get_provider(fmt)
    parse: _Parse | None = getattr(provider, "parse_tools", None)
    if parse is None:
        return [], [("tools", f"not carried: reading {fmt} tool definitions is not supported")]
    raw = body["tools"]
    if type(raw) is not list:
        return [], [("tools", "not carried: not a list of tool definitions")]
    # Each entry parsed alone (a short list): one that gives no definition, or that
    # the provider cannot read, is reported and left out; the rest go along.
    tools: list[ToolDefinition] = []
    dropped: list[tuple[str, str]] = []
    for i, entry in enumerate(raw):
        found, left_out = _entry_tools(provider, parse, entry, f"tools[{i}]")
        tools.extend(found)
        dropped.extend(left_out)
    return tools, dropped


def _entry_tools(
    provider: Provider, parse: _Parse, entry: Any, path: str
) -> tuple[list[ToolDefinition], list[tuple[str, str]]]:
    """The definitions of one tools entry, and ``(path, why)`` of what it does not carry."""
    try:
        found = parse([entry])
    except MessageError as exc:
        declarations = entry.get("functionDeclarations") if type(entry) is dict else None
        if type(declarations) is list and len(declarations) > 1:
            return _declarations(parse, entry, declarations, path)
        return [], [(path + _below_entry(exc), f"not carried: {exc.message}")]
    if not found:
        return [], [(path, "not a function tool; not carried")]
    # keys the definitions have no field for (cache_control, input_examples...)
    written = provider.format_tools(found)
    return found, _unread(entry, written[0], path) if len(written) == 1 else []


def _declarations(
    parse: _Parse, entry: dict[str, Any], declarations: list[Any], path: str
) -> tuple[list[ToolDefinition], list[tuple[str, str]]]:
    """Gemini: one entry holds every declaration; each is read alone, so that one bad
    declaration does not take the others with it."""
    tools: list[ToolDefinition] = []
    dropped: list[tuple[str, str]] = []
    for k, one in enumerate(declarations):
        found, problem = _one_tool(parse, {**entry, "functionDeclarations": [one]})
        if problem is not None:
            where = problem[0].replace("functionDeclarations[0]", f"functionDeclarations[{k}]", 1)
            dropped.append((f"{path}{where}", problem[1]))
        tools.extend(found)
    return tools, dropped


def _below_entry(exc: MessageError) -> str:
    """The path of an error below the one entry parsed (``[0]...``), else ``""``."""
    return exc.path[3:] if exc.path.startswith("[0]") else ""


#: Keys that hold a tool's JSON schema: its contents are the definition's parameters
#: (closed or converted by the target), not keys to compare.
_SCHEMA_KEYS = frozenset(
    ("parameters", "input_schema", "parametersJsonSchema", "parameters_json_schema")
)


def _camel(key: str) -> str:
    """``function_declarations`` as ``functionDeclarations`` (Gemini reads both spellings)."""
    if "_" not in key:
        return key
    first, *rest = key.split("_")
    return first + "".join(word[:1].upper() + word[1:] for word in rest)


_NO_FIELD = "not carried: a tool definition has no field for it"
_DESCRIBED = "changed: a tool definition's description is never empty (the name stands in)"


def _unread(entry: Any, written: Any, path: str) -> list[tuple[str, str]]:
    """``(path, why)`` of each key of a tools entry that the definition read from it
    does not write back as it came (the entry as the provider's ``format_tools``
    writes that definition): a key it has no field for, an empty description."""
    if type(entry) is not dict or type(written) is not dict:
        return []
    out: list[tuple[str, str]] = []
    keys = {_camel(k): v for k, v in written.items() if type(k) is str}
    for key, value in entry.items():
        if type(key) is not str:
            continue  # JSON keys are strings; parse_tools refused anything else
        if key in _SCHEMA_KEYS:
            continue  # the definition's parameters (an empty schema may be left out)
        where = f"{path}.{key}"
        if _camel(key) not in keys:
            out.append((where, _NO_FIELD))
            continue
        back = keys[_camel(key)]
        if key == "description" and value == "" and back != "":
            out.append((where, _DESCRIBED))
        if type(value) is dict:
            out += _unread(value, back, where)
        elif type(value) is list and type(back) is list and len(value) == len(back):
            for j, (a, b) in enumerate(zip(value, back, strict=True)):
                out += _unread(a, b, f"{where}[{j}]")
    return out


def _one_tool(parse: _Parse, entry: Any) -> tuple[list[ToolDefinition], tuple[str, str] | None]:
    """The definitions of one tools entry, or none and ``(path below it, why)``."""
    try:
        return parse([entry]), None
    except MessageError as exc:
        return [], (_below_entry(exc), f"not carried: {exc.message}")
