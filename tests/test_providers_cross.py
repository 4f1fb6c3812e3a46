"""Switching providers mid-conversation: OpenAI, then Ollama, then vLLM, then back.

The conversation starts from a parsed OpenAI response with parallel tool calls,
is continued by formatting it for Ollama and vLLM and parsing their responses
(fixture-shaped), and must end as a valid ConversationHistory in which every tool
result answers a call. Along the way each request body is checked for what the
rules say it must carry, and each provider reads its own request body back.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from messages import (
    ConversationHistory,
    Message,
    ToolCallMessage,
    ToolResultMessage,
)
from messages.providers import FinishReason, LossWarning, get_provider
from messages.providers._base import is_derived_id
from tests.conftest import fixture_entries, load_fixture

OPENAI = get_provider("openai")
OLLAMA = get_provider("ollama")
VLLM = get_provider("vllm")
GROQ = get_provider("groq")


def _fixture(name: str) -> Any:
    (entry,) = [e for e in fixture_entries() if e["file"] == name]
    return copy.deepcopy(load_fixture(entry))


def _answer(history: ConversationHistory, call_message: Message) -> None:
    """Run the (pretend) tools: one result per call, in reverse order."""
    for call in reversed(call_message.tool_calls):
        history.add(Message.tool_result(call.id, f"{call.get('city')}: 20C", tool_name=call.name))


def _paired(messages: tuple[Message, ...]) -> None:
    """Every tool result answers a call of the assistant turn before it, exactly once."""
    open_ids: set[str] = set()
    answered = 0
    for m in messages:
        if isinstance(m, ToolCallMessage):
            assert not open_ids, "a call was left unanswered"
            open_ids = {c.id for c in m.tool_calls}
        elif isinstance(m, ToolResultMessage):
            assert m.tool_call_id in open_ids
            open_ids.remove(m.tool_call_id)
            answered += 1
    assert not open_ids
    assert answered >= 6


def _ollama_calls_without_ids() -> dict[str, Any]:
    body: dict[str, Any] = _fixture("ollama/response_tool_calls_parallel.json")
    for call in body["message"]["tool_calls"]:
        del call["id"]  # the documented shape: no ids
    return body


def test_openai_to_ollama_to_vllm_and_back_ends_as_a_valid_history() -> None:
    history = ConversationHistory(
        [Message.system("You are a travel assistant."), Message.user("Weather in Paris and Tokyo?")]
    )

    # 1. OpenAI answers with two parallel calls.
    r1 = OPENAI.parse_response(_fixture("openai/response_tool_calls_parallel.json"))
    assert r1.finish_reason is FinishReason.TOOL_CALLS and len(r1.tool_calls) == 2
    history.add(r1.message)
    _answer(history, r1.message)

    # 2. Continue on Ollama: OpenAI's ids go along, arguments as objects, names on results.
    conversion = OLLAMA.convert(history.messages())
    assert conversion.losses == ()
    wire = conversion.body["messages"]
    assert [c["id"] for c in wire[2]["tool_calls"]] == [c.id for c in r1.tool_calls]
    assert wire[2]["tool_calls"][0]["function"]["arguments"] == {"city": "Paris", "unit": "celsius"}
    assert {(m["tool_call_id"], m["tool_name"]) for m in wire[3:5]} == {
        (c.id, c.name) for c in r1.tool_calls
    }
    assert [m.text for m in OLLAMA.parse_messages(conversion.body)] == [
        m.text for m in history.messages()
    ]
    r2 = OLLAMA.parse_response(_fixture("ollama/response_thinking.json"))
    assert r2.reasoning and r2.message.reasoning[0].provider == "ollama"
    history.add(r2.message)
    history.add(Message.user("And tomorrow?"))

    # 3. Continue on vLLM: Ollama's thinking goes back to Ollama only (a loss here).
    conversion = VLLM.convert(history.messages())
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[5].content[0]", "reasoning from ollama")
    ]
    wire = conversion.body["messages"]
    assert "reasoning" not in wire[5]
    assert wire[5]["content"] == r2.text
    assert VLLM.parse_messages(conversion.body)[5].reasoning == ()
    # ... and the whole conversation still goes back to Ollama with it
    wire = OLLAMA.convert(history.messages()).body["messages"]
    assert wire[5]["thinking"] == r2.reasoning
    r3 = VLLM.parse_response(_fixture("vllm/response_tool_calls_parallel.json"))
    assert len(r3.tool_calls) == 2
    history.add(r3.message)
    _answer(history, r3.message)

    # 4. Back on Ollama, whose calls carry no ids: derived ids pair the results.
    conversion = OLLAMA.convert(history.messages())
    assert conversion.losses == ()
    r4 = OLLAMA.parse_response(_ollama_calls_without_ids())
    ids = [c.id for c in r4.tool_calls]
    assert len(ids) == 2 and all(is_derived_id(i) for i in ids)
    history.add(r4.message)
    _answer(history, r4.message)

    # 5. Finish on vLLM: the derived ids are ordinary ids there (Ollama's thinking
    # is still a loss, and the only one).
    conversion = VLLM.convert(history.messages())
    assert [loss.path for loss in conversion.losses] == ["messages[5].content[0]"]
    sent = conversion.body["messages"]
    assert [c["id"] for c in sent[-3]["tool_calls"]] == ids
    assert sorted(m["tool_call_id"] for m in sent[-2:]) == sorted(ids)
    r5 = VLLM.parse_response(_fixture("vllm/response_text.json"))
    history.add(r5.message)

    history.validate()
    assert history.pending_tool_calls == ()
    _paired(history.messages())

    # Ollama's request leaves the derived ids out; reading it back pairs by name and order.
    body = OLLAMA.convert(history.messages()).body
    assert all("id" not in c for c in body["messages"][-4]["tool_calls"])
    reread = OLLAMA.parse_messages(body)
    ConversationHistory(reread).validate()
    _paired(tuple(reread))


def test_reasoning_crossing_into_openai_chat_is_reported() -> None:
    r = OLLAMA.parse_response(_fixture("ollama/response_thinking.json"))
    ms = [Message.system("s"), Message.user("q"), r.message]
    conversion = OPENAI.convert(ms)
    assert conversion.body["messages"][2] == {"role": "assistant", "content": r.text}
    (loss,) = conversion.losses
    assert loss.path == "messages[2].content[0]"
    with pytest.warns(LossWarning):
        OPENAI.format_request(ms)
    conversion = GROQ.convert(ms)
    assert "reasoning" not in conversion.body["messages"][2]
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[2].content[0]", "reasoning from ollama")
    ]


@pytest.mark.parametrize("target", ["openai", "groq", "vllm", "ollama"])
def test_each_provider_reads_its_own_request_back(target: str) -> None:
    provider = get_provider(target)
    r = OPENAI.parse_response(_fixture("openai/response_tool_calls_parallel.json"))
    ms: list[Message] = [Message.system("s"), Message.user("q"), r.message]
    ms += [Message.tool_result(c.id, "ok") for c in r.tool_calls]
    ms.append(Message.assistant("done"))
    back = provider.parse_messages(provider.convert(ms).body)
    assert [type(m) for m in back] == [type(m) for m in ms]
    assert [m.text for m in back] == [m.text for m in ms]
    assert back[2].tool_calls == r.tool_calls
    assert [m.tool_call_id for m in back[3:5]] == [c.id for c in r.tool_calls]  # type: ignore[attr-defined]
