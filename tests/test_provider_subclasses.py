"""Anthropic and Gemini format a user's subclass of a message class exactly like its base.

A formatter picks its writer by the message class; a subclass must give the same
body and the same losses (the chat-completions family: test_provider_chat_family).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from tests.conversations import any_sequences, conversations
from tests.strategies import messages as any_messages
from tests.subclass_copies import same_as_subclasses

PROVIDERS = ("anthropic", "gemini", "openai_responses")


def plain(turns: int = 3) -> list[Message]:
    """A system prompt and turns of two parallel calls, their results and an answer."""
    out: list[Message] = [SystemMessage("Be brief.")]
    for t in range(turns):
        a = ToolCall(f"c{t}a", "get_weather", {"city": "Paris", "days": 2, "x": None})
        b = ToolCall(f"c{t}b", "get_weather", {"city": "Tokyo", "opts": {"unit": ["c"]}})
        out += [
            UserMessage(f"weather? {t}"),
            ToolCallMessage((a, b), "checking" if t % 2 else None),
            ToolResultMessage(b.id, "24C"),
            ToolResultMessage(a.id, "no such city", is_error=True),
            AssistantMessage("Paris 18C, Tokyo 24C."),
        ]
    return out


@pytest.mark.parametrize("name", PROVIDERS)
def test_plain_conversation_formats_like_its_subclass_copy(name: str) -> None:
    same_as_subclasses(name, plain())


@pytest.mark.parametrize("name", PROVIDERS)
@settings(max_examples=80, deadline=None)
@given(ms=st.one_of(conversations(), any_sequences(), st.lists(any_messages, max_size=8)))
def test_generated_conversations_format_like_their_subclass_copies(
    name: str, ms: list[Message]
) -> None:
    same_as_subclasses(name, ms)
