"""Provider state kept in ``extras`` may be edited by hand or stored corrupt.

Formatting reads each provider's own entry back (kept unknown blocks, key
positions, defaults, signatures). Whatever shape it has, ``convert`` and
``format_request`` give a body or a MessageError, never another exception.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    MessageError,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from messages.providers import get_provider

NAMES = ("openai", "groq", "vllm", "ollama", "anthropic", "gemini")

# The keys the providers keep their state under, and the keys inside it.
_KEYS = st.sampled_from(
    (
        "unknown",
        "keys",
        "index",
        "value",
        "path",
        "type",
        "within",
        "defaults",
        "system",
        "signature",
        "thought_signature",
        "thoughtSignature",
        "text",
        "parts",
        "refusal",
        "audio",
        "name",
        "id",
        "x",
    )
)
_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=4), st.sampled_from(NAMES)
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=12,
)
_EXTRAS = st.dictionaries(st.sampled_from(NAMES), _VALUES, max_size=2)


@st.composite
def _conversations(draw: st.DrawFn) -> list[Any]:
    e = [draw(_EXTRAS) for _ in range(5)]
    call = ToolCall("c1", "get_weather", {"city": "Paris"}, extras=draw(_EXTRAS))
    return [
        SystemMessage("s", extras=e[0]),
        UserMessage("u", extras=e[1]),
        ToolCallMessage([call], "t", extras=e[2]),
        ToolResultMessage("c1", [TextPart("r")], extras=e[3]),
        AssistantMessage("a", extras=e[4]),
    ]


@settings(max_examples=400, suppress_health_check=list(HealthCheck), deadline=None)
@given(_conversations(), st.sampled_from(NAMES))
def test_malformed_provider_state_never_crashes_a_formatter(messages: list[Any], name: str) -> None:
    provider = get_provider(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fmt in (provider.convert, provider.format_request):
            with contextlib.suppress(MessageError):
                fmt(messages)


def test_a_malformed_entry_is_skipped_not_fatal() -> None:
    # a kept "unknown" list that is not a list, and items that are not objects
    extras = {"anthropic": {"unknown": None, "keys": 3, "defaults": [1]}}
    ms = [
        UserMessage("u"),
        ToolCallMessage([ToolCall("c1", "f", {})]),
        ToolResultMessage("c1", "r", extras=extras),
    ]
    body = get_provider("anthropic").convert(ms).body
    assert body["messages"][-1] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "r"}],
    }
