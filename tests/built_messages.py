"""Counting the messages ``with_content`` builds (the merge tests count them, not time them)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    UserMessage,
)


@contextmanager
def built_messages() -> Iterator[list[Message]]:
    """The messages ``with_content`` builds inside the ``with`` block."""
    made: list[Message] = []
    original: Callable[[Message, Any], Message] = Message.with_content
    classes = (SystemMessage, UserMessage, AssistantMessage, ToolCallMessage)
    assert all("with_content" not in c.__dict__ for c in classes)

    def counting(self: Message, content: Any) -> Message:
        out = original(self, content)
        made.append(out)
        return out

    setattr(Message, "with_content", counting)  # noqa: B010 - mypy refuses assigning a method
    try:
        yield made
    finally:
        setattr(Message, "with_content", original)  # noqa: B010
