"""Static checks of ``Toolbox``'s types: mypy --strict checks this file with assert_type.

It also runs under pytest, so every line here is exercised at run time too.
"""

from __future__ import annotations

import asyncio
from typing import assert_type

from messages import (
    InvalidToolCall,
    Message,
    Toolbox,
    ToolCall,
    ToolDefinition,
    ToolResult,
    ToolResultMessage,
)


def get_weather(city: str) -> str:
    """Weather for a city."""
    return city


async def get_time(zone: str) -> str:
    """Time in a zone."""
    return zone


def test_toolbox_types() -> None:
    lookup = ToolDefinition("lookup", "Look up.", {"type": "object", "properties": {}})
    box = Toolbox([get_weather, get_time, (lookup, lambda: "x")])
    assert_type(Toolbox().add(get_weather), ToolDefinition)
    assert_type(box.definitions, tuple[ToolDefinition, ...])
    assert_type(box.get("lookup"), ToolDefinition | None)
    other = ToolDefinition("other", "Other.", {"type": "object", "properties": {}})
    assert_type(box.add(other, lambda: 1), ToolDefinition)
    call = ToolCall("c1", "get_weather", {"city": "Oslo"})
    assert_type(box.run(call), ToolResult)
    assert_type(box.run(InvalidToolCall("c2", None, "{", "invalid JSON")), ToolResult)
    message = Message.assistant(tool_calls=[call])
    assert_type(box.run_all(message), tuple[ToolResultMessage, ...])
    assert_type(len(box), int)
    assert_type("lookup" in box, bool)

    async def main() -> None:
        assert_type(await box.arun(call), ToolResult)
        assert_type(await box.arun_all(message), tuple[ToolResultMessage, ...])

    asyncio.run(main())
