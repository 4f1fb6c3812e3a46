"""Provider formatting fast paths give exactly what the general paths give.

Gemini's ``convert`` first tries a fast path for plain
conversations (text turns, tool calls without extras, paired text results); it
returns None for anything else and the general path formats the conversation.
These tests hold the two to the same body and losses, over generated
conversations of every shape, and check that the fast path is really taken for
the plain ones (so the comparison means something).
"""

from __future__ import annotations

from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from messages.providers import get_provider
from messages.providers.gemini import _fast_contents
from tests.conversations import any_sequences, conversations
from tests.strategies import messages as any_messages

PROVIDERS = ("gemini",)
FAST = {"gemini": _fast_contents}


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
    (
        lambda ms: [*ms[:2], ToolCallMessage((ToolCall("call_derived_" + "0" * 24, "f"),))],
        ("gemini",),
    ),
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


# -- Ollama: the inline branches of convert() against its general branches ---------------


def _same_ollama(ms: list[Message], monkeypatch: pytest.MonkeyPatch) -> None:
    from messages.providers import ollama

    p: Any = get_provider("ollama")
    inline = p.convert(ms)
    with monkeypatch.context() as patched:
        patched.setattr(ollama, "_FAST_TYPES", frozenset())
        general = p.convert(ms)
    assert inline.body == general.body
    assert inline.losses == general.losses


def test_ollama_plain_conversation_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    ms = plain()
    ms.insert(3, ToolCallMessage((ToolCall("call_derived_" + "0" * 24, "f", {}),)))
    ms.insert(4, ToolResultMessage("call_derived_" + "0" * 24, "ok", tool_name="f"))
    _same_ollama(ms, monkeypatch)


@settings(max_examples=100, deadline=None)
@given(ms=st.one_of(conversations(), any_sequences(), st.lists(any_messages, max_size=8)))
def test_ollama_generated_conversations_match(ms: list[Message]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same_ollama(ms, monkeypatch)


# -- every provider: subclasses (which skip every inline branch) format like their base ---


class _System(SystemMessage):
    __slots__ = ()


class _Developer(DeveloperMessage):
    __slots__ = ()


class _User(UserMessage):
    __slots__ = ()


class _Assistant(AssistantMessage):
    __slots__ = ()


class _Calls(ToolCallMessage):
    __slots__ = ()


class _Result(ToolResultMessage):
    __slots__ = ()


_SUB = {
    SystemMessage: _System,
    DeveloperMessage: _Developer,
    UserMessage: _User,
    AssistantMessage: _Assistant,
    ToolCallMessage: _Calls,
    ToolResultMessage: _Result,
}


def _as_subclass(m: Message) -> Message:
    sub: Any = object.__new__(_SUB[type(m)])
    sub.__setstate__(cast(Any, m).__getstate__())
    return sub  # type: ignore[no-any-return]


ALL = ("openai", "groq", "vllm", "ollama", "anthropic", "gemini")


def _same_as_subclasses(name: str, ms: list[Message]) -> None:
    p = get_provider(name)
    subs = [_as_subclass(m) for m in ms]
    assert [type(s).__mro__[1] for s in subs] == [type(m) for m in ms]
    inline, general = p.convert(ms), p.convert(subs)
    assert inline.body == general.body
    assert inline.losses == general.losses


@pytest.mark.parametrize("name", ALL)
def test_plain_conversation_formats_like_its_subclass_copy(name: str) -> None:
    _same_as_subclasses(name, plain())


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=80, deadline=None)
@given(ms=st.one_of(conversations(), any_sequences(), st.lists(any_messages, max_size=8)))
def test_generated_conversations_format_like_their_subclass_copies(
    name: str, ms: list[Message]
) -> None:
    _same_as_subclasses(name, ms)
