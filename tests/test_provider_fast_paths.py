"""Provider formatting fast paths give exactly what the general paths give.

Anthropic's ``convert`` first tries a fast path for plain conversations (text
turns, tool calls without extras, paired text results); it returns None for
anything else and the general path formats the conversation (Gemini has one path).
These tests hold the two to the same body and losses, over generated
conversations of every shape, and check that the fast path is really taken for
the plain ones (so the comparison means something).
"""

from __future__ import annotations

from typing import Any

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
from messages.providers import get_provider
from messages.providers.anthropic import _fast_body
from tests.conversations import any_sequences, conversations
from tests.strategies import messages as any_messages
from tests.subclass_copies import same_as_subclasses

PROVIDERS = ("anthropic",)
FAST = {"anthropic": _fast_body}


def _same(name: str, ms: list[Message]) -> None:
    p: Any = get_provider(name)
    fast = p.convert(ms)
    general = p._convert(ms)
    assert fast.body == general.body
    assert fast.losses == general.losses


def plain(turns: int = 3, system: bool = True) -> list[Message]:
    out: list[Message] = [SystemMessage("Be brief.")] if system else []
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
@pytest.mark.parametrize("system", [True, False])
def test_plain_conversations_take_the_fast_path_and_match(name: str, system: bool) -> None:
    ms = plain(system=system)
    assert FAST[name](ms) is not None
    _same(name, ms)
    p = get_provider(name)
    assert p.convert(ms).losses == ()


UNUSUAL: list[tuple[Any, tuple[str, ...]]] = [
    # (a change to a plain conversation, the providers whose fast path leaves it)
    (lambda ms: [*ms, SystemMessage("late")], PROVIDERS),  # moved to the system prompt
    (lambda ms: [*ms[:2], UserMessage("again"), *ms[2:]], PROVIDERS),  # two in one turn
    (lambda ms: [*ms, UserMessage("")], PROVIDERS),  # an empty message is omitted
    (lambda ms: [*ms, ToolResultMessage("nope", "x")], PROVIDERS),  # an unpaired result
    (lambda ms: [ms[0], UserMessage("hi", name="bo"), *ms[2:]], PROVIDERS),  # a name
    (lambda ms: [ms[0], UserMessage("hi", extras={"gemini": {"x": 1}}), *ms[2:]], PROVIDERS),
    (lambda ms: [ms[0], UserMessage(["a", "b"]), *ms[2:]], PROVIDERS),  # parts
    # an empty result: Anthropic leaves the content out, Gemini sends {"output": ""}
    (lambda ms: [*ms[:3], ToolResultMessage(ms[2].tool_call_ids[1], ""), *ms[4:]], ("anthropic",)),
    (lambda ms: [*ms, AssistantMessage("two"), AssistantMessage("in a row")], PROVIDERS),
]


@pytest.mark.parametrize("name", PROVIDERS)
@pytest.mark.parametrize(("change", "leaves"), UNUSUAL)
def test_anything_unusual_leaves_the_fast_path(
    name: str, change: Any, leaves: tuple[str, ...]
) -> None:
    ms = change(plain(turns=2))
    if name in leaves:
        assert FAST[name](ms) is None
    _same(name, ms)


@pytest.mark.parametrize("name", PROVIDERS)
def test_results_out_of_call_order(name: str) -> None:
    calls = tuple(ToolCall(f"c{k}", "f", {"k": k}) for k in range(4))
    ms: list[Message] = [
        UserMessage("go"),
        ToolCallMessage(calls),
        *(ToolResultMessage(f"c{k}", f"r{k}") for k in (2, 0, 3, 1)),
        AssistantMessage("done"),
    ]
    assert FAST[name](ms) is not None
    _same(name, ms)


@pytest.mark.parametrize("name", PROVIDERS)
@settings(max_examples=150, deadline=None)
@given(ms=conversations())
def test_valid_conversations_match(name: str, ms: list[Message]) -> None:
    _same(name, ms)


@pytest.mark.parametrize("name", PROVIDERS)
@settings(max_examples=150, deadline=None)
@given(ms=any_sequences())
def test_rule_breaking_sequences_match(name: str, ms: list[Message]) -> None:
    _same(name, ms)


@pytest.mark.parametrize("name", PROVIDERS)
@settings(max_examples=100, deadline=None)
@given(ms=st.lists(any_messages, max_size=8))
def test_messages_with_every_field_match(name: str, ms: list[Message]) -> None:
    _same(name, ms)


# -- every provider: subclasses (which skip every inline branch) format like their base ---


ALL = ("anthropic", "gemini")  # the chat-completions family: test_provider_chat_family


@pytest.mark.parametrize("name", ALL)
def test_plain_conversation_formats_like_its_subclass_copy(name: str) -> None:
    same_as_subclasses(name, plain())


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=80, deadline=None)
@given(ms=st.one_of(conversations(), any_sequences(), st.lists(any_messages, max_size=8)))
def test_generated_conversations_format_like_their_subclass_copies(
    name: str, ms: list[Message]
) -> None:
    same_as_subclasses(name, ms)
