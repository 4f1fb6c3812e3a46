"""The tool definitions of a provider's request body, and those that cannot be carried."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import MessageError
from .formats import is_provider
from .source import Document, Lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .._tool_definition import ToolDefinition

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

    parse: Callable[[Any], list[ToolDefinition]] | None = getattr(
        get_provider(fmt), "parse_tools", None
    )
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
        try:
            found = parse([entry])
        except MessageError as exc:
            declarations = entry.get("functionDeclarations") if type(entry) is dict else None
            if type(declarations) is list and len(declarations) > 1:
                # Gemini: one entry holds every declaration; each is read alone,
                # so one bad declaration does not take the others with it
                for k, one in enumerate(declarations):
                    found, problem = _one_tool(parse, {**entry, "functionDeclarations": [one]})
                    if problem is not None:
                        where = problem[0].replace(
                            "functionDeclarations[0]", f"functionDeclarations[{k}]", 1
                        )
                        dropped.append((f"tools[{i}]{where}", problem[1]))
                    tools.extend(found)
                continue
            where = f"tools[{i}]{exc.path[3:] if exc.path.startswith('[0]') else ''}"
            dropped.append((where, f"not carried: {exc.message}"))
            continue
        if not found:
            dropped.append((f"tools[{i}]", "not a function tool; not carried"))
        tools.extend(found)
    return tools, dropped


def _one_tool(
    parse: Callable[[Any], list[ToolDefinition]], entry: Any
) -> tuple[list[ToolDefinition], tuple[str, str] | None]:
    """The definitions of one tools entry, or none and ``(path below it, why)``."""
    try:
        return parse([entry]), None
    except MessageError as exc:
        return [], (
            exc.path[3:] if exc.path.startswith("[0]") else "",
            f"not carried: {exc.message}",
        )
