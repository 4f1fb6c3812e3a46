"""Cohere tool definitions: the ``{"type": "function", "function": {...}}`` shape, both ways.

Cohere v2 takes the chat-completions function shape (``name``, ``description``,
``parameters`` as JSON Schema). It has no per-tool ``strict`` flag (its
``strict_tools`` request option applies to every tool): a strict definition is sent
with its closed schema, and tools read back are not strict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._chat_completions._tools import function_tools, parse_function_tools

if TYPE_CHECKING:
    from ...tools import ToolDefinition

__all__ = ["format_tools", "parse_tools"]


def format_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """``tools`` entries in the function shape, without a ``strict`` key."""
    return function_tools(tools, False)


def parse_tools(body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
    """The function tools of a request body (or of a ``tools`` list), ``strict=False``."""
    return parse_function_tools(body_or_list, False)
