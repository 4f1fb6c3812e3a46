"""Switching providers mid-conversation: OpenAI, then Ollama, then vLLM, then back; and
the OpenAI Responses API with each other provider, in both directions.

The conversation starts from a parsed OpenAI response with parallel tool calls,
is continued by formatting it for Ollama and vLLM and parsing their responses
(fixture-shaped), and must end as a valid ConversationHistory in which every tool
result answers a call. Along the way each request body is checked for what the
rules say it must carry, and each provider reads its own request body back.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from messages import (
    ConversationHistory,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallMessage,
    ToolResultMessage,
)
from messages.providers import ChatResponse, FinishReason, LossWarning, get_provider
from messages.providers._base import is_derived_id
from messages.providers.mistral import MistralProvider
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


@pytest.mark.parametrize(
    "target",
    ["openai", "groq", "vllm", "ollama", "openai_responses", "deepseek", "openrouter", "mistral"],
)
def test_each_provider_reads_its_own_request_back(target: str) -> None:
    provider = get_provider(target)
    r = OPENAI.parse_response(_fixture("openai/response_tool_calls_parallel.json"))
    ms: list[Message] = [Message.system("s"), Message.user("q"), r.message]
    ms += [Message.tool_result(c.id, "ok") for c in r.tool_calls]
    ms.append(Message.assistant("done"))
    if isinstance(provider, MistralProvider):
        # OpenAI's ids are not nine letters and digits: sent derived, mapped back on parse
        body = provider.convert(ms).body
        assert all(len(c["id"]) == 9 for c in body["messages"][2]["tool_calls"])
        back = provider.parse_messages(body, ids=provider.wire_ids(ms))
    else:
        back = provider.parse_messages(provider.convert(ms).body)
    assert [type(m) for m in back] == [type(m) for m in ms]
    assert [m.text for m in back] == [m.text for m in ms]
    assert back[2].tool_calls == r.tool_calls
    assert [m.tool_call_id for m in back[3:5]] == [c.id for c in r.tool_calls]  # type: ignore[attr-defined]


# -- the OpenAI Responses API with each other provider, both directions -----------------

RESPONSES = get_provider("openai_responses")
OTHERS = (
    "openai",
    "groq",
    "vllm",
    "ollama",
    "anthropic",
    "gemini",
    "deepseek",
    "openrouter",
    "mistral",
)
#: Providers whose parallel tool-call reply carries reasoning of their own.
REASONED_REPLIES = ("deepseek", "openrouter")


def _responses_reply() -> tuple[ChatResponse, list[str]]:
    """A Responses turn with reasoning, a built-in tool item and a call; its opaque strings."""
    body = _fixture("openai_responses/response_reasoning_tool_call.json")
    search = {
        "type": "web_search_call",
        "id": "ws_0123456789abcdef0123456789abcdef0123456789abcdef01",
        "status": "completed",
        "action": {"type": "search", "query": "Paris weather"},
    }
    body["output"].insert(1, search)
    opaque = [
        body["output"][0]["encrypted_content"],
        body["output"][0]["id"],
        search["id"],
        body["output"][2]["id"],
    ]
    return RESPONSES.parse_response(body), opaque


def _other_reply(name: str) -> ChatResponse:
    reply = get_provider(name).parse_response(_fixture(f"{name}/response_tool_calls_parallel.json"))
    assert len(reply.tool_calls) == 2
    return reply


def _reasoned(name: str) -> Message:
    """An answer of ``name`` that carries plain or signed reasoning of its own."""
    reasoning = ReasoningPart(
        "thinking out loud", "sig" if name in ("anthropic", "gemini") else None, provider=name
    )
    return Message.assistant([reasoning, TextPart("Done.")])


@pytest.mark.parametrize("other", OTHERS)
def test_responses_state_never_reaches_another_provider_and_comes_back_home(other: str) -> None:
    provider = get_provider(other)
    r, opaque = _responses_reply()
    history = ConversationHistory(
        [Message.system("s"), Message.user("Umbrella in Paris?"), r.message]
    )
    history.add(Message.tool_result(r.tool_calls[0].id, "18C, rain"))
    history.add(Message.assistant("Take one."))
    history.add(Message.user("And Tokyo?"))

    # To the other provider: reasoning, item ids and the built-in item are losses, never sent.
    there = provider.convert(history.messages())
    wire = json.dumps(there.body)
    assert all(s not in wire for s in opaque)
    whats = [loss.what for loss in there.losses if loss.path.startswith("messages[2]")]
    assert any("reasoning" in w for w in whats)
    assert any("web_search_call" in w for w in whats)
    if isinstance(provider, MistralProvider):
        back = provider.parse_messages(there.body, ids=provider.wire_ids(history.messages()))
    else:
        back = provider.parse_messages(there.body)
    assert r.tool_calls[0].id in json.dumps([m.to_dict() for m in back]) or other in (
        "gemini",
        "ollama",
    )

    # The other provider answers with two calls; the conversation goes back to Responses.
    reply = _other_reply(other)
    history.add(reply.message)
    for call in reply.tool_calls:
        history.add(Message.tool_result(call.id, "24C"))
    history.add(_reasoned(other))
    history.add(Message.user("Thanks."))
    history.validate()
    home = RESPONSES.convert(history.messages())
    sent = json.dumps(home.body)
    assert all(s in sent for s in opaque), "Responses state goes back to Responses"
    assert "thinking out loud" not in sent and '"sig"' not in sent
    reasoning_at = f"messages[{len(history) - 2}].content[0]"
    assert reasoning_at in [x.path for x in home.losses]
    for loss in home.losses:  # Gemini's thought signatures on its calls are not sent either,
        # nor the reasoning of a DeepSeek or OpenRouter reply
        assert (
            loss.path == reasoning_at
            or (other == "gemini" and loss.path.startswith("messages[6].tool_calls"))
            or (other in REASONED_REPLIES and loss.path.startswith("messages[6]"))
        )
    calls = [i["call_id"] for i in home.body["input"] if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in home.body["input"] if i.get("type") == "function_call_output"]
    assert (
        sorted(calls)
        == sorted(outputs)
        == sorted([r.tool_calls[0].id, *(c.id for c in reply.tool_calls)])
    )
    reread = RESPONSES.parse_messages(home.body)
    assert [m.text for m in reread] == [m.text for m in history.messages()]


@pytest.mark.parametrize("other", OTHERS)
def test_another_providers_turns_continue_on_responses_and_go_back(other: str) -> None:
    provider = get_provider(other)
    reply = _other_reply(other)
    history = ConversationHistory(
        [Message.system("s"), Message.user("Paris and Tokyo?"), reply.message]
    )
    for call in reply.tool_calls:
        history.add(Message.tool_result(call.id, "ok"))
    history.add(_reasoned(other))
    history.add(Message.user("Umbrella?"))

    here = RESPONSES.convert(history.messages())
    assert "thinking out loud" not in json.dumps(here.body)
    assert not any(i.get("type") == "reasoning" for i in here.body["input"])
    r, opaque = _responses_reply()
    history.add(r.message)
    history.add(Message.tool_result(r.tool_calls[0].id, "rain"))
    history.add(Message.assistant("Yes."))
    history.add(Message.user("Bye."))
    history.validate()

    there = provider.convert(history.messages())
    wire = json.dumps(there.body)
    assert all(s not in wire for s in opaque)
    # the other provider's own reasoning still goes back to it where its wire takes it
    if other in ("groq", "vllm", "ollama", "deepseek", "openrouter", "mistral"):
        assert "thinking out loud" in wire
    back = provider.parse_messages(there.body)
    assert [m.text for m in back if m.text][-1] == "Bye."


def test_chat_openai_and_responses_do_not_take_each_others_reasoning() -> None:
    chat = get_provider("openai")
    r, opaque = _responses_reply()
    ms = [Message.user("q"), r.message, Message.tool_result(r.tool_calls[0].id, "x")]
    conversion = chat.convert(ms)
    assert all(s not in json.dumps(conversion.body) for s in opaque)
    assert any(loss.path == "messages[1].content[0]" for loss in conversion.losses)
    plain = Message.assistant([ReasoningPart("mine", provider="openai"), TextPart("A.")])
    conversion = RESPONSES.convert([Message.user("q"), plain])
    assert conversion.body["input"][1] == {"role": "assistant", "content": "A."}
    assert [(x.path, x.what) for x in conversion.losses] == [
        ("messages[1].content[0]", "reasoning from openai")
    ]
